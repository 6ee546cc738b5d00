package org.p2psip.lazysip;

/** Whether a To (or From) value carries a tag, read by hand for the fast path. Stateless. */
public final class ToTag {

    private ToTag() {
    }

    /** True or false; null if the value is absent or its parameters cannot be told from its URI without a parser. */
    public static Boolean present(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        String params;
        int close = value.lastIndexOf('>');
        if (value.indexOf('<') >= 0 && close > 0) {
            params = value.substring(close + 1);
        } else if (value.indexOf('"') >= 0 || value.indexOf('<') >= 0) {
            return null;
        } else {
            int semi = value.indexOf(';');
            params = semi < 0 ? "" : value.substring(semi);
        }
        for (String p : params.split(";")) {
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase("tag") && !p.substring(eq + 1).trim().isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
