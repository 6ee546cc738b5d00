"""The ports sipp-scenarios gives SIPp: its media block never covers the SIP port picked just
before it, which is still unbound then (a bench step failed with SIPp's video port on its SIP port),
and no port goes to two SIPp started side by side (one failed: "Unable to bind main socket")."""
import pytest

from sipphelp import sipprun


@pytest.fixture(autouse=True)
def nothing_handed_out_yet(monkeypatch):
    monkeypatch.setattr(sipprun, "_HANDED_OUT", sipprun.collections.deque(maxlen=512))


def test_the_media_block_misses_the_sip_port(monkeypatch):
    picks = iter([23415, 24000])   # 23415..23418 covers 23417, the SIP port: the second pick is taken
    monkeypatch.setattr(sipprun.random, "randrange", lambda low, high: next(picks))
    monkeypatch.setattr(sipprun, "bindable", lambda address, port: True)
    assert sipprun.free_port("127.0.0.1", block=4, avoid=23417) == 24000


def test_a_command_gets_a_media_block_apart_from_its_sip_port(monkeypatch):
    picks = iter([23417, 23415, 24000])   # the SIP port, then a block over it, then one apart
    monkeypatch.setattr(sipprun.random, "randrange", lambda low, high: next(picks))
    monkeypatch.setattr(sipprun, "bindable", lambda address, port: True)
    command = sipprun.command("register/register.xml", "127.0.0.1:5060", [], "127.0.0.1")
    assert command[command.index("-p") + 1] == "23417"
    assert command[command.index("-mp") + 1] == "24000"


def test_two_commands_built_one_after_the_other_never_share_a_port(monkeypatch):
    # the second SIPp's SIP port would fall inside the first one's media block, then on its SIP port
    picks = iter([23417, 24000, 24002, 23417, 25000, 26000])
    monkeypatch.setattr(sipprun.random, "randrange", lambda low, high: next(picks))
    monkeypatch.setattr(sipprun, "bindable", lambda address, port: True)   # nothing is bound yet
    first = sipprun.command("register/register.xml", "127.0.0.1:5060", [], "127.0.0.1")
    second = sipprun.command("register/register.xml", "127.0.0.1:5061", [], "127.0.0.1")
    assert (first[first.index("-p") + 1], first[first.index("-mp") + 1]) == ("23417", "24000")
    assert (second[second.index("-p") + 1], second[second.index("-mp") + 1]) == ("25000", "26000")
