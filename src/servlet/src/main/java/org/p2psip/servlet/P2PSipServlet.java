package org.p2psip.servlet;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import javax.servlet.ServletException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import org.p2psip.auth.AuthOptions;
import org.p2psip.config.Config;
import org.p2psip.config.HostPort;
import org.p2psip.config.NodeOptions;
import org.p2psip.config.Option;
import org.p2psip.dht.Backend;
import org.p2psip.dht.Backend.Trait;
import org.p2psip.dht.Backends;
import org.p2psip.dht.Dht;
import org.p2psip.dht.OwnerRules;
import org.p2psip.intake.Intake;
import org.p2psip.intake.SessionRelease;
import org.p2psip.registrar.Domains;
import org.p2psip.registrar.RegistrarOptions;
import org.p2psip.registrar.RegistrarService;
import org.p2psip.registrar.RegistrarOwnerRules;

/**
 * The P2PSIP proxy/registrar: REGISTER goes to the {@link Registration registrar}, every other
 * request out of a dialog to the {@link Routing proxy}; both keep bindings in the DHT the
 * subclass makes. Requests inside a dialog are not seen here beyond returning: the container
 * follows their Route set (the proxy record-routes).
 *
 * <p>One subclass per backend; which one a node runs is the servlet that the registered
 * {@link Backend} named by {@code p2psip.dht} gives ({@link Backends}), and the backend's name
 * and options come from there, never from the subclass.
 *
 * <p>No container thread waits: each handler starts the DHT work and returns; the answer is sent
 * when the work completes, within the DHT deadline.
 *
 * <p>The node's UDP intake (src/intake, on the container's class path) answers every new request
 * 503 Not Ready until this servlet opens it: once the node has its place in the overlay and has
 * {@link Warmup warmed up} on its own hot paths, so that a node that says it is ready carries
 * ordinary load at once.
 *
 * <p>The node's configuration is the properties file named by the system property
 * {@value #CONFIG_PROPERTY} (deploy/p2psip writes it); without it every option has its default.
 */
public abstract class P2PSipServlet extends SipServlet {

    public static final String CONFIG_PROPERTY = "p2psip.config";
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = System.getLogger(P2PSipServlet.class.getName());

    private transient Backend backend;
    private transient Intake intake;
    private transient SessionRelease sessions;
    private transient Dht dht;
    private transient NodeStatus status;
    private transient Registration registration;
    private transient Routing routing;
    private transient RequestCounters counters;
    private transient Authentication authentication;
    private transient ScheduledExecutorService metricsLog;

    /**
     * Starts this node's backend; called once, from {@link #init()}, where blocking is allowed.
     * {@code ownerRules} is the registrar's rules, for a backend whose owners apply REGISTERs
     * themselves ({@link Dht#update}): such a backend is built with it.
     */
    protected abstract Dht createDht(Config config, Clock clock, OwnerRules ownerRules) throws Exception;

    /**
     * Whether init waits for the backend to join before the node serves. A backend whose join
     * travels through this servlet (Bryan's peer REGISTERs and their responses) cannot join while
     * init holds the servlet: its registry entry says {@link Trait#JOINS_AFTER_INIT}, and it joins
     * once the node serves.
     */
    private boolean joinsBeforeServing() {
        return !backend.traits().contains(Trait.JOINS_AFTER_INIT);
    }

    /**
     * Whether the nodes share one store, so that one node's DHT work runs on the others: then
     * nodes starting together share the warm-up and wait for each other before it. A backend
     * whose nodes each keep their own says {@link Trait#ALONE}.
     */
    private boolean sharesStore() {
        return !backend.traits().contains(Trait.ALONE);
    }

    /** This node's intake: made at init, closed at destroy; a subclass exempts its overlay's own requests here. */
    protected Intake intake() {
        return intake;
    }

    /** Ends a request's session once the node's own final answer is sent ({@link SessionRelease}). */
    protected SessionRelease sessions() {
        return sessions;
    }

