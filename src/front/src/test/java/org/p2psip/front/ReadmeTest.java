package org.p2psip.front;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.p2psip.config.OptionsDocumented;

class ReadmeTest {

    @Test
    void theReadmeDocumentsEveryOptionAsDeclared() throws Exception {
        OptionsDocumented.assertDocumented(Path.of("README.md"), FrontOptions.ALL);
    }
}
