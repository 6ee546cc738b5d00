package org.p2psip.proxy;

/**
 * A URI read far enough for the proxy's choices: its scheme, and for a SIP URI its host and port
 * (-1 when it names none; host null for another scheme). The servlet reads it with the
 * container's parser, which also makes the branches, so both see the same URI. Immutable.
 */
public record UriParts(String scheme, String host, int port) {

    /** Whether the URI is a sips: URI (RFC 3261 §19.1: the scheme in any letter case). */
    public boolean secure() {
        return "sips".equalsIgnoreCase(scheme);
    }
}
