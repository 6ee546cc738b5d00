package org.p2psip.servlet;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import org.mobicents.javax.servlet.sip.SipApplicationSessionAsynchronousWork;
import org.mobicents.javax.servlet.sip.SipApplicationSessionExt;

/**
 * Runs the answer to a request once its DHT work is done, on the container's own executor and
 * under the application session's lock when the work completed on another thread (a backend's
 * event loop must not do SIP work), and inline when it had already completed (the in-memory
 * backend), which saves a hop. shared/design/container.md, "Asynchronous work".
 */
final class ContainerThreads {

    private ContainerThreads() {
    }

    static <T> void whenDone(SipServletRequest request, CompletableFuture<T> work, BiConsumer<T, Throwable> answer) {
        if (work.isDone()) {
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
