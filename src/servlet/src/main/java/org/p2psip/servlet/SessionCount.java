package org.p2psip.servlet;

import java.util.concurrent.atomic.LongAdder;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;

/**
 * Counts the application sessions the container creates for this application (declared in
 * WEB-INF/sip.xml; the container makes this object): the node's counter "sessions-created", by
 * which a deployment sees which requests cost the container a session (the intake's redirects
 * cost none). One count for the application's class loader, whichever object the container made.
 */
public final class SessionCount implements SipApplicationSessionListener {

    private static final LongAdder CREATED = new LongAdder();

    /** The application sessions created since the application started. */
    static long created() {
        return CREATED.sum();
    }

    @Override
    public void sessionCreated(SipApplicationSessionEvent event) {
        CREATED.increment();
    }

    @Override
    public void sessionDestroyed(SipApplicationSessionEvent event) {
        // counted when made
    }

    @Override
    public void sessionExpired(SipApplicationSessionEvent event) {
        // counted when made
    }

    @Override
    public void sessionReadyToInvalidate(SipApplicationSessionEvent event) {
        // counted when made
    }
}
