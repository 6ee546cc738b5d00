package org.p2psip.dht;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BindingCodecTest {

    private static final String AOR = "sip:alice@example.com";

    private static BindingSet sample() {
        return new BindingSet(AOR, 42, 1_800_000_000_000L, List.of(
                new Binding(AOR, "sip:alice@192.0.2.1:5060;transport=udp", 1_700_000_000_000L, 500, "cid-1", 7,
                        List.of("<sip:p1.example.com;lr>"), "<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>", 1),
                new Binding(AOR, "sip:alice@[2001:db8::1]", 1_700_000_100_000L, Binding.Q_UNSPECIFIED, "cid-2", 1,
                        List.of(), "", 0)));
    }

    @Test
    void aSetDecodesToWhatWasEncoded() {
        BindingSet set = sample();
        assertEquals(set, BindingCodec.decode(BindingCodec.encode(set)));
    }

    /**
     * What one registered phone costs in the encoding, the unit of a store's size: a phone
     * behind the front on TCP with RFC 5626 outbound (its Path naming its flow, +sip.instance,
     * reg-id), a generated Call-ID, q 1.0. The set's header is 48 bytes (its AOR 27 of them), the
     * binding 211 (its four strings 180): 259 bytes, of which 52 are lengths and numbers.
     */
    @Test
    void aTypicalPhonesRegistrationEncodesIn259Bytes() {
        String aor = "sip:user0001234@p2psip.test";
        var phone = new Binding(aor, "sip:user0001234@192.0.2.10:51234;transport=tcp;ob", 1_700_003_600_000L, 1000,
                "9a3f2c1e-5b7d-4e8a-9c0f-1d2e3f4a5b6c", 2, List.of("<sip:AAAAAAAAAAE3kq0Yb1xZ8w@10.0.0.2:5060;lr;ob>"),
                "<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>", 1);
        byte[] bytes = BindingCodec.encode(new BindingSet(aor, 3, 1_700_090_000_000L, List.of(phone)));
        int header = 1 + (2 + aor.length()) + 8 + 8 + 2;
        int binding = (2 + phone.contact().length()) + 8 + 2 + (2 + phone.callId().length()) + 8 + 1
                + (2 + phone.path().get(0).length()) + (2 + phone.instance().length()) + 4;
        assertEquals(header + binding, bytes.length, "the layout in BindingCodec's Javadoc");
        assertEquals(259, bytes.length);
    }

    @Test
    void anEmptySetRoundTrips() {
        BindingSet set = BindingSet.absent("sip:\u00fcnicode@example.com");
        assertEquals(set, BindingCodec.decode(BindingCodec.encode(set)));
    }

    @Test
    void theFirstByteIsTheFormat() {
        assertEquals(BindingCodec.FORMAT, BindingCodec.encode(sample())[0]);
    }

    @Test
    void anUnknownFormatIsRefused() {
        byte[] bytes = BindingCodec.encode(sample());
        bytes[0] = 9;
        var e = assertThrows(MalformedBindingException.class, () -> BindingCodec.decode(bytes));
        assertTrue(e.getMessage().contains("unknown binding format 9"), e.getMessage());
    }

    @Test
    void everyTruncationIsRefused() {
        byte[] bytes = BindingCodec.encode(sample());
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertThrows(MalformedBindingException.class, () -> BindingCodec.decode(cut), "truncated to " + length);
        }
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] bytes = BindingCodec.encode(sample());
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(MalformedBindingException.class, () -> BindingCodec.decode(longer));
    }

    @Test
    void randomBytesNeverDecodeToAnythingButARefusal() {
        var random = new Random(1);
        for (int i = 0; i < 10_000; i++) {
            byte[] junk = new byte[1 + random.nextInt(80)];
            random.nextBytes(junk);
            junk[0] = (byte) BindingCodec.FORMAT; // past the format byte, so the rest is really read
            try {
                BindingSet decoded = BindingCodec.decode(junk);
                assertArrayEquals(junk, BindingCodec.encode(decoded), "whatever decodes must re-encode to the same bytes");
            } catch (MalformedBindingException expected) {
                // the only other allowed outcome
            }
        }
    }

    @Test
    void aQOutsideItsRangeIsNotABinding() {
        assertThrows(IllegalArgumentException.class,
                () -> new Binding(AOR, "sip:a@b", 0, 1001, "c", 1, List.of(), "", 0));
    }
}
