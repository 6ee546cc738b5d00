package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Requests that are not valid SIP, and valid ones as odd as SIP allows: the corpus of
 * sipp-scenarios/bad-input/corpus/ (after RFC 4475, the SIP torture tests; its README says what
 * each message is and expects), sent over raw UDP by sipp-scenarios/bad-input/torture to a
 * memory node and to the front before two of them. Not valid SIP gets 505, 416 or 400 with its
 * reason phrase from the node's intake or the front, before any DHT work; valid SIP is served
 * (200, 404, 483, the registrar's own 400...); a response nobody asked for, or a request
 * without a Via, gets nothing. Then REGISTERs are still answered 200.
 *
 * <p>One deployment serves both: a memory node shares nothing with another, so node 0 addressed
 * directly is a single memory node, and the front (rr) spreads the corpus over both nodes. Front
 * on 25520, nodes on 25521 and 25522.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MalformedIT extends DeployedNodes {

    static final int FRONT_PORT = 25520;
    private static final Path REPORTS = Command.WORK.resolve("malformed");

    MalformedIT() {
        super("malformed", FRONT_PORT + 1, 2);
        deployment.withFront("rr", FRONT_PORT).withSipTrace(false);
    }

    @Test
    @Order(1)
    void aMemoryNodeAnswersEveryMessageOfTheCorpusAsItsFileExpects() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app answers what it gets without reading it");
        assertCorpusAnswered(deployment.node(0), "node");
    }

    @Test
    @Order(2)
    void theFrontBeforeTwoNodesAnswersEveryMessageOfTheCorpusAsItsFileExpects() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app answers what it gets without reading it");
        assertCorpusAnswered(deployment.front(), "front");
    }

    /** Whoever answers (the node's intake, the front, the servlet behind either), a client hears the same. */
    @Test
    @Order(3)
    void theNodeAndTheFrontAnswerEachMessageAlike() {
        assumeTrue(Deployment.APP.equals("p2psip"), "the ceiling app answers what it gets without reading it");
        Map<String, String> node = answers("node");
        Map<String, String> front = answers("front");
        assertFalse(node.isEmpty() || front.isEmpty(), "the corpus ran against both (tests 1 and 2); see " + REPORTS);
        String differences = node.keySet().stream().filter(name -> !node.get(name).equals(front.get(name)))
                .map(name -> name + ": node " + node.get(name) + ", front " + front.get(name))
                .collect(Collectors.joining("; "));
        assertEquals("", differences, "messages answered otherwise by the node and by the front");
    }

    @Test
    @Order(4)
    void afterTheCorpusRegistersAreStillAnswered200() {
        assertEquals(0, sipp.register(deployment.node(0), 100, 0, 100),
                "a REGISTER sent straight to the node after the corpus was not answered 200; " + sipp.where());
        assertEquals(0, sipp.register(deployment.front(), 100, 1_000, 100),
                "a REGISTER through the front after the corpus was not answered 200; " + sipp.where());
    }

    private void assertCorpusAnswered(String target, String name) {
        Path report = REPORTS.resolve(name + ".tsv");
        int code = sipp.torture(target, report);
        List<String> failed = lines(report).stream().filter(line -> line.split("\t")[1].equals("FAIL")).toList();
        assertEquals(0, code, "messages of the corpus not answered as their files expect (name, verdict, status, reason,"
                + " expected): " + failed + "; " + sipp.where() + " and " + report);
    }

    /** Each message's answer in a report: its status and reason phrase, or "none". */
    private static Map<String, String> answers(String name) {
        Map<String, String> answers = new TreeMap<>();
        for (String line : lines(REPORTS.resolve(name + ".tsv"))) {
            String[] fields = line.split("\t", -1);
            answers.put(fields[0], fields[2] + " " + fields[3]);
        }
        return answers;
    }

    private static List<String> lines(Path report) {
        try {
            return Files.exists(report) ? Files.readAllLines(report, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
