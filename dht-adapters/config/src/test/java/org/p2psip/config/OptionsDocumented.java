package org.p2psip.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Checks that a README's options table says what the code declares, row for row. Test code: the
 * modules' README tests reach it through this module's test-jar, so that it stays out of the WAR
 * and the front's jar.
 */
public final class OptionsDocumented {

    private OptionsDocumented() {
    }

    public static void assertDocumented(Path readme, List<Option<?>> options) throws IOException {
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        for (Option<?> option : options) {
            String row = OptionTable.row(option);
            assertTrue(text.contains(row), () -> readme + " lacks the row, or has it out of date:\n" + row
                    + "\nThe whole table as the code declares it:\n" + OptionTable.render(options));
        }
    }
}
