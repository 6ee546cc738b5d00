package org.p2psip.intake;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One generation of {@link FinalAnswers}: the answers' bytes laid end to end in a few large byte
 * arrays, found through an open-addressing index of primitive arrays. A generation holds tens of
 * thousands of answers for half a minute, through several young collections: kept as objects (a
 * branch string, a record, a message array, an address, a map entry each) every one of them was
 * traced and copied at each collection, which made the pauses, and so the p99, grow with the rate;
 * kept here they are a handful of arrays. An answer becomes objects again only when a retransmission
 * asks for it. Thread-safe: the stack's sending threads put, the intake's reader finds.
 */
final class AnswerSlab {

    /** Bytes per array of answers: below a G1 region's half, so that none is a humongous object. */
    static final int CHUNK = 256 * 1024;
    private static final int FIRST_INDEX = 1024;
    private static final String[] METHODS = {"REGISTER", "OPTIONS", "BYE", "CANCEL", "MESSAGE", "SUBSCRIBE",
        "NOTIFY", "INFO", "UPDATE", "PRACK", "PUBLISH", "REFER"};

    private final List<byte[]> chunks = new ArrayList<>();
    private int used = CHUNK;         // of the last chunk: none yet
    private long[] hashes = new long[FIRST_INDEX];
    private long[] places = new long[FIRST_INDEX];   // chunk << 32 | offset
    private int count;

    /** Keeps an answer; a second answer to the same branch hides the first. */
    synchronized void put(String branch, FinalAnswers.Answer answer) {
        int method = methodCode(answer.method());
        byte[] address = answer.address().getAddress();
        int length = 2 + branch.length() + 1 + (method < 0 ? 1 + answer.method().length() : 0) + 1 + address.length
                + 2 + 4 + answer.message().length;
        if (length > CHUNK || branch.length() > 0xffff || answer.method().length() > 0xff) {
            return; // no UDP answer is this large; such an answer is the stack's to resend
        }
        if (used + length > CHUNK) {
            chunks.add(new byte[CHUNK]);
            used = 0;
        }
        byte[] chunk = chunks.get(chunks.size() - 1);
        long place = (long) (chunks.size() - 1) << 32 | used;
        int at = used;
        at = putShort(chunk, at, branch.length());
        for (int i = 0; i < branch.length(); i++) {
            chunk[at++] = (byte) branch.charAt(i);
        }
        chunk[at++] = (byte) method;
        if (method < 0) {
            at = putText(chunk, at, answer.method());
        }
        chunk[at++] = (byte) address.length;
        System.arraycopy(address, 0, chunk, at, address.length);
        at += address.length;
        at = putShort(chunk, at, answer.port());
        at = putInt(chunk, at, answer.message().length);
        System.arraycopy(answer.message(), 0, chunk, at, answer.message().length);
        used = at + answer.message().length;
        index(hash(branch), place, branch);
    }

    /** The answer kept for this branch, or null. */
    synchronized FinalAnswers.Answer find(String branch) {
        long hash = hash(branch);
        int mask = hashes.length - 1;
        for (int i = (int) hash & mask; hashes[i] != 0; i = (i + 1) & mask) {
            if (hashes[i] == hash && keptFor(places[i], branch)) {
                return read(places[i]);
            }
        }
        return null;
    }

    synchronized int size() {
        return count;
    }

    /** Forgets every answer and gives the arrays back to the collector. */
    synchronized void clear() {
        chunks.clear();
        used = CHUNK;
        hashes = new long[FIRST_INDEX];
        places = new long[FIRST_INDEX];
        count = 0;
    }

    private void index(long hash, long place, String branch) {
        if ((count + 1) * 2 > hashes.length) {
            grow();
        }
        int mask = hashes.length - 1;
        int i = (int) hash & mask;
        while (hashes[i] != 0) {
            if (hashes[i] == hash && keptFor(places[i], branch)) {
                places[i] = place; // the later answer is the one to resend
                return;
            }
            i = (i + 1) & mask;
        }
        hashes[i] = hash;
        places[i] = place;
        count++;
    }

    private void grow() {
        long[] oldHashes = hashes;
        long[] oldPlaces = places;
        hashes = new long[oldHashes.length * 2];
        places = new long[oldHashes.length * 2];
        int mask = hashes.length - 1;
        for (int j = 0; j < oldHashes.length; j++) {
            if (oldHashes[j] != 0) {
                int i = (int) oldHashes[j] & mask;
                while (hashes[i] != 0) {
                    i = (i + 1) & mask;
                }
                hashes[i] = oldHashes[j];
                places[i] = oldPlaces[j];
            }
        }
    }

    /** Whether the answer at {@code place} was kept for {@code branch} (two branches may share a hash). */
    private boolean keptFor(long place, String branch) {
        byte[] chunk = chunks.get((int) (place >>> 32));
        int at = (int) place;
        if (getShort(chunk, at) != branch.length()) {
            return false;
        }
        for (int i = 0; i < branch.length(); i++) {
            if (chunk[at + 2 + i] != (byte) branch.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The answer at {@code place}, as objects again. */
    private FinalAnswers.Answer read(long place) {
        byte[] chunk = chunks.get((int) (place >>> 32));
        int at = (int) place;
        at += 2 + getShort(chunk, at);
        int method = chunk[at++];
        String methodName;
        if (method < 0) {
            int length = chunk[at++] & 0xff;
            methodName = new String(chunk, at, length, java.nio.charset.StandardCharsets.ISO_8859_1);
            at += length;
        } else {
            methodName = METHODS[method];
        }
        byte[] address = Arrays.copyOfRange(chunk, at + 1, at + 1 + chunk[at]);
        at += 1 + address.length;
        int port = getShort(chunk, at);
        at += 2;
        int length = getInt(chunk, at);
        at += 4;
        try {
            return new FinalAnswers.Answer(methodName, Arrays.copyOfRange(chunk, at, at + length),
                    InetAddress.getByAddress(address), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address kept with a wrong length", e);
        }
    }

    private static int methodCode(String method) {
        for (int i = 0; i < METHODS.length; i++) {
            if (METHODS[i].equals(method)) {
                return i;
            }
        }
        return -1;
    }

    /** FNV-1a over the branch's characters; never 0, which marks a free slot of the index. */
    static long hash(String branch) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < branch.length(); i++) {
            h ^= branch.charAt(i);
            h *= 0x100000001b3L;
        }
        return h == 0 ? 1 : h;
    }

    private static int putShort(byte[] to, int at, int value) {
        to[at] = (byte) (value >>> 8);
        to[at + 1] = (byte) value;
        return at + 2;
    }

    private static int putInt(byte[] to, int at, int value) {
        putShort(to, at, value >>> 16);
        putShort(to, at + 2, value & 0xffff);
        return at + 4;
    }

    private static int putText(byte[] to, int at, String text) {
        to[at++] = (byte) text.length();
        for (int i = 0; i < text.length(); i++) {
            to[at++] = (byte) text.charAt(i);
        }
        return at;
    }

    private static int getShort(byte[] from, int at) {
        return (from[at] & 0xff) << 8 | (from[at + 1] & 0xff);
    }

    private static int getInt(byte[] from, int at) {
        return getShort(from, at) << 16 | getShort(from, at + 2);
    }
}
