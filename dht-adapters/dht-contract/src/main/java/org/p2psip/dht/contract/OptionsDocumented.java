package org.p2psip.dht.contract;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.p2psip.config.Option;

/**
 * The README check's former place, kept only while dht-chord's and dht-bryan's README tests
 * import it; remove it once they use {@link org.p2psip.config.OptionsDocumented}.
 *
 * @deprecated use {@link org.p2psip.config.OptionsDocumented}, in p2psip-config's test-jar
 */
@Deprecated
public final class OptionsDocumented {

    private OptionsDocumented() {
    }

    public static void assertDocumented(Path readme, List<Option<?>> options) throws IOException {
        org.p2psip.config.OptionsDocumented.assertDocumented(readme, options);
    }
}
