package org.p2psip.sipload;

/** A request ready to go: its transaction's branch and its bytes. */
record Outgoing(String branch, byte[] bytes) {
}
