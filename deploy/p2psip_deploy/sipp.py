"""SIPp runs for deploy/p2psip, through the run scripts of sipp-scenarios/ (one place for how SIPp
is invoked); the verdict is always SIPp's exit code."""
import os
import shutil
import subprocess
import sys

from . import layout


def available() -> bool:
    return shutil.which("sipp") is not None


def as_root(command: list[str]) -> list[str]:
    if os.geteuid() != 0 and shutil.which("sudo"):
        return ["sudo", *command]
    return command


def apt_install(package: str) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(as_root(["apt-get", "update", "-q"]), env=env)
    subprocess.run(as_root(["apt-get", "install", "-y", "-q", package]), env=env)


def ensure_installed() -> bool:
    """Installs SIPp (Debian package sip-tester) when it is missing; True when it is there."""
    if not available():
        print("== installing SIPp (Debian package sip-tester)", file=sys.stderr, flush=True)
        apt_install("sip-tester")
    return available()


def start_script(folder: str, *args: str) -> subprocess.Popen:
    """Starts sipp-scenarios/<folder>/run with args in the background."""
    return subprocess.Popen([str(layout.SCENARIOS / folder / "run"), *args], stdin=subprocess.DEVNULL)


def script(folder: str, *args: str) -> int:
    """Runs sipp-scenarios/<folder>/run with args; returns its exit code."""
    return start_script(folder, *args).wait()


def options_probe(address: str, port: int, local: str = "") -> bool:
    """One OPTIONS to the node from SIPp on `local` (default: the node's own address); True when
    it answered 200."""
    return script("options", f"{address}:{port}", "--address", local or address, "--quiet") == 0
