package org.p2psip.proxy;

import java.util.List;

/** What the proxy does with a request once its AOR was looked up: refuse, redirect, or fork. Immutable. */
public sealed interface Decision {

    /** Answer the request with this refusal. */
    record Refuse(Refusal refusal) implements Decision {
    }

    /** Answer 302 with these contacts, in the order the proxy would have rung them (RFC 3841 §9.1). */
    record Redirect(List<Target> contacts) implements Decision {

        public Redirect {
            contacts = List.copyOf(contacts);
        }
    }

    /**
     * Proxy to the first group at once, then to each later group in turn once every branch of
     * the one before failed (RFC 3261 §16.6, {@link Search}). {@code supervised}: the servlet
     * must see the best final answer (a later group is left, or a branch rides on a flow whose
     * 430 drops its binding).
     */
    record Fork(List<List<Target>> groups, boolean supervised) implements Decision {

        public Fork {
            groups = groups.stream().map(List::copyOf).toList();
        }
    }
}
