"""deploy/p2psip's Maven runs: their output never reaches a command's standard output, which is its answer."""
import os
import stat

from p2psip_deploy import build


def test_maven_output_goes_to_standard_error(tmp_path, monkeypatch, capfd):
    fake = tmp_path / "mvn"
    fake.write_text("#!/bin/sh\nprintf '\\033[0m\\033[0m'\necho built\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    build.mvn("-q", "install")
    out, err = capfd.readouterr()
    assert out == "", "a command's answer (deploy/p2psip backends) would start with Maven's colour codes"
    assert "built" in err and "+ mvn -q install" in err
