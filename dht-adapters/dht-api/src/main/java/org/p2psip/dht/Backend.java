package org.p2psip.dht;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.p2psip.config.Option;

/**
 * A DHT backend as a node chooses it: by {@link #name()}, the value of {@code p2psip.dht}. Each
 * backend module registers one with {@link java.util.ServiceLoader} (a file
 * {@code META-INF/services/org.p2psip.dht.Backend}), and {@link Backends} is the one list of them
 * that the servlet, deploy/p2psip and the bench all read: what they must know of a backend beyond
 * its name is said here, once ({@link #traits()}, {@link #jvmArguments()}).
 *
 * <p>An implementation touches nothing heavier than its options, so that the list can be read
 * with the backends' jars alone, without the servlet container.
 */
public interface Backend {

    /** What a node, deploy/p2psip or the bench does differently for a backend that has it. */
    enum Trait {
        /** Each node keeps its own bindings and shares none: a call must enter the node its callee registered with. */
        ALONE,
        /** Bindings kept on disk under {@code p2psip.data.dir}: the bench also runs the backend with its nodes' folders on tmpfs. */
        ON_DISK,
        /**
         * Joins through the node's own servlet (its overlay's messages are SIP requests), so only
         * once the servlet's init has returned: nodes start one after another.
         */
        JOINS_AFTER_INIT;

        /** As {@link Backends#table} prints it: lower case, words joined by '-'. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /** The name {@code p2psip.dht} and {@code deploy/p2psip up --dht} give: lower case, one word. */
    String name();

    /** The backend's own options, so that a node reports misspelt ones at start. */
    List<Option<?>> options();

    /**
     * The binary name of the servlet that runs this backend, a subclass of the WAR's
     * {@code P2PSipServlet}: a name, not a class, since the servlet lives above the backends.
     */
    String servlet();

    /** What sets this backend apart from one whose nodes share their bindings in memory and join within init. */
    default Set<Trait> traits() {
        return Set.of();
    }

    /** Arguments the node's JVM needs for this backend beyond a node's own (none contains a space or a comma). */
    default List<String> jvmArguments() {
        return List.of();
    }
}
