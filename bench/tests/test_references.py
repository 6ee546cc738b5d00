"""The references tuned for a sustained rate: the container ceiling's young generation and pause goal, which
reach only its own deployment, and Kamailio's usrloc timer, which its configuration takes."""
import shutil
import subprocess
from pathlib import Path

import pytest

from sipbench import experiments, kamailio, modes, runner, tools


def test_the_ceiling_alone_gets_its_young_generation_and_pause_goal():
    settings = runner.Settings(timing=None, plan=None, young=modes.RATE_YOUNG)
    assert runner.young_of(settings, experiments.CEILING) == modes.CEILING_YOUNG == "128m"
    assert runner.ceiling_arguments(experiments.CEILING) == ["--jvm-arg=-XX:MaxGCPauseMillis=50"]
    for backend in ("chord", "memory"):
        assert runner.young_of(settings, backend) == modes.RATE_YOUNG
        assert runner.ceiling_arguments(backend) == []
    # --young is the nodes': a run given another leaves the ceiling as it is
    assert runner.young_of(runner.Settings(timing=None, plan=None, young="1g"), experiments.CEILING) == "128m"


def test_the_jvm_takes_the_ceilings_collector_options():
    java = shutil.which("java")
    if java is None:
        pytest.skip("no JDK on the path")
    done = subprocess.run([java, "-XX:+UseG1GC", "-Xmx512m", f"-Xmn{modes.CEILING_YOUNG}",
                           f"-XX:MaxGCPauseMillis={modes.CEILING_PAUSE_MS}", "-XX:+PrintFlagsFinal", "-version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    flags = {line.split()[1]: line.split()[3] for line in done.stdout.splitlines() if line.count("=") == 1
             and len(line.split()) >= 4}
    assert flags["MaxGCPauseMillis"] == "50" and flags["MaxNewSize"] == str(128 * 1024 * 1024)


def test_kamailio_walks_its_contacts_once_an_hour():
    command = kamailio.Kamailio(None, Path("/tmp/k"), 33050).command("kamailio")
    assert command[command.index(f"USRLOC_TIMER_S={kamailio.USRLOC_TIMER_S}") - 1] == "-A"
    assert kamailio.USRLOC_TIMER_S >= 3600   # the bench's Expires: nothing expires sooner
    config = kamailio.CONFIG.read_text()
    assert '#!ifdef USRLOC_TIMER_S\nmodparam("usrloc", "timer_interval", USRLOC_TIMER_S)\n#!endif' in config


def test_kamailio_accepts_its_configuration_with_the_timer(tmp_path):
    binary = shutil.which("kamailio") or tools._in_sbin("kamailio")
    if binary is None:
        pytest.skip("Kamailio is not installed (apt-get install kamailio)")
    command = kamailio.Kamailio(None, tmp_path, 33050).command(binary)
    done = subprocess.run([*command, "-c"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
