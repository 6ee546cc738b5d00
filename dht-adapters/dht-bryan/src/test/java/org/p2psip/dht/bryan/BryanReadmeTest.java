package org.p2psip.dht.bryan;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.p2psip.config.OptionsDocumented;

class BryanReadmeTest {

    @Test
    void theReadmeDocumentsEveryOptionAsDeclared() throws Exception {
        OptionsDocumented.assertDocumented(Path.of("README.md"), BryanOptions.ALL);
    }
}
