"""Builds the container and the applications with Maven when their artifacts are missing."""
import subprocess
import sys

from . import layout


class BuildError(Exception):
    pass


def mvn(*args: str) -> None:
    """Runs Maven from the repository root (so .mvn/ applies); BuildError on failure. Its output goes
    to standard error, with the command's other notes: standard output is the command's answer
    (`backends` lists names there, and Maven's colour codes, even with -q, once prefixed the first)."""
    command = ["mvn", *args]
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    if subprocess.run(command, cwd=layout.ROOT, stdout=sys.stderr).returncode != 0:
        raise BuildError("build failed: " + " ".join(command))


def container_ready() -> bool:
    return all((layout.CONTAINER_LIB / jar).is_file() for jar in layout.CONTAINER_JARS)


def app_ready(app: layout.App) -> bool:
    return (app.exploded / "WEB-INF" / "sip.xml").is_file()


def front_ready() -> bool:
    return layout.FRONT_JAR.is_file()


def ensure_front(force: bool = False) -> None:
    """Builds the front's jar when it is missing (or when force)."""
    if force or not front_ready():
        mvn("-q", "-pl", layout.FRONT_MODULE, "-am", "install", "-DskipTests")


def ensure(app: layout.App, force: bool = False) -> None:
    """Builds what is missing (or everything when force): the container's lib folder and the app."""
    if force or not container_ready():
        mvn("-q", "-pl", layout.CONTAINER_MODULE, "-am", "install", "-DskipTests")
    if force or not app_ready(app):
        mvn("-q", "-pl", app.module, "-am", "install", "-DskipTests")
