package org.p2psip.dht.hazelcast;

import com.hazelcast.map.EntryProcessor;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An entry processor that holds the partition thread running it until the test lets go: an
 * operation on that partition then waits, for as long as a test needs. One instance per use; its
 * latches are found by id, so that a copy Hazelcast deserialised holds the same ones.
 */
final class Hold implements EntryProcessor<String, byte[], Object> {

    private static final Map<String, CountDownLatch[]> LATCHES = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    Hold() {
        LATCHES.put(id, new CountDownLatch[] {new CountDownLatch(1), new CountDownLatch(1)});
    }

    @Override
    public Object process(Map.Entry<String, byte[]> entry) {
        CountDownLatch[] latches = LATCHES.get(id);
        latches[0].countDown();
        try {
            latches[1].await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    @Override
    public EntryProcessor<String, byte[], Object> getBackupProcessor() {
        return null;
    }

    /** Whether a partition thread runs this processor within {@code seconds}. */
    boolean running(long seconds) throws InterruptedException {
        return LATCHES.get(id)[0].await(seconds, TimeUnit.SECONDS);
    }

    void release() {
        LATCHES.remove(id)[1].countDown();
    }
}
