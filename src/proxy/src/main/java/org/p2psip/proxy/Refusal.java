package org.p2psip.proxy;

/**
 * Every final answer the proxy gives itself instead of proxying, with its status and reason
 * phrase: the one table of them. {@link #counter} names it in the node's counters; a refusal
 * that points at a mistake of the caller or of a registration is {@link #logged} once.
 */
public enum Refusal {
    /** RFC 3261 §16.3 step 3: Max-Forwards spent. */
    TOO_MANY_HOPS(483, "Too Many Hops", "too-many-hops", true),
    /** §16.5: the AOR was never registered, or was forgotten after its retention. */
    NOT_FOUND(404, "Not Found", "route-404", false),
    /** §16.5: registered once, no binding live now. */
    UNAVAILABLE(480, "Temporarily Unavailable", "route-480", false),
    /** RFC 5630 §3.1.3: a sips: request, and none of the live bindings is sips:. */
    NO_SECURE_CONTACT(480, "No Secure Contact", "route-480-no-sips", false),
    /** §16.3 step 4's loop: every live binding is this node itself. */
    LOOP(482, "Loop Detected", "loop-detected", true);

    public final int status;
    public final String reason;
    public final String counter;
    public final boolean logged;

    Refusal(int status, String reason, String counter, boolean logged) {
        this.status = status;
        this.reason = reason;
        this.counter = counter;
        this.logged = logged;
    }
}
