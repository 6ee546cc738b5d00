package org.p2psip.front.nodes;

import java.nio.charset.StandardCharsets;

/**
 * A node's load as its answers to the front's probes report it: {@code P2PSIP-Load: cpu=C;cores=N}
 * (C the cores its process kept busy since its previous report, N the cores it may use; other
 * parameters are ignored). Read as a utilisation, C / N, which the dynamic split compares with
 * the front's own. Stateless.
 */
public final class NodeLoad {

    public static final String HEADER = "P2PSIP-Load";
    private static final byte[] NAME = (HEADER + ":").getBytes(StandardCharsets.US_ASCII);

    private NodeLoad() {
    }

    /** The utilisation a header value gives, or NaN if it gives none. */
    public static double parse(String value) {
        double cpu = Double.NaN;
        double cores = 1;
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
                }
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }
        return cpu >= 0 ? cpu / cores : Double.NaN;
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
