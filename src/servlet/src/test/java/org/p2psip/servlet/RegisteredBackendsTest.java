package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.servlet.ServletException;
import org.junit.jupiter.api.Test;
import org.p2psip.config.Config;
import org.p2psip.dht.Backend;
import org.p2psip.dht.Backends;

/**
 * The registry of backends (dht-api's {@link Backends}) against the servlets this WAR holds: a
 * node finds its servlet's backend by {@code p2psip.dht}, and deploy/p2psip writes the servlet the
 * registry names into the node's sip.xml, so a servlet the registry does not name could never run.
 */
class RegisteredBackendsTest {

    @Test
    void everyBackendServletOfTheWarIsFoundByItsNameThroughTheRegistry() throws Exception {
        List<Class<?>> servlets = backendServlets();
        assertFalse(servlets.isEmpty(), "no P2PSipServlet subclass found beside P2PSipServlet.class");
        for (Class<?> servlet : servlets) {
            List<Backend> naming = Backends.all().stream().filter(b -> b.servlet().equals(servlet.getName())).toList();
            assertEquals(1, naming.size(), () -> servlet.getName() + " should be the servlet of exactly one registered "
                    + "backend (META-INF/services/org.p2psip.dht.Backend of its module); registered:\n" + Backends.table());
            String name = naming.get(0).name();
            assertEquals(servlet.getName(), P2PSipServlet.chosen(dht(name), servlet).servlet(),
                    "the backend p2psip.dht=" + name + " chooses");
        }
    }

    @Test
    void everyRegisteredBackendNamesAConcreteSubclassOfP2PSipServlet() throws Exception {
        assertFalse(Backends.all().isEmpty(), "no backend registered on the WAR's class path");
        for (Backend backend : Backends.all()) {
            Class<?> servlet = Class.forName(backend.servlet(), false, getClass().getClassLoader());
            assertTrue(P2PSipServlet.class.isAssignableFrom(servlet) && !Modifier.isAbstract(servlet.getModifiers()),
                    backend.name() + "'s servlet " + servlet.getName() + " is not a concrete P2PSipServlet");
            assertSame(backend.getClass(), P2PSipServlet.chosen(dht(backend.name()), servlet).getClass());
        }
    }

    @Test
    void aNodeRefusesAServletOfAnotherBackendAndANameNoBackendHas() {
        var wrong = assertThrows(ServletException.class, () -> P2PSipServlet.chosen(dht("chord"), MemorySipServlet.class));
        assertTrue(wrong.getMessage().contains("--dht chord"), wrong.getMessage());
        var unknown = assertThrows(ServletException.class, () -> P2PSipServlet.chosen(dht("kademlia"), ChordSipServlet.class));
        assertTrue(unknown.getMessage().contains(Backends.names()), unknown.getMessage());
    }

    private static Config dht(String name) {
        return Config.of(Map.of("p2psip.dht", name));
    }

    /** The concrete subclasses of P2PSipServlet compiled into this module, found on disk beside it. */
    private static List<Class<?>> backendServlets() throws Exception {
        Path folder = Path.of(P2PSipServlet.class.getResource("P2PSipServlet.class").toURI()).getParent();
        ClassLoader loader = P2PSipServlet.class.getClassLoader();
        String pkg = P2PSipServlet.class.getPackageName();
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("$"))
                    .sorted()
                    .<Class<?>>map(f -> load(loader, pkg + "." + f.substring(0, f.length() - ".class".length())))
                    .filter(c -> P2PSipServlet.class.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers()))
                    .toList();
        }
    }

    private static Class<?> load(ClassLoader loader, String name) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(name, e);
        }
    }
}