    @Override
    public void init() throws ServletException {
        Config config = loadConfig();
        intake = Intake.attach(new Intake.Settings(config.get(ServletOptions.MAX_QUEUE_DELAY),
                config.get(ServletOptions.TARGET_RESPONSE_DELAY), config.get(ServletOptions.MAX_COLLECTOR_SHARE),
                config.get(RegistrarOptions.RETRY_AFTER), config.get(ServletOptions.PER_SOURCE_LIMIT)));
        sessions = new SessionRelease(intake);
        backend = chosen(config, getClass());
        warnAboutUnknownOptions(config);
        Clock clock = Clock.systemUTC();
        status = new NodeStatus();
        TimedDht timed;
        try {
            timed = new TimedDht(createDht(config, clock, new RegistrarOwnerRules(config)), status.registry());
            dht = timed;
        } catch (Exception e) {
            throw new ServletException("the " + backend.name() + " DHT did not start: " + e.getMessage(), e);
        }
        if (joinsBeforeServing()) {
            awaitJoin(config.get(ServletOptions.JOIN_WAIT));
        }
        var factory = (SipFactory) getServletContext().getAttribute(SIP_FACTORY);
        var service = new RegistrarService(dht, config, clock);
        var admission = new Admission(config.get(RegistrarOptions.MAX_IN_FLIGHT));
        long retryAfter = config.get(RegistrarOptions.RETRY_AFTER);
        counters = new RequestCounters(status.errors());
        var answers = new Answers(factory, counters, status, retryAfter, config.get(RegistrarOptions.FLOW_TIMER),
                LoadReport.ofThisJvm(intake), sessions);
        var threads = new ContainerThreads(dht.completesOnWorkers());
        authentication = Authentication.from(config, answers, counters, clock);
        Domains domains;
        try {
            domains = Domains.from(config);
        } catch (IllegalArgumentException e) {
            throw new ServletException(e.getMessage(), e);
        }
        registration = new Registration(service, admission, answers, counters, threads, authentication, domains);
        routing = new Routing(service, admission, answers, counters, factory, threads, config, domains, authentication,
                clock);
        intake.answerRedirects(new CalleeDirectory(service, admission, answers, counters, status, factory, domains,
                authentication, routing, config.get(RegistrarOptions.RELAY), clock));
        startMetricsLog(config);
        status.start(config, backend.name(), timed, counters, intake);
        getServletContext().setAttribute(StatusServlet.BOARD, status.board());
        getServletContext().setAttribute(BranchTimeouts.ROUTING, routing);
        LOG.log(Level.INFO, "P2PSIP node {0} started with the {1} DHT", config.get(NodeOptions.SIP_ADDRESS), backend.name());
        startOpening(config);
    }

    /**
     * The registered backend {@code p2psip.dht} names ({@link Backends}), refused unless
     * {@code servlet} is the one it runs: a node deployed with another backend's servlet would
     * otherwise start the wrong overlay under the right name.
     */
    static Backend chosen(Config config, Class<?> servlet) throws ServletException {
        String configured = config.get(NodeOptions.DHT);
        Backend named = Backends.named(configured).orElseThrow(() -> new ServletException("this node's configuration says "
                + NodeOptions.DHT.name() + "=" + configured + ", which is no registered backend (" + Backends.names() + ")"));
        if (!named.servlet().equals(servlet.getName())) {
            throw new ServletException("this node's configuration says " + NodeOptions.DHT.name() + "=" + configured
                    + ", whose servlet is " + named.servlet() + ", but the deployed servlet is " + servlet.getName()
                    + "; deploy with --dht " + configured);
        }
        return named;
    }

    /**
     * Completes once this node serves its part of the overlay; the warm-up starts then. The
     * backend's join by default; a backend that joins after init says when it is placed.
     */
    protected CompletionStage<Void> serving() {
        return dht.joined();
    }

