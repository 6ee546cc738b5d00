package org.p2psip.front.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A node's P2PSIP-Load read as a utilisation, from a header value and from a probe answer's bytes, and the busiest node. */
class NodeLoadTest {

    @Test
    void cpuOverCoresIsTheUtilisationWhileItsRequestsHardlyWait() {
        assertEquals(0.685, NodeLoad.parse("cpu=1.37;cores=2;queue=0.1"), 1e-9);
        assertEquals(0.42, NodeLoad.parse("cpu=0.42;queue=0.0"), 1e-9, "no cores: one");
        assertEquals(0.5, NodeLoad.parse(" cpu = 2.00 ; cores = 4 "), 1e-9);
    }

    @Test
    void aNodeOnSharedCoresWhoseRequestsWaitReadsAsBusyThoughItsCpuShareIsLow() {
        // three processes saturating two cores: a third of the node's cores, 9 ms in its queue
        assertEquals(0.9, NodeLoad.parse("cpu=0.67;cores=2;queue=9.0"), 1e-9);
        assertEquals(0.5, NodeLoad.parse("cpu=0.10;cores=2;queue=1.0"), 1e-9, "a wait of one service time: half busy");
        assertEquals(0.75, NodeLoad.parse("queue=3.0"), 1e-9, "a node that cannot tell its CPU: the queue alone");
    }

    @Test
    void aValueWithNeitherAReadableCpuNorAQueueGivesNothing() {
        assertTrue(Double.isNaN(NodeLoad.parse("cores=2")));
        assertTrue(Double.isNaN(NodeLoad.parse("cpu=lots;cores=2")));
        assertTrue(Double.isNaN(NodeLoad.parse("cpu=-1")));
        assertTrue(Double.isNaN(NodeLoad.parse("cpu=-1;queue=-1")));
    }

    @Test
    void theHeaderIsFoundInAProbeAnswersBytesWhateverItsCase() {
        String answer = "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-p2psip-probe-0-5060-1\r\n"
                + "Call-ID: p2psip-probe-0\r\np2psip-load: cpu=0.30;cores=1;queue=0.0\r\nContent-Length: 0\r\n\r\n";
        assertEquals(0.30, NodeLoad.find(answer.getBytes(StandardCharsets.US_ASCII)), 1e-9);
        assertTrue(Double.isNaN(NodeLoad.find("SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void theBusiestNodeUpIsTheOneTheSplitReads() {
        var nodes = new Nodes(List.of(new InetSocketAddress("127.0.0.1", 5070), new InetSocketAddress("127.0.0.1", 5071)));
        assertTrue(Double.isNaN(nodes.busiest()), "nothing reported yet");
        nodes.probeAnswered(Nodes.probeCallId(nodes.all().get(0)), 200, 0.2);
        nodes.probeAnswered(Nodes.probeCallId(nodes.all().get(1)), 200, 0.7);
        assertEquals(0.7, nodes.busiest(), 1e-9);
    }
}
