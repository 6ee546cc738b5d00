package org.p2psip.sipload;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.p2psip.auth.Algorithm;

/**
 * One user's phone as the load drives it: its registration's Call-ID, From tag and CSeq, the
 * challenge it answers and how many requests it answered on that nonce. Touched by the load's
 * one thread only.
 *
 * <p>Over TCP and TLS it also has its connection, the addresses its requests show (its connection's), what
 * its registration's 200 said of outbound (RFC 5626), and the calls it answered.
 */
final class Phone {
    final User user;
    String callId = "";
    String fromTag = "";
    int cseq;
    Challenge challenge;      // the nonce this phone answers with; null before its first challenge
    int nonceCount;           // requests answered on the challenge's nonce so far
    boolean registered;       // one of its registrations ended in 2xx (its state is worth keeping)
    // Where its requests come from: the load's one UDP socket, or its TCP connection.
    RegisterRequest.Local via;      // the sent-by of its Via
    String contactUri = "";         // the URI of its Contact, in REGISTERs and in its answers to calls
    Connection connection;          // its TCP or TLS connection; null over UDP or before it connects
    Transaction transaction;        // its request in flight; null between registrations
    // What its last 200 said (RFC 5626 §4.2.1, §4.4.1) and what it answered.
    boolean outboundRequired;       // Require: outbound
    int flowTimer = -1;             // Flow-Timer seconds; -1: none
    long callsAnswered;             // INVITEs answered 200
    String uaTag = "";              // its To tag in the responses it sends
    Map<String, Request> ringing;   // INVITEs not answered yet, by branch (--ring-ms)
    private String ha1 = "";  // H(user:realm:password) for the challenge's algorithm and realm
    private Algorithm ha1Algorithm;
    private String ha1Realm = "";

    Phone(User user) {
        this.user = user;
    }

    /** A new registration from scratch, as after the phone starts: new Call-ID and tag, CSeq 1. */
    void startDialog(Ids ids) {
        callId = ids.callId();
        fromTag = ids.tag();
        cseq = 1;
    }

    /** Answers this challenge from now on; its nonce has not been used yet. */
    void adopt(Challenge fresh) {
        challenge = fresh;
        nonceCount = 0;
    }

    /** The HA1 for the current challenge, computed once per algorithm and realm (a hash per request saved). */
    String ha1() {
        if (challenge.algorithm() != ha1Algorithm || !challenge.realm().equals(ha1Realm)) {
            ha1Algorithm = challenge.algorithm();
            ha1Realm = challenge.realm();
            ha1 = ha1Algorithm.ha1(user.name(), ha1Realm, user.password());
        }
        return ha1;
    }

    /** RFC 5626 §4.1's instance ID: the same for a user in every run and process (name-based, RFC 4122 §4.3). */
    String instanceUrn() {
        return "urn:uuid:" + UUID.nameUUIDFromBytes(("sipload " + user.key()).getBytes(StandardCharsets.UTF_8));
    }

    Map<String, Request> ringing() {
        if (ringing == null) {
            ringing = new HashMap<>(2);
        }
        return ringing;
    }

    /** Whether a refresh can start from this phone's state: it registered and holds a nonce. */
    boolean canRefresh() {
        return registered && challenge != null && !callId.isEmpty();
    }
}
