package org.p2psip.dht.bamboo.wire;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * Many nodes in one JVM: a request goes straight to the handler bound at its address, after a
 * trip through {@link MessageCodec} so that what is tested is what the wire carries. For tests
 * and for studying overlays larger than a machine holds. An address can be {@link #silence}d:
 * it then swallows requests, as a crashed host does, and callers meet their deadlines.
 * Thread-safe.
 */
public final class LocalNetwork implements Network {

    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();
    private final Set<String> silent = ConcurrentHashMap.newKeySet();
    private final AtomicLong requests = new AtomicLong();

    @Override
    public CompletionStage<Message> request(String address, Message request, Duration deadline) {
        requests.incrementAndGet();
        Handler handler = handlers.get(address);
        if (handler == null && !silent.contains(address)) {
            return CompletableFuture.failedFuture(new DhtException(Reason.UNREACHABLE, "nothing listens at " + address));
        }
        var reply = new CompletableFuture<Message>();
        if (!silent.contains(address)) {
            Message received = MessageCodec.decode(MessageCodec.encode(request));
            handler.handle(received).whenComplete((answer, failure) -> {
                if (failure != null) {
                    reply.completeExceptionally(failure);
                } else {
                    reply.complete(MessageCodec.decode(MessageCodec.encode(answer)));
                }
            });
        }
        return reply.orTimeout(Math.max(1, deadline.toMillis()), TimeUnit.MILLISECONDS).exceptionallyCompose(e -> {
            Throwable cause = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
            if (cause instanceof TimeoutException) {
                return CompletableFuture.failedFuture(new DhtException(Reason.TIMEOUT,
                        "no answer from " + address + " within " + deadline.toMillis() + " ms"));
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    @Override
    public void bind(String address, Handler handler) {
        if (handlers.putIfAbsent(address, handler) != null) {
            throw new IllegalStateException("address already bound: " + address);
        }
        silent.remove(address);
    }

    @Override
    public void unbind(String address) {
        handlers.remove(address);
    }

    /** From now on requests to {@code address} get no answer at all, bound or not, as from a host that died. */
    public void silence(String address) {
        silent.add(address);
    }

    public long requests() {
        return requests.get();
    }
}
