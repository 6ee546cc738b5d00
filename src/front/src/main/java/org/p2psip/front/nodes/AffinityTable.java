package org.p2psip.front.nodes;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which node each Call-ID was given, so every request of a Call-ID reaches the same node; also
 * whether the Call-ID's call is in progress, for {@code cjsq}. Bounded twice: an entry not used
 * for {@code ttlNanos} is forgotten (swept from the least recently used end, which is where the
 * expired ones are), and past {@code max} entries the least recently used is forgotten. Forgetting
 * an entry whose call is open ends that call in its node's count.
 *
 * <p>Thread-safe: every method holds the table's lock for O(1) work (the sweep for O(expired)).
 */
public final class AffinityTable {

    private static final class Entry {
        final Node node;
        long lastSeenNanos;
        boolean callOpen;

        Entry(Node node, long now) {
            this.node = node;
            this.lastSeenNanos = now;
        }
    }

    private final long ttlNanos;
    private final int max;
    private final LinkedHashMap<String, Entry> entries;

    public AffinityTable(long ttlNanos, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the affinity table needs room for at least one Call-ID");
        }
        this.ttlNanos = ttlNanos;
        this.max = max;
        this.entries = new LinkedHashMap<>(Math.min(max, 1 << 16), 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
                if (size() <= AffinityTable.this.max) {
                    return false;
                }
                forget(eldest.getValue());
                return true;
            }
        };
    }

    /** The node given to {@code callId}, or null if none or the entry expired. Counts as a use. */
    public synchronized Node nodeOf(String callId, long now) {
        Entry entry = entries.get(callId);
        if (entry == null) {
            return null;
        }
        if (now - entry.lastSeenNanos > ttlNanos) {
            entries.remove(callId);
            forget(entry);
            return null;
        }
        entry.lastSeenNanos = now;
        return entry.node;
    }

    /** Gives {@code callId} to {@code node}, replacing (and ending the call of) any earlier choice. */
    public synchronized void assign(String callId, Node node, long now) {
        Entry old = entries.put(callId, new Entry(node, now));
        if (old != null) {
            forget(old);
        }
    }

    /** An INVITE out of dialog went out for {@code callId}: its call counts on its node until it ends. */
    public synchronized void callStarted(String callId) {
        Entry entry = entries.get(callId);
        if (entry != null && !entry.callOpen) {
            entry.callOpen = true;
            entry.node.callStarted();
        }
    }

    /** The INVITE failed or the BYE was answered: the call no longer counts. */
    public synchronized void callEnded(String callId) {
        Entry entry = entries.get(callId);
        if (entry != null && entry.callOpen) {
            entry.callOpen = false;
            entry.node.callEnded();
        }
    }

    /** Forgets the entries unused for longer than the time to live. */
    public synchronized void sweep(long now) {
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            Entry entry = it.next();
            if (now - entry.lastSeenNanos <= ttlNanos) {
                return; // access order: every later entry was used more recently
            }
            it.remove();
            forget(entry);
        }
    }

    public synchronized int size() {
        return entries.size();
    }

    private static void forget(Entry entry) {
        if (entry.callOpen) {
            entry.callOpen = false;
            entry.node.callEnded();
        }
    }
}
