package org.p2psip.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration option: its name, default, meaning and how its text is read. Each module
 * declares its options once, as constants of one class, and its README's table is checked
 * against them, so the default and the meaning have one place.
 *
 * @param <T> the type of the option's value
 */
public final class Option<T> {

    private final String name;
    private final T defaultValue;
    private final String example;
    private final String meaning;
    private final Function<String, T> parser;

    private Option(String name, T defaultValue, String example, String meaning, Function<String, T> parser) {
        this.name = Objects.requireNonNull(name);
        this.defaultValue = defaultValue;
        this.example = Objects.requireNonNull(example);
        this.meaning = Objects.requireNonNull(meaning);
        this.parser = Objects.requireNonNull(parser);
    }

    public static Option<String> string(String name, String defaultValue, String example, String meaning) {
        return new Option<>(name, defaultValue, example, meaning, s -> s);
    }

    public static Option<Integer> integer(String name, int defaultValue, String example, String meaning) {
        return new Option<>(name, defaultValue, example, meaning, s -> Integer.valueOf(s.trim()));
    }

    public static Option<Long> longInteger(String name, long defaultValue, String example, String meaning) {
        return new Option<>(name, defaultValue, example, meaning, s -> Long.valueOf(s.trim()));
    }

    public static Option<Double> decimal(String name, double defaultValue, String example, String meaning) {
        return new Option<>(name, defaultValue, example, meaning, s -> Double.valueOf(s.trim()));
    }

    public static Option<Boolean> bool(String name, boolean defaultValue, String example, String meaning) {
        return new Option<>(name, defaultValue, example, meaning, Option::parseBoolean);
    }

    /** A duration written with a unit: {@code 250ms}, {@code 2s}, {@code 5m}, {@code 1h}, {@code 7d}. */
    public static Option<Duration> duration(String name, Duration defaultValue, String example, String meaning) {
        return new Option<>(name, defaultValue, example, meaning, Option::parseDuration);
    }

    public String name() {
        return name;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String example() {
        return example;
    }

    public String meaning() {
        return meaning;
    }

    /** Reads the option's text; a value that does not parse is an error naming the option. */
    public T parse(String text) {
        try {
            return parser.apply(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("option " + name + ": cannot read '" + text + "': " + e.getMessage(), e);
        }
    }

    /** The default as a user would write it. */
    public String defaultText() {
        if (defaultValue instanceof Duration d) {
            return formatDuration(d);
        }
        return String.valueOf(defaultValue);
    }

    static Duration parseDuration(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int split = 0;
        while (split < s.length() && (Character.isDigit(s.charAt(split)))) {
            split++;
        }
        if (split == 0 || split == s.length()) {
            throw new IllegalArgumentException("a duration is a whole number with a unit (ms, s, m, h, d)");
        }
        long amount = Long.parseLong(s.substring(0, split));
        return switch (s.substring(split)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> throw new IllegalArgumentException("unknown unit '" + s.substring(split) + "' (ms, s, m, h, d)");
        };
    }

    static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    private static Boolean parseBoolean(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on" -> true;
            case "false", "no", "off" -> false;
            default -> throw new IllegalArgumentException("expected true or false");
        };
    }

    @Override
    public String toString() {
        return name + "=" + defaultText();
    }
}
