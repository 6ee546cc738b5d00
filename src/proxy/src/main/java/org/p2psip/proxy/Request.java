package org.p2psip.proxy;

import java.util.List;

/**
 * The facts of a request out of a dialog that the proxy's rules read: its method, its
 * Request-URI as a {@link UriParts}, its Max-Forwards, whether its To carries a tag, and the values
 * of its Request-Disposition headers (RFC 3841; the compact form "d" included). Immutable.
 */
public record Request(String method, UriParts requestUri, int maxForwards, boolean toTagged, List<String> dispositions) {

    public Request {
        dispositions = List.copyOf(dispositions);
    }

    /**
     * Whether it is an INVITE out of a dialog that asks for a redirect. Other methods ignore the
     * header: a stateful front keeps state for calls only, and an INVITE with a To tag is a
     * re-INVITE whose route is the dialog's, not a lookup's.
     */
    public boolean asksRedirect() {
        return "INVITE".equals(method) && !toTagged && Redirection.listsRedirect(dispositions);
    }
}
