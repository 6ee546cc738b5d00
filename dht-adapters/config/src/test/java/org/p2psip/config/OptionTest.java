package org.p2psip.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OptionTest {

    private static final Option<Duration> TIMEOUT = Option.duration("x.timeout", Duration.ofMillis(1500), "2s", "how long");
    private static final Option<Integer> COUNT = Option.integer("x.count", 4, "8", "how many");

    @Test
    void anOptionNotWrittenTakesItsDefault() {
        assertEquals(4, Config.empty().get(COUNT));
        assertEquals(Duration.ofMillis(1500), Config.empty().get(TIMEOUT));
    }

    @Test
    void durationsAreReadWithTheirUnit() {
        Config config = Config.of(Map.of("x.timeout", "250ms"));
        assertEquals(Duration.ofMillis(250), config.get(TIMEOUT));
        assertEquals(Duration.ofMinutes(5), config.with("x.timeout", "5m").get(TIMEOUT));
        assertEquals(Duration.ofHours(1), config.with("x.timeout", "1h").get(TIMEOUT));
    }

    @Test
    void aValueThatDoesNotParseNamesTheOption() {
        var e = assertThrows(IllegalArgumentException.class, () -> Config.of(Map.of("x.timeout", "12")).get(TIMEOUT));
        assertTrue(e.getMessage().startsWith("option x.timeout"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Config.of(Map.of("x.count", "four")).get(COUNT));
    }

    @Test
    void misspeltNamesAreReported() {
        Config config = Config.of(Map.of("x.cuont", "3", "x.count", "3", "y.other", "1"));
        assertEquals(Set.of("x.cuont"), config.unknown("x.", List.of(COUNT, TIMEOUT)));
    }

    @Test
    void theTableRowShowsNameMeaningDefaultAndExample() {
        assertEquals("| `x.timeout` | how long | `1500ms` | `2s` |", OptionTable.row(TIMEOUT));
    }
}
