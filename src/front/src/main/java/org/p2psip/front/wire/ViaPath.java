package org.p2psip.front.wire;

import gov.nist.javax.sip.header.Via;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.text.ParseException;
import javax.sip.InvalidArgumentException;

/**
 * How responses find their way back: the Via rules of RFC 3261 §18.2.1 (a server notes where a
 * request really came from in {@code received}) and RFC 3581 ({@code rport}), and §18.2.2 (an
 * answer goes to {@code received}/{@code rport}, else to the sent-by address). Stateless.
 */
public final class ViaPath {

    private ViaPath() {
    }

    /** The front's own Via over UDP from {@code self}, with {@code branch}. */
    public static Via own(InetSocketAddress self, String branch) throws ParseException, InvalidArgumentException {
        Via via = new Via();
        via.setTransport("UDP");
        via.setHost(self.getAddress().getHostAddress());
        via.setPort(self.getPort());
        via.setBranch(branch);
        return via;
    }

    /** The front's own Via over UDP from {@code self} as a header line without its CRLF, as {@link #own} writes it. */
    public static String ownLine(InetSocketAddress self, String branch) {
        return ownLine(self, branch, "UDP");
    }

    /** The front's own Via naming {@code transport} ("UDP", "TCP", "TLS"): the one a request down a client's connection carries. */
    public static String ownLine(InetSocketAddress self, String branch, String transport) {
        return "Via: SIP/2.0/" + transport + " " + Addresses.uriHost(self.getAddress().getHostAddress()) + ":" + self.getPort()
                + ";branch=" + branch;
    }

    /** Notes on the client's Via where its request came from, as a server transport must. */
    public static void stampSource(Via via, InetSocketAddress source) throws ParseException {
        String ip = source.getAddress().getHostAddress();
        if (!ip.equals(strip(via.getHost()))) {
            via.setReceived(ip);
        }
        if (via.hasParameter(Via.RPORT)) {
            via.setParameter(Via.RPORT, Integer.toString(source.getPort()));
        }
    }

    /**
     * The address an answer to a request with this top Via goes to, or null if it names no IP
     * address (the front never resolves names: a name never waits on DNS here).
     */
    public static InetSocketAddress responseAddress(Via via) {
        return responseAddress(strip(via.getHost()), via.getPort(), via.getReceived(), via.getParameter(Via.RPORT));
    }

    /** As {@link #responseAddress(Via)}, from a Via's parts ({@code port} -1 if absent, {@code rport} "" if empty). */
    public static InetSocketAddress responseAddress(String sentByHost, int viaPort, String received, String rport) {
        String host = received != null ? received : sentByHost;
        byte[] ip = host == null ? null : NetUtil.createByteArrayFromIpAddressString(host);
        if (ip == null) {
            return null;
        }
        int port = viaPort > 0 ? viaPort : 5060;
        if (rport != null && !rport.isEmpty()) {
            try {
                port = Integer.parseInt(rport);
            } catch (NumberFormatException e) {
                return null;
            }
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            return null; // cannot happen for a 4- or 16-byte address
        }
    }

    /** A host without the brackets of an IPv6 literal. */
    public static String strip(String host) {
        if (host != null && host.startsWith("[") && host.endsWith("]")) {
            return host.substring(1, host.length() - 1);
        }
        return host;
    }
}
