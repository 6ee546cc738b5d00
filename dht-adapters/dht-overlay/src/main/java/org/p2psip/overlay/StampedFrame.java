package org.p2psip.overlay;

/**
 * A frame as {@link FrameCodec#decode} read it: the message the routing layer sees, and the stamp
 * the transport judges it by before handing it on.
 */
public record StampedFrame(Frame frame, Stamp stamp) {
}
