"""Where things are: the one place for paths and the defaults. The backends are the WAR's own
registry's (backends.py)."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]          # the repository (where mvn must run)
DEPLOY = ROOT / "deploy"
DEFAULT_RUN_DIR = DEPLOY / "run"
CONTAINER_HOME = DEPLOY / "container" / "target"    # catalina.home
CONTAINER_LIB = CONTAINER_HOME / "lib"
CONTAINER_MODULE = "deploy/container"
# Jars whose presence in CONTAINER_LIB says the container is assembled: the container's own, and
# the node's UDP intake (src/intake), which the SIP stack loads by class name from the class path.
CONTAINER_JARS = ["sip-servlets-impl-3.2.0-37.jar", "p2psip-intake-0.1.0-SNAPSHOT.jar"]
SCENARIOS = ROOT / "sipp-scenarios"

# The default backend of `up` and `demo`: Chord, so that the nodes share bindings.
DEFAULT_DHT = "chord"


class App:
    """An application a node can run: its Maven module and its exploded WAR."""

    def __init__(self, name: str, module: str, exploded: str):
        self.name = name
        self.module = module
        self.exploded = ROOT / exploded


APPS = {
    "p2psip": App("p2psip", "src/servlet", "src/servlet/target/p2psip"),
    "ceiling": App("ceiling", "bench/ceiling", "bench/ceiling/target/ceiling"),
}

# The front (src/front): its Maven module, the jar `up --front` runs, and the policies it offers
# (src/front/README.md). "none" starts no front.
FRONT_MODULE = "src/front"
FRONT_JAR = ROOT / "src" / "front" / "target" / "p2psip-front.jar"
FRONT_POLICIES = ["rr", "hash", "cjsq", "tjsq", "tlwl"]
NO_FRONT = "none"
# How much of a call src/front keeps (p2psip.front.state, its flag --state; src/front/README.md):
# nothing (the node keeps the transactions), everything (the node answers a 302 with the contacts),
# or a share it moves with its own and the nodes' load (after SERvartuka). "": the front's own default.
FRONT_STATES = ["stateless", "stateful", "dynamic"]

# The alternative front: Kamailio's dispatcher module (Debian package kamailio), its config template,
# and each policy's dispatcher algorithm (4 round-robin, 0 hash over the Call-ID).
KAMAILIO_FRONT_CONFIG = DEPLOY / "kamailio" / "front.cfg"
KAMAILIO_FRONT_ALGORITHMS = {"kamailio-rr": 4, "kamailio-hash": 0}
ALL_FRONTS = [*FRONT_POLICIES, *KAMAILIO_FRONT_ALGORITHMS]

# The app name both WARs declare in sip.xml; the application router sends every initial request to it.
SIP_APP_NAME = "p2psip"
