package org.p2psip.sipload;

/**
 * Whether the persistent connections a run needs fit the process and the system: each is an open
 * file (the limit of ulimit -n, less {@link Proc#JVM_FILES} for the JVM) and a local port of a
 * source address (about 28,000 each with Linux's default range). Refused before any is opened,
 * rather than failing thousands of registrations one by one.
 */
final class Capacity {

    private Capacity() {
    }

    /** What is wrong, or null when the run fits (or nothing could be read to check). */
    static String problem(LoadOptions options, int phones) {
        if (!options.stream() || !options.persistent()) {
            return null;
        }
        // A refresh run first primes every phone; otherwise attempts go round the phones from the first.
        long connections = options.mode() == Mode.REFRESH ? phones : Math.min(phones, options.plannedAttempts(phones));
        long files = Proc.openFileLimit();
        if (files > 0 && connections + Proc.JVM_FILES > files) {
            return connections + " persistent connections need " + (connections + Proc.JVM_FILES)
                    + " open files, and this process may open " + files + " (ulimit -n): run several sipload "
                    + "processes, each on its share of the users (--offset, --limit) and its own --sources";
        }
        long ports = Proc.ephemeralPorts();
        int sources = options.sources() == null ? 1 : options.sources().size();
        if (ports > 0 && connections > ports * sources) {
            return connections + " connections need more local ports than " + sources + " source address(es) have ("
                    + ports + " each, /proc/sys/net/ipv4/ip_local_port_range): give more with --sources A-B";
        }
        return null;
    }
}
