package org.p2psip.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.config.Config;
import org.p2psip.metrics.RecentErrors;

/**
 * What the directory leaves to the container: with callers asked for credentials, every redirect
 * INVITE, so that its 407 comes from the container path (the intake then passes it: RedirectsTest).
 * The lookups themselves need the container's SipFactory and are checked through it by
 * FrontStateIT and RedirectIT.
 */
class CalleeDirectoryTest {

    @TempDir
    Path dir;

    @Test
    void whileCallersAreAskedForCredentialsEveryRedirectGoesToTheContainer() throws Exception {
        Path users = Files.writeString(dir.resolve("users.csv"), "# nobody yet\n");
        var config = Config.of(Map.of("p2psip.auth.enabled", "true", "p2psip.auth.users-file", users.toString(),
                "p2psip.overlay.secret", "s3cret", "p2psip.auth.invite", "true"));
        var counters = new RequestCounters(new RecentErrors(5, System::currentTimeMillis));
        Authentication authentication = Authentication.from(config, null, counters, Clock.systemUTC());
        try {
            var directory = new CalleeDirectory(null, new Admission(10), null, counters, null, null, null,
                    authentication, null, false, Clock.systemUTC());
            assertNull(directory.find("sip:bob@p2psip.test", new InetSocketAddress("127.0.0.1", 5060)),
                    "left to the container, which challenges it");
            assertEquals(Map.of("sessions-created", 0L), counters.snapshot(), "nothing counted: the container counts it");
        } finally {
            authentication.close();
        }
    }
}
