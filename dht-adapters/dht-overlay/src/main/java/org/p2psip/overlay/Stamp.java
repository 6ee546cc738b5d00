package org.p2psip.overlay;

/**
 * What makes each frame on the wire unlike any other, so that {@link Replays} can tell a frame
 * sent once from the same bytes sent again: when its sender wrote it, on which direction of which
 * connection, and in what place there.
 *
 * @param sentAt   the sender's wall clock when it wrote the frame, ms since the epoch
 * @param channel  random id the writing side chose for its direction of the connection
 * @param sequence 1 for the first frame written in that direction, then one more per frame
 */
public record Stamp(long sentAt, long channel, long sequence) {
}
