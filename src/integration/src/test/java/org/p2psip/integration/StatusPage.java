package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process's status page as a real browser renders it: headless Chromium (Debian package
 * chromium) loads the page, runs its script, which fetches status.json and draws the tables and
 * charts, and dumps the resulting DOM; the rows and charts are read from that.
 */
final class StatusPage {

    /** A row of the deployment table: its state (up, down, not ready, unknown) and share (NaN: none). */
    record Member(String state, double share) {
    }

    /** A chart: its series, how many points it draws and the highest. */
    record Chart(String series, int points, double max) {
    }

    private static final Pattern MEMBER = Pattern.compile(
            "<tr class=\"member\" data-state=\"([^\"]*)\" data-share=\"([^\"]*)\">");
    private static final Pattern CHART = Pattern.compile(
            "<svg class=\"chart\"[^>]*data-series=\"([^\"]*)\" data-points=\"(\\d+)\" data-max=\"([^\"]*)\"");

    private final String dom;

    private StatusPage(String dom) {
        this.dom = dom;
    }

    /** Renders {@code url}; with {@code screenshot}, also keeps a PNG of it there. */
    static StatusPage render(String url, Path screenshot) {
        var command = new ArrayList<>(List.of("chromium", "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,720",
                "--virtual-time-budget=5000"));
        if (screenshot != null) {
            command.add("--screenshot=" + screenshot);
        } else {
            command.add("--dump-dom");
        }
        command.add(url);
        try {
            Process chromium = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(chromium.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!chromium.waitFor(60, TimeUnit.SECONDS)) {
                chromium.destroyForcibly();
                throw new AssertionError("chromium did not finish with " + url + " within 60 s");
            }
            assertEquals(0, chromium.exitValue(), "chromium failed on " + url);
            return new StatusPage(out);
        } catch (IOException e) {
            throw new AssertionError("cannot run chromium (Debian package chromium): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    List<Member> members() {
        var members = new ArrayList<Member>();
        Matcher m = MEMBER.matcher(dom);
        while (m.find()) {
            members.add(new Member(m.group(1), m.group(2).isEmpty() ? Double.NaN : Double.parseDouble(m.group(2))));
        }
        return members;
    }

    List<Chart> charts() {
        var charts = new ArrayList<Chart>();
        Matcher m = CHART.matcher(dom);
        while (m.find()) {
            charts.add(new Chart(m.group(1), Integer.parseInt(m.group(2)), Double.parseDouble(m.group(3))));
        }
        return charts;
    }

    @Override
    public String toString() {
        return dom;
    }
}
