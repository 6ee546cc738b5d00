package org.p2psip.sipload;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The load's event loop on one thread, no thread per registration: attempts start on an open-loop
 * schedule (attempt k at start + k / rate, whatever the answers do), each on the next idle phone;
 * responses are matched to their transaction by the branch of their top Via; Timer E retransmits
 * (over UDP) and Timer F gives up; a registration refused 503 with Retry-After waits in {@link
 * Resends}, its phone still busy, until its REGISTER goes again. A run ends when every attempt was
 * started and every started one ended, or when {@link Stop} says so. The {@link LoadTransport} moves
 * the bytes.
 *
 * <p>Not thread-safe: one run at a time on the thread that made it.
 */
final class OpenLoop {
    /** The longest wait between two looks at the stop flag and the progress line. */
    private static final long MAX_WAIT_NANOS = 100_000_000L;
    private final LoadTransport transport;
    private final Timing timing;
    private final Stop stop;
    private final Map<String, Transaction> open = new HashMap<>();
    private final PriorityQueue<Due> timers = new PriorityQueue<>();

    /** A timer entry; stale once its transaction ended or moved its due time (then skipped). */
    private record Due(long nanos, Transaction transaction) implements Comparable<Due> {
        @Override
        public int compareTo(Due other) {
            return Long.compare(nanos, other.nanos);
        }
    }

    OpenLoop(LoadTransport transport, Timing timing, Stop stop) {
        this.transport = transport;
        this.timing = transport.retransmits() ? timing : timing.reliable();
        this.stop = stop;
    }

    /**
     * Starts {@code attempts} registrations at {@code rate} per second, each on the phone at the
     * head of {@code idle} (which gets it back at the end when the attempt ends), runs them to
     * their end and returns what they counted.
     */
    Tally run(RegisterFlow flow, ArrayDeque<Phone> idle, long attempts, double rate, Progress progress,
              AttemptLog log) throws IOException {
        var run = new Run(flow, idle, log);
        double intervalNanos = 1e9 / rate;
        long origin = System.nanoTime();
        progress.begin(origin);
        if (log != null) {
            log.origin(origin);
        }
        long next = 0;
        while (!stop.requested()) {
            long now = System.nanoTime();
            while (next < attempts && origin + (long) (next * intervalNanos) <= now) {
                run.start(System.nanoTime());
                next++;
            }
            run.expire(now);
            run.resend(now);
            progress.maybe(now, run.tally);
            if (next >= attempts && run.inFlight == 0) {
                break; // the last attempt just ended: nothing left to wait for
            }
            long wake = now + MAX_WAIT_NANOS;
            if (next < attempts) {
                wake = Math.min(wake, origin + (long) (next * intervalNanos));
            }
            if (!timers.isEmpty()) {
                wake = Math.min(wake, timers.peek().nanos());
            }
            wake = Math.min(wake, run.resends.nextNanos());
            transport.await(wake, run);
        }
        return run.tally;
    }

    /** One run's state: its flow, phones, counters; what the transport reports goes here. */
    private final class Run implements LoadTransport.Listener {
        final RegisterFlow flow;
        final ArrayDeque<Phone> idle;
        final AttemptLog log;
        final Tally tally = new Tally();
        final Resends resends = new Resends();
        long inFlight;          // started and not ended: a transaction out, or waiting in resends

        Run(RegisterFlow flow, ArrayDeque<Phone> idle, AttemptLog log) {
            this.flow = flow;
            this.idle = idle;
            this.log = log;
        }

        void start(long now) {
            Phone phone = idle.pollFirst();
            if (phone == null) {
                tally.notStarted++; // RFC 3261 §10.2: a phone never has two registrations out at once
                return;
            }
            var attempt = new Attempt(phone, now);
            tally.started(now);
            inFlight++;
            if (!transport.ready(phone, now)) {
                connectionFailed(attempt, now);
                return;
            }
            send(attempt, flow.first(attempt), now);
        }

        void send(Attempt attempt, Outgoing request, long now) {
            var transaction = new Transaction(request.branch(), request.bytes(), attempt, now, timing);
            open.put(request.branch(), transaction);
            attempt.phone.transaction = transaction;
            timers.add(new Due(transaction.dueNanos(), transaction));
            try {
                transport.send(attempt.phone, request.bytes());
            } catch (IOException e) {
                // UDP: nothing went out; Timer E sends it again, Timer F gives up
            }
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
                    transport.finished(t.attempt.phone, now);
                    tally.timeouts++;
                    end(t.attempt, now, "timeout");
                    continue;
                }
                transport.send(t.attempt.phone, t.bytes);
                t.attempt.retransmissions++;
                tally.retransmissions++;
                t.retransmitted(now, timing);
                timers.add(new Due(t.dueNanos(), t));
            }
        }

        /** Registrations whose Retry-After ran out: their REGISTER again, once the phone can send. */
        void resend(long now) {
            for (Attempt attempt = resends.poll(now); attempt != null; attempt = resends.poll(now)) {
                if (transport.ready(attempt.phone, now)) {
                    tally.retried503++;
                    send(attempt, flow.retry(attempt), now);
                } else {
                    connectionFailed(attempt, now);
                }
            }
        }

        @Override
        public void response(Response response, long now) {
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
            transport.finished(attempt.phone, now);
            if (reaction instanceof Reaction.Answer) {
                answerChallenge(attempt, response, now);
            } else if (reaction instanceof Reaction.Retry retry) {
                resends.add(attempt, now, retry.seconds()); // not ended: its phone stays busy meanwhile
            } else if (reaction instanceof Reaction.Failed failed) {
                tally.failedWith(failed.status());
                end(attempt, now, Integer.toString(failed.status()));
            } else {
                completed(attempt, now);
            }
        }

        private void answerChallenge(Attempt attempt, Response challenge, long now) {
            if (attempt.answeredStale && challenge.status() == 401) {
                tally.staleAnswered++;
            }
            if (transport.ready(attempt.phone, now)) {
                send(attempt, flow.challengeAnswer(attempt), now);
            } else {
                connectionFailed(attempt, now);
            }
        }

        @Override
        public void lost(Phone phone, long now) {
            Transaction t = phone.transaction;
            if (t != null && !t.done) {
                close(t);
                connectionFailed(t.attempt, now);
            }
        }

        private void completed(Attempt attempt, long now) {
            tally.completed++;
            if (attempt.unchallenged) {
                tally.unchallenged++;
            }
            tally.latencies.record((now - attempt.startedNanos) / 1000);
            end(attempt, now, "ok");
        }

        private void connectionFailed(Attempt attempt, long now) {
            tally.connectionFailures++;
            end(attempt, now, "connection");
        }

        private void close(Transaction t) {
            t.done = true;
            open.remove(t.branch);
            if (t.attempt.phone.transaction == t) {
                t.attempt.phone.transaction = null;
            }
        }

        private void end(Attempt attempt, long now, String outcome) {
            inFlight--;
            idle.addLast(attempt.phone);
            if (log != null) {
                log.write(attempt, now, outcome);
            }
        }
    }
}
