package org.p2psip.front.policies;

/** The policies by the names the configuration uses. Stateless. */
public final class Policies {

    static final String NAMES = "rr, hash, cjsq, tjsq, tlwl";

    private Policies() {
    }

    public static Policy named(String name, double inviteWeight) {
        return switch (name.trim()) {
            case "rr" -> new RoundRobin();
            case "hash" -> new CallIdHash();
            case "cjsq" -> new FewestCalls();
            case "tjsq" -> new FewestTransactions();
            case "tlwl" -> new LeastWorkLeft(inviteWeight);
            default -> throw new IllegalArgumentException("unknown policy '" + name + "' (one of " + NAMES + ")");
        };
    }
}
