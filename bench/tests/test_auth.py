"""The auth experiment: its plan and deployments, bench/sipload's command and summary as a step's
counters, Kamailio's user table, the report's section, targets, auth.csv and figure. No load runs
here (bench/sipload's own tests run the client against a registrar stub)."""
import csv
import hashlib
import subprocess
import sys
from pathlib import Path

from sipbench import authreport, cli, experiments, kamailio, search, sipload
from sipbench.sipp import Target, Timing

RUN = Path(__file__).resolve().parents[1] / "run"
SUMMARY = ("sipload mode=refresh algorithm=SHA-256 target=10.0.0.11:25070 rate=2000 seconds=3.000 attempts=6000 "
           "started=6000 not_started=0 offered_rate=1998.8 completed=5990 completed_per_s=1996.0 failed=10 "
           "timeouts=4 unexpected=6 statuses=503:6 stale_answered=12 unchallenged=0 retransmissions=31 strays=2 "
           "p50_ms=1.120 p99_ms=78.920 primed=0")


def test_the_auth_experiment_measures_three_modes_on_one_node_of_each_backend_and_kamailio():
    plan = experiments.plan(["auth"], ["chord"], [1, 2])
    assert {(m.workload, m.system, m.nodes, m.routing) for m in plan} == {
        (w, s, 1, "one") for w in experiments.AUTH_WORKLOADS for s in ("chord", experiments.KAMAILIO)}


def test_plain_runs_on_a_deployment_without_authentication_and_first_before_refresh_on_one_with_it():
    groups = experiments.deployments(experiments.plan(["auth", "register"], ["chord"], [1]))
    chord = [[m.workload for m in ms] for system, _, ms in groups if system == "chord"]
    assert ["auth-first", "auth-refresh"] in chord, "the refreshes follow the first registrations on the same nodes"
    assert ["auth-plain", "registration"] in chord, "plain shares the deployment of SIPp's registrations"
    assert len([g for g in groups if g[0] == experiments.KAMAILIO]) == 2


def test_each_auth_workload_names_its_sipload_mode_and_only_two_need_authentication():
    assert [experiments.sipload_mode(w) for w in experiments.AUTH_WORKLOADS] == ["plain", "first", "refresh"]
    assert experiments.sipload_mode("registration") is None
    assert [experiments.needs_auth(w) for w in experiments.AUTH_WORKLOADS] == [False, True, True]


def test_the_experiment_and_its_options_are_on_the_command_line():
    args = cli.parser().parse_args(["--experiments", "auth", "--auth-users", "500", "--auth-algorithm", "MD5"])
    assert args.experiments == ["auth"] and args.auth_users == 500 and args.auth_algorithm == "MD5"


def test_a_summary_line_becomes_the_steps_counters_and_a_timeout_fails_the_step():
    summary = sipload.Summary.parse(SUMMARY)
    counts = summary.counts()
    assert (counts.created, counts.successful, counts.failed) == (6000, 5990, 10)
    assert (counts.max_udp_retrans, counts.unexpected, counts.retransmissions) == (4, 6, 31)
    step = search.judge(2000, 6000, counts, summary.number("offered_rate"), summary.number("p50_ms"),
                        summary.number("p99_ms"), generator="sipload")
    assert not step.passed and "4 retransmission timeouts" in step.reason and "99.83% completed" in step.reason


def test_a_step_sipload_could_not_offer_says_so():
    counts = sipload.Summary.parse(SUMMARY).counts()
    step = search.judge(4000, 12000, counts, 1998.8, 1.0, 2.0, generator="sipload")
    assert step.generator_short and "sipload offered only 1999/s" in step.reason


def test_the_last_progress_and_summary_lines_are_read_from_the_log(tmp_path):
    log = tmp_path / "sipload.log"
    log.write_text("sipload progress phase=prime elapsed_s=1.0 started=10 completed=9 failed=0 retransmissions=0\n"
                   "sipload progress phase=refresh elapsed_s=1.0 started=2000 completed=1990 failed=1 retransmissions=3\n"
                   + SUMMARY + "\n")
    assert sipload.progress_of(log).successful == 1990
    assert sipload.summary_of(log).count("completed") == 5990
    assert sipload.summary_of(tmp_path / "none.log") is None
    empty = sipload.Summary.parse("sipload mode=first completed=0 p50_ms= p99_ms=")
    assert empty.number("p50_ms") is None


def test_a_pool_holds_user_domain_password_lines_readable_by_its_owner_only(tmp_path):
    pool = sipload.write_pool(tmp_path / "users", 3)
    lines = pool.users.read_text().splitlines()
    assert [line.split(",")[:2] for line in lines] == [["auth0000000", "p2psip.test"], ["auth0000001", "p2psip.test"],
                                                       ["auth0000002", "p2psip.test"]]
    assert len({line.split(",")[2] for line in lines}) == 3, "a password of its own each"
    assert pool.users.stat().st_mode & 0o077 == 0
    assert pool.state.parent == pool.users.parent and not pool.state.exists()


def test_the_step_command_binds_the_local_address_and_keeps_the_phones_state(tmp_path):
    pool = sipload.Pool(tmp_path / "users.csv", 10, tmp_path / "state.tsv")
    command = sipload.command(Path("sipload.jar"), sipload.Load("refresh", pool, "MD5"),
                              Target("10.0.0.11", 25070, "10.0.0.1"), 1500, 3.0, Timing(3.0, 4000), 500)
    text = " ".join(command)
    assert "--target 10.0.0.11:25070 --bind 10.0.0.1:0" in text
    assert "--mode refresh --rate 1500 --duration 3 --algorithm MD5 --t1-ms 500 --timeout-ms 4000" in text
    assert f"--state {pool.state}" in text and "-XX:TieredStopAtLevel=1" in text


