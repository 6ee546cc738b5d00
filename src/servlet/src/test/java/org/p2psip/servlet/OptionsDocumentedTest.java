package org.p2psip.servlet;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.p2psip.auth.AuthOptions;
import org.p2psip.config.NodeOptions;
import org.p2psip.config.Option;
import org.p2psip.config.OptionsDocumented;
import org.p2psip.dht.memory.MemoryBackend;
import org.p2psip.registrar.RegistrarOptions;

class OptionsDocumentedTest {

    @Test
    void theApplicationReadmeDocumentsEveryOptionWithItsDefault() throws Exception {
        List<Option<?>> all = new ArrayList<>(NodeOptions.ALL);
        all.addAll(RegistrarOptions.ALL);
        all.addAll(ServletOptions.ALL);
        all.addAll(AuthOptions.ALL);
        all.add(MemoryBackend.SWEEP_INTERVAL);
        // each backend's own options: its module README (checked there)
        OptionsDocumented.assertDocumented(Path.of("../README.md"), all);
    }
}
