package org.p2psip.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RecentErrorsTest {

    @Test
    void aKindSeenAgainMovesToTheFrontWithItsLastDetailAndItsCount() {
        var errors = new RecentErrors(3, () -> 7);
        errors.add("a", "first a");
        errors.add("b", "b");
        errors.add("a", "second a");
        assertEquals("[{\"kind\":\"a\",\"detail\":\"second a\",\"at\":7,\"count\":2},"
                + "{\"kind\":\"b\",\"detail\":\"b\",\"at\":7,\"count\":1}]", errors.json());
    }

    @Test
    void theOldestKindGoesWhenFull() {
        var errors = new RecentErrors(2, () -> 0);
        errors.add("a", "");
        errors.add("b", "");
        errors.add("c", "");
        assertEquals(2, errors.json().split("\"kind\"").length - 1);
        assertEquals(false, errors.json().contains("\"a\""));
    }
}
