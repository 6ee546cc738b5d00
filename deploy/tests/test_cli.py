"""The command line: durations, and the README's option table against the parser."""
import argparse

import pytest

from p2psip_deploy import cli, layout


@pytest.mark.parametrize("text, ms", [("500ms", 500), ("100", 100), ("0.1s", 100), ("2s", 2000)])
def test_durations(text, ms):
    assert cli.duration_ms(text) == ms


def test_bad_duration_is_refused():
    with pytest.raises(argparse.ArgumentTypeError):
        cli.duration_ms("fast")


def up_options():
    up = cli.parser()._subparsers._group_actions[0].choices["up"]
    return [a for a in up._actions if a.option_strings and a.dest != "help"]


def test_readme_documents_every_option_of_up_with_its_default():
    readme = (layout.DEPLOY / "README.md").read_text()
    for action in up_options():
        name = action.option_strings[0]
        rows = [line for line in readme.splitlines() if line.startswith(f"| `{name}` |")]
        assert rows, f"deploy/README.md has no row for {name}"
        if action.dest in ("settings", "jvm_args", "young", "heap", "users_file", "hosts", "cpus", "cpu_quota"):
            continue  # empty defaults: computed (heap: from --register-rate) or none (users, hosts, cpus, quota)
        default = action.default
        if action.dest == "run_dir":
            default = "deploy/run"
        elif action.dest == "t1":
            default = f"{default}ms"
        elif isinstance(default, bool):
            default = "on" if default else "off"
        elif isinstance(default, float):
            default = f"{default:g}"
        assert f"`{default}`" in rows[0], f"{name}: default {default} not in the README row {rows[0]}"
