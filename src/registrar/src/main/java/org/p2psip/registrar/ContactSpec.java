package org.p2psip.registrar;

/**
 * One Contact of a REGISTER, as parsed from the request.
 *
 * @param uri      the contact URI as the UA sent it, without header parameters
 * @param expires  the contact's {@code expires} parameter in seconds, or null if it had none
 * @param q        q in thousandths, or {@link org.p2psip.dht.Binding#Q_UNSPECIFIED}
 * @param instance the {@code +sip.instance} parameter, or "" if none
 * @param regId    the {@code reg-id} parameter, or 0 if none
 */
public record ContactSpec(String uri, Long expires, int q, String instance, int regId) {
}
