package org.p2psip.sipload;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The local addresses TCP connections are bound to, handed out round robin (--sources A-B): each
 * address has its own ephemeral ports (about 28,000 with Linux's default range), so that more
 * connections than one address allows can reach one target.
 */
final class Sources {
    /** More addresses than this in a range is a typing error rather than a plan. */
    static final int MAX_ADDRESSES = 65_536;
    private final List<InetAddress> addresses;
    private int next;

    Sources(List<InetAddress> addresses) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("no source address");
        }
        this.addresses = List.copyOf(addresses);
    }

    /** {@code A-B} (IPv4, A up to B) or a single address. */
    static Sources parse(String range) {
        int dash = range.indexOf('-');
        InetAddress first = ipv4(dash < 0 ? range : range.substring(0, dash));
        InetAddress last = dash < 0 ? first : ipv4(range.substring(dash + 1));
        long from = number(first);
        long to = number(last);
        if (to < from || to - from >= MAX_ADDRESSES) {
            throw new IllegalArgumentException("--sources: want A-B with A <= B and at most " + MAX_ADDRESSES
                    + " addresses, not " + range);
        }
        var addresses = new ArrayList<InetAddress>((int) (to - from + 1));
        for (long n = from; n <= to; n++) {
            addresses.add(address(n));
        }
        return new Sources(addresses);
    }

    /** The one address the system would send to {@code target} from (no packet is sent). */
    static Sources toward(InetSocketAddress target) throws IOException {
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.connect(target);
            return new Sources(List.of(((InetSocketAddress) probe.getLocalAddress()).getAddress()));
        }
    }

    int size() {
        return addresses.size();
    }

    InetAddress next() {
        InetAddress address = addresses.get(next);
        next = (next + 1) % addresses.size();
        return address;
    }

    private static InetAddress ipv4(String text) {
        try {
            InetAddress address = InetAddress.getByName(text.strip());
            if (address instanceof Inet4Address && Character.isDigit(text.strip().charAt(0))) {
                return address;
            }
        } catch (UnknownHostException | StringIndexOutOfBoundsException e) {
            // below
        }
        throw new IllegalArgumentException("--sources: want IPv4 addresses, not " + text);
    }

    private static long number(InetAddress address) {
        long n = 0;
        for (byte b : address.getAddress()) {
            n = n << 8 | (b & 0xff);
        }
        return n;
    }

    private static InetAddress address(long n) {
        byte[] bytes = {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }
}
