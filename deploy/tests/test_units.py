"""`units`: the systemd unit files of a deployment, each running the command `up` would, ordered
node 0, the other nodes, the front, and started only once `ready` says so; and `ready` itself
against a status page that is not ready, then is; and `up` asking that page before it probes a node with SIPp."""
import http.server
import shlex
import shutil
import subprocess
import threading

import pytest

from p2psip_deploy import layout, nodefolder, nodes, processes, ready, units


@pytest.fixture
def written(tmp_path, monkeypatch):
    monkeypatch.setattr(nodes.build, "ensure", lambda app: None)
    monkeypatch.setattr(nodes.build, "ensure_front", lambda: None)
    monkeypatch.setattr(nodefolder, "deploy_app", lambda spec: None)   # no WAR needed for the files
    options = nodes.UpOptions(dht="chord", nodes=2, base_port=7000, run_dir=tmp_path, front="tlwl", front_port=7040)
    return options, {path.name: path.read_text() for path in units.write(options)}


def value(text: str, key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in text.splitlines() if line.startswith(key + "=")]


def test_a_unit_a_node_and_one_for_the_front(written):
    _, files = written
    assert list(files) == ["p2psip-node-0.service", "p2psip-node-1.service", "p2psip-front-0.service"]


def test_a_node_unit_runs_the_command_up_would_in_its_folder(written, tmp_path):
    options, files = written
    spec = nodes.node_specs(options, layout.APPS["p2psip"])[1]
    (start,) = value(files["p2psip-node-1.service"], "ExecStart")
    words = shlex.split(start)   # systemd reads quotes as the shell does
    assert words[0] == shutil.which("java") and words[1:] == nodes.jvm_command(spec, options)[1:]
    assert value(files["p2psip-node-1.service"], "WorkingDirectory") == [str(tmp_path / "node-1")]
    assert (tmp_path / "node-1" / "node.properties").is_file()   # the folder is written, as by up


def test_a_unit_is_started_once_its_process_says_it_is_ready(written):
    _, files = written
    (post,) = value(files["p2psip-node-1.service"], "ExecStartPost")
    assert post.split()[-4:] == ["ready", "127.0.0.1:10001", "--timeout", "300"]
    (post,) = value(files["p2psip-front-0.service"], "ExecStartPost")
    assert "127.0.0.1:10040" in post


def test_node_0_comes_first_then_the_others_then_the_front(written):
    _, files = written
    assert value(files["p2psip-node-0.service"], "Requires") == []
    assert value(files["p2psip-node-1.service"], "After")[-1] == "p2psip-node-0.service"
    assert value(files["p2psip-front-0.service"], "Requires") == ["p2psip-node-0.service", "p2psip-node-1.service"]


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is missing")
def test_systemd_reads_every_unit_without_complaint(written, tmp_path):
    _, files = written
    paths = sorted((tmp_path / units.FOLDER).glob("*.service"))
    done = subprocess.run(["systemd-analyze", "verify", *map(str, paths)], capture_output=True, text=True)
    complaints = [line for line in done.stderr.splitlines() if "p2psip-" in line and "not found" not in line]
    assert not complaints, done.stderr


def test_units_refuse_namespaces(tmp_path):
    with pytest.raises(units.UnitsError, match="without --netns"):
        units.write(nodes.UpOptions(nodes=1, run_dir=tmp_path, netns=True))


class SelfJson(http.server.BaseHTTPRequestHandler):
    ready = False

    def do_GET(self):
        body = b'{"role":"node","ready":%s}' % (b"true" if SelfJson.ready else b"false")
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_ready_waits_for_the_process_to_say_so():
    server = http.server.HTTPServer(("127.0.0.1", 0), SelfJson)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    status = f"127.0.0.1:{server.server_address[1]}"
    try:
        SelfJson.ready = False
        assert not ready.wait(status, timeout=1.5)
        SelfJson.ready = True
        assert ready.wait(status, timeout=5)
    finally:
        server.shutdown()
    assert not ready.is_ready(status)   # nothing listens any more


def test_up_probes_a_node_with_options_only_once_its_status_page_says_it_is_ready(monkeypatch):
    server = http.server.HTTPServer(("127.0.0.1", 0), SelfJson)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    probed = []
    monkeypatch.setattr(nodes.sipp, "options_probe", lambda address, port, local: probed.append(port) or True)
    node = processes.Process("node", "chord", "127.0.0.1", 7001, 1, 1, "node-1", http_port=server.server_address[1])
    try:
        SelfJson.ready = False
        assert not nodes.answers_options(node, "127.0.0.1") and probed == []   # no SIPp while it warms up
        SelfJson.ready = True
        assert nodes.answers_options(node, "127.0.0.1") and probed == [7001]
    finally:
        server.shutdown()
    ceiling = processes.Process("node", "ceiling", "127.0.0.1", 7002, 1, 1, "node-2", http_port=1)
    assert nodes.answers_options(ceiling, "127.0.0.1") and probed == [7001, 7002]   # no status page to ask
