"""The demo's parts that run without nodes: its users (generated passwords, imported as HA1s, split
per node), authentication switched on, sipload's command and summary, the summary lines. The demo
end to end is `deploy/p2psip demo` itself."""
import hashlib
import stat
from pathlib import Path

from p2psip_deploy import demo, nodes, users

SUMMARY = ("sipload mode=first algorithm=SHA-256 target=127.0.0.1:5070 rate=100 seconds=5.000 attempts=500 "
           "started=500 not_started=0 offered_rate=99.9 completed=499 completed_per_s=99.8 failed=1 timeouts=1 "
           "unexpected=0 statuses= stale_answered=0 unchallenged=0 retransmissions=2 strays=0 p50_ms=3.210 "
           "p99_ms=41.000 primed=0")


def test_the_demo_provisions_its_users_with_generated_passwords_and_imports_them_as_ha1s(tmp_path):
    halves = demo.provision(tmp_path / "demo", tmp_path, 5)
    written = (tmp_path / "demo" / "users.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in written] == [demo.user_name(i) for i in range(5)] + [demo.CALLEE]
    assert len({line.split(",")[2] for line in written}) == 6, "a password of its own each"
    assert [len(half.read_text().splitlines()) for half in halves] == [2, 3]
    for path in [*halves, tmp_path / "demo" / "users.csv", tmp_path / "demo" / "callee.csv"]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, f"{path} holds passwords"
    known = users.read(users.users_file(tmp_path))
    user, domain, password = written[3].split(",")
    sha = hashlib.sha256(f"{user}:{domain}:{password}".encode()).hexdigest()
    assert sha in known[(user, domain)] and password not in users.users_file(tmp_path).read_text()
    assert (demo.CALLEE, demo.DOMAIN) in known


def test_the_nodes_get_authentication_on_with_the_run_dirs_users_file_and_a_set_still_wins(tmp_path):
    options = nodes.UpOptions(run_dir=tmp_path, settings={"p2psip.auth.algorithms": "MD5,SHA-256"})
    authed = demo.with_authentication(options).settings
    assert authed["p2psip.auth.enabled"] == "true"
    assert authed["p2psip.auth.users-file"] == str(tmp_path / "users.csv")
    assert authed["p2psip.auth.algorithms"] == "MD5,SHA-256"
    off = nodes.UpOptions(run_dir=tmp_path, settings={"p2psip.auth.enabled": "false"})
    assert demo.with_authentication(off).settings["p2psip.auth.enabled"] == "false"
    assert options.settings == {"p2psip.auth.algorithms": "MD5,SHA-256"}, "the caller's options are left alone"


def test_each_user_registers_once_answering_the_sha256_challenge_from_the_address_given():
    command = demo.sipload_command(Path("sipload.jar"), "10.1.2.11:5070", Path("users-0.csv"), 100, "10.1.2.1", 24000)
    text = " ".join(command)
    assert "--target 10.1.2.11:5070 --bind 10.1.2.1:24000 --users users-0.csv" in text
    assert "--mode first --algorithm SHA-256 --rate 100" in text
    assert "--duration" not in text and "--attempts" not in text, "one registration per user"


def test_the_summary_line_of_a_sipload_log_is_read_and_an_unfinished_one_is_empty(tmp_path):
    log = tmp_path / "sipload.log"
    log.write_text("sipload primed 0 of 0 phones (0 failed)\n" + SUMMARY + "\n")
    fields = demo.summary_fields(log)
    assert (fields["completed"], fields["failed"], fields["p99_ms"]) == ("499", "1", "41.000")
    (tmp_path / "cut.log").write_text("Exception in thread main\n")
    assert demo.summary_fields(tmp_path / "cut.log") == {}
    assert demo.summary_fields(tmp_path / "absent.log") == {}


def test_a_summary_line_says_what_completed_and_failed_how_fast_and_the_verdict():
    line = demo.Outcome("registrations", False, 999, 1, 5.0, "p50 3.2 ms, p99 41.0 ms (401, then 200)").line()
    assert line.startswith("registrations     999 ok      1 failed     199.8/s  (5.0 s)  FAILED")
    assert line.endswith("p50 3.2 ms, p99 41.0 ms (401, then 200)")
    assert demo.Outcome("calls", True, 100, 0, 4.0).line().endswith("ok")
