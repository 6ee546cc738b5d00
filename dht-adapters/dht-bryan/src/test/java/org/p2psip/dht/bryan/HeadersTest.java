package org.p2psip.dht.bryan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.dht.ring.Id;
import org.p2psip.dht.ring.Members.Member;
import org.p2psip.dht.ring.NodeRef;

/** The DHT-* header grammar of the README: what is printed parses back the same; what breaks it is refused. */
class HeadersTest {

    private static final NodeRef PEER = NodeRef.at("127.0.0.1:25200");
    private static final String URI = "<sip:" + PEER.id() + "@127.0.0.1:25200>";

    @Test
    void aPeerIdHeaderSurvivesPrintAndParse() {
        var header = new PeerIdHeader(PEER, "lab-ring", 30);
        assertEquals(URI + ";algorithm=sha1;dht=Chord1.0;overlay=lab-ring;expires=30", header.print());
        assertEquals(header, PeerIdHeader.parse(header.print()));
    }

    @Test
    void aPeerIdHeaderIsReadWithSpacesUpperCaseHexAndParametersInAnyOrder() {
        String text = " <sip:" + PEER.id().toString().toUpperCase() + "@127.0.0.1:25200> ; overlay=x ; DHT=chord1.0 ;algorithm=SHA1";
        assertEquals(new PeerIdHeader(PEER, "x", 0), PeerIdHeader.parse(text));
    }

    @Test
    void everyKindOfLinkSurvivesPrintAndParse() {
        for (var link : new LinkHeader[] {new LinkHeader(PEER, LinkHeader.Kind.P, 0, 3),
                new LinkHeader(PEER, LinkHeader.Kind.S, 1, 3), new LinkHeader(PEER, LinkHeader.Kind.S, 99, 0),
                new LinkHeader(PEER, LinkHeader.Kind.F, 0, 3), new LinkHeader(PEER, LinkHeader.Kind.F, 159, 4294967295L)}) {
            assertEquals(link, LinkHeader.parse(link.print()), link.print());
        }
        assertEquals(URI + ";link=S2;expires=3", new LinkHeader(PEER, LinkHeader.Kind.S, 2, 3).print());
    }

    @Test
    void everyOperationSurvivesPrintAndParse() {
        Id key = Id.hash("sip:alice@example.com");
        for (var op : new OpHeader[] {new OpHeader(OpHeader.Op.GET, key, -1), new OpHeader(OpHeader.Op.PUT, key, 0),
                new OpHeader(OpHeader.Op.REMOVE, key, 42), new OpHeader(OpHeader.Op.FIND, key, -1),
                new OpHeader(OpHeader.Op.COPY, null, -1), new OpHeader(OpHeader.Op.HANDED, null, -1)}) {
            assertEquals(op, OpHeader.parse(op.print()), op.print());
        }
        assertEquals("put;key=" + key + ";version=7", new OpHeader(OpHeader.Op.PUT, key, 7).print());
    }

    @Test
    void aStampSurvivesPrintAndParse() {
        for (var stamp : new StampHeader[] {new StampHeader(1764000000123L, 0x0123456789abcdefL, 1),
                new StampHeader(0, -1L, Long.MAX_VALUE), new StampHeader(1764000000123L, Long.MIN_VALUE, 42)}) {
            assertEquals(stamp, StampHeader.parse(stamp.print()), stamp.print());
        }
        assertEquals("1764000000123 0123456789abcdef 7", new StampHeader(1764000000123L, 0x0123456789abcdefL, 7).print());
    }

