package org.p2psip.intake;

import gov.nist.core.HostPort;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.SIPTransaction;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The stack's own UDP message processor (one reader thread, a queue, the message threads) with
 * the queue replaced by an {@link IntakeQueue}, so that new requests are screened when a message
 * thread takes them and before the stack parses them. Answers of the screen go out through the
 * processor's own socket, as every answer of the stack does. Its channels note the node's final
 * answers to requests other than INVITE ({@link AnswerRecorder}), from which the screen answers
 * their retransmissions once the stack has let the transaction go. The stack makes it by class
 * name, so it meets the application's {@link Intake} through {@link StackLink#THIS_JVM}.
 */
final class UdpIntake extends UDPMessageProcessor {

    /**
     * The queue may hold a sixteenth of the heap: at a few hundred bytes a datagram, seconds of
     * any load a node can carry, and never what its transactions need.
     */
    private static final long QUEUE_HEAP_SHARE = 16;

    private final FinalAnswers answers = StackLink.THIS_JVM.finalAnswers();

    UdpIntake(InetAddress address, SIPTransactionStack stack, int port) throws IOException {
        super(address, stack, port);
        StackLink.THIS_JVM.watch();
        messageQueue = new IntakeQueue(new Screen(this::transactionState, this::send, System::currentTimeMillis,
                System::nanoTime, answers, StackLink.THIS_JVM), Runtime.getRuntime().maxMemory() / QUEUE_HEAP_SHARE);
    }

    @Override
    public MessageChannel createMessageChannel(HostPort target) throws UnknownHostException {
        return new AnswerRecorder(target.getInetAddress(), target.getPort(), sipStack, this, answers, System::nanoTime);
    }

    @Override
    public MessageChannel createMessageChannel(InetAddress host, int port) {
        return new AnswerRecorder(host, port, sipStack, this, answers, System::nanoTime);
    }

    private javax.sip.TransactionState transactionState(String branch) {
        SIPTransaction transaction = sipStack.findTransaction(branch, true);
        return transaction == null ? null : transaction.getState();
    }

    private void send(byte[] message, InetSocketAddress to) {
        try {
            sock.send(new DatagramPacket(message, message.length, to));
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the message thread logs it; the client retransmits
        }
    }
}
