"""Which backends the bench finds, on a made-up repository layout."""
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
