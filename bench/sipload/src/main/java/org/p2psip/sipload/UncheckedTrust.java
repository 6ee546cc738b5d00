package org.p2psip.sipload;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * --tls-insecure: every server certificate is accepted, whoever signed it and whatever address it
 * names, so that a measurement does not depend on having the deployment's CA at hand. Never for
 * anything but load against one's own servers.
 */
final class UncheckedTrust extends X509ExtendedTrustManager {
    private static final X509Certificate[] NONE = new X509Certificate[0];

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        // accepted unseen: the point of --tls-insecure
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        // accepted unseen
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
        // accepted unseen
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("sipload is a TLS client only"); // it never accepts connections
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("sipload is a TLS client only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("sipload is a TLS client only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return NONE;
    }
}
