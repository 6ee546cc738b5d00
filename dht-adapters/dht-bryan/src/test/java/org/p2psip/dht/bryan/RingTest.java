package org.p2psip.dht.bryan;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingSet;

/** Base of the tests that run a ring of in-process peers: the ring is crashed after each test. */
abstract class RingTest {

    protected Peers ring;

    @AfterEach
    void stopTheRing() {
        if (ring != null) {
            ring.close();
        }
    }

    /** A set of one binding of {@code aor}, to sip:USER@{@code host}, valid for an hour. */
    static BindingSet oneBinding(String aor, String host) {
        long now = System.currentTimeMillis();
        String contact = aor.substring(0, aor.indexOf('@') + 1) + host;
        return new BindingSet(aor, 0, now + 86_400_000L,
                List.of(new Binding(aor, contact, now + 3_600_000L, 1000, "call-" + aor, 1, List.of(), "", 0)));
    }
}
