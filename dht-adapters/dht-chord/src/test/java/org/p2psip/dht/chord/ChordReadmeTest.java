package org.p2psip.dht.chord;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.p2psip.config.OptionsDocumented;

class ChordReadmeTest {

    @Test
    void theReadmeDocumentsEveryOptionAsDeclared() throws Exception {
        OptionsDocumented.assertDocumented(Path.of("README.md"), ChordOptions.ALL);
    }
}
