package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;

/** The q-value grammar and the Supported option tags; the rest of the parser is exercised through the container by the integration tests. */
class RegisterParserTest {

    @Test
    void qValuesAreReadInThousandths() throws Exception {
        assertEquals(1000, RegisterParser.q("1"));
        assertEquals(1000, RegisterParser.q("1.000"));
        assertEquals(500, RegisterParser.q("0.5"));
        assertEquals(7, RegisterParser.q("0.007"));
        assertEquals(0, RegisterParser.q("0"));
        assertEquals(Binding.Q_UNSPECIFIED, RegisterParser.q(null));
    }

    @Test
    void qValuesOutsideTheGrammarAre400() {
        for (String bad : new String[] {"1.5", "2", "-0.1", "0.1234", "high", "", ".5"}) {
            var e = assertThrows(BadRequest.class, () -> RegisterParser.q(bad), bad);
            assertEquals(400, e.status());
            assertEquals("Invalid q Value", e.reason());
        }
    }

    @Test
    void supportedOptionTagsAreReadFromEveryHeaderAndListInLowerCase() {
        assertEquals(Set.of("path", "gruu", "100rel"), RegisterParser.optionTags(List.of("Path, gruu", " 100rel ,", "")));
        assertEquals(Set.of(), RegisterParser.optionTags(List.of()));
    }
}