    /**
     * On a thread of its own: waits until the node serves, warms it up, waits until its place in
     * the overlay holds still (the warm-up's load, and nodes joining beside it, move the ring),
     * forgets the warm-up's records, then opens the intake to clients. Logs how long each step
     * took, counted from the JVM's start, so that a slow start can be told apart.
     */
    private void startOpening(Config config) {
        Thread opening = new Thread(() -> {
            long timeout = config.get(ServletOptions.WARMUP_TIMEOUT).toMillis();
            try {
                serving().toCompletableFuture().get(timeout, TimeUnit.MILLISECONDS);
                long joined = uptime();
                // without status members it cannot see the others, and a backend that joins after
                // init (Bryan) is started in turn by deploy/p2psip, and a node with a store of its
                // own (memory) has no copies to fear: each warms up at once
                int nodes = config.get(ServletOptions.STATUS_MEMBERS).isBlank() || !joinsBeforeServing() || !sharesStore() ? 0
                        : NodeOptions.list(config.get(NodeOptions.OVERLAY_MEMBERS)).size();
                boolean together = awaitNodes(nodes,
                        System.currentTimeMillis() + config.get(ServletOptions.WARMUP_MEMBERS_WAIT).toMillis());
                // the warm-up's own bound starts once the nodes are there: nodes starting together
                // wait for the slowest to join, which is no part of their warm-up
                long deadline = System.currentTimeMillis() + timeout;
                long members = uptime();
                settle(deadline);
                long started = uptime();
                List<String> aors = warmUp(config, deadline);
                long warm = uptime();
                settle(deadline);
                long settled = uptime();
                // its records go whatever the time: a bound of its own, past the warm-up's
                int forgotten = forget(aors, Math.max(deadline, System.currentTimeMillis() + FORGET_MILLIS));
                LOG.log(Level.INFO, "opening after {0} ms: joined at {1} ms, {2} for the other nodes {3} ms, settled {4} ms, "
                        + "warmed up {5} ms, settled {6} ms, forgot the warm-up''s {7} records in {8} ms", uptime(), joined,
                        together ? "waited" : "waited in vain", members - joined, started - members, warm - started,
                        settled - warm, forgotten, uptime() - settled);
            } catch (TimeoutException e) {
                LOG.log(Level.WARNING, "not serving the {0} overlay, warmed and settled after {1}: opening anyway",
                        backend.name(), config.get(ServletOptions.WARMUP_TIMEOUT));
            } catch (InterruptedException e) {
                return; // the node stops
            } catch (Exception e) {
                LOG.log(Level.WARNING, "warm-up failed: {0}; opening anyway", e.toString());
            } finally {
                authentication.warmedUp();
            }
            intake.open();
            LOG.log(Level.INFO, "P2PSIP node {0} is open to clients", config.get(NodeOptions.SIP_ADDRESS));
        }, "p2psip-opening");
        opening.setDaemon(true);
        opening.start();
    }

    /**
     * Requests the intake lets through (from a socket it exempts), then a quarter as many that it
     * refuses while the node is starting, so that both paths are compiled before clients come.
     */
    private List<String> warmUp(Config config, long deadline) throws IOException {
        int asked = config.get(ServletOptions.WARMUP_REQUESTS);
        if (asked <= 0) {
            return List.of();
        }
        // Nodes warming up at once share the requests: each one's DHT work runs on all of them,
        // so every node's overlay side warms on the others' requests too, and four nodes sending
        // the whole count each kept two cores busy for a minute before their compilers could start.
        int together = sharesStore() ? status.startingMembers() : 1;
        int requests = (asked + together - 1) / together;
        if (together > 1) {
            LOG.log(Level.INFO, "warming up with {0} of {1} REGISTERs: {2} nodes start together", requests, asked, together);
        }
        InetSocketAddress node = HostPort.from(config, NodeOptions.SIP_ADDRESS).socketAddress();
        long expires = config.get(RegistrarOptions.MIN_EXPIRES);
        try (var served = new DatagramSocket(new InetSocketAddress(node.getAddress(), 0));
             var refused = new DatagramSocket(new InetSocketAddress(node.getAddress(), 0))) {
            intake.exemptSource((InetSocketAddress) served.getLocalSocketAddress());
            String realm = Domains.from(config).domainOf(node.getAddress().getHostAddress(), node.getPort());
            Warmup.Credentials credentials = authentication.warmupCredentials(realm);
            if (new Warmup(node, requests, expires, Warmup.SERVED, credentials, true, intake::collecting).run(served, deadline)) {
                new Warmup(node, requests / 4, expires, Warmup.REFUSED, credentials, false, intake::collecting)
                        .run(refused, deadline);
            }
            return Warmup.aors(node.getPort(), realm);
        }
    }

