package org.p2psip.dht.ring;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.p2psip.config.OptionsDocumented;

class RingReadmeTest {

    @Test
    void theReadmeDocumentsEveryOptionAsDeclared() throws Exception {
        OptionsDocumented.assertDocumented(Path.of("README.md"), RingOptions.ALL);
    }
}
