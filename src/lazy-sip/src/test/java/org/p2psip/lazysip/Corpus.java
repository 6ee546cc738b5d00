package org.p2psip.lazysip;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The messages of sipp-scenarios/bad-input/corpus/ (README.md there, "The corpus"), written out
 * as the runner there writes them, with fixed values for its placeholders: the same files the
 * integration test sends to a deployed node and front.
 */
record Corpus(String name, List<Expected> expected, boolean gap, byte[] bytes) {

    static final Path FOLDER = Path.of("../../sipp-scenarios/bad-input/corpus");

    /** One answer a message may get: a status and maybe its reason phrase; status 0 is no answer. */
    record Expected(int status, String reason) {
    }

    static List<Corpus> all() {
        try (Stream<Path> files = Files.list(FOLDER)) {
            return files.filter(f -> f.toString().endsWith(".sip")).sorted().map(Corpus::read).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Corpus named(String name) {
        return read(FOLDER.resolve(name + ".sip"));
    }

    boolean isResponse() {
        return new String(bytes, 0, 4, StandardCharsets.ISO_8859_1).equals("SIP/");
    }

    private static Corpus read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var expected = new ArrayList<Expected>();
        boolean gap = false;
        while (text.startsWith("#")) {
            int nl = text.indexOf('\n');
            String line = text.substring(1, nl).trim();
            text = text.substring(nl + 1);
            if (line.startsWith("gap:")) {
                gap = true;
            }
            if (line.startsWith("expect:")) {
                for (String alternative : line.substring(7).split("\\|")) {
                    String a = alternative.trim();
                    int sp = a.indexOf(' ');
                    expected.add(a.equals("none") ? new Expected(0, null)
                            : new Expected(Integer.parseInt(sp < 0 ? a : a.substring(0, sp)), sp < 0 ? null : a.substring(sp + 1)));
                }
            }
        }
        String name = file.getFileName().toString().replace(".sip", "");
        return new Corpus(name, expected, gap, render(text, name));
    }

    /** The placeholders of the runner with fixed values; LF made CRLF; [len] last. */
    static byte[] render(String text, String name) {
        text = replaceAll(Pattern.compile("\\[repeat:(\\d+):([^\\]]*)\\]"), text,
                m -> m.group(2).repeat(Integer.parseInt(m.group(1))));
        text = text.replace("[target]", "127.0.0.1:5070").replace("[domain]", "p2psip.test").replace("[run]", "unit")
                .replace("[local]", "127.0.0.2:6001").replace("[local_ip]", "127.0.0.2").replace("[local_port]", "6001")
                .replace("[branch]", "z9hG4bK-unit-" + name).replace("[call_id]", name + "@unit")
                .replace("[tag]", "unit-tag");
        text = replaceAll(Pattern.compile("\\[x([0-9a-fA-F]{2})\\]"), text,
                m -> String.valueOf((char) Integer.parseInt(m.group(1), 16)));
        text = text.replace("[sp]", " ").replace("\n", "\r\n");
        int body = text.indexOf("\r\n\r\n");
        if (text.contains("[len]")) {
            int length = text.substring(body + 4).getBytes(StandardCharsets.ISO_8859_1).length;
            text = text.substring(0, body).replace("[len]", String.valueOf(length)) + text.substring(body);
        }
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String replaceAll(Pattern pattern, String text, java.util.function.Function<Matcher, String> with) {
        Matcher m = pattern.matcher(text);
        var out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(with.apply(m)));
        }
        return m.appendTail(out).toString();
    }

    @Override
    public String toString() {
        return name;
    }
}
