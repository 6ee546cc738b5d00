package org.p2psip.dht;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The registered backends ({@link Backend}), found with {@link ServiceLoader} on the class path
 * this class was loaded from: in a node, the WAR's; for deploy/p2psip, the WAR's jars.
 *
 * <p>{@link #main} prints them, one line each ({@link #table}), sorted by name: deploy/p2psip
 * reads that to choose a node's servlet and JVM arguments and to check {@code --dht}, and the
 * bench to know which backends it can measure.
 */
public final class Backends {

    private Backends() {
    }

    /** Every registered backend, sorted by name; a name registered twice is refused. */
    public static List<Backend> all() {
        List<Backend> found = ServiceLoader.load(Backend.class, Backend.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get)
                .sorted(Comparator.comparing(Backend::name))
                .toList();
        for (int i = 1; i < found.size(); i++) {
            if (found.get(i).name().equals(found.get(i - 1).name())) {
                throw new IllegalStateException("two backends registered as " + found.get(i).name() + ": "
                        + found.get(i - 1).getClass().getName() + " and " + found.get(i).getClass().getName());
            }
        }
        return found;
    }

    /** The backend registered under {@code name}, as {@code p2psip.dht} spells it. */
    public static Optional<Backend> named(String name) {
        return all().stream().filter(b -> b.name().equals(name)).findFirst();
    }

    /** The registered names, comma-separated, for messages that list the choices. */
    public static String names() {
        return all().stream().map(Backend::name).collect(Collectors.joining(", "));
    }

    /**
     * One line per registered backend, four fields separated by spaces: its name, its servlet's
     * class name, its traits ({@link Backend.Trait#label}) and its JVM arguments, each list
     * comma-separated, "-" when empty.
     */
    public static String table() {
        return all().stream()
                .map(b -> String.join(" ", b.name(), b.servlet(),
                        field(b.traits().stream().sorted().map(Backend.Trait::label).toList()), field(b.jvmArguments())) + "\n")
                .collect(Collectors.joining());
    }

    private static String field(List<String> values) {
        for (String value : values) {
            if (value.isEmpty() || value.equals("-") || value.contains(",") || value.contains(" ")) {
                throw new IllegalStateException("a backend's listed value may not be empty, '-', or hold a comma or a space: '"
                        + value + "'");
            }
        }
        return values.isEmpty() ? "-" : String.join(",", values);
    }

    public static void main(String[] args) {
        System.out.print(table());
    }
}
