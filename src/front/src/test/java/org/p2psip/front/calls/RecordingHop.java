package org.p2psip.front.calls;

import gov.nist.javax.sip.message.SIPMessage;
import java.util.ArrayList;
import java.util.List;

/** A {@link TransactionPeer} that keeps what was sent and when, on a {@link ScriptedTimers} clock; its connection may close. */
final class RecordingHop implements TransactionPeer {

    /** One message sent: {@link #raw} as the machine sent it, {@link #message} as JAIN-SIP reads its bytes. */
    record Sent(long at, Message raw) {
        String what() {
            return raw.method != null ? raw.method : String.valueOf(raw.status);
        }

        SIPMessage message() {
            return SipMessages.parse(raw.bytes());
        }
    }

    private final Timers clock;
    private final boolean reliable;
    private final List<Sent> sent = new ArrayList<>();
    /** The connection behind a reliable hop has closed: nothing more is sent. */
    private boolean closed;

    RecordingHop(Timers clock, boolean reliable) {
        this.clock = clock;
        this.reliable = reliable;
    }

    @Override
    public synchronized boolean send(Message message) {
        if (closed) {
            return false;
        }
        sent.add(new Sent(clock.nowMillis(), message));
        return true;
    }

    /** The hop's connection closes: every later send fails. */
    synchronized void close() {
        closed = true;
    }

    @Override
    public boolean reliable() {
        return reliable;
    }

    synchronized List<Sent> sent() {
        return List.copyOf(sent);
    }

    /** When each message whose method or status is {@code what} ("INVITE", "ACK", "486") was sent. */
    synchronized List<Long> times(String what) {
        return sent.stream().filter(s -> s.what().equals(what)).map(Sent::at).toList();
    }

    /** The methods and statuses sent, in order. */
    synchronized List<String> whats() {
        return sent.stream().map(Sent::what).toList();
    }

    /** The last message sent, as JAIN-SIP reads it. */
    synchronized SIPMessage last() {
        return sent.get(sent.size() - 1).message();
    }

    /** The last message sent, as the machine sent it. */
    synchronized Message lastRaw() {
        return sent.get(sent.size() - 1).raw();
    }
}
