package org.p2psip.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How GRUUs are written and read back (RFC 5627), without the DHT: what a Request-URI that is one names. */
class GruusTest {

    static final String AOR = "sip:alice@example.com";
    static final String INSTANCE = "\"<urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6>\"";
    static final String URN = "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
    final Gruus gruus = new Gruus("s3cret");

    @Test
    void aPublicGruuIsTheAorWithTheInstancesUrnAsGr() {
        assertEquals(AOR + ";gr=" + URN, gruus.publicGruu(AOR, INSTANCE));
        assertEquals(AOR + ";gr=" + URN, gruus.publicGruu(AOR, "<" + URN + ">"), "with or without the quotes");
    }

    @Test
    void aPublicGruuResolvesToItsAorAndInstance() {
        assertEquals(Optional.of(new Gruu(Gruu.Kind.PUBLIC, AOR, URN, 0)), gruus.resolve(AOR, URN));
    }

    @Test
    void aGrValueAParameterCannotHoldIsEscapedAndReadBack() {
        String gruu = gruus.publicGruu(AOR, "<urn:x-odd:a b;c=d%e>");
        assertEquals(AOR + ";gr=urn:x-odd:a%20b%3Bc%3Dd%25e", gruu);
        String gr = gruu.substring(gruu.indexOf(";gr=") + 4);
        assertEquals("urn:x-odd:a b;c=d%e", gruus.resolve(AOR, gr).orElseThrow().instance());
    }

    @Test
    void aTemporaryGruuIsATgruuUserAtTheAorsDomainWithAFlagGr() {
        String temporary = gruus.temporaryGruu(AOR, INSTANCE, "call-1");
        assertTrue(temporary.matches("sip:tgruu\\.[A-Za-z0-9_-]+@example\\.com;gr"), temporary);
    }

    @Test
    void aTemporaryGruuResolvesToItsAorInstanceAndCallId() {
        Gruu gruu = resolveTemporary(gruus, gruus.temporaryGruu(AOR, INSTANCE, "call-1")).orElseThrow();
        assertEquals(new Gruu(Gruu.Kind.TEMPORARY, AOR, URN, Gruu.digestOf("call-1")), gruu);
    }

    @Test
    void aTemporaryGruuResolvesOnEveryNodeWithTheOverlaysSecret() {
        String temporary = gruus.temporaryGruu(AOR, INSTANCE, "call-1");
        assertEquals(AOR, resolveTemporary(new Gruus("s3cret"), temporary).orElseThrow().aor());
    }

    @Test
    void aTemporaryGruuOfAnotherSecretOrAlteredIsNoGruu() {
        String temporary = gruus.temporaryGruu(AOR, INSTANCE, "call-1");
        assertEquals(Optional.empty(), resolveTemporary(new Gruus("another"), temporary));
        int middle = temporary.indexOf('@') / 2; // not the last character, whose low bits base64 may ignore
        char c = temporary.charAt(middle);
        String altered = temporary.substring(0, middle) + (c == 'A' ? 'B' : 'A') + temporary.substring(middle + 1);
        assertEquals(Optional.empty(), resolveTemporary(gruus, altered));
        assertEquals(Optional.empty(), gruus.resolve("sip:tgruu.not-base64!@example.com", ""));
        assertEquals(Optional.empty(), gruus.resolve("sip:tgruu.AAAA@example.com", ""));
    }

    @Test
    void aTemporaryGruuUnderAnotherDomainIsNoGruu() {
        String temporary = gruus.temporaryGruu(AOR, INSTANCE, "call-1");
        String elsewhere = temporary.substring(0, temporary.indexOf('@')) + "@example.org";
        assertEquals(Optional.empty(), gruus.resolve(elsewhere, ""));
    }

    @Test
    void temporaryGruusCannotBeLinkedToEachOtherOrToTheAor() {
        String first = gruus.temporaryGruu(AOR, INSTANCE, "call-1");
        String second = gruus.temporaryGruu(AOR, INSTANCE, "call-1");
        String otherUser = gruus.temporaryGruu("sip:bob@example.com", INSTANCE, "call-1");
        assertNotEquals(first, second, "each issue is a new GRUU");
        assertFalse(first.contains("alice") || first.contains("f81d4fae"), "neither AOR nor instance in clear: " + first);
        assertEquals(first.length(), otherUser.length(), "the length does not tell users apart");
    }

    @Test
    void aUriWithoutGrOrWithAFlagGrOnAnyOtherUserIsNoGruu() {
        assertEquals(Optional.empty(), gruus.resolve(AOR, null));
        assertEquals(Optional.empty(), gruus.resolve(AOR, ""));
    }

    @Test
    void withoutASecretANodeResolvesOnlyItsOwnTemporaryGruus() {
        var alone = new Gruus("");
        String temporary = alone.temporaryGruu(AOR, INSTANCE, "call-1");
        assertEquals(AOR, resolveTemporary(alone, temporary).orElseThrow().aor());
        assertEquals(Optional.empty(), resolveTemporary(new Gruus(""), temporary));
    }

    /** What a proxy does with a temporary GRUU Request-URI: its AOR is sip:user@host, its gr parameter has no value. */
    static Optional<Gruu> resolveTemporary(Gruus gruus, String temporaryGruu) {
        return gruus.resolve(temporaryGruu.substring(0, temporaryGruu.indexOf(";gr")), "");
    }
}
