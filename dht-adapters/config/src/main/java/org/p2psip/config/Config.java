package org.p2psip.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * A node's configuration: the values written in its properties file, read through declared
 * {@link Option}s. An option not written takes its default. Immutable.
 */
public final class Config {

    private final Map<String, String> values;

    private Config(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    public static Config empty() {
        return new Config(Map.of());
    }

    public static Config of(Map<String, String> values) {
        return new Config(values);
    }

    /** Reads a Java properties file (UTF-8). */
    public static Config load(Path file) throws IOException {
        var properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        }
        var map = new HashMap<String, String>();
        properties.stringPropertyNames().forEach(k -> map.put(k, properties.getProperty(k)));
        return new Config(map);
    }

    public <T> T get(Option<T> option) {
        String text = values.get(option.name());
        return text == null ? option.defaultValue() : option.parse(text);
    }

    /** A copy with one more value, for tests and for code that derives a node's settings. */
    public Config with(String name, String value) {
        var map = new HashMap<>(values);
        map.put(name, value);
        return new Config(map);
    }

    /**
     * The names written in this configuration under {@code prefix} that none of {@code known}
     * declares: most often a misspelt option, which would otherwise be silently ignored.
     */
    public Set<String> unknown(String prefix, Collection<Option<?>> known) {
        var names = new TreeSet<String>();
        for (String name : values.keySet()) {
            if (name.startsWith(prefix) && known.stream().noneMatch(o -> o.name().equals(name))) {
                names.add(name);
            }
        }
        return names;
    }

    public Map<String, String> values() {
        return values;
    }
}
