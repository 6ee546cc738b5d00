package org.p2psip.overlay;

import java.util.concurrent.CompletionStage;

/**
 * The routing layer's side of a transport: answers the requests peers send. Called on the
 * transport's event loop, so it must not block; a stage failed with a
 * {@link org.p2psip.dht.DhtException} is sent back as an error carrying its reason.
 */
@FunctionalInterface
public interface Responder {
    CompletionStage<byte[]> respond(String sender, int type, byte[] payload);
}
