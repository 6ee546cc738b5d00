package org.p2psip.front.wire;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.p2psip.config.HostPort;
import org.p2psip.config.NodeOptions;

/**
 * The front's addresses, {@code IP:port} and {@code [IPv6]:port} as {@link HostPort} reads them,
 * with one rule of the front's own: names are refused, since the front resolves nothing (no DNS
 * on its event loops, and a node is the address it was given). Stateless.
 */
public final class Addresses {

    private Addresses() {
    }

    public static InetSocketAddress parse(String text) {
        HostPort address = HostPort.parse(text);
        byte[] ip = NetUtil.createByteArrayFromIpAddressString(address.host());
        if (ip == null) {
            throw new IllegalArgumentException("'" + address.host() + "' is not an IP address");
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), address.port());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public static List<InetSocketAddress> parseList(String text) {
        return NodeOptions.list(text).stream().map(Addresses::parse).toList();
    }

    /** An IP address as a SIP URI or Via writes it: an IPv6 literal in brackets (RFC 3261 §25.1). */
    public static String uriHost(String address) {
        return address.indexOf(':') >= 0 ? "[" + address + "]" : address;
    }
}
