package org.p2psip.front.wire;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The branch of the front's own Via. Computed from the client's top Via, as a stateless proxy
 * does (RFC 3261 §16.11): a retransmission gets the same branch, and so do the CANCEL and the
 * ACK of a failed INVITE, which the node must match to that INVITE. Thread-safe.
 */
public final class Branches {

    /** Every branch the front writes starts so; an answer whose top Via lacks it is not for the front. */
    public static final String PREFIX = "z9hG4bK-p2psip-";
    public static final String PROBE_PREFIX = PREFIX + "probe-";

    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    });
    private static final HexFormat HEX = HexFormat.of();

    private Branches() {
    }

    public static String of(SIPRequest request) {
        Via top = request.getTopmostVia();
        String branch = top.getBranch();
        String seed;
        if (branch != null && branch.startsWith("z9hG4bK")) {
            return of(branch, top.getSentBy().encode());
        } else {
            // RFC 2543 client: no unique branch, so the fields that identify its transaction.
            seed = top.encode() + '|' + request.getCallId().getCallId() + '|' + request.getCSeq().getSeqNumber()
                    + '|' + request.getFromTag() + '|' + request.getRequestURI();
        }
        return hashed(seed);
    }

    /** The branch for a client's RFC 3261 branch and its Via's sent-by as JAIN-SIP writes it ({@code host[:port]}). */
    public static String of(String clientBranch, String sentBy) {
        return hashed(clientBranch + '|' + sentBy);
    }

    private static String hashed(String seed) {
        byte[] digest = SHA256.get().digest(seed.getBytes(StandardCharsets.UTF_8));
        return PREFIX + HEX.formatHex(digest, 0, 12);
    }
}
