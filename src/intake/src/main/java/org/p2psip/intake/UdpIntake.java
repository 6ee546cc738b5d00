package org.p2psip.intake;

import gov.nist.javax.sip.stack.SIPTransaction;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The stack's own UDP message processor (one reader thread, a queue, the message threads) with
 * the queue replaced by an {@link IntakeQueue}, so that new requests are screened when a message
 * thread takes them and before the stack parses them. Answers of the screen go out through the
 * processor's own socket, as every answer of the stack does.
 */
final class UdpIntake extends UDPMessageProcessor {

    UdpIntake(InetAddress address, SIPTransactionStack stack, int port) throws IOException {
        super(address, stack, port);
        Intake.watch();
        messageQueue = new IntakeQueue(new Screen(this::transactionState, this::send,
                System::currentTimeMillis, System::nanoTime));
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
