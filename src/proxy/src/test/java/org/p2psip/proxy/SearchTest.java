package org.p2psip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 3261 §16.7 on scripted branch answers: when a group failed, when the search ends, what the caller is told. */
class SearchTest {

    private static Search.Branch answered(int status) {
        return new Search.Branch(status, false);
    }

    private static final Search.Branch SILENT = new Search.Branch(0, false);
    private static final Search.Branch RINGING = answered(180);
    private static final Search.Branch TIMED_OUT = new Search.Branch(0, true);

    @Test
    void aGroupFailsOnlyOnceEveryBranchHasItsFinalAnswerOrRangOut() {
        assertTrue(Search.groupFailed(List.of(answered(486), answered(404))));
        assertTrue(Search.groupFailed(List.of(answered(486), TIMED_OUT)));
        assertTrue(Search.groupFailed(List.of(new Search.Branch(180, true))), "a branch that rang and timed out has failed");
        assertFalse(Search.groupFailed(List.of(answered(486), SILENT)), "one still waits");
        assertFalse(Search.groupFailed(List.of(answered(486), RINGING)), "one still rings");
    }

    @Test
    void a2xxOrA6xxEndsTheSearchAndNoLaterGroupRings() {
        assertFalse(Search.groupFailed(List.of(answered(200), answered(486))));
        assertFalse(Search.groupFailed(List.of(answered(603), answered(486))));
        assertFalse(Search.ringsNext(603));
        assertFalse(Search.ringsNext(600));
        assertTrue(Search.ringsNext(486));
        assertTrue(Search.ringsNext(408));
        assertTrue(Search.endsSearch(200) && Search.endsSearch(604));
        assertFalse(Search.endsSearch(302) || Search.endsSearch(180));
    }

    @Test
    void theCallerHears500ForA503And480ForAFailedFlow() {
        assertEquals(new Search.Answer(500, "Server Internal Error"), Search.upstream(503));
        assertEquals(new Search.Answer(480, "Temporarily Unavailable"), Search.upstream(430));
        assertNull(Search.upstream(486));
        assertNull(Search.upstream(408));
    }
}
