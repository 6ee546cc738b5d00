"""The users file: HA1s, never passwords; add, remove, import; owner-only."""
import hashlib
import stat

import pytest

from p2psip_deploy import users


def test_add_writes_both_ha1s_with_the_domain_in_lower_case_and_no_password(tmp_path):
    file = tmp_path / "users.csv"
    users.add(file, "alice@P2PSIP.test", "wonderland")
    line = [l for l in file.read_text().splitlines() if not l.startswith("#")][0]
    md5 = hashlib.md5(b"alice:p2psip.test:wonderland").hexdigest()
    sha = hashlib.sha256(b"alice:p2psip.test:wonderland").hexdigest()
    assert line == f"alice,p2psip.test,{md5},{sha}"
    assert "wonderland" not in file.read_text()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600


def test_add_again_replaces_and_remove_removes(tmp_path):
    file = tmp_path / "users.csv"
    users.add(file, "alice@p2psip.test", "one")
    users.add(file, "bob@p2psip.test", "two")
    users.add(file, "alice@p2psip.test", "three")
    assert set(users.read(file)) == {("alice", "p2psip.test"), ("bob", "p2psip.test")}
    assert hashlib.md5(b"alice:p2psip.test:three").hexdigest() in users.read(file)[("alice", "p2psip.test")]
    assert users.remove(file, "alice@p2psip.test")
    assert not users.remove(file, "alice@p2psip.test")
    assert set(users.read(file)) == {("bob", "p2psip.test")}


def test_import_reads_user_domain_password_lines_and_refuses_others(tmp_path):
    file = tmp_path / "users.csv"
    source = tmp_path / "people.csv"
    source.write_text("# user,domain,password\ncarol,p2psip.test,\"pass,word\"\ndave,Example.org,x\n")
    assert users.import_csv(file, source) == 2
    assert hashlib.md5(b"carol:p2psip.test:pass,word").hexdigest() in users.read(file)[("carol", "p2psip.test")]
    assert ("dave", "example.org") in users.read(file)
    source.write_text("erin,p2psip.test\n")
    with pytest.raises(users.UsersError, match="want user,domain,password"):
        users.import_csv(file, source)


@pytest.mark.parametrize("bad", ["alice", "@p2psip.test", "alice@", "a,b@p2psip.test"])
def test_a_user_is_user_at_domain(bad):
    with pytest.raises(users.UsersError):
        users.split_aor(bad)
