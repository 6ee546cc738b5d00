package org.p2psip.dht.hazelcast;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.p2psip.config.OptionsDocumented;

class HazelcastReadmeTest {

    @Test
    void theReadmeDocumentsEveryOptionAsDeclared() throws Exception {
        OptionsDocumented.assertDocumented(Path.of("README.md"), HazelcastOptions.ALL);
    }
}
