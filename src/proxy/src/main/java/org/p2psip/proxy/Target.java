package org.p2psip.proxy;

import java.util.List;

/**
 * One contact to ring or to list in a redirect: its URI as registered, the Path its
 * registration came with (first entry on top), its q (thousandths, or
 * {@code Binding.Q_UNSPECIFIED}) and when its binding ends (milliseconds since the epoch), which
 * a redirect states as the contact's expires. Immutable.
 */
public record Target(String uri, List<String> path, int q, long expiresAt) {

    public Target {
        path = List.copyOf(path);
    }
}
