package org.p2psip.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * One round of {@link RegisterLoad}: a request of each user, what is out, and how each ended.
 * Written by the sender, the timer thread and the receivers at once: a request out is ended by
 * whichever of them first takes it from {@link #open} (its final answer, or Timer F), once.
 */
final class LoadRound {

    /** A request out: its user, CSeq, node, bytes and when it was first sent (System.nanoTime). */
    record Sent(int user, long cseq, int node, byte[] bytes, long at) {
    }

    /**
     * Refusals (503) one user may take in a round: past them a node that keeps refusing it counts
     * as failing it. Generous: cold nodes on two busy cores refused some users many times in a row
     * in their first minute, and a phone would go on asking.
     */
    static final int MAX_REFUSALS = 50;

    /** What the sender waits on: a slot is taken per request sent, given back by its final answer. */
    final Semaphore window;
    /** Users refused with 503 whose Retry-After has passed: the sender asks for them again first. */
    final LinkedBlockingQueue<Integer> due = new LinkedBlockingQueue<>();

    private final String name;
    private final int users;
    private final RegisterLoad.Kind kind;
    private final IntFunction<String> userName;
    private final Duration stall;
    private final AtomicReferenceArray<Sent> open;
    private final AtomicIntegerArray refusals;
    private final AtomicInteger ended = new AtomicInteger();
    private final LongAdder ok = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder retransmissions = new LongAdder();
    private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();
    private final Map<String, Sent> firstFailed = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refusedFor = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> contactsListed = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> late = new ConcurrentHashMap<>();
    /** A query round's 200s: each user's bindings' URIs. */
    private final List<String>[] contacts;
    private final long started = System.nanoTime();
    private volatile long lastProgress = started;

    @SuppressWarnings({"unchecked", "rawtypes"})
    LoadRound(String name, int users, RegisterLoad.Kind kind, int window, IntFunction<String> userName, Duration stall) {
        this.name = name;
        this.users = users;
        this.kind = kind;
        this.userName = userName;
        this.stall = stall;
        this.window = new Semaphore(window);
        this.open = new AtomicReferenceArray<>(users);
        this.refusals = new AtomicIntegerArray(users);
        this.contacts = kind == RegisterLoad.Kind.QUERY ? new List[users] : null;
    }

    boolean finished() {
        return ended.get() == users;
    }

    void open(Sent sent) {
        open.set(sent.user(), sent);
    }

    boolean isOpen(Sent sent) {
        return open.get(sent.user()) == sent;
    }

    void retransmitted() {
        retransmissions.increment();
    }

    /** What the client does with a refused user: ask again in {@code seconds}. */
    interface Retry {
        void later(LoadRound round, int user, long seconds);
    }

    /** A response for {@code user} (-1: not ours); a provisional one, or one to an earlier request, changes nothing. */
    void answered(int user, SipResponse response, Retry retry) {
        if (user < 0 || user >= users) {
            return;
        }
        if (response.status() < 200) {
            return;
        }
        Sent sent = open.get(user);
        if (sent == null || sent.cseq() != response.cseq() || !open.compareAndSet(user, sent, null)) {
            // a final answer to a request already ended (a retransmission's, or one after Timer F)
            late.computeIfAbsent(response.status() + " " + response.reason(), s -> new LongAdder()).increment();
            return;
        }
        lastProgress = System.nanoTime();
        window.release();
        if (response.status() == 200) {
            ok.increment();
            contactsListed.computeIfAbsent(response.contacts().size(), n -> new LongAdder()).increment();
            if (contacts != null) {
                contacts[user] = response.contacts();
            }
            ended.incrementAndGet();
        } else if (response.status() == 503 && response.retryAfter() >= 0 && refusals.incrementAndGet(user) <= MAX_REFUSALS) {
            refused.increment();
            refusedFor.computeIfAbsent(response.reason(), r -> new LongAdder()).increment();
            retry.later(this, user, response.retryAfter());
        } else {
            fail(sent, response.status() + " " + response.reason());
        }
    }

    /** Timer F: no final answer within 64 T1, for all the retransmissions. */
    void unanswered(Sent sent) {
        if (open.compareAndSet(sent.user(), sent, null)) {
            lastProgress = System.nanoTime();
            window.release();
            fail(sent, "unanswered");
        }
    }

    private void fail(Sent sent, String what) {
        failed.computeIfAbsent(what, w -> new LongAdder()).increment();
        firstFailed.merge(what, sent, (a, b) -> a.user() <= b.user() ? a : b);
        ended.incrementAndGet();
    }

    /** Fails the test when nothing was answered for the stall bound: a fault of the client, as Timer F ends every request. */
    void checkProgress() {
        if (System.nanoTime() - lastProgress > stall.toNanos()) {
            throw new AssertionError(name + ": no answer and no Timer F for " + stall + "; " + result().summary());
        }
    }

    /** A line for the progress log: how far the round is, cheaply (no copy of the bindings). */
    String progress() {
        long failures = failed.values().stream().mapToLong(LongAdder::sum).sum();
        return String.format("%s: %.0f s, ended %,d of %,d; 200: %,d; 503 then asked again: %,d; retransmissions: %,d;"
                        + " failed: %,d; waiting out a Retry-After or due: %,d", name, (System.nanoTime() - started) / 1e9,
                ended.get(), users, ok.sum(), refused.sum(), retransmissions.sum(), failures, due.size());
    }

    LoadResult result() {
        Map<String, Long> failures = new TreeMap<>();
        Map<String, String> firsts = new TreeMap<>();
        failed.forEach((what, n) -> failures.put(what, n.sum()));
        firstFailed.forEach((what, s) -> firsts.put(what, userName.apply(s.user()) + " via node " + s.node()));
        Map<String, Long> refusedReasons = new TreeMap<>();
        refusedFor.forEach((reason, n) -> refusedReasons.put(reason, n.sum()));
        Map<Integer, Long> listed = new TreeMap<>();
        contactsListed.forEach((n, count) -> listed.put(n, count.sum()));
        Map<String, Long> lateAnswers = new TreeMap<>();
        late.forEach((what, n) -> lateAnswers.put(what, n.sum()));
        List<List<String>> bindings = contacts == null ? List.of() : new ArrayList<>(Arrays.asList(contacts));
        return new LoadResult(name, users, ok.sum(), refused.sum(), refusedReasons, retransmissions.sum(), failures, firsts,
                listed, lateAnswers, bindings, Duration.ofNanos(System.nanoTime() - started));
    }
}