    /**
     * Removes the warm-up's records from the overlay, {@link #FORGET_WINDOW} at a time: a
     * REGISTER that removes every binding keeps its AOR's record for the retention (calls get 480
     * rather than 404), and thousands of throw-away records, each with its replicas, were handed
     * over and copied with the real ones. Each is read and removed at the version read; a record
     * another write moved meanwhile (a late warm-up request) is read and removed again. Returns
     * how many it removed.
     */
    private int forget(List<String> aors, long deadline) throws InterruptedException {
        int removed = 0;
        int failed = 0;
        String failure = null;
        for (int from = 0; from < aors.size(); from += FORGET_WINDOW) {
            List<CompletableFuture<Boolean>> batch = new ArrayList<>();
            for (String aor : aors.subList(from, Math.min(aors.size(), from + FORGET_WINDOW))) {
                batch.add(forget(aor, 3).toCompletableFuture());
            }
            for (var removal : batch) {
                try {
                    removed += removal.get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS) ? 1 : 0;
                } catch (ExecutionException | TimeoutException e) {
                    failed++;
                    failure = e.toString();
                }
            }
        }
        if (failed > 0) {
            LOG.log(Level.WARNING, "{0} warm-up records may stay in the overlay: their removal failed, the last with {1}",
                    failed, failure);
        }
        return removed;
    }

    private CompletionStage<Boolean> forget(String aor, int attempts) {
        return dht.get(aor).thenCompose(record -> !record.exists() ? CompletableFuture.completedFuture(false)
                : dht.remove(aor, record.version()).thenCompose(removed -> removed || attempts <= 1
                        ? CompletableFuture.completedFuture(removed) : forget(aor, attempts - 1)));
    }

    /**
     * Waits until {@code nodes} nodes (the deployment's, p2psip.overlay.members) answer among the
     * status members (each answers once joined): a node that joins while warm-up records exist is
     * handed copies of them, and a copy on a node that is no longer among a record's replicas
     * outlives the record's removal. True when they answered by {@code deadlineMillis}, or once
     * another node serves clients: this node then joins a running deployment (restarted after a
     * crash, or added), whose warm-up is over and whose missing nodes are down, not starting.
     */
    private boolean awaitNodes(int nodes, long deadlineMillis) throws InterruptedException {
        while (!status.nodesUp(nodes) && !status.othersServing()) {
            if (System.currentTimeMillis() >= deadlineMillis) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }

    /** Waits until the node's place holds still, or until {@code deadlineMillis} (logged; the caller goes on). */
    private void settle(long deadlineMillis) throws InterruptedException, ExecutionException {
        try {
            dht.settled().toCompletableFuture().get(Math.max(0, deadlineMillis - System.currentTimeMillis()),
                    TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.WARNING, "the {0} overlay had not settled around this node by the warm-up''s deadline",
                    backend.name());
        }
    }

    /** How long the removal of the warm-up's records may take at least, even past the warm-up's deadline. */
    private static final long FORGET_MILLIS = 30_000;

    /** Removals of warm-up records in flight at once. */
    private static final int FORGET_WINDOW = 64;

    private static long uptime() {
        return ManagementFactory.getRuntimeMXBean().getUptime();
    }

    /** Blocks init (never a request) until the node joined, so that `up` returning means the overlay serves. */
    private void awaitJoin(Duration wait) {
        try {
            dht.joined().toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.log(Level.WARNING, "not joined to the {0} overlay after {1}: serving anyway, requests get 503 until it joins",
                    backend.name(), wait);
        } catch (ExecutionException e) {
            LOG.log(Level.WARNING, "joining the {0} overlay failed: {1}", backend.name(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void doRequest(SipServletRequest request) throws ServletException, IOException {
        status.request(request.getMethod());
        if (!request.isInitial()) {
            return; // inside a dialog: the container proxies it along the recorded route
        }
        switch (request.getMethod()) {
            case "REGISTER" -> registration.handle(request);
            case "ACK", "CANCEL" -> { } // the container matches them to their transaction
            default -> routing.handle(request);
        }
    }

    /**
     * A final error response of a supervised proxy (one with lower q classes left, or a branch on
     * a flow: Routing): a branch's 430 drops its flow's binding; the best response rings the next
     * class, or is sent upstream after this returns.
     */
    @Override
    protected void doErrorResponse(SipServletResponse response) throws ServletException, IOException {
        if (response.getProxy() == null || routing == null) {
            return;
        }
        if (response.getStatus() == 430) {
            routing.flowFailed(response);
        }
        if (!response.isBranchResponse()) {
            routing.failed(response);
        }
    }

    @Override
    public void destroy() {
        if (intake != null) {
            intake.close();
        }
        getServletContext().removeAttribute(BranchTimeouts.ROUTING);
        if (metricsLog != null) {
            metricsLog.shutdownNow();
        }
        if (status != null) {
            getServletContext().removeAttribute(StatusServlet.BOARD);
            status.close();
        }
        if (authentication != null) {
            authentication.close();
        }
        if (counters != null && dht != null) {
            // The last word, whatever the log interval; to the console itself, since the JVM's
            // shutdown hooks close the log handlers while the container stops its servlets, and
            // the logged line was lost on every `down`.
            System.err.println("P2PSIP node stopping, counters " + snapshot());
        }
        if (dht != null) {
            dht.close();
        }
        LOG.log(Level.INFO, "P2PSIP node stopped");
    }

    /** The servlet's counters, the backend's metrics (prefixed "dht.") and the intake's ("intake."), sorted by name. */
    private Map<String, Long> snapshot() {
        Map<String, Long> now = new TreeMap<>(counters.snapshot());
        dht.metrics().forEach((k, v) -> now.put("dht." + k, v));
        intake.counters().forEach((k, v) -> now.put("intake." + k, v));
        return now;
    }

    private static Config loadConfig() throws ServletException {
        String file = System.getProperty(CONFIG_PROPERTY);
        if (file == null) {
            LOG.log(Level.WARNING, "no -D{0}=FILE given: every option takes its default", CONFIG_PROPERTY);
            return Config.empty();
        }
        try {
            return Config.load(Path.of(file));
        } catch (IOException e) {
            throw new ServletException("cannot read the node configuration " + file + ": " + e.getMessage(), e);
        }
    }

    private void warnAboutUnknownOptions(Config config) {
        List<Option<?>> known = new ArrayList<>(NodeOptions.ALL);
        known.addAll(RegistrarOptions.ALL);
        known.addAll(AuthOptions.ALL);
        known.addAll(ServletOptions.ALL);
        known.addAll(backend.options());
        for (String unknown : config.unknown("p2psip.", known)) {
            LOG.log(Level.WARNING, "unknown option {0} in the node configuration: misspelt?", unknown);
        }
    }

    private void startMetricsLog(Config config) {
        long every = config.get(ServletOptions.METRICS_INTERVAL).toMillis();
        metricsLog = Daemons.scheduler("p2psip-metrics-log");
        var last = new AtomicReference<Map<String, Long>>(Map.of());
        metricsLog.scheduleAtFixedRate(() -> {
            Map<String, Long> now = snapshot();
            if (!now.equals(last.getAndSet(now))) {
                LOG.log(Level.INFO, "counters {0}", now);
            }
        }, every, every, TimeUnit.MILLISECONDS);
    }
}
