package org.p2psip.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Option;

class BackendsTest {

    /** Registered for this test only (src/test/resources/META-INF/services). */
    public static final class Second implements Backend {
        @Override
        public String name() {
            return "second";
        }

        @Override
        public List<Option<?>> options() {
            return List.of();
        }

        @Override
        public String servlet() {
            return "example.SecondSipServlet";
        }

        @Override
        public Set<Trait> traits() {
            return Set.of(Trait.ON_DISK, Trait.ALONE);
        }

        @Override
        public List<String> jvmArguments() {
            return List.of("--add-modules", "java.se");
        }
    }

    /** Registered for this test only, after Second, so that the list's order is by name, not by registration. */
    public static final class First implements Backend {
        @Override
        public String name() {
            return "first";
        }

        @Override
        public List<Option<?>> options() {
            return List.of();
        }

        @Override
        public String servlet() {
            return "example.FirstSipServlet";
        }
    }

    @Test
    void aBackendIsFoundByItsNameAndAnUnknownNameFindsNone() {
        assertEquals("example.SecondSipServlet", Backends.named("second").orElseThrow().servlet());
        assertTrue(Backends.named("Second").isEmpty(), "names are matched exactly");
        assertTrue(Backends.named("third").isEmpty(), "an unregistered name");
    }

    @Test
    void theTableListsOneBackendALineSortedByNameWithItsTraitsAndJvmArguments() {
        assertEquals("first example.FirstSipServlet - -\n"
                + "second example.SecondSipServlet alone,on-disk --add-modules,java.se\n", Backends.table());
        assertEquals("first, second", Backends.names());
    }
}
