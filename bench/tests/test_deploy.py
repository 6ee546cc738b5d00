"""Which backends the bench finds, on a made-up repository layout; which node logs a deployment keeps."""
from pathlib import Path

from sipbench import deploy


def make(root: Path, *paths: str) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("")


def test_a_backend_counts_once_it_has_a_module_and_a_servlet_and_disk_ones_also_run_on_tmpfs(tmp_path, monkeypatch):
    make(tmp_path,
         "dht-adapters/dht-api/pom.xml", "dht-adapters/dht-memory/pom.xml", "dht-adapters/dht-chord/pom.xml",
         "dht-adapters/dht-bamboo/pom.xml", "dht-adapters/dht-hazelcast/pom.xml",
         "src/servlet/src/main/java/org/p2psip/servlet/MemorySipServlet.java",
         "src/servlet/src/main/java/org/p2psip/servlet/P2PSipServlet.java",
         "src/servlet/src/main/java/org/p2psip/servlet/BambooSipServlet.java",
         "dht-adapters/dht-chord/src/main/java/org/p2psip/servlet/ChordSipServlet.java")
    monkeypatch.setattr(deploy, "REPO", tmp_path)
    monkeypatch.setattr(deploy, "BACKEND_MODULES", tmp_path / "dht-adapters")
    monkeypatch.setattr(deploy, "TMPFS", tmp_path)
    assert deploy.backends() == ["bamboo", "bamboo-tmpfs", "chord", "memory"]


def test_the_tmpfs_variant_runs_the_backend_itself():
    assert deploy.dht_of("bamboo-tmpfs") == "bamboo" and deploy.on_tmpfs("bamboo-tmpfs")
    assert deploy.dht_of("chord") == "chord" and not deploy.on_tmpfs("chord")


def test_each_nodes_console_and_collector_logs_are_kept_beside_the_deployments_log(tmp_path):
    run_dir, folder = tmp_path / "run", tmp_path / "bryan-2"
    folder.mkdir()
    for node in ("node-0", "node-1"):
        (run_dir / node / "logs").mkdir(parents=True)
        (run_dir / node / "logs" / "console.log").write_text(f"{node} counters")
        (run_dir / node / "logs" / "gc.log").write_text(f"{node} Pause Young")
    deployment = deploy.Deployment(run_dir, folder / "deploy.log", "bryan", 2, 25070)
    deployment._keep_logs()
    assert (folder / "node-1-console.log").read_text() == "node-1 counters"
    assert (folder / "node-0-gc.log").read_text() == "node-0 Pause Young"
    assert sorted(p.name for p in folder.iterdir()) == ["node-0-console.log", "node-0-gc.log",
                                                         "node-1-console.log", "node-1-gc.log"]


def test_the_heap_young_generation_and_sip_threads_reach_deploy_up(tmp_path, monkeypatch):
    commands = []
    monkeypatch.setattr(deploy, "available", lambda: True)
    deployment = deploy.Deployment(tmp_path / "run", tmp_path / "deploy.log", "bryan", 2, 25070,
                                   heap="2g", netns=True, young="512m", sip_threads=8)
    monkeypatch.setattr(deployment, "_p2psip", lambda command: commands.append(command) or 0)
    deployment.start()
    up = commands[0]
    assert up[up.index("--heap") + 1] == "2g" and up[up.index("--young") + 1] == "512m"
    assert up[up.index("--sip-threads") + 1] == "8"
