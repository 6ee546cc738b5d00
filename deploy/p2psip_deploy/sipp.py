"""SIPp runs for deploy/p2psip, through the run scripts of sipp-scenarios/ (one place for how SIPp
is invoked); the verdict is always SIPp's exit code."""
import shutil
import subprocess

from . import layout


def available() -> bool:
    return shutil.which("sipp") is not None


def start_script(folder: str, *args: str) -> subprocess.Popen:
    """Starts sipp-scenarios/<folder>/run with args in the background."""
    return subprocess.Popen([str(layout.SCENARIOS / folder / "run"), *args], stdin=subprocess.DEVNULL)


def script(folder: str, *args: str) -> int:
    """Runs sipp-scenarios/<folder>/run with args; returns its exit code."""
    return start_script(folder, *args).wait()


def options_probe(address: str, port: int) -> bool:
    """One OPTIONS to the node; True when it answered 200."""
    return script("options", f"{address}:{port}", "--address", address, "--quiet") == 0
