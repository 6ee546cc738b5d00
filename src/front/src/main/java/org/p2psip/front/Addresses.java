package org.p2psip.front;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.p2psip.config.NodeOptions;

/** Reads {@code IP:port} and {@code [IPv6]:port} as the options write them; names are refused (no DNS). Stateless. */
final class Addresses {

    private Addresses() {
    }

    static InetSocketAddress parse(String text) {
        String s = text.trim();
        int colon = s.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("'" + text + "' is not IP:port");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        byte[] ip = NetUtil.createByteArrayFromIpAddressString(host);
        if (ip == null) {
            throw new IllegalArgumentException("'" + host + "' is not an IP address");
        }
        int port = Integer.parseInt(s.substring(colon + 1));
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " out of range");
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    static List<InetSocketAddress> parseList(String text) {
        return NodeOptions.list(text).stream().map(Addresses::parse).toList();
    }
}
