package org.p2psip.dht.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.p2psip.config.Option;
import org.p2psip.config.OptionTable;

/** Checks that a README's options table says what the code declares, row for row. */
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
