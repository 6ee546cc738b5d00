package org.p2psip.front.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExecutorTimersTest {

    @Test
    void aTaskRunsOnTheExecutorAndACancelledOneLeavesItsQueue() throws Exception {
        var executor = new ScheduledThreadPoolExecutor(1);
        executor.setRemoveOnCancelPolicy(true);
        try {
            var timers = new ExecutorTimers(executor);
            long before = timers.nowMillis();
            var ran = new CountDownLatch(1);
            timers.after(1, ran::countDown);
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the task ran");
            Runnable cancel = timers.after(60_000, () -> {
                throw new AssertionError("a cancelled task ran");
            });
            assertEquals(1, executor.getQueue().size());
            cancel.run();
            cancel.run(); // twice: nothing more
            assertEquals(0, executor.getQueue().size());
            assertTrue(timers.nowMillis() >= before, "a monotonic clock");
        } finally {
            executor.shutdownNow();
        }
    }
}
