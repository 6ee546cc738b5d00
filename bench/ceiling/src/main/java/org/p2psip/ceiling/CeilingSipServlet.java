package org.p2psip.ceiling;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ListIterator;
import java.util.Properties;
import javax.servlet.ServletException;
import javax.servlet.sip.Address;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.URI;
import org.p2psip.intake.Intake;
import org.p2psip.intake.SessionRelease;

/**
 * The least a SIP servlet can do per request, so that a benchmark can tell the container's cost
 * from the application's: REGISTER is answered 200 at once (its Contacts echoed with their
 * expiry, nothing stored), OPTIONS 200, and every other initial request is proxied with
 * Record-Route on to one fixed target.
 *
 * <p>The target ({@code sip:host:port}) is the setting {@value #TARGET_PROPERTY}: a system property,
 * else an entry of the node's properties file (named by {@code -Dp2psip.config}, where
 * {@code deploy/p2psip up --set p2psip.ceiling.target=...} writes it), else a context parameter.
 * Without any, proxied requests get 503.
 *
 * <p>Each request's application session is invalidated as soon as the servlet's own final answer
 * is sent: the container would otherwise keep it, its transaction and messages until Timer J,
 * which is what caps its throughput (docs/container.md). Proxied requests keep theirs
 * for the dialog; the container frees it when the dialog ends.
 *
 * <p>Thread-safety: the servlet keeps only the factory, the target, its intake and sessions, all
 * set once in {@link #init()}; handlers may run on any container thread at once.
 */
public class CeilingSipServlet extends SipServlet {

    public static final String TARGET_PROPERTY = "p2psip.ceiling.target";
    private static final long serialVersionUID = 1L;
    private static final int DEFAULT_EXPIRES = 3600;

    private transient SipFactory factory;
    private transient URI target;
    private transient Intake intake;
    private transient SessionRelease sessions;

    @Override
    public void init() throws ServletException {
        factory = (SipFactory) getServletContext().getAttribute(SIP_FACTORY);
        String configured = System.getProperty(TARGET_PROPERTY, nodeSetting(TARGET_PROPERTY));
        if (configured == null) {
            configured = getServletContext().getInitParameter(TARGET_PROPERTY);
        }
        if (configured != null && !configured.isBlank()) {
            try {
                target = factory.createURI(configured.trim());
            } catch (ServletParseException e) {
                throw new ServletException("bad " + TARGET_PROPERTY + ": " + configured, e);
            }
        }
        log("ceiling servlet started; proxy target " + (target == null ? "none" : target));
        intake = Intake.attach(Intake.Settings.DEFAULTS);
        sessions = new SessionRelease(intake);
        intake.open(); // the node's UDP intake refuses clients until the application says it serves
    }

    /** An entry of the node's properties file, or null (no file, or no such entry). */
    private static String nodeSetting(String name) throws ServletException {
        String file = System.getProperty("p2psip.config");
        if (file == null) {
            return null;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(Path.of(file))) {
            properties.load(reader);
        } catch (IOException e) {
            throw new ServletException("cannot read the node's properties " + file, e);
        }
        return properties.getProperty(name);
    }

    @Override
    protected void doRequest(SipServletRequest request) throws ServletException, IOException {
        if (!request.isInitial()) {
            return; // inside a dialog: the container follows the recorded route
        }
        switch (request.getMethod()) {
            case "REGISTER" -> answerAndRelease(register(request));
            case "OPTIONS" -> answerAndRelease(request.createResponse(SipServletResponse.SC_OK));
            case "ACK", "CANCEL" -> { }
            default -> proxy(request);
        }
    }

    private static SipServletResponse register(SipServletRequest request) throws ServletException {
        SipServletResponse ok = request.createResponse(SipServletResponse.SC_OK);
        int headerExpires = request.getExpires();
        ListIterator<Address> contacts = request.getAddressHeaders("Contact");
        while (contacts.hasNext()) {
            Address contact = contacts.next();
            if (contact.isWildcard()) {
                continue;
            }
            int expires = contact.getExpires() >= 0 ? contact.getExpires()
                    : headerExpires >= 0 ? headerExpires : DEFAULT_EXPIRES;
            if (expires == 0) {
                continue;
            }
            Address echoed = (Address) contact.clone();
            echoed.setExpires(expires);
            ok.addAddressHeader("Contact", echoed, false);
        }
        return ok;
    }

    private void proxy(SipServletRequest request) throws ServletException, IOException {
        if (target == null) {
            answerAndRelease(request.createResponse(SipServletResponse.SC_SERVICE_UNAVAILABLE, "No Proxy Target"));
            return;
        }
        Proxy proxy = request.getProxy(); // Max-Forwards 0: TooManyHopsException, the container answers 483
        proxy.setRecordRoute(true);
        proxy.proxyTo(target);
    }

    private void answerAndRelease(SipServletResponse response) throws IOException {
        sessions.forgetOnceAnswered(response.getRequest());
        response.send();
        sessions.release(response.getRequest());
    }
}
