package org.p2psip.dht.bryan;

import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.message.SIPResponse;
import gov.nist.javax.sip.parser.StringMsgParser;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sip.PeerUnavailableException;
import javax.sip.SipFactory;
import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.ContentTypeHeader;
import javax.sip.header.ExpiresHeader;
import javax.sip.header.HeaderFactory;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * Peer messages as SIP text, built and parsed by JAIN-SIP (the reference implementation's message
 * factory and parser, no stack): what the in-process test transport puts on its "wire", so that
 * every header the overlay writes is proven to survive a real SIP parser.
 */
final class JainSipText {

    private static final AddressFactory ADDRESSES;
    private static final HeaderFactory HEADERS;
    private static final MessageFactory MESSAGES;

    static {
        try {
            SipFactory factory = SipFactory.getInstance();
            factory.setPathName("gov.nist");
            ADDRESSES = factory.createAddressFactory();
            HEADERS = factory.createHeaderFactory();
            MESSAGES = factory.createMessageFactory();
        } catch (PeerUnavailableException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private JainSipText() {
    }

    static byte[] request(String from, String target, PeerRequest r, long cseq) throws ParseException {
        try {
            Address peer = ADDRESSES.createAddress(ADDRESSES.createURI(r.peerUri()));
            int colon = from.lastIndexOf(':');
            var via = HEADERS.createViaHeader(from.substring(0, colon), Integer.parseInt(from.substring(colon + 1)), "udp",
                    "z9hG4bK" + UUID.randomUUID());
            var uri = ADDRESSES.createSipURI(null, target);
            if (!r.target().isEmpty()) {
                uri.setParameter(PeerRequest.TARGET_PARAMETER, r.target());
            }
            Request request = MESSAGES.createRequest(uri, Request.REGISTER,
                    HEADERS.createCallIdHeader(UUID.randomUUID().toString()), HEADERS.createCSeqHeader(cseq, Request.REGISTER),
                    HEADERS.createFromHeader(peer, Long.toHexString(cseq)), HEADERS.createToHeader(peer, null),
                    List.of(via), HEADERS.createMaxForwardsHeader(70));
            if (r.expires() >= 0) {
                request.addHeader(HEADERS.createExpiresHeader(r.expires()));
            }
            for (PeerHeader h : r.headers()) {
                request.addLast(HEADERS.createHeader(h.name(), h.value()));
            }
            if (r.body().length > 0) {
                request.setContent(r.body(), contentType(r.contentType()));
            }
            return ((SIPMessage) request).encodeAsBytes("udp");
        } catch (javax.sip.InvalidArgumentException | javax.sip.SipException e) {
            throw new ParseException(e.toString(), 0);
        }
    }

    static PeerRequest readRequest(byte[] text) throws ParseException {
        SIPRequest m = (SIPRequest) new StringMsgParser().parseSIPMessage(text, true, false, null);
        ExpiresHeader expires = (ExpiresHeader) m.getHeader(ExpiresHeader.NAME);
        String place = ((SipURI) m.getRequestURI()).getParameter(PeerRequest.TARGET_PARAMETER);
        return new PeerRequest(m.getTo().getAddress().getURI().toString(), expires == null ? -1 : expires.getExpires(),
                dhtHeaders(m), contentTypeOf(m), m.getRawContent(), place == null ? "" : place);
    }

    static byte[] response(byte[] requestText, PeerResponse r) throws ParseException {
        SIPRequest request = (SIPRequest) new StringMsgParser().parseSIPMessage(requestText, true, false, null);
        Response response = MESSAGES.createResponse(r.status(), request);
        response.setReasonPhrase(r.reason());
        for (String each : r.contact().split(",")) {
            String uri = each.trim().replaceAll("^<|>$", "");
            if (!uri.isEmpty()) {
                response.addHeader(HEADERS.createContactHeader(ADDRESSES.createAddress(ADDRESSES.createURI(uri))));
            }
        }
        for (PeerHeader h : r.headers()) {
            try {
                response.addLast(HEADERS.createHeader(h.name(), h.value()));
            } catch (javax.sip.SipException e) {
                throw new ParseException(e.toString(), 0);
            }
        }
        if (r.body().length > 0) {
            response.setContent(r.body(), contentType(r.contentType()));
        }
        return ((SIPMessage) response).encodeAsBytes("udp");
    }

    static PeerResponse readResponse(byte[] text) throws ParseException {
        SIPResponse m = (SIPResponse) new StringMsgParser().parseSIPMessage(text, true, false, null);
        var contacts = new ArrayList<String>();
        m.getHeaders(ContactHeader.NAME).forEachRemaining(h -> contacts.add(((ContactHeader) h).getAddress().getURI().toString()));
        return new PeerResponse(m.getStatusCode(), m.getReasonPhrase(), String.join(", ", contacts), dhtHeaders(m),
                contentTypeOf(m), m.getRawContent());
    }

    private static List<PeerHeader> dhtHeaders(SIPMessage m) {
        var out = new ArrayList<PeerHeader>();
        Iterator<SIPHeader> all = m.getHeaders();
        while (all.hasNext()) {
            SIPHeader h = all.next();
            if (h.getHeaderName().toLowerCase(Locale.ROOT).startsWith("dht-")) {
                out.add(new PeerHeader(h.getHeaderName(), h.getHeaderValue()));
            }
        }
        return out;
    }

    private static String contentTypeOf(SIPMessage m) {
        ContentTypeHeader type = m.getContentTypeHeader();
        return type == null ? "" : type.getContentType() + "/" + type.getContentSubType();
    }

    private static ContentTypeHeader contentType(String type) throws ParseException {
        int slash = type.indexOf('/');
        return HEADERS.createContentTypeHeader(type.substring(0, slash), type.substring(slash + 1));
    }
}
