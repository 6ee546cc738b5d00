"""Which backends the bench finds, from the WAR's registry; which node logs a deployment keeps."""

from sipbench import deploy


def test_the_bench_runs_every_registered_backend_and_disk_ones_also_on_tmpfs(tmp_path, monkeypatch):
    monkeypatch.setattr(deploy, "registered", lambda: {"bamboo": {"on-disk"}, "chord": set(), "memory": {"alone"}})
    monkeypatch.setattr(deploy, "TMPFS", tmp_path)
    assert deploy.backends() == ["bamboo", "bamboo-tmpfs", "chord", "memory"]
    monkeypatch.setattr(deploy, "TMPFS", tmp_path / "absent")
    assert deploy.backends() == ["bamboo", "chord", "memory"]


def test_the_registered_backends_are_the_ones_deploy_lists_from_the_war():
    deploy.registered.cache_clear()
    registered = deploy.registered()
    assert {"chord", "bamboo", "hazelcast", "bryan", "memory"} <= set(registered), registered
    assert "on-disk" in registered["bamboo"] and "on-disk" not in registered["chord"], registered
    if deploy.TMPFS.is_dir():
        assert "bamboo-tmpfs" in deploy.backends()


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
