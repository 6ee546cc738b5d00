package org.p2psip.front;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The front's packages use one another one way, as the README's package table says: a package
 * imports only the packages below it, so that, for one, the policies and the status page know
 * nothing of the kept path. Read from the sources' imports.
 */
class PackagesTest {

    private static final Path SOURCES = Path.of("src/main/java/org/p2psip/front");
    private static final Pattern FRONT_IMPORT = Pattern.compile(
            "^import (?:static )?org\\.p2psip\\.front\\.(?:([a-z]\\w*)\\.)?[A-Z]", Pattern.MULTILINE);

    /** Each package and the packages it may use; the process's own package may use them all. */
    private static final Map<String, Set<String>> MAY_USE = Map.of(
            "flows", Set.of("relay", "status", "wire"),
            "relay", Set.of("calls", "policies", "status", "wire", "nodes"),
            "calls", Set.of("status", "wire", "nodes"),
            "policies", Set.of("nodes"),
            "status", Set.of("wire", "nodes"),
            "wire", Set.of("nodes"),
            "nodes", Set.of());

    @Test
    void eachPackageUsesOnlyThePackagesBelowIt() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (String pkg : MAY_USE.keySet()) {
            try (Stream<Path> files = Files.list(SOURCES.resolve(pkg))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher used = FRONT_IMPORT.matcher(Files.readString(file));
                    while (used.find()) {
                        String usedPackage = used.group(1) == null ? "the process's" : used.group(1);
                        if (!usedPackage.equals(pkg) && !MAY_USE.get(pkg).contains(usedPackage)) {
                            wrong.add(pkg + "/" + file.getFileName() + " uses " + usedPackage);
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), wrong, "imports against the direction of the README's package table");
    }

    @Test
    void everyPackageIsInTheTable() throws IOException {
        try (Stream<Path> entries = Files.list(SOURCES)) {
            List<String> packages = entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).toList();
            assertTrue(MAY_USE.keySet().containsAll(packages), "packages " + packages + ", table " + MAY_USE.keySet());
        }
    }
}
