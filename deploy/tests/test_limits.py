"""The limits `up` raises for a front with many TCP clients."""
import resource

from p2psip_deploy import limits


def test_open_files_are_raised_to_the_hard_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
        given = limits.raise_open_files()
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == given
        assert given == hard or hard == resource.RLIM_INFINITY
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_backlog_below_the_fronts_is_raised_or_named(tmp_path, monkeypatch):
    low = tmp_path / "somaxconn"
    low.write_text("128\n")
    monkeypatch.setattr(limits, "SOMAXCONN", low)
    assert limits.raise_backlog() == ""
    assert low.read_text() == str(limits.BACKLOG)      # writable here: raised
    low.write_text("128\n")
    low.chmod(0o444)
    monkeypatch.setattr(limits.Path, "write_text", lambda *a, **k: (_ for _ in ()).throw(PermissionError("read-only")))
    assert "sysctl -w net.core.somaxconn=4096" in limits.raise_backlog()


def test_a_backlog_high_enough_is_left_alone(tmp_path, monkeypatch):
    high = tmp_path / "somaxconn"
    high.write_text("4096\n")
    monkeypatch.setattr(limits, "SOMAXCONN", high)
    assert limits.raise_backlog() == ""
    assert high.read_text() == "4096\n"
