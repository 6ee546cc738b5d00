package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.overlay.ConnectionKeys.Side;

/** The keys of a connection: the same at both ends, distinct for every use, connection, secret and sender. */
class ConnectionKeysTest {

    private final byte[] secret = RawPeer.bytes("keys-test-secret");
    private final byte[] opener = ConnectionKeys.nonce();
    private final byte[] acceptor = ConnectionKeys.nonce();

    private static byte[] firstBatchMac(ConnectionKeys keys, Side writer) {
        byte[] batch = {0, 0, 0, 1, 2};
        return keys.batches(writer).next(Unpooled.wrappedBuffer(batch), 0, batch.length);
    }

    @Test
    void bothEndsDeriveTheSameKeysFromTheSameHandshake() {
        var atOpener = ConnectionKeys.derive(secret, opener, acceptor, "127.0.0.1:1");
        var atAcceptor = ConnectionKeys.derive(secret.clone(), opener.clone(), acceptor.clone(), "127.0.0.1:1");
        for (Side side : Side.values()) {
            assertArrayEquals(atOpener.proof(side), atAcceptor.proof(side));
            assertArrayEquals(firstBatchMac(atOpener, side), firstBatchMac(atAcceptor, side));
        }
    }

    @Test
    void everyProofAndDirectionHasItsOwnKeyAndAnyChangedInputChangesThemAll() {
        var keys = ConnectionKeys.derive(secret, opener, acceptor, "127.0.0.1:1");
        List<ConnectionKeys> others = List.of(
                ConnectionKeys.derive(RawPeer.bytes("another-secret"), opener, acceptor, "127.0.0.1:1"),
                ConnectionKeys.derive(secret, ConnectionKeys.nonce(), acceptor, "127.0.0.1:1"),
                ConnectionKeys.derive(secret, opener, ConnectionKeys.nonce(), "127.0.0.1:1"),
                ConnectionKeys.derive(secret, acceptor, opener, "127.0.0.1:1"),
                ConnectionKeys.derive(secret, opener, acceptor, "127.0.0.1:2"));
        Set<String> seen = new HashSet<>();
        for (ConnectionKeys k : concat(keys, others)) {
            for (Side side : Side.values()) {
                assertEquals(true, seen.add(Arrays.toString(k.proof(side))), "a proof repeated");
                assertEquals(true, seen.add(Arrays.toString(firstBatchMac(k, side))), "a batch MAC repeated");
            }
        }
    }

    @Test
    void aBatchMacDependsOnItsPlaceInTheDirection() {
        var mac = ConnectionKeys.derive(secret, opener, acceptor, "x").batches(Side.OPENER);
        byte[] batch = {0, 0, 0, 1, 2};
        byte[] first = mac.next(Unpooled.wrappedBuffer(batch), 0, batch.length);
        byte[] second = mac.next(Unpooled.wrappedBuffer(batch), 0, batch.length);
        assertFalse(Arrays.equals(first, second), "the same bytes as the second batch get another MAC");
    }

    private static List<ConnectionKeys> concat(ConnectionKeys first, List<ConnectionKeys> rest) {
        var all = new java.util.ArrayList<ConnectionKeys>();
        all.add(first);
        all.addAll(rest);
        return all;
    }
}
