package org.p2psip.front.policies;

import java.util.List;
import org.p2psip.front.nodes.Node;

/**
 * How a request that starts a new Call-ID is given a node. Later requests of the Call-ID follow
 * it without asking the policy again. Implementations are thread-safe.
 */
public interface Policy {

    /**
     * Chooses one of {@code candidates} (the nodes up now, never empty, in node order) for a
     * request of {@code callId}.
     */
    Node choose(List<Node> candidates, String callId);
}
