package org.p2psip.intake;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.io.IOException;
import java.net.InetAddress;
import javax.sip.message.Request;

/**
 * The stack's UDP channel to one destination, which notes each final answer to a request other
 * than INVITE in {@link FinalAnswers} as it sends it: the very bytes and address the stack used,
 * encoded once. The stack makes a channel for each message it sends, on the sending thread, so the
 * answer noted by {@link #sendMessage(SIPMessage)} is the one its encoded bytes then carry.
 */
final class AnswerRecorder extends UDPMessageChannel {

    private final FinalAnswers answers;
    private final java.util.function.LongSupplier nanos;
    private String branch;
    private String method;

    AnswerRecorder(InetAddress host, int port, SIPTransactionStack stack, UDPMessageProcessor processor,
            FinalAnswers answers, java.util.function.LongSupplier nanos) {
        super(host, port, stack, processor);
        this.answers = answers;
        this.nanos = nanos;
    }

    @Override
    public void sendMessage(SIPMessage message) throws IOException {
        if (message instanceof SIPResponse response && response.getStatusCode() >= 200
                && response.getCSeq() != null && !Request.INVITE.equals(response.getCSeq().getMethod())) {
            Via top = response.getTopmostVia();
            String topBranch = top == null ? null : top.getBranch();
            if (topBranch != null) {
                branch = topBranch.toLowerCase();
                method = response.getCSeq().getMethod();
            }
        }
        try {
            super.sendMessage(message);
        } finally {
            branch = null;
        }
    }

    @Override
    protected void sendMessage(byte[] message, InetAddress address, int port, String protocol, boolean retry)
            throws IOException {
        if (branch != null) {
            answers.put(branch, new FinalAnswers.Answer(method, message, address, port), nanos.getAsLong());
            branch = null;
        }
        super.sendMessage(message, address, port, protocol, retry);
    }
}
