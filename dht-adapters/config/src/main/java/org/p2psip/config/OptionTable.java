package org.p2psip.config;

import java.util.List;

/**
 * The Markdown table a module README carries for its options. Tests compare the README with
 * {@link #rows}, so the README cannot drift from the code.
 */
public final class OptionTable {

    public static final String HEADER = "| name | meaning | default | example |\n|---|---|---|---|";

    private OptionTable() {
    }

    public static String row(Option<?> option) {
        return "| `" + option.name() + "` | " + option.meaning() + " | `" + option.defaultText()
                + "` | `" + option.example() + "` |";
    }

    public static String render(List<Option<?>> options) {
        var table = new StringBuilder(HEADER);
        for (Option<?> option : options) {
            table.append('\n').append(row(option));
        }
        return table.toString();
    }
}
