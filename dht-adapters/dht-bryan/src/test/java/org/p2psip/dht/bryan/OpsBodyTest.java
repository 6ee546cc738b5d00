package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.NodeRef;

/** The batch bodies of the README: what is encoded decodes the same; what breaks them is refused. */
class OpsBodyTest {

    private static final Id KEY = Id.hash("sip:alice@example.com");

    @Test
    void operationsSurviveEncodeAndDecodeInOrder() {
        byte[] set = "a set".getBytes(StandardCharsets.UTF_8);
        var ops = List.of(new OpsBody.Op(new OpHeader(OpHeader.Op.PUT, KEY, 7), RecordsBody.SET_TYPE, set),
                new OpsBody.Op(new OpHeader(OpHeader.Op.GET, KEY, -1), "", new byte[0]),
                new OpsBody.Op(new OpHeader(OpHeader.Op.REMOVE, KEY, 8), "", new byte[0]));
        List<OpsBody.Op> back = OpsBody.decodeOps(OpsBody.encodeOps(ops));
        assertEquals(3, back.size());
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(ops.get(i).op(), back.get(i).op());
            assertEquals(ops.get(i).contentType(), back.get(i).contentType());
            assertArrayEquals(ops.get(i).body(), back.get(i).body());
        }
    }

    @Test
    void answersSurviveEncodeAndDecodeInOrder() {
        String next = PeerUri.print(NodeRef.at("127.0.0.1:25201"));
        var replies = List.of(new OpsBody.Reply(200, "OK", "", RecordsBody.SET_TYPE, new byte[] {1, 2, 3}),
                new OpsBody.Reply(302, "Moved Temporarily", next, "", new byte[0]),
                new OpsBody.Reply(412, "Conditional Request Failed", "", "", new byte[0]));
        List<OpsBody.Reply> back = OpsBody.decodeReplies(OpsBody.encodeReplies(replies));
        assertEquals(3, back.size());
        for (int i = 0; i < replies.size(); i++) {
            assertEquals(replies.get(i).status(), back.get(i).status());
            assertEquals(replies.get(i).reason(), back.get(i).reason());
            assertEquals(replies.get(i).contact(), back.get(i).contact());
            assertArrayEquals(replies.get(i).body(), back.get(i).body());
        }
        assertEquals(NodeRef.at("127.0.0.1:25201"), Answer.of(back.get(1), null).contact());
    }

    @Test
    void theRingsOwnOperationsCannotTravelInABatch() {
        for (var op : List.of(new OpHeader(OpHeader.Op.COPY, null, -1), new OpHeader(OpHeader.Op.BATCH, null, -1),
                new OpHeader(OpHeader.Op.FIND, KEY, -1))) {
            byte[] body = OpsBody.encodeOps(List.of(new OpsBody.Op(op, "", new byte[0])));
            var e = assertThrows(IllegalArgumentException.class, () -> OpsBody.decodeOps(body));
            assertTrue(e.getMessage().contains("cannot be part of a batch"), e.getMessage());
        }
    }

    @Test
    void truncatedOrTrailingBytesOrABadOperationAreRefused() {
        byte[] good = OpsBody.encodeOps(List.of(new OpsBody.Op(new OpHeader(OpHeader.Op.GET, KEY, -1), "", new byte[0])));
        assertThrows(IllegalArgumentException.class, () -> OpsBody.decodeOps(Arrays.copyOf(good, good.length - 1)));
        assertThrows(IllegalArgumentException.class, () -> OpsBody.decodeOps(Arrays.copyOf(good, good.length + 1)));
        assertThrows(IllegalArgumentException.class, () -> OpsBody.decodeOps(new byte[] {0, 2, 0, 1}));
        byte[] badOp = good.clone();
        badOp[4] = 'x'; // "get;key=..." becomes "xet;key=..."
        assertThrows(MalformedHeaderException.class, () -> OpsBody.decodeOps(badOp));
        byte[] hugeBody = OpsBody.encodeReplies(List.of(new OpsBody.Reply(200, "OK", "", "", new byte[4])));
        hugeBody[hugeBody.length - 5] = 0x7F; // the body's length now says far more than is left
        assertThrows(IllegalArgumentException.class, () -> OpsBody.decodeReplies(hugeBody));
    }
}
