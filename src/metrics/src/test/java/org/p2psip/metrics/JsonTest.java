package org.p2psip.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void stringsAreEscapedSoThatNoTextCanEndTheDocumentOrAScript() {
        assertEquals("\"a\\\"b\\\\c\\n\\u003c/script\\u003e\\u0001\"", Json.string("a\"b\\c\n</script>\u0001"));
        assertEquals("null", Json.string(null));
    }

    @Test
    void numbersAreWholeOrThreeDecimalsAndNanIsNull() {
        assertEquals("42", Json.number(42.0));
        assertEquals("0.250", Json.number(0.25));
        assertEquals("null", Json.number(Double.NaN));
        assertEquals("null", Json.number(Double.POSITIVE_INFINITY));
    }
}
