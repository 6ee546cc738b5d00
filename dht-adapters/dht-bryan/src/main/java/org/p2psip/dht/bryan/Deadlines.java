package org.p2psip.dht.bryan;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/** The deadline every {@link PeerLink} puts on an answer, failing it as the overlay expects. */
public final class Deadlines {

    private Deadlines() {
    }

    /** {@code answer}, failed with {@code DhtException(TIMEOUT)} if {@code target} has not answered within {@code deadline}. */
    public static <T> CompletableFuture<T> within(CompletableFuture<T> answer, String target, Duration deadline) {
        return answer.orTimeout(deadline.toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(e ->
                CompletableFuture.failedFuture(e instanceof TimeoutException
                        ? new DhtException(Reason.TIMEOUT, target + " did not answer within " + deadline) : e));
    }
}
