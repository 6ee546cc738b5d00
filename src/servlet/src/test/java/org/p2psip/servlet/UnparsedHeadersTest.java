package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class UnparsedHeadersTest {

    @Test
    void headerNamesAreMatchedInAnyCaseAndInCompactForm() {
        var unparsed = UnparsedHeaders.fromLines(List.of("m: <sip:bad@@host>", "EXPIRES: soon"));
        assertTrue(unparsed.contains("Contact"));
        assertTrue(unparsed.contains("Expires"));
        assertFalse(unparsed.contains("Path"));
    }

    @Test
    void aLineWithoutNameNamesNothing() {
        assertFalse(UnparsedHeaders.fromLines(List.of(": x", "garbage")).contains("Contact"));
    }
}
