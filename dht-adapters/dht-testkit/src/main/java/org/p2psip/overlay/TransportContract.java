package org.p2psip.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.config.NodeOptions;
import org.p2psip.dht.DhtException;
import org.p2psip.dht.DhtException.Reason;

/**
 * What every {@link OverlayTransport} does, whatever carries its frames. A transport's test extends this
 * class and says only how a node of it is made ({@link #transport}); every test here then runs on
 * that transport. The contract is the interface's: an answer comes back to whoever asked, on the
 * asker's loop; a responder's failure comes back with its reason; every request completes, at the
 * latest at its deadline; what cannot be asked is refused at once; a closed node stops serving.
 */
public abstract class TransportContract {

    /** The overlay secret every node of a test shares. */
    protected static final String SECRET = "transport-contract-secret";
    private static final Duration PATIENCE = Duration.ofSeconds(5);

    private final List<OverlayTransport> nodes = new ArrayList<>();

    /**
     * A new node of the transport under test, with the options of {@code config} (the secret, and
     * any {@code p2psip.overlay.*} option a test sets), reachable by the other nodes the test made.
     * Its address is the implementation's choice. The contract closes it after the test.
     */
    protected abstract OverlayTransport transport(Config config);

    private OverlayTransport node(Config extra) {
        OverlayTransport node = transport(extra.with(NodeOptions.OVERLAY_SECRET.name(), SECRET));
        nodes.add(node);
        return node;
    }

    private OverlayTransport node() {
        return node(Config.empty());
    }

    /** A node that answers every request with "sender/type/payload". */
    private OverlayTransport echo() {
        OverlayTransport node = node();
        node.serve((sender, type, payload) -> CompletableFuture.completedFuture(
                (sender + "/" + type + "/" + text(payload)).getBytes(StandardCharsets.UTF_8)));
        return node;
    }

    /** A node that takes every request and never answers: a hung peer. */
    private OverlayTransport silent() {
        OverlayTransport node = node();
        node.serve((sender, type, payload) -> new CompletableFuture<>());
        return node;
    }

    /** How a request to a node answering with {@code responder} fails. */
    private DhtException failureFrom(Responder responder) {
        OverlayTransport asker = node();
        OverlayTransport answerer = node();
        answerer.serve(responder);
        return failure(asker.request(answerer.address(), 1, new byte[0], PATIENCE));
    }

