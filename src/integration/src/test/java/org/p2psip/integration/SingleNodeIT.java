package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One node of the real container with the WAR (memory backend), driven by SIPp on loopback. */
class SingleNodeIT extends DeployedNodes {

    SingleNodeIT() {
        super("single", 25070, 1);
    }

    /**
     * A REGISTER whose 200 the client never got is sent again, long after the SIP stack let its
     * transaction go (64 ms after the answer): the node's intake answers it with the very answer
     * it sent, as RFC 3261's server transaction would until Timer J, and never takes it for a new
     * REGISTER, which would fail on its CSeq (RFC 3261 §10.3) and write again.
     */
    @Test
    void aRegisterSentAgainAfterItsAnswerGetsThatAnswerAgainAndChangesNothing() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app keeps no bindings");
        String base = deployment.httpNode(0);
        String sample = "p2psip_intake_retransmissions_answered_total{}";
        double answeredBefore = Scrape.of(base).value(sample);
        var node = new InetSocketAddress("127.0.0.1", 25070);
        try (var phone = new ScriptedPhone("again", 0)) {
            String branch = ScriptedPhone.newBranch();
            String callId = ScriptedPhone.newId("again");
            String[] register = {"REGISTER sip:p2psip.test SIP/2.0", "Via: " + phone.via(branch), "Max-Forwards: 70",
                "From: <sip:again@p2psip.test>;tag=" + callId, "To: <sip:again@p2psip.test>", "Call-ID: " + callId,
                "CSeq: 1 REGISTER", "Contact: <" + phone.contact() + ">", "Expires: 3600"};
            phone.send(node, register);
            var first = phone.await("the 200 to its REGISTER", Duration.ofSeconds(5), m -> m.status() >= 200);
            assertEquals(200, first.status(), first.toString());
            assertNull(phone.poll(Duration.ofSeconds(1), m -> true), "the node sends nothing unasked");

            phone.send(node, register); // the client's retransmission, its 200 taken for lost
            var again = phone.await("the answer to its retransmission", Duration.ofSeconds(5), m -> m.status() >= 200);
            assertEquals(first.toString(), again.toString(), "the same answer, header for header");

            phone.send(node, "REGISTER sip:p2psip.test SIP/2.0", "Via: " + phone.via(ScriptedPhone.newBranch()),
                    "Max-Forwards: 70", "From: <sip:again@p2psip.test>;tag=q", "To: <sip:again@p2psip.test>",
                    "Call-ID: " + ScriptedPhone.newId("query"), "CSeq: 1 REGISTER");
            var query = phone.await("the answer to a query", Duration.ofSeconds(5), m -> m.status() >= 200);
            assertEquals(200, query.status(), query.toString());
            assertEquals(1, query.listed("Contact").size(), "one binding, written once: " + query);
        }
        assertEquals(1, Scrape.of(base).value(sample) - answeredBefore, sample);
    }

    @Test
    void thousandDistinctRegistersAreAllAnswered200() {
        assertEquals(0, sipp.register(deployment.node(0), 1000, 0, 250),
                "SIPp saw a REGISTER not answered 200; " + sipp.where());
    }

    /**
     * The node's /metrics counts what it was sent and what it answered: 100 REGISTERs raise the
     * REGISTER requests and their 200s by 100 each, and the DHT's operations with them; the text
     * parses with the Prometheus client's parser, JVM memory included.
     */
    @Test
    void metricsRiseByTheHundredRegistersSentAndParseAsPrometheusText() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app has no metrics");
        String base = deployment.httpNode(0);
        Scrape before = Scrape.of(base);
        assertEquals(0, sipp.register(deployment.node(0), 100, 500_000, 100),
                "SIPp saw a REGISTER not answered 200; " + sipp.where());
        Scrape after = Scrape.of(base);
        String requests = "p2psip_sip_requests_total{method=\"REGISTER\"}";
        String answered = "p2psip_sip_responses_total{method=\"REGISTER\",status=\"200\"}";
        assertEquals(100, after.value(requests) - before.value(requests), requests);
        assertEquals(100, after.value(answered) - before.value(answered), answered);
        // each REGISTER is one change the AOR's owner applies and writes
        String updates = "p2psip_dht_operation_seconds_count{kind=\"update\",outcome=\"ok\"}";
        assertEquals(100, after.value(updates) - before.value(updates), updates);
        assertTrue(after.hasAny("jvm_memory_used_bytes{area=\"heap\""), "no JVM heap meters");
        assertEquals(1, after.value("p2psip_ready{}"), "the node says it is not ready");
    }

    @Test
    void callIsRoutedToTheRegisteredSippUas() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app proxies to a fixed target, not by registration");
        assertEquals(0, sipp.calls(deployment.node(0), deployment.node(0), "single-callee", 20),
                "a call through the proxy to the registered UAS did not complete; " + sipp.where());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"malformed-contact", "non-numeric-expires", "wildcard-without-expires-0",
        "interval-too-brief", "invite-unknown-aor", "version-not-supported", "unsupported-uri-scheme",
        "unsupported-contact-scheme", "register-domain-not-served", "invite-domain-not-served"})
    void badInputIsAnsweredAsTheScenarioExpects(String scenario) {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app does not check its input");
        assertEquals(0, sipp.badInput(deployment.node(0), scenario),
                scenario + ": the answer was not the one sipp-scenarios/bad-input/" + scenario + ".xml expects; "
                        + sipp.where());
    }

    /**
     * The node's intake answers a request without From 400 from the datagram (the stack dropped
     * it unanswered). Without Call-ID, CSeq or To the intake answers 400 too, but SIPp cannot
     * match such an answer to its call: MalformedIT's raw-socket corpus checks those.
     */
    @Test
    void aRequestWithoutFromIsAnswered400() {
        assertEquals(0, sipp.badInput(deployment.node(0), "no-from"), "no-from; " + sipp.where());
    }
}
