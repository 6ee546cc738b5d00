package org.p2psip.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.DhtException.Reason;

class DhtExceptionTest {

    private final DhtException overloaded = new DhtException(Reason.OVERLOADED, "queue full");

    @Test
    void aDhtExceptionIsKeptAsItIsUnderItsWrappers() {
        assertSame(overloaded, DhtException.from(overloaded));
        assertSame(overloaded, DhtException.from(new CompletionException(overloaded)));
        assertSame(overloaded, DhtException.from(new ExecutionException(new CompletionException(overloaded))));
        assertSame(overloaded, DhtException.from(new CompletionException(overloaded), Reason.STORAGE), "not re-labelled");
    }

    @Test
    void aDependentStagesFailureIsTheOriginal() {
        var failed = CompletableFuture.<String>failedFuture(overloaded).thenApply(String::length);
        var e = assertThrows(CompletionException.class, failed::join);
        assertSame(overloaded, DhtException.from(e));
        var get = assertThrows(ExecutionException.class, () -> failed.get());
        assertSame(overloaded, DhtException.from(get));
    }

    @Test
    void aTimeoutIsTheTimeoutReason() {
        var late = new CompletableFuture<String>().orTimeout(1, TimeUnit.MILLISECONDS);
        var e = assertThrows(CompletionException.class, late::join);
        DhtException mapped = DhtException.from(e);
        assertEquals(Reason.TIMEOUT, mapped.reason());
        assertEquals(TimeoutException.class, mapped.getCause().getClass());
        assertEquals(Reason.TIMEOUT, DhtException.from(new TimeoutException(), Reason.STORAGE).reason(), "a timeout stays one");
    }

    @Test
    void anythingElseIsUnreachableUnlessTheCallerSaysOtherwise() {
        var io = new IOException("connection reset");
        DhtException mapped = DhtException.from(new CompletionException(io));
        assertEquals(Reason.UNREACHABLE, mapped.reason());
        assertSame(io, mapped.getCause(), "the cause kept, unwrapped");
        assertEquals("java.io.IOException: connection reset", mapped.getMessage());
        assertEquals(Reason.STORAGE, DhtException.from(io, Reason.STORAGE).reason());
    }

    @Test
    void aWrapperWithoutACauseIsItself() {
        var bare = new CompletionException("no cause", null);
        assertSame(bare, DhtException.unwrap(bare));
        assertSame(bare, DhtException.from(bare).getCause());
    }
}