    @Test
    void aStampIsReadWithTabsSurroundingSpaceAndUpperCaseHex() {
        assertEquals(new StampHeader(5, 0xABCDEF0123456789L, 9), StampHeader.parse(" 5 \tABCDEF0123456789  9 "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1764000000123", "1764000000123 0123456789abcdef", "1764000000123 0123456789abcde 1",
        "1764000000123 0123456789abcdef0 1", "1764000000123 0123456789abcdeg 1", "1764000000123 0123456789abcdef 0",
        "-1 0123456789abcdef 1", "1764000000123 0123456789abcdef -1", "1764000000123;0123456789abcdef;1",
        "9999999999999999999 0123456789abcdef 1", "1764000000123 0123456789abcdef 9999999999999999999",
        "1764000000123 0123456789abcdef 1 2"})
    void aMalformedStampIsRefused(String text) {
        assertThrows(MalformedHeaderException.class, () -> StampHeader.parse(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200;algorithm=sha1;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25201>;algorithm=sha1;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393f@127.0.0.1:25200>;algorithm=sha1;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1>;algorithm=sha1;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=md5;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;dht=Kademlia;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;dht=Chord1.0",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;dht=Chord1.0;overlay=o;expires=-1",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;dht=Chord1.0;overlay=o;expires=soon",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;dht=Chord1.0;overlay=o;colour=red",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;algorithm=sha1;dht=Chord1.0;overlay=o",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;algorithm=sha1;dht=Chord1.0;overlay",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200> algorithm=sha1;dht=Chord1.0;overlay=o",
    })
    void aMalformedPeerIdIsRefused(String text) {
        assertThrows(MalformedHeaderException.class, () -> PeerIdHeader.parse(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"link=S0", "link=S100", "link=P1", "link=F", "link=F160", "link=X1", "link=S1;expires=x",
        "expires=3", "link=S1;depth=2", "link=S-1"})
    void aMalformedLinkIsRefused(String params) {
        String text = URI + ";" + params;
        assertThrows(MalformedHeaderException.class, () -> LinkHeader.parse(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "fetch;key=c32e4ddef88b606921054bbcd3c7527a82f393fc", "get",
        "get;key=c32e4ddef88b606921054bbcd3c7527a82f393f", "get;key=c32e4ddef88b606921054bbcd3c7527a82f393fc;version=1",
        "put;key=c32e4ddef88b606921054bbcd3c7527a82f393fc", "remove;key=c32e4ddef88b606921054bbcd3c7527a82f393fc;version=-1",
        "copy;key=c32e4ddef88b606921054bbcd3c7527a82f393fc", "handed;version=1", "<sip:x@y>"})
    void aMalformedOperationIsRefused(String text) {
        assertThrows(MalformedHeaderException.class, () -> OpHeader.parse(text), text);
    }

    @Test
    void aViewSurvivesPrintAndParseAndItsMembersFirstPlaceIsTheirAddresssHash() {
        var view = new ViewHeader(false, List.of(new Member("127.0.0.1:25200", 8, Id.hash("127.0.0.1:25200"), 1764000000123L),
                new Member("[::1]:25201", 0, Id.hash("[::1]:25201"), 0)));
        PeerHeader printed = view.header();
        assertEquals("<sip:127.0.0.1:25200>;places=8;beat=1764000000123, <sip:[::1]:25201>;places=0;beat=0", printed.value());
        assertEquals(view, ViewHeader.parse(printed.parts().toList(), 8));
        assertEquals(new ViewHeader(true, List.of()), ViewHeader.parse(List.of(new ViewHeader(true, List.of()).header().value()), 8));
        assertNull(ViewHeader.parse(List.of(), 8), "no DHT-View: no view");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "large, <sip:127.0.0.1:25200>;places=1;beat=1", "sip:127.0.0.1:25200;places=1;beat=1",
        "<sip:127.0.0.1>;places=1;beat=1", "<sip:127.0.0.1:0>;places=1;beat=1", "<sip:127.0.0.1:25200>;places=9;beat=1",
        "<sip:127.0.0.1:25200>;places=1", "<sip:127.0.0.1:25200>;beat=1", "<sip:127.0.0.1:25200>;places=1;beat=-1",
        "<sip:127.0.0.1:25200>;places=1;beat=9999999999999999999", "<sip:127.0.0.1:25200>;places=1;beat=1;colour=red",
        "<sip:c32e4ddef88b606921054bbcd3c7527a82f393fc@127.0.0.1:25200>;places=1;beat=1"})
    void aMalformedViewIsRefused(String text) {
        List<String> values = new PeerHeader(ViewHeader.NAME, text).parts().toList();
        assertThrows(MalformedHeaderException.class, () -> ViewHeader.parse(values.isEmpty() ? List.of(text) : values, 8), text);
    }
}
