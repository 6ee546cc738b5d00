package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.BindingCodec;
import org.p2psip.dht.BindingSet;
import org.p2psip.dht.ring.store.ContactWrite;
import org.p2psip.dht.ring.store.Record;

/** A STORE's bytes are those the protocol table describes, so that nodes of either build talk. */
class ChordCodecTest {

    @Test
    void everyRequestNamesItsTargetPlaceByItsTwentyByteIdBeforeItsOwnPayload() {
        var target = org.p2psip.dht.ring.Id.parse("00112233445566778899aabbccddeeff00112233");
        byte[] ping = NodePlaces.addressed(target, new byte[0]);
        assertEquals("00112233445566778899aabbccddeeff00112233", HexFormat.of().formatHex(ping));
        byte[] get = NodePlaces.addressed(target, new ChordCodec.Writer().string("sip:a@x").bytes());
        assertEquals("00112233445566778899aabbccddeeff00112233" + "0007" + hex("sip:a@x"), HexFormat.of().formatHex(get));
    }

    @Test
    void aRemovalMarkerInAStoreIsCountThenItsRecordWithItsContactWrites() {
        var removal = new ContactWrite("sip:a@y", 80, 99);
        var marker = new Record("sip:a@x", org.p2psip.dht.ring.Id.hash("sip:a@x"), 7, null, 99, 80, List.of(removal));
        byte[] payload = StoreMessage.batch(List.of(marker));
        assertEquals("0000000000000001" + "00000040" + "0000000000000007" + "0000000000000063" + "0000000000000050"
                + "00000007" + hex("sip:a@x") + "0000" + "0001" + "0007" + hex("sip:a@y") + "0000000000000050" + "0000000000000063",
                HexFormat.of().formatHex(payload));
        assertEquals(marker, StoreMessage.read(payload).get(0));
    }

    @Test
    void aStoredSetTravelsAsItsBindingCodecBlobAndReadsBackAlike() {
        long until = 4_000_000_000_000L;
        var set = new BindingSet("sip:b@x", 3, until, List.of(new Binding("sip:b@x", "sip:b@10.0.0.1", until, 1000,
                "call", 1, List.of(), "", 0)));
        byte[] codec = BindingCodec.encode(set);
        byte[] payload = StoreMessage.batch(List.of(Record.of(set, 5)));
        int record = 8 + 8 + 8 + 4 + codec.length + 2 + 2;
        ByteBuffer expected = ByteBuffer.allocate(8 + 4 + record);
        expected.putLong(1).putInt(record).putLong(5).putLong(0).putLong(0).putInt(codec.length).put(codec)
                .putShort((short) 0).putShort((short) 0);
        assertArrayEquals(expected.array(), payload);
        Record back = StoreMessage.read(payload).get(0);
        assertEquals(5, back.stamp());
        assertEquals(set.bindings(), back.set().bindings());
    }

    @Test
    void aViewCarriesItsMembersAddressPlacesFirstIdAndHeartbeat() {
        var first = org.p2psip.dht.ring.Id.parse("00112233445566778899aabbccddeeff00112233");
        var member = new org.p2psip.dht.ring.Members.Member("h:1", 64, first, 258);
        byte[] view = new ChordCodec.Writer().u8(0).members(List.of(member)).bytes();
        assertEquals("00" + "0001" + "0003" + hex("h:1") + "0040" + "00112233445566778899aabbccddeeff00112233"
                + "0000000000000102", HexFormat.of().formatHex(view));
        var in = new ChordCodec.Reader(view);
        assertEquals(0, in.u8());
        assertEquals(List.of(member), in.members());
    }

    private static String hex(String text) {
        return HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8));
    }
}
