package org.p2psip.metrics;

/**
 * What a process says about itself at {@code /self.json}: the one shape the status pages read,
 * a node's and a front's alike.
 *
 * @param share   of the key space, 0 to 1; NaN when the process has none (written null)
 * @param records held; null when the process holds none
 */
public record SelfReport(String role, String sip, String backend, boolean ready, double share, Long records) {

    /** The JSON object, with {@code more} (further {@code ,"name":value} fields, or "") at its end. */
    public String json(String more) {
        return "{\"role\":" + Json.string(role) + ",\"name\":" + Json.string(role + " " + sip)
                + ",\"sip\":" + Json.string(sip) + ",\"backend\":" + Json.string(backend) + ",\"ready\":" + ready
                + ",\"share\":" + Json.number(share) + ",\"records\":" + (records == null ? "null" : records)
                + ",\"pid\":" + ProcessHandle.current().pid() + more + "}";
    }
}
