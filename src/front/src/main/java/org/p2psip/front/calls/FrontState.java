package org.p2psip.front.calls;

import java.util.Locale;

/**
 * Who keeps a call's transaction state: the front ({@code stateful}: it proxies the INVITE
 * itself and a node only answers the lookup with a redirect), the node ({@code stateless}: the
 * front forwards and the node proxies statefully), or a share of the calls each, moved by
 * {@link StateSplit} from the two sides' loads ({@code dynamic}).
 */
public enum FrontState {
    STATELESS,
    STATEFUL,
    DYNAMIC;

    /** The names the configuration accepts, for its messages. */
    static final String NAMES = "stateless, stateful, dynamic";

    /** The mode by its configuration name, case and surrounding blanks aside. */
    public static FrontState parse(String name) {
        String key = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (key) {
            case "stateless" -> STATELESS;
            case "stateful" -> STATEFUL;
            case "dynamic" -> DYNAMIC;
            default -> throw new IllegalArgumentException(
                    "unknown front state '" + name + "' (one of " + NAMES + ")");
        };
    }

    /**
     * The share of new calls the front keeps at start: none, all, or in dynamic mode half, the
     * optimum of two servers in series (SERvartuka's), which the split then moves by the loads
     * (and leaves where it is while neither side is busy).
     */
    public double initialFraction() {
        return switch (this) {
            case STATELESS -> 0;
            case STATEFUL -> 1;
            case DYNAMIC -> 0.5;
        };
    }
}
