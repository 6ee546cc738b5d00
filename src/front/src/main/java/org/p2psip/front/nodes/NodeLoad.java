package org.p2psip.front.nodes;

import java.nio.charset.StandardCharsets;

/**
 * A node's load as its answers to the front's probes report it: {@code P2PSIP-Load:
 * cpu=C;cores=N;queue=Q} (C the cores its process kept busy since its previous report, N the cores
 * it may use, Q the mean milliseconds its requests waited in its intake's queue; other parameters
 * are ignored). Read as a utilisation for the dynamic split to compare with the front's own: the
 * larger of C / N and the queue's, Q / (Q + {@value #SERVICE_MS}). The queue's is what a
 * single-server queue with that service time would be busy to make its requests wait Q on average
 * (wait = load / (1 - load) x service): a node that shares its cores with the front and other
 * nodes never keeps half of them busy however saturated the machine, but its requests wait, and
 * the wait grows without bound as it falls behind. A millisecond is the order of what a message
 * through the container costs; a wait of 9 ms reads as 0.9. Stateless.
 */
public final class NodeLoad {

    public static final String HEADER = "P2PSIP-Load";
    private static final byte[] NAME = (HEADER + ":").getBytes(StandardCharsets.US_ASCII);
    /** The service time, in milliseconds, at which a queue's wait is read as a utilisation. */
    static final double SERVICE_MS = 1.0;

    private NodeLoad() {
    }

    /** The utilisation a header value gives, or NaN if it gives none. */
    public static double parse(String value) {
        double cpu = Double.NaN;
        double cores = 1;
        double queue = Double.NaN;
        for (String part : value.split(";")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String name = part.substring(0, eq).strip();
            try {
                double number = Double.parseDouble(part.substring(eq + 1).strip());
                if (name.equalsIgnoreCase("cpu")) {
                    cpu = number;
                } else if (name.equalsIgnoreCase("cores") && number >= 1) {
                    cores = number;
                } else if (name.equalsIgnoreCase("queue")) {
                    queue = number;
                }
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        double cpuShare = cpu >= 0 ? cpu / cores : Double.NaN;
        double queueShare = queue >= 0 ? queue / (queue + SERVICE_MS) : Double.NaN;
        if (Double.isNaN(cpuShare) || Double.isNaN(queueShare)) {
            return Double.isNaN(cpuShare) ? queueShare : cpuShare;
        }
        return Math.max(cpuShare, queueShare);
    }

    /** The utilisation in a probe answer's bytes (the header at the start of a line, its name's case as written here), or NaN. */
    public static double find(byte[] message) {
        outer:
        for (int i = 2; i + NAME.length < message.length; i++) {
            if (message[i - 1] != '\n') {
                continue;
            }
            for (int j = 0; j < NAME.length; j++) {
                if ((message[i + j] | 0x20) != (NAME[j] | 0x20)) {
                    continue outer;
                }
            }
            int end = i + NAME.length;
            while (end < message.length && message[end] != '\r' && message[end] != '\n') {
                end++;
            }
            return parse(new String(message, i + NAME.length, end - i - NAME.length, StandardCharsets.US_ASCII));
        }
        return Double.NaN;
    }
}
