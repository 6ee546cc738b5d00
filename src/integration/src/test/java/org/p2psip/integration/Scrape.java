package org.p2psip.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * A scrape of a process's {@code /metrics}, read by the Prometheus project's own parser (the
 * Python client's, Debian package python3-prometheus-client): what a Prometheus server would
 * make of it. A text it cannot parse fails the test.
 */
final class Scrape {

    /** Prints every sample as {@code name{label="value",...} value}, labels sorted, one a line. */
    private static final String PARSE = String.join("\n",
            "import sys",
            "from prometheus_client.parser import text_string_to_metric_families",
            "for family in text_string_to_metric_families(sys.stdin.read()):",
            "    for s in family.samples:",
            "        labels = ','.join(f'{k}=\"{v}\"' for k, v in sorted(s.labels.items()))",
            "        print(f'{s.name}{{{labels}}} {s.value}')");

    private final Map<String, Double> samples;

    private Scrape(Map<String, Double> samples) {
        this.samples = samples;
    }

    /** GETs {@code base}metrics and parses it. */
    static Scrape of(String base) {
        String text = get(base + "metrics");
        try {
            Process parser = new ProcessBuilder("python3", "-c", PARSE).redirectErrorStream(true).start();
            parser.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
            parser.getOutputStream().close();
            String out = new String(parser.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, parser.waitFor(), "the Prometheus parser refused " + base + "metrics:\n" + out);
            var samples = new HashMap<String, Double>();
            for (String line : out.split("\n")) {
                int space = line.lastIndexOf(' ');
                if (space > 0) {
                    samples.put(line.substring(0, space), number(line.substring(space + 1)));
                }
            }
            return new Scrape(samples);
        } catch (IOException e) {
            throw new AssertionError("cannot run python3 with prometheus_client: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Python's spelling of a float: nan and inf as well. */
    private static double number(String text) {
        return switch (text) {
            case "nan" -> Double.NaN;
            case "inf" -> Double.POSITIVE_INFINITY;
            case "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    /** A sample's value, {@code name{label="value",...}} with labels sorted; 0 if absent (a counter not yet made). */
    double value(String sample) {
        return samples.getOrDefault(sample, 0.0);
    }

    /** Whether any sample begins with {@code prefix}. */
    boolean hasAny(String prefix) {
        return samples.keySet().stream().anyMatch(name -> name.startsWith(prefix));
    }

    static String get(String url) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), "GET " + url + ": " + response.body());
            return response.body();
        } catch (IOException e) {
            throw new AssertionError("GET " + url + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
