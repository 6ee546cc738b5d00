package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Digest authentication on two nodes started with --auth (memory backend: what is checked here
 * is the node's door, not where bindings live): SIPp's [authentication] for what a phone meets,
 * and a client of the test's own for a SHA-256 answer sent through the other node and for TLS
 * (the nodes run with --tls).
 */
class AuthIT extends DeployedNodes {

    private static final String DOMAIN = "p2psip.test";

    AuthIT() {
        super("auth", 25470, 2);
        deployment.withUser("alice@" + DOMAIN, "wonderland")
                .withUser("bob@" + DOMAIN, "builder")
                .withSetting("p2psip.auth.algorithms", "MD5,SHA-256") // SIPp 3.6 reads the first, MD5 only
                .withSetting("p2psip.auth.invite", "true")
                .withTls();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"challenge-then-200", "wrong-password-stores-nothing",
        "wildcard-without-credentials-keeps-bindings", "another-users-credentials-403", "invite-challenge-then-routed"})
    void aPhoneMeetsTheChallengeAsTheScenarioExpects(String scenario) {
        assertEquals(0, sipp.auth(deployment.node(0), scenario, "alice", "wonderland"),
                scenario + ": the answers were not those sipp-scenarios/auth/" + scenario + ".xml expects; " + sipp.where());
    }

    @Test
    void aSha256AnswerToNode0sChallengeIsAcceptedByNode1() throws IOException {
        try (var phone = new DigestClient("bob", DOMAIN)) {
            var challenged = phone.register(deployment.node(0), null);
            assertEquals(401, challenged.status(), "a REGISTER without credentials");
            List<String> challenges = challenged.headers("WWW-Authenticate");
            String sha256 = challenges.stream().filter(c -> c.contains("algorithm=SHA-256")).findFirst()
                    .orElseThrow(() -> new AssertionError("no SHA-256 challenge among " + challenges));
            var registered = phone.register(deployment.node(1), phone.answer(sha256, "builder"));
            assertEquals(200, registered.status(), "node 1 should accept the answer to node 0's nonce");
            assertTrue(registered.headers("Contact").stream().anyMatch(c -> c.contains("sip:phone@")),
                    "the 200 lists the contact: " + registered.lines());
        }
    }

    @Test
    void aPhoneRegistersOverTlsWithItsSipsContactKept() throws IOException {
        try (var phone = new DigestClient("bob", DOMAIN, deployment.caCertificate())) {
            var challenged = phone.register(deployment.tlsNode(1), null);
            assertEquals(401, challenged.status(), "a REGISTER over TLS without credentials");
            var registered = phone.register(deployment.tlsNode(1),
                    phone.answer(challenged.headers("WWW-Authenticate").get(0), "builder"));
            assertEquals(200, registered.status(), "the answer over the same TLS connection");
            assertTrue(registered.headers("Contact").stream().anyMatch(c -> c.contains("sips:phone@")
                    && c.contains("transport=tls")), "the 200 lists the sips contact as registered: " + registered.lines());
            assertTrue(registered.headers("Via").get(0).startsWith("SIP/2.0/TLS"), "answered over TLS: " + registered.lines());
        }
    }

    @Test
    void aSipsCallToAUserWithOnlyAPlainContactIsRefusedNotDowngraded() throws IOException {
        try (var phone = new DigestClient("alice", DOMAIN)) {
            String challenge = phone.register(deployment.node(0), null).headers("WWW-Authenticate").get(0);
            assertEquals(200, phone.register(deployment.node(0), phone.answer(challenge, "wonderland")).status());
            var answer = phone.invite(deployment.node(0), "sips:alice@" + DOMAIN); // memory: the registering node
            assertEquals(480, answer.status(), "alice has a sip: contact only: " + answer.lines());
            assertTrue(answer.lines().get(0).contains("No Secure Contact"), answer.lines().get(0));
        }
    }

    @Test
    void aUserAddedToTheRunningDeploymentMayRegisterWithinSeconds() throws Exception {
        deployment.addUser("carol@" + DOMAIN, "c4rol");
        long deadline = System.nanoTime() + 15_000_000_000L;
        int status;
        do {
            try (var phone = new DigestClient("carol", DOMAIN)) {
                String challenge = phone.register(deployment.node(0), null).headers("WWW-Authenticate").get(0);
                status = phone.register(deployment.node(0), phone.answer(challenge, "c4rol")).status();
            }
        } while (status != 200 && System.nanoTime() < deadline); // the nodes read the file again each second
        assertEquals(200, status, "carol, added by deploy/p2psip users add, should register");
    }

    @Test
    void aRegisterForAUserNotInTheFileNeverGets200() throws IOException {
        try (var phone = new DigestClient("mallory", DOMAIN)) {
            String challenge = phone.register(deployment.node(0), null).headers("WWW-Authenticate").get(0);
            assertEquals(401, phone.register(deployment.node(0), phone.answer(challenge, "anything")).status());
        }
    }
}
