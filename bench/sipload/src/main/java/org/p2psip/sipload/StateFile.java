package org.p2psip.sipload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.p2psip.auth.Algorithm;

/**
 * What a phone must remember to refresh in a later run (--state): its registration's Call-ID, From
 * tag and CSeq, and the challenge and nonce count it answers with. One tab-separated line per
 * phone that registered: user, domain, call-id, from-tag, cseq, realm, nonce, algorithm, qop,
 * opaque, nc. Passwords stay in the users file. Replaced whole, so a reader never sees half of it.
 */
final class StateFile {
    private static final int FIELDS = 11;

    private StateFile() {
    }

    /** Gives each phone the state the file holds for its user; returns how many got one. */
    static int load(Path file, List<Phone> phones) throws IOException {
        Map<String, Phone> byUser = new HashMap<>();
        for (Phone phone : phones) {
            byUser.put(phone.user.key(), phone);
        }
        int loaded = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String[] f = line.split("\t", -1);
            if (f.length != FIELDS) {
                continue;
            }
            Phone phone = byUser.get(f[0] + "@" + f[1]);
            Algorithm algorithm = Algorithm.named(f[7]).orElse(null);
            if (phone == null || algorithm == null) {
                continue;
            }
            phone.callId = f[2];
            phone.fromTag = f[3];
            phone.cseq = Integer.parseInt(f[4]);
            phone.adopt(new Challenge(f[5], f[6], algorithm, f[8], f[9], false));
            phone.nonceCount = Integer.parseInt(f[10]);
            phone.registered = true;
            loaded++;
        }
        return loaded;
    }

    /** Writes the state of every phone that can refresh; returns how many. */
    static int save(Path file, List<Phone> phones) throws IOException {
        var lines = new ArrayList<String>();
        for (Phone p : phones) {
            if (!p.canRefresh()) {
                continue;
            }
            Challenge c = p.challenge;
            lines.add(String.join("\t", p.user.name(), p.user.domain(), p.callId, p.fromTag, Integer.toString(p.cseq),
                    c.realm(), c.nonce(), c.algorithm().wireName(), c.qop(), c.opaque(), Integer.toString(p.nonceCount)));
        }
        Path parent = file.toAbsolutePath().getParent();
        Path temporary = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
        Files.write(temporary, lines, StandardCharsets.UTF_8);
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return lines.size();
    }
}
