package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.p2psip.dht.Binding;
import org.p2psip.dht.MalformedBindingException;

class RegisterCodecTest {

    static RegisterRequest outboundPhone() {
        return new RegisterRequest("sip:alice@example.com", "a84b4c76e66710", 3141, 3600L, false,
                List.of(new ContactSpec("sip:alice@192.0.2.4:5061;transport=tcp;ob", null, 700,
                                "<urn:uuid:00000000-0000-1000-8000-000A95A0E128>", 1),
                        new ContactSpec("sip:alice@198.51.100.7", 0L, Binding.Q_UNSPECIFIED, "", 0)),
                List.of("<sip:edge@203.0.113.1;lr;ob>", "<sip:core@203.0.113.2;lr>"), Set.of("path", "outbound", "gruu"));
    }

    @Test
    void aRequestRoundTripsWithEveryField() {
        RegisterRequest request = outboundPhone();
        assertEquals(request, RegisterCodec.decode(RegisterCodec.encode(request)));
        var wildcard = new RegisterRequest("sip:bob@example.com", "w", 1, 0L, true, List.of(), List.of());
        assertEquals(wildcard, RegisterCodec.decode(RegisterCodec.encode(wildcard)));
    }

    @Test
    void everyTruncationAndTrailingBytesAreRefused() {
        byte[] bytes = RegisterCodec.encode(outboundPhone());
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            assertThrows(MalformedBindingException.class, () -> RegisterCodec.decode(cut), "cut to " + length);
        }
        byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
        assertThrows(MalformedBindingException.class, () -> RegisterCodec.decode(longer));
    }

    @Test
    void anotherFormatIsRefused() {
        byte[] bytes = RegisterCodec.encode(outboundPhone());
        bytes[0] = 7;
        assertThrows(MalformedBindingException.class, () -> RegisterCodec.decode(bytes));
    }
}
