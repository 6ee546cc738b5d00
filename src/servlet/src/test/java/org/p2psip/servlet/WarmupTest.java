package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class WarmupTest {

    /** The keys the node removes once warm are those its REGISTERs wrote: one pool per node, as the registrar keys them. */
    @Test
    void theAorsToForgetAreTheNodesOwnPoolAsTheRegistrarKeysThem() {
        List<String> aors = Warmup.aors(5071, "p2psip.test");
        assertEquals(Warmup.AORS, aors.size());
        assertEquals(Warmup.AORS, new HashSet<>(aors).size());
        assertEquals("sip:warmup-5071-0@p2psip.test", aors.get(0));
        assertTrue(aors.stream().allMatch(a -> a.startsWith("sip:" + WarmupUsers.PREFIX + "5071-")),
                "another node's pool is not this one's");
    }
}
