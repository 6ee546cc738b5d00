"""The ports sipp-scenarios gives SIPp: its media block never covers the SIP port picked just
before it, which is still unbound then (a bench step failed with SIPp's video port on its SIP port)."""
from sipbench import sipp as bench_sipp


def test_the_media_block_misses_the_sip_port(monkeypatch):
    sipprun, _ = bench_sipp._scenario_helpers()
    picks = iter([23415, 24000])   # 23415..23418 covers 23417, the SIP port: the second pick is taken
    monkeypatch.setattr(sipprun.random, "randrange", lambda low, high: next(picks))
    monkeypatch.setattr(sipprun, "bindable", lambda address, port: True)
    assert sipprun.free_port("127.0.0.1", block=4, avoid=23417) == 24000


def test_a_command_gets_a_media_block_apart_from_its_sip_port(monkeypatch):
    sipprun, _ = bench_sipp._scenario_helpers()
    picks = iter([23417, 23415, 24000])   # the SIP port, then a block over it, then one apart
    monkeypatch.setattr(sipprun.random, "randrange", lambda low, high: next(picks))
    monkeypatch.setattr(sipprun, "bindable", lambda address, port: True)
    command = sipprun.command("register/register.xml", "127.0.0.1:5060", [], "127.0.0.1")
    assert command[command.index("-p") + 1] == "23417"
    assert command[command.index("-mp") + 1] == "24000"
