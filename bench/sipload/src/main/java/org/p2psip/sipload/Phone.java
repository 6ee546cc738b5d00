package org.p2psip.sipload;

import org.p2psip.auth.Algorithm;

/**
 * One user's phone as the load drives it: its registration's Call-ID, From tag and CSeq, the
 * challenge it answers and how many requests it answered on that nonce. Touched by the load's
 * one thread only.
 */
final class Phone {
    final User user;
    String callId = "";
    String fromTag = "";
    int cseq;
    Challenge challenge;      // the nonce this phone answers with; null before its first challenge
    int nonceCount;           // requests answered on the challenge's nonce so far
    boolean registered;       // one of its registrations ended in 2xx (its state is worth keeping)
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

    /** Whether a refresh can start from this phone's state: it registered and holds a nonce. */
    boolean canRefresh() {
        return registered && challenge != null && !callId.isEmpty();
    }
}
