package org.p2psip.sipload;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * --hold: after the last registration, the phones stay: their connections open, answering calls
 * and sending keep-alives, for a while or until a signal. A response that still comes answers no
 * transaction (a stray); a connection the server closes is counted by the transport and let go.
 */
final class Hold implements LoadTransport.Listener {
    private static final long PERIOD_NANOS = 1_000_000_000L;
    private final LoadTransport transport;
    private final Stop stop;
    private final PrintStream progress;
    private long strays;

    Hold(LoadTransport transport, Stop stop, PrintStream progress) {
        this.transport = transport;
        this.stop = stop;
        this.progress = progress;
    }

    /** Holds for {@code seconds} (0: until a signal); returns the responses that came meanwhile. */
    long run(double seconds, List<Phone> phones) throws IOException {
        long origin = System.nanoTime();
        long end = seconds > 0 ? origin + (long) (seconds * 1e9) : Long.MAX_VALUE;
        long nextLine = origin + PERIOD_NANOS;
        while (!stop.requested()) {
            long now = System.nanoTime();
            if (now >= end) {
                break;
            }
            if (now >= nextLine) {
                line(now - origin, phones);
                nextLine += PERIOD_NANOS;
            }
            transport.await(Math.min(end, nextLine), this);
        }
        return strays;
    }

    private void line(long elapsedNanos, List<Phone> phones) {
        if (progress == null) {
            return;
        }
        ConnectionTally c = transport.connections();
        progress.printf(Locale.ROOT, "sipload progress phase=hold elapsed_s=%.1f connections_open=%d "
                        + "closed_by_server=%d keepalive_pings=%d keepalive_pongs=%d calls_answered=%d%n",
                elapsedNanos / 1e9, c.open, c.closedByServer, c.pings, c.pongs, Summary.callsAnswered(phones));
        progress.flush();
    }

    @Override
    public void response(Response response, long now) {
        strays++;
    }

    @Override
    public void lost(Phone phone, long now) {
        // counted by the transport; nothing of the load's was out on it
    }
}
