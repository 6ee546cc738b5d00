package org.p2psip.intake;

import gov.nist.javax.sip.stack.MessageProcessor;
import gov.nist.javax.sip.stack.MessageProcessorFactory;
import gov.nist.javax.sip.stack.OIOMessageProcessorFactory;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetAddress;
import javax.sip.ListeningPoint;

/**
 * The message processor factory a node's SIP stack is told to use
 * ({@code gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY} in its sip-stack.properties): UDP goes
 * through the {@link UdpIntake}, every other transport is made by the stack's own factory.
 */
public final class IntakeProcessorFactory implements MessageProcessorFactory {

    private final MessageProcessorFactory plain = new OIOMessageProcessorFactory();

    @Override
    public MessageProcessor createMessageProcessor(SIPTransactionStack stack, InetAddress address, int port,
            String transport) throws IOException {
        if (!transport.equalsIgnoreCase(ListeningPoint.UDP)) {
            return plain.createMessageProcessor(stack, address, port, transport);
        }
        var intake = new UdpIntake(address, stack, port);
        answerFromListeningSocket(stack);
        return intake;
    }

    /**
     * What the stack's own factory does for UDP, through a field only its package may set: the
     * stack then sends every UDP message from the listening socket, as clients behind NAT need,
     * instead of opening a socket per message.
     */
    private static void answerFromListeningSocket(SIPTransactionStack stack) throws IOException {
        try {
            Field udpFlag = SIPTransactionStack.class.getDeclaredField("udpFlag");
            udpFlag.setAccessible(true);
            udpFlag.setBoolean(stack, true);
        } catch (ReflectiveOperationException e) {
            throw new IOException("this JAIN-SIP has no udpFlag to set: " + e, e);
        }
    }
}
