"""`test`: the README's one test command (and what .ci/run runs): installs SIPp, sshd, rsync, Chromium
and the Prometheus client's parser when missing,
then unit tests (mvn install; pytest deploy/tests), integration tests (mvn verify of
src/integration: the real container driven by the real SIPp) and the bench tool's tests (pytest
bench/tests). Exit code non-zero when any step fails. Every step runs even after an earlier one
failed: Maven runs with --fail-at-end, so a module whose tests fail stops only the modules that
depend on it, and the integration tests still run when what they deploy was built."""
import shutil
import subprocess
import sys
from pathlib import Path

from . import layout, sipp


def run(install: bool, matrix: bool = False) -> int:
    if not sipp.available():
        if not install or not sipp.ensure_installed():
            print("deploy/p2psip test: SIPp is missing (Debian package sip-tester)", file=sys.stderr)
            return 1
    # -DskipITs: install would run the integration tests too; they have their own step below
    failures = step("unit tests", ["mvn", "-q", "--fail-at-end", "install", "-DskipITs"]) != 0
    if not pytest_available() and not (install and install_pytest()):
        print("deploy/p2psip test: pytest is missing", file=sys.stderr)
        return 1
    if install:
        install_test_tools()
    failures += step("deploy tool tests", [sys.executable, "-m", "pytest", "-q", "deploy/tests",
                                           *(["--matrix"] if matrix else [])]) != 0
    failures += step("integration tests", ["mvn", "-pl", "src/integration", "verify",
                                           f"-Dp2psip.it.matrix={'true' if matrix else 'false'}"]) != 0
    if bench_tests_present():
        failures += step("bench tests", [sys.executable, "-m", "pytest", "-q", "bench/tests",
                                         *(["--matrix"] if matrix else [])]) != 0
    print("deploy/p2psip test: " + ("all passed" if failures == 0 else f"{failures} step(s) FAILED"))
    return 0 if failures == 0 else 1


def step(name: str, command: list[str]) -> int:
    print(f"== {name}: {' '.join(command)}", flush=True)
    code = subprocess.run(command, cwd=layout.ROOT).returncode
    print(f"== {name}: {'passed' if code == 0 else f'FAILED (exit code {code})'}", flush=True)
    return code


def install_test_tools() -> None:
    """What the tests use besides SIPp, from Debian when missing: sshd and rsync (the ssh hosts of
    `up --hosts` are namespaces with an sshd of their own, copied to with rsync), headless Chromium (the status page as
    a browser renders it) and the Prometheus client's parser (/metrics)."""
    if not shutil.which("sshd") and not Path("/usr/sbin/sshd").exists():
        print("== installing openssh-server", flush=True)
        sipp.apt_install("openssh-server")
    if not shutil.which("rsync"):
        print("== installing rsync", flush=True)
        sipp.apt_install("rsync")
    if shutil.which("chromium") is None:
        print("== installing chromium", flush=True)
        sipp.apt_install("chromium")
    if not prometheus_parser_available():
        # the python3 on the PATH, which the tests run: Debian's package for Debian's Python
        # (pip refuses to install there), pip for any other
        print("== installing the Prometheus client for python3", flush=True)
        if (shutil.which("python3") or "").startswith("/usr/bin/"):
            sipp.apt_install("python3-prometheus-client")
        else:
            subprocess.run(["python3", "-m", "pip", "install", "-q", "prometheus-client"])


def prometheus_parser_available() -> bool:
    return subprocess.run(["python3", "-c", "import prometheus_client.parser"], capture_output=True).returncode == 0


def bench_tests_present() -> bool:
    tests = layout.ROOT / "bench" / "tests"
    return tests.is_dir() and any(tests.rglob("test_*.py"))


def pytest_available() -> bool:
    return subprocess.run([sys.executable, "-m", "pytest", "--version"], capture_output=True).returncode == 0


def install_pytest() -> bool:
    """Debian's python3-pytest for the system Python (pip refuses to install there), pip otherwise."""
    print("== installing pytest", flush=True)
    if sys.executable.startswith("/usr/bin/"):
        sipp.apt_install("python3-pytest")
    else:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pytest"])
    return pytest_available()
