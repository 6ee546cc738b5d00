package org.p2psip.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class IntakeQueueTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.2", 6001);

    private final List<String> sent = new ArrayList<>();
    private final StackLink link = new StackLink();
    private final Intake intake = new Intake(Intake.Settings.DEFAULTS, link);
    private final Screen screen = new Screen(branch -> null,
            (m, to) -> sent.add(new String(m, StandardCharsets.ISO_8859_1)), System::currentTimeMillis, System::nanoTime,
            new FinalAnswers(StackLink.FINAL_ANSWER_NANOS, System.nanoTime()), link);

    @BeforeEach
    void openIntake() {
        link.attach(intake);
        intake.open();
    }

    @Test
    void aQueuedDatagramKeepsOnlyItsOwnBytesNotTheReadersBuffer() throws Exception {
        IntakeQueue queue = new IntakeQueue(screen, 1 << 20);
        byte[] request = register("z9hG4bK-q1");
        byte[] buffer = new byte[16_384]; // what the stack's reader receives into
        System.arraycopy(request, 0, buffer, 0, request.length);
        queue.offer(new DatagramQueuedMessageDispatch(new DatagramPacket(buffer, 0, request.length, CLIENT),
                System.currentTimeMillis()));

        assertEquals(request.length + IntakeQueue.ENTRY_BYTES, queue.bytes());
        DatagramQueuedMessageDispatch taken = queue.poll(1, TimeUnit.SECONDS);
        assertEquals(request.length, taken.packet.getData().length, "a copy of just the datagram");
        assertEquals(new String(request, StandardCharsets.ISO_8859_1),
                new String(taken.packet.getData(), StandardCharsets.ISO_8859_1));
        assertEquals(0, queue.bytes());
    }

    @Test
    void pastItsBoundTheReaderRefusesNewRequests503AndStillQueuesResponsesAndRetransmissions() throws Exception {
        byte[] first = register("z9hG4bK-q1");
        IntakeQueue queue = new IntakeQueue(screen, first.length); // one request fills it
        assertTrue(queue.offer(queued(first)));
        assertTrue(queue.offer(queued(register("z9hG4bK-q2"))));
        assertEquals(1, queue.size(), "the second was refused, not queued");
        assertEquals(1, sent.size());
        assertTrue(sent.get(0).startsWith("SIP/2.0 503 Overloaded\r\n"), sent.get(0));
        assertTrue(sent.get(0).contains("Retry-After: "), "a refusal for load says when to come back");
        assertEquals(1, intake.counters().get("refused-queue-full"));

        byte[] response = ("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-out\r\n"
                + "From: <sip:a@p2psip.test>;tag=1\r\nTo: <sip:b@p2psip.test>;tag=2\r\nCall-ID: 9@node\r\n"
                + "CSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        assertTrue(queue.offer(queued(response)));
        assertEquals(2, queue.size(), "a response finishes work begun: queued whatever the bound");

        DatagramQueuedMessageDispatch taken = queue.poll(1, TimeUnit.SECONDS);
        assertEquals(first.length, taken.packet.getData().length);
        assertTrue(queue.offer(queued(first)), "the first's retransmission");
        assertEquals(2, queue.size(), "a retransmission of a request let through is queued: the stack answers it");
        queue.poll(1, TimeUnit.SECONDS);
        queue.poll(1, TimeUnit.SECONDS);
        assertNull(queue.poll(10, TimeUnit.MILLISECONDS));
    }

    private static DatagramQueuedMessageDispatch queued(byte[] message) {
        return new DatagramQueuedMessageDispatch(new DatagramPacket(message, message.length, CLIENT),
                System.currentTimeMillis());
    }

    private static byte[] register(String branch) {
        return ("REGISTER sip:127.0.0.1:5070 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:6001;branch=" + branch + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@p2psip.test>;tag=from1\r\n"
                + "To: <sip:alice@p2psip.test>\r\n"
                + "Call-ID: " + branch + "@client\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Contact: <sip:alice@127.0.0.1:6001>\r\n"
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }
}
