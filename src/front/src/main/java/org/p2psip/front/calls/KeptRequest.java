package org.p2psip.front.calls;

/**
 * A request other than INVITE and ACK within a dialog the front keeps (a BYE, an INFO...): proxied
 * statefully, so that a retransmission of it is answered by the front from the answer it holds
 * rather than crossing to the other end again, and the front retransmits it over UDP itself.
 *
 * <p>Not thread-safe: every method runs on the front's UDP event loop ({@link KeptCalls}).
 */
final class KeptRequest implements NonInviteServer.User, NonInviteClient.User {

    private final KeptCalls calls;
    final String key;
    final String branch;
    private final Message request;
    private final NonInviteServer server;
    private NonInviteClient client;

    KeptRequest(KeptCalls calls, String key, Message request, TransactionPeer sender, String branch) {
        this.calls = calls;
        this.key = key;
        this.branch = branch;
        this.request = request;
        this.server = new NonInviteServer(request, sender, calls.timers(), this);
    }

    void start(Message forwarded, TransactionPeer next) {
        client = new NonInviteClient(forwarded, next, calls.timers(), this);
        client.start();
    }

    void retransmitted() {
        server.onRetransmission();
    }

    void onResponse(Message response) {
        client.onResponse(response);
    }

    void drop() {
        client.stop();
    }

    @Override
    public void provisional(NonInviteClient t, Message r) {
        relay(r);
    }

    @Override
    public void finalAnswer(NonInviteClient t, Message r) {
        relay(r);
    }

    private void relay(Message r) {
        Message up = calls.withoutOwnVia(r);
        if (up != null) {
            server.respond(up);
        }
    }

    @Override
    public void timedOut(NonInviteClient t) {
        server.respond(calls.answer(request, 408, "Request Timeout"));
    }

    @Override
    public void terminated(NonInviteServer t) {
        calls.forget(this);
    }
}
