package org.p2psip.lazysip;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A message written out as its original bytes with a few ranges replaced, in ascending order, so
 * that every header the front does not touch goes out exactly as it came. Not thread-safe.
 */
public final class ByteEdits {

    private final byte[] source;
    private final ByteArrayOutputStream out;
    private int copied;

    /** Bytes [from, to) of the source replaced by {@code text}. */
    public record Edit(int from, int to, String text) {
    }

    /** The source with the edits applied; they must not overlap, in any order. */
    public static byte[] apply(byte[] source, java.util.List<Edit> edits) {
        edits.sort(java.util.Comparator.comparingInt(Edit::from));
        var splice = new ByteEdits(source, 128);
        for (Edit edit : edits) {
            splice.replace(edit.from, edit.to, edit.text);
        }
        return splice.bytes();
    }

    public ByteEdits(byte[] source, int extra) {
        this.source = source;
        this.out = new ByteArrayOutputStream(source.length + extra);
    }

    /** Copies the source up to {@code from}, writes {@code text} instead of [from, to), and goes on at {@code to}. */
    public ByteEdits replace(int from, int to, String text) {
        if (from < copied) {
            throw new IllegalArgumentException("edits out of order at " + from);
        }
        out.write(source, copied, from - copied);
        out.writeBytes(text.getBytes(StandardCharsets.ISO_8859_1));
        copied = to;
        return this;
    }

    public byte[] bytes() {
        out.write(source, copied, source.length - copied);
        copied = source.length;
        return out.toByteArray();
    }
}
