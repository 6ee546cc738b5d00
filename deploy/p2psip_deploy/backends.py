"""The DHT backends a node can run, as the built WAR registers them (dht-api's `Backends`).

The list is the WAR's: each backend module registers itself with Java's ServiceLoader, and the
registry's own `main` prints one `NAME SERVLET-CLASS` line per backend. That is asked once per
build of the WAR and kept beside it (`backends.txt`), so `up`, `units` and the bench read the
same list the nodes' servlets check themselves against, and a backend added to the WAR needs no
line here.
"""
import functools
import hashlib
import subprocess

from . import build, layout

APP = layout.APPS["p2psip"]
REGISTRY = "org.p2psip.dht.Backends"


class BackendsError(Exception):
    pass


def _lib():
    return APP.exploded / "WEB-INF" / "lib"


def _cache():
    return APP.exploded.parent / "backends.txt"


@functools.cache
def registered() -> dict[str, str]:
    """Backend name (`p2psip.dht`, `--dht`) -> its servlet's class name, sorted by name. Builds the
    WAR when it is missing; asks the registry again whenever the WAR's jars changed."""
    if not build.app_ready(APP):
        build.ensure(APP)
    stamp = _fingerprint()
    cache = _cache()
    lines = cache.read_text().splitlines() if cache.is_file() else []
    if not lines or lines[0] != stamp:
        lines = [stamp, *_ask_registry()]
        cache.write_text("\n".join(lines) + "\n")
    table = {}
    for line in lines[1:]:
        fields = line.split()
        if len(fields) != 2:
            raise BackendsError(f"{REGISTRY} printed {line!r}, not NAME SERVLET-CLASS")
        table[fields[0]] = fields[1]
    if not table:
        raise BackendsError(f"no backend registered in {_lib()}")
    return table


def names() -> list[str]:
    return list(registered())


def servlet_of(name: str) -> str:
    """The servlet class of backend `name`; BackendsError naming the choices when none has it."""
    table = registered()
    if name not in table:
        raise BackendsError(f"unknown --dht {name}; one of {', '.join(table)}")
    return table[name]


def _fingerprint() -> str:
    """Which jars the WAR holds, their sizes and times: the cache stands while these do."""
    digest = hashlib.sha256()
    for jar in sorted(_lib().glob("*.jar")):
        status = jar.stat()
        digest.update(f"{jar.name} {status.st_size} {status.st_mtime_ns}\n".encode())
    return "# jars " + digest.hexdigest()


def _ask_registry() -> list[str]:
    command = ["java", "-cp", str(_lib() / "*"), REGISTRY]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BackendsError(f"cannot list the registered backends ({' '.join(command)}): {e}") from e
    if done.returncode != 0:
        raise BackendsError(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    return [line for line in done.stdout.splitlines() if line.strip()]
