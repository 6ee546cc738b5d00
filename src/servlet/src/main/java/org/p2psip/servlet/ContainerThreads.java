package org.p2psip.servlet;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import org.mobicents.javax.servlet.sip.SipApplicationSessionAsynchronousWork;
import org.mobicents.javax.servlet.sip.SipApplicationSessionExt;

/**
 * Runs the answer to a request once its DHT work is done. On the container's own executor and
 * under the application session's lock when the work completed on a backend's event loop, which
 * must not do SIP work; inline when it had already completed (the in-memory backend) or when the
 * backend completes on worker threads of its own ({@link org.p2psip.dht.Dht#completesOnWorkers}),
 * which saves a hop. Answering from a thread not the container's works on this container:
 * docs/container.md, "Asynchronous work". Thread-safe.
 */
final class ContainerThreads {

    private final boolean backendWorkers;

    /** @param backendWorkers whether the DHT completes on worker threads that may do SIP work */
    ContainerThreads(boolean backendWorkers) {
        this.backendWorkers = backendWorkers;
    }

    <T> void whenDone(SipServletRequest request, CompletableFuture<T> work, BiConsumer<T, Throwable> answer) {
        if (backendWorkers || work.isDone()) {
            work.whenComplete(answer);
            return;
        }
        SipApplicationSession session = request.getApplicationSession();
        work.whenComplete((result, failure) -> {
            if (session instanceof SipApplicationSessionExt ext) {
                try {
                    ext.scheduleAsynchronousWork((SipApplicationSessionAsynchronousWork) s -> answer.accept(result, failure));
                    return;
                } catch (RuntimeException sessionGone) {
                    // the session ended (the client gave up, the container is stopping): answer here
                }
            }
            answer.accept(result, failure);
        });
    }
}
