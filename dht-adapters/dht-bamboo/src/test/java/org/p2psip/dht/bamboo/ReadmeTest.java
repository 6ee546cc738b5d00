package org.p2psip.dht.bamboo;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.p2psip.config.OptionsDocumented;

class ReadmeTest {

    @Test
    void theReadmeDocumentsEveryBambooOptionAsTheCodeDeclaresIt() throws Exception {
        OptionsDocumented.assertDocumented(Path.of("README.md"), BambooOptions.ALL);
    }
}
