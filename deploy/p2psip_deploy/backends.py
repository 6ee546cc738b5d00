"""The DHT backends a node can run, as the built WAR registers them (dht-api's `Backends`).

The list is the WAR's: each backend module registers itself with Java's ServiceLoader, and the
registry's own `main` prints one `NAME SERVLET-CLASS TRAITS JVM-ARGUMENTS` line per backend (the
lists comma-separated, "-" when empty). That is asked once per build of the WAR and kept beside it
(`backends.txt`), so `up`, `units`, `demo` and the bench read the same list the nodes' servlets
check themselves against, and a backend added to the WAR needs no line here: what sets one apart
(`alone`: nodes share no bindings; `on-disk`; `joins-after-init`: nodes start one after another;
the JVM arguments it needs) is the registry's too.
"""
import functools
import hashlib
import subprocess
from dataclasses import dataclass

from . import build, layout

APP = layout.APPS["p2psip"]
REGISTRY = "org.p2psip.dht.Backends"
FIELDS = 4  # of a registry line; in the cache's stamp, so that a cache of another layout is asked again


class BackendsError(Exception):
    pass


@dataclass(frozen=True)
class Backend:
    """One line of the registry: the servlet that runs the backend, its traits, its JVM arguments."""
    servlet: str
    traits: frozenset[str]
    jvm_arguments: tuple[str, ...]

    def line(self, name: str) -> str:
        """The registry's own line for this backend (`deploy/p2psip backends` prints it)."""
        return " ".join([name, self.servlet, ",".join(sorted(self.traits)) or "-", ",".join(self.jvm_arguments) or "-"])


def _parse(line: str) -> tuple[str, Backend]:
    fields = line.split()
    if len(fields) != 4:
        raise BackendsError(f"{REGISTRY} printed {line!r}, not NAME SERVLET-CLASS TRAITS JVM-ARGUMENTS")
    name, servlet, traits, arguments = fields
    listed = [[] if field == "-" else field.split(",") for field in (traits, arguments)]
    return name, Backend(servlet, frozenset(listed[0]), tuple(listed[1]))


def _lib():
    return APP.exploded / "WEB-INF" / "lib"


def _cache():
    return APP.exploded.parent / "backends.txt"


@functools.cache
def registered() -> dict[str, Backend]:
    """Backend name (`p2psip.dht`, `--dht`) -> what the registry says of it, sorted by name. Builds
    the WAR when it is missing; asks the registry again whenever the WAR's jars changed."""
    if not build.app_ready(APP):
        build.ensure(APP)
    stamp = _fingerprint()
    cache = _cache()
    lines = cache.read_text().splitlines() if cache.is_file() else []
    if not lines or lines[0] != stamp:
        lines = [stamp, *_ask_registry()]
        cache.write_text("\n".join(lines) + "\n")
    table = dict(_parse(line) for line in lines[1:])
    if not table:
        raise BackendsError(f"no backend registered in {_lib()}")
    return table


def names() -> list[str]:
    return list(registered())


def named(name: str) -> Backend:
    """The backend `name`; BackendsError naming the choices when none has it."""
    table = registered()
    if name not in table:
        raise BackendsError(f"unknown --dht {name}; one of {', '.join(table)}")
    return table[name]


def servlet_of(name: str) -> str:
    """The servlet class of backend `name`; BackendsError naming the choices when none has it."""
    return named(name).servlet


def has(name: str, trait: str) -> bool:
    """Whether backend `name` has `trait` (`alone`, `on-disk`, `joins-after-init`)."""
    return trait in named(name).traits


def _fingerprint() -> str:
    """Which jars the WAR holds, their sizes and times: the cache stands while these do."""
    digest = hashlib.sha256()
    for jar in sorted(_lib().glob("*.jar")):
        status = jar.stat()
        digest.update(f"{jar.name} {status.st_size} {status.st_mtime_ns}\n".encode())
    return f"# jars, {FIELDS} fields " + digest.hexdigest()


def _ask_registry() -> list[str]:
    command = ["java", "-cp", str(_lib() / "*"), REGISTRY]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BackendsError(f"cannot list the registered backends ({' '.join(command)}): {e}") from e
    if done.returncode != 0:
        raise BackendsError(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    return [line for line in done.stdout.splitlines() if line.strip()]
