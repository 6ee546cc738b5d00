package org.p2psip.front.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Flow tokens name a connection, only this front's, and cannot be made up. */
class FlowTokensTest {

    private final FlowTokens tokens = new FlowTokens();

    @Test
    void aTokenNamesItsConnectionAndHasTheShapeOfOne() {
        for (long id : new long[] {1, 2, 4_711, Long.MAX_VALUE}) {
            String token = tokens.token(id);
            assertEquals(FlowTokens.LENGTH, token.length());
            assertTrue(FlowTokens.looksLikeToken(token), token);
            assertEquals(id, tokens.connection(token));
        }
    }

    @Test
    void aChangedTokenOrAnotherFrontsTokenNamesNoConnection() {
        String token = tokens.token(42);
        for (int i = 0; i < token.length(); i++) {
            char flipped = token.charAt(i) == 'A' ? 'B' : 'A';
            String changed = token.substring(0, i) + flipped + token.substring(i + 1);
            assertEquals(-1, tokens.connection(changed), "changed at " + i + ": " + changed);
        }
        assertEquals(-1, new FlowTokens().connection(token), "a restarted front's key refuses its predecessor's token");
    }

    @Test
    void userPartsThatAreNotTokensAreTakenForOrdinaryRoutes() {
        assertFalse(FlowTokens.looksLikeToken(null));
        assertFalse(FlowTokens.looksLikeToken("alice"));
        assertFalse(FlowTokens.looksLikeToken("abcdefghijklmnopqrstuvw!"), "a character outside base64url");
        assertEquals(-1, tokens.connection("not-a-token"));
        assertEquals(-1, tokens.connection("abcdefghijklmnopqrstuvwx"), "the right shape, the wrong MAC");
    }
}