    @AfterEach
    void closeNodes() {
        for (int i = nodes.size() - 1; i >= 0; i--) {
            nodes.get(i).close();
        }
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS);
    }

    private static DhtException failure(CompletionStage<?> stage) {
        var thrown = assertThrows(ExecutionException.class,
                () -> stage.toCompletableFuture().get(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS));
        return assertInstanceOf(DhtException.class, thrown.getCause(), "a request fails with a DhtException");
    }

    @Test
    void aRequestIsAnsweredWithTheRespondersBytesAndCounted() throws Exception {
        OverlayTransport asker = node();
        OverlayTransport answerer = echo();
        byte[] answer = await(asker.request(answerer.address(), 7, bytes("ping"), PATIENCE));
        assertEquals(asker.address() + "/7/ping", text(answer), "the responder sees the asker's address, type and payload");
        assertEquals(1L, asker.metrics().get(AbstractTransport.REQUESTS));
        assertEquals(1L, asker.metrics().get(AbstractTransport.ANSWERS));
        assertEquals(1L, answerer.metrics().get(AbstractTransport.SERVED));
    }

    @Test
    void manyRequestsInFlightAtOnceEachGetTheirOwnAnswer() throws Exception {
        OverlayTransport asker = node();
        OverlayTransport answerer = echo();
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            answers.add(asker.request(answerer.address(), 3, bytes("n" + i), PATIENCE).toCompletableFuture());
        }
        for (int i = 0; i < 200; i++) {
            assertEquals(asker.address() + "/3/n" + i, text(await(answers.get(i))));
        }
        assertEquals(200L, asker.metrics().get(AbstractTransport.ANSWERS));
    }

    @Test
    void theResponderRunsOnItsNodesLoopAndTheAnswerCompletesOnTheAskers() throws Exception {
        OverlayTransport asker = node();
        OverlayTransport answerer = node();
        var respondedOnItsLoop = new CompletableFuture<Boolean>();
        answerer.serve((sender, type, payload) -> {
            respondedOnItsLoop.complete(answerer.executor().inEventLoop());
            return CompletableFuture.completedFuture(new byte[0]);
        });
        // asked from the asker's loop, so the check is attached before the answer can arrive (on that loop)
        CompletableFuture<Boolean> answeredOnAskersLoop = CompletableFuture.supplyAsync(() -> asker.request(
                        answerer.address(), 5, new byte[0], PATIENCE).toCompletableFuture()
                .thenApply(bytes -> asker.executor().inEventLoop()), asker.executor()).thenCompose(f -> f);
        assertTrue(await(answeredOnAskersLoop), "the answer completes on the asker's loop");
        assertTrue(await(respondedOnItsLoop), "the responder runs on its node's loop");
    }

    @Test
    void aRespondersFailureReachesTheAskerAsADhtExceptionWithItsReason() {
        DhtException e = failureFrom((sender, type, payload) ->
                CompletableFuture.failedFuture(new DhtException(Reason.STORAGE, "disk full")));
        assertEquals(Reason.STORAGE, e.reason());
        assertTrue(e.getMessage().contains("disk full"), e.getMessage());
    }

    @Test
    void aResponderThatThrowsFailsTheRequestAsUnreachable() {
        DhtException e = failureFrom((sender, type, payload) -> {
            throw new IllegalStateException("a bug in the responder");
        });
        assertEquals(Reason.UNREACHABLE, e.reason());
        assertTrue(e.getMessage().contains("a bug in the responder"), e.getMessage());
    }

    @Test
    void aNodeServingNothingYetAnswersWithAnErrorNotSilence() {
        OverlayTransport asker = node();
        OverlayTransport idle = node();
        assertEquals(Reason.UNREACHABLE, failure(asker.request(idle.address(), 1, new byte[0], PATIENCE)).reason());
    }

    @Test
    void aPeerThatNeverAnswersFailsTheRequestWithTimeoutAtItsDeadline() {
        OverlayTransport asker = node();
        OverlayTransport hung = silent();
        assertEquals(Reason.TIMEOUT, failure(asker.request(hung.address(), 1, new byte[0], Duration.ofMillis(200))).reason());
        assertEquals(1L, asker.metrics().get(AbstractTransport.TIMEOUTS));
    }

    @Test
    void aClosedNodesAddressIsUnreachableAtOnce() {
        OverlayTransport asker = node();
        OverlayTransport gone = echo();
        gone.close();
        // a deadline far beyond the test's patience: only a refusal, not a timeout, ends it in time
        DhtException e = failure(asker.request(gone.address(), 1, new byte[0], Duration.ofMinutes(1)));
        assertEquals(Reason.UNREACHABLE, e.reason(), e.getMessage());
    }

    @Test
    void beyondTheInFlightBoundRequestsAreRefusedAsOverloadedAndClosingFailsTheRestAsClosed() {
        OverlayTransport bounded = node(Config.empty().with(OverlayOptions.MAX_IN_FLIGHT.name(), "2"));
        OverlayTransport hung = silent();
        var first = bounded.request(hung.address(), 1, new byte[0], PATIENCE);
        var second = bounded.request(hung.address(), 1, new byte[0], PATIENCE);
        assertEquals(Reason.OVERLOADED, failure(bounded.request(hung.address(), 1, new byte[0], PATIENCE)).reason());
        assertEquals(1L, bounded.metrics().get(AbstractTransport.OVERLOADED));
        bounded.close();
        assertEquals(Reason.CLOSED, failure(first).reason());
        assertEquals(Reason.CLOSED, failure(second).reason());
    }

    @Test
    void aPayloadBeyondTheFrameBoundIsRefusedAsOverloadedWithoutBeingSent() {
        OverlayTransport asker = node(Config.empty().with(OverlayOptions.MAX_FRAME_BYTES.name(), "1024"));
        OverlayTransport answerer = echo();
        assertEquals(Reason.OVERLOADED, failure(asker.request(answerer.address(), 1, new byte[2048], PATIENCE)).reason());
        assertEquals(0L, answerer.metrics().get(AbstractTransport.SERVED));
    }

    @Test
    void aClosedNodeRefusesNewRequestsAsClosed() {
        OverlayTransport asker = node();
        OverlayTransport answerer = echo();
        asker.close();
        assertEquals(Reason.CLOSED, failure(asker.request(answerer.address(), 1, new byte[0], PATIENCE)).reason());
    }
}
