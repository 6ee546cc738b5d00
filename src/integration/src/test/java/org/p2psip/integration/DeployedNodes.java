package org.p2psip.integration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of a test class that runs against nodes of its own: deploy/p2psip up before its first
 * test, down after its last, even when a test or up itself failed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DeployedNodes {

    protected final Deployment deployment;
    protected final Scenarios sipp;

    DeployedNodes(String name, int basePort, int nodes) {
        this(name, "memory", basePort, nodes);
    }

    DeployedNodes(String name, String dht, int basePort, int nodes) {
        this.deployment = new Deployment(name, dht, basePort, nodes);
        this.sipp = new Scenarios(name);
    }

    @BeforeAll
    void up() {
        deployment.up();
    }

    @AfterAll
    void down() {
        deployment.close();
    }
}
