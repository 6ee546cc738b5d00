package org.p2psip.sipload;

/** A user of the load: the AOR sip:name@domain, who authenticates as name in realm domain. */
public record User(String name, String domain, String password) {

    public String aor() {
        return "sip:" + name + "@" + domain;
    }

    public String key() {
        return name + "@" + domain;
    }
}
