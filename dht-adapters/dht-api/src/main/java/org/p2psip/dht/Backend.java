package org.p2psip.dht;

import java.util.List;
import org.p2psip.config.Option;

/**
 * A DHT backend as a node chooses it: by {@link #name()}, the value of {@code p2psip.dht}. Each
 * backend module registers one with {@link java.util.ServiceLoader} (a file
 * {@code META-INF/services/org.p2psip.dht.Backend}), and {@link Backends} is the one list of them
 * that the servlet, deploy/p2psip and the bench all read.
 *
 * <p>An implementation touches nothing heavier than its options, so that the list can be read
 * with the backends' jars alone, without the servlet container.
 */
public interface Backend {

    /** The name {@code p2psip.dht} and {@code deploy/p2psip up --dht} give: lower case, one word. */
    String name();

    /** The backend's own options, so that a node reports misspelt ones at start. */
    List<Option<?>> options();

    /**
     * The binary name of the servlet that runs this backend, a subclass of the WAR's
     * {@code P2PSipServlet}: a name, not a class, since the servlet lives above the backends.
     */
    String servlet();
}