def test_kamailios_user_table_holds_each_users_ha1_of_the_algorithm_offered(tmp_path):
    users = tmp_path / "users.csv"
    users.write_text("alice,P2PSIP.test,wonderland\nbob,p2psip.test,builder\n")
    folder = kamailio.write_user_table(tmp_path / "db", kamailio.Auth(users, "SHA-256"))
    rows = (folder / "htable").read_text().splitlines()
    assert rows[0].startswith("id(int,auto) key_name(string)")
    assert rows[1] == "1:alice:0:0:" + hashlib.sha256(b"alice:p2psip.test:wonderland").hexdigest() + ":0"
    assert "htable:2" in (folder / "version").read_text()
    md5 = kamailio.write_user_table(tmp_path / "md5", kamailio.Auth(users, "MD5"))
    assert (md5 / "htable").read_text().splitlines()[2].endswith(hashlib.md5(b"bob:p2psip.test:builder").hexdigest() + ":0")


def test_kamailio_with_authentication_gets_its_user_table_and_algorithm_as_defines(tmp_path):
    plain = kamailio.Kamailio(None, tmp_path, 25120).command("kamailio")
    assert not any("AUTH_DB_URL" in word for word in plain)
    authed = kamailio.Kamailio(None, tmp_path, 25120, 500, kamailio.Auth(tmp_path / "u.csv", "MD5")).command("kamailio")
    assert f'AUTH_DB_URL="text://{tmp_path / "users-db"}"' in authed and 'AUTH_ALGORITHM="MD5"' in authed


def rows(first=1200, refresh=2600, plain=3000, kamailio_rates=(20000, 9000, 16000), note=""):
    out = []
    for workload, value in zip(experiments.AUTH_WORKLOADS, (plain, first, refresh)):
        out.append({"workload": workload, "system": "chord", "nodes": 1, "routing": "one", "round": "1",
                    "rate": value, "rate_p99_100ms": value, "p50_ms": "2", "p99_ms": "40", "retransmissions": "0",
                    "note": note})
    for workload, value in zip(experiments.AUTH_WORKLOADS, kamailio_rates):
        out.append({"workload": workload, "system": "kamailio", "nodes": 1, "routing": "one", "round": "1",
                    "rate": value, "rate_p99_100ms": value, "p50_ms": "0", "p99_ms": "3", "retransmissions": "0",
                    "note": ""})
    return out


def test_the_targets_compare_first_and_refresh_with_the_same_deployments_plain_rate():
    text = "\n".join(authreport.section(rows(first=1200, refresh=2600), []))
    assert "| chord 1 node | first / plain | 1,200 / 3,000 | 0.40 | >= 0.50 | not met |" in text
    assert "| chord 1 node | refresh / plain | 2,600 / 3,000 | 0.87 | >= 0.80 | met |" in text
    assert "| Kamailio | first / plain | 9,000 / 20,000 | 0.45 | none | informative |" in text


def test_a_verdict_of_a_coarse_run_is_indicative_and_a_missing_figure_cannot_be_judged():
    text = "\n".join(authreport.section(rows(first=1600), ["quick mode's search precision is 0.35"]))
    assert "| first / plain | 1,600 / 3,000 | 0.53 | >= 0.50 | met, indicative (quick mode's search precision" in text
    text = "\n".join(authreport.section(rows(plain=0), []))
    assert "not judged: its plain search passed no step or did not run" in text


def test_every_search_is_shown_with_its_ratio_to_its_plain_rate_and_to_kamailios_same_mode():
    text = "\n".join(authreport.section(rows(), []))
    assert "| chord 1 node | refresh | 2,600 | 2,600 | 2 | 40 | 0 | 0.87 | 0.16 |  |" in text
    assert "| chord 1 node | plain | 3,000 | 3,000 | 2 | 40 | 0 | - | 0.15 |  |" in text
    assert authreport.section([r for r in rows() if r["workload"] == "registration"], []) == []


def test_auth_csv_has_one_row_per_deployment_with_its_ratios(tmp_path):
    path = authreport.write_csv(tmp_path, rows())
    table = list(csv.DictReader(path.open()))
    assert [r["system"] for r in table] == ["chord", "kamailio"]
    assert table[0]["first_over_plain"] == "0.400" and table[0]["refresh_over_kamailio"] == "0.163"
    assert table[1]["plain_over_kamailio"] == ""


def test_the_report_names_the_section_and_rebuilds_it_with_its_figure(tmp_path):
    summary = tmp_path / "summary.csv"
    fields = ["workload", "system", "nodes", "routing", "round", "rate", "rate_p99_100ms", "p50_ms", "p99_ms",
              "retransmissions", "note"]
    with open(summary, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows())
    (tmp_path / "run.tsv").write_text("mode\tquick\nauth_algorithm\tSHA-256\ncommand\tbench/run --quick "
                                      "--experiments auth\n-\ncores (nproc)\t2\n")
    # bench/run brings matplotlib (bench/.venv) when this interpreter lacks it
    subprocess.run([sys.executable, str(RUN), "--report-only", str(tmp_path)], check=True)
    assert (tmp_path / authreport.PLOT).is_file()
    text = (tmp_path / "report.md").read_text()
    assert "judged in the section Authentication" in text and "## Authentication (experiment auth)" in text
    assert "Digest SHA-256" in text and (tmp_path / authreport.CSV_FILE).is_file()
    assert "| kamailio | auth-first | at the start | 9,000 registrations/s |" in text

