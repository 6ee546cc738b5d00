package org.p2psip.sipload;

import java.io.IOException;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The load's event loop on one thread and one UDP socket, no thread per registration: attempts
 * start on an open-loop schedule (attempt k at start + k / rate, whatever the answers do), each
 * on the next idle phone; responses are matched to their transaction by the branch of their top
 * Via; Timer E retransmits and Timer F gives up. A run ends when every attempt was started and
 * every started one ended.
 *
 * <p>Not thread-safe: one run at a time on the thread that made it.
 */
final class OpenLoop {
    private static final int DATAGRAM_BYTES = 65_535;
    private final DatagramChannel channel;
    private final Selector selector;
    private final Timing timing;
    private final ByteBuffer receiveBuffer = ByteBuffer.allocate(DATAGRAM_BYTES);
    private final Map<String, Transaction> open = new HashMap<>();
    private final PriorityQueue<Due> timers = new PriorityQueue<>();

    /** A timer entry; stale once its transaction ended or moved its due time (then skipped). */
    private record Due(long nanos, Transaction transaction) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            return Long.compare(nanos, other.nanos);
        }
    }

    /** {@code channel}: connected to the target and non-blocking. */
    OpenLoop(DatagramChannel channel, Timing timing) throws IOException {
        this.channel = channel;
        this.timing = timing;
        this.selector = Selector.open();
        channel.register(selector, SelectionKey.OP_READ);
    }

    /**
     * Starts {@code attempts} registrations at {@code rate} per second, each on the phone at the
     * head of {@code idle} (which gets it back at the end when the attempt ends), runs them to
     * their end and returns what they counted.
     */
    Tally run(RegisterFlow flow, ArrayDeque<Phone> idle, long attempts, double rate, Progress progress,
              AttemptLog log) throws IOException {
        var run = new Run(flow, idle, progress, log);
        double intervalNanos = 1e9 / rate;
        long origin = System.nanoTime();
        progress.begin(origin);
        if (log != null) {
            log.origin(origin);
        }
        long next = 0;
        while (next < attempts || run.inFlight > 0) {
            long now = System.nanoTime();
            while (next < attempts && origin + (long) (next * intervalNanos) <= now) {
                run.start(System.nanoTime());
                next++;
            }
            run.expire(now);
            run.receive();
            progress.maybe(now, run.tally);
            if (next >= attempts && run.inFlight == 0) {
                break; // the last attempt just ended: nothing left to wait for
            }
            long wake = Long.MAX_VALUE;
            if (next < attempts) {
                wake = origin + (long) (next * intervalNanos);
            }
            if (!timers.isEmpty()) {
                wake = Math.min(wake, timers.peek().nanos());
            }
            long waitNanos = wake - System.nanoTime();
            if (waitNanos <= 0) {
                selector.selectNow();
            } else {
                // Millisecond granularity: at high rates the attempts due meanwhile leave in a burst.
                selector.select(Math.max(1, waitNanos / 1_000_000));
            }
            selector.selectedKeys().clear();
        }
        return run.tally;
    }

    /** One run's state: its flow, phones, counters. */
    private final class Run {
        final RegisterFlow flow;
        final ArrayDeque<Phone> idle;
        final Progress progress;
        final AttemptLog log;
        final Tally tally = new Tally();
        long inFlight;

        Run(RegisterFlow flow, ArrayDeque<Phone> idle, Progress progress, AttemptLog log) {
            this.flow = flow;
            this.idle = idle;
            this.progress = progress;
            this.log = log;
        }

        void start(long now) throws IOException {
            Phone phone = idle.pollFirst();
            if (phone == null) {
                tally.notStarted++; // RFC 3261 §10.2: a phone never has two registrations out at once
                return;
            }
            var attempt = new Attempt(phone, now);
            tally.started(now);
            inFlight++;
            send(attempt, flow.first(attempt), now);
        }

        void send(Attempt attempt, Outgoing request, long now) throws IOException {
            var transaction = new Transaction(request.branch(), request.bytes(), attempt, now, timing);
            open.put(request.branch(), transaction);
            timers.add(new Due(transaction.dueNanos(), transaction));
            write(request.bytes());
        }

        /** Retransmissions and time-outs that are due. */
        void expire(long now) throws IOException {
            while (!timers.isEmpty() && timers.peek().nanos() <= now) {
                Due due = timers.poll();
                Transaction t = due.transaction();
                if (t.done || due.nanos() != t.dueNanos()) {
                    continue;
                }
                if (now >= t.deadlineNanos) {
                    close(t);
                    tally.timeouts++;
                    end(t.attempt, now, "timeout");
                    continue;
                }
                write(t.bytes);
                t.attempt.retransmissions++;
                tally.retransmissions++;
                t.retransmitted(now, timing);
                timers.add(new Due(t.dueNanos(), t));
            }
        }

        void receive() throws IOException {
            while (true) {
                receiveBuffer.clear();
                try {
                    if (channel.receive(receiveBuffer) == null) {
                        return;
                    }
                } catch (PortUnreachableException e) {
                    continue; // an ICMP error for an earlier datagram: the transaction's timers deal with it
                }
                Response response = Response.parse(receiveBuffer.array(), receiveBuffer.position());
                if (response != null) {
                    answer(response, System.nanoTime());
                }
            }
        }

        void answer(Response response, long now) throws IOException {
            Transaction t = open.get(response.branch());
            if (t == null) {
                tally.strays++;
                return;
            }
            if (response.isProvisional()) {
                t.proceeding(now, timing);
                timers.add(new Due(t.dueNanos(), t));
                return;
            }
            close(t);
            Attempt attempt = t.attempt;
            Reaction reaction = flow.onFinal(attempt, response);
            if (reaction instanceof Reaction.Send send) {
                if (attempt.answeredStale && response.status() == 401) {
                    tally.staleAnswered++;
                }
                send(attempt, send.request(), now);
            } else if (reaction instanceof Reaction.Failed failed) {
                tally.failedWith(failed.status());
                end(attempt, now, Integer.toString(failed.status()));
            } else {
                tally.completed++;
                if (attempt.unchallenged) {
                    tally.unchallenged++;
                }
                tally.latencies.record((now - attempt.startedNanos) / 1000);
                end(attempt, now, "ok");
            }
        }

        private void close(Transaction t) {
            t.done = true;
            open.remove(t.branch);
        }

        private void end(Attempt attempt, long now, String outcome) {
            inFlight--;
            idle.addLast(attempt.phone);
            if (log != null) {
                log.write(attempt, now, outcome);
            }
        }
    }

    private void write(byte[] bytes) throws IOException {
        try {
            channel.write(ByteBuffer.wrap(bytes));
        } catch (PortUnreachableException e) {
            // an ICMP error for an earlier datagram (nothing listened then): Timer E sends this one again
        }
    }
}
