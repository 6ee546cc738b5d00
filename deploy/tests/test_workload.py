"""The fault harness's load client against a stand-in registrar: proper REGISTERs, retransmission,
Retry-After, time-outs as unknown outcomes, and a history the checker reads."""
import asyncio
import io
import json
import time

from p2psip_deploy import history, sipclient, workload
from standin_registrar import StandInRegistrar

FAST = {"t1": 0.01, "t2": 0.08}   # Timer F = 0.64 s


def run(coroutine):
    return asyncio.run(coroutine)


async def harness(registrar_knobs=None, **workload_options):
    registrar = await StandInRegistrar.start()
    for knob, value in (registrar_knobs or {}).items():
        setattr(registrar, knob, value)
    client = await sipclient.Client.open("127.0.0.1", **FAST)
    out = io.StringIO()
    load = workload.Workload(client, [workload.Node("n0", "127.0.0.1", registrar.port)], workload.Recorder(out),
                             **workload_options)
    return registrar, client, load, out


def test_a_response_is_parsed_with_compact_headers_and_listed_contacts():
    data = (b"SIP/2.0 200 OK\r\nv: SIP/2.0/UDP 127.0.0.1:5;branch=z9hG4bKabc;rport=5\r\n"
            b"m: <sip:a@h:1>;expires=60, \"B, the second\" <sip:b@h;transport=udp>;q=0.5;expires=7\r\n"
            b"Contact: <sip:c@h>\r\nRetry-After: 5 (busy)\r\n\r\n")
    response = sipclient.parse_response(data)
    assert (response.status, response.reason, response.branch) == (200, "OK", "z9hG4bKabc")
    assert response.contacts() == {"sip:a@h:1": 60, "sip:b@h;transport=udp": 7, "sip:c@h": -1}
    assert response.retry_after() == 5.0


def test_a_request_is_not_a_response():
    assert sipclient.parse_response(b"REGISTER sip:p2psip.test SIP/2.0\r\n\r\n") is None


def test_the_register_of_each_kind():
    common = dict(user="u", call_id="cid", cseq=3, tag="t", branch="z9hG4bKx", local=("127.0.0.1", 9))
    add = sipclient.register_request(**common, contact="sip:u@h", expires=60).decode()
    remove = sipclient.register_request(**common, contact="sip:u@h", expires=0).decode()
    wildcard = sipclient.register_request(**common, wildcard=True).decode()
    query = sipclient.register_request(**common).decode()
    assert add.startswith("REGISTER sip:p2psip.test SIP/2.0\r\n") and add.endswith("\r\n\r\n")
    assert "Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKx;rport\r\n" in add and "CSeq: 3 REGISTER\r\n" in add
    assert "Contact: <sip:u@h>;expires=60\r\n" in add
    assert "Contact: <sip:u@h>;expires=0\r\n" in remove
    assert "Contact: *\r\nExpires: 0\r\n" in wildcard
    assert "Contact" not in query and "To: <sip:u@p2psip.test>\r\n" in query


def test_a_correct_registrar_passes_the_check():
    async def scenario():
        registrar, client, load, out = await harness(aors=5, seed=7)
        await load.run(seconds=1.0, rate=200)
        await load.read_back(rate=500)
        client.close()
        registrar.close()
        return load, out

    load, out = run(scenario())
    ops = load.recorder.operations
    verdict = history.check(ops)
    assert verdict.violations == []
    assert verdict.acknowledged == len(ops) > 50
    assert {op.kind for op in ops} == set(history.KINDS)
    assert sum(op.client.startswith("reader/") for op in ops) == 5
    for agent in load.agents:   # a client has one operation in flight at a time
        mine = [op for op in ops if op.client == agent.name]
        assert all(before.completed <= after.invoked for before, after in zip(mine, mine[1:]))
    assert [history.Operation(**json.loads(line)) for line in out.getvalue().splitlines()] == ops


def test_each_client_keeps_its_call_id_and_raises_its_cseq():
    async def scenario():
        registrar, client, load, _ = await harness(aors=1, clients=1)
        agent = load.agents[0]
        for _ in range(3):
            await load.transact(agent, load.targets.all()[0], history.QUERY, None, None)
        client.close()
        registrar.close()
        return agent

    agent = run(scenario())
    assert agent.cseq == 3


def test_a_registrar_that_forgets_is_caught_losing_writes():
    async def scenario():
        registrar, client, load, _ = await harness(aors=3, seed=3)
        registrar.forget = {f"sip:{user}@p2psip.test" for user in load.users}
        await load.run(seconds=1.0, rate=200)
        client.close()
        registrar.close()
        return load

    verdict = history.check(run(scenario()).recorder.operations)
    assert verdict.lost > 0
    assert all(v.kind == history.LOST for v in verdict.violations)


def test_a_registrar_whose_removals_come_back_is_caught_serving_stale_bindings():
    async def scenario():
        registrar, client, load, _ = await harness({"undo_removals": True}, aors=3, seed=3)
        await load.run(seconds=1.0, rate=200)
        client.close()
        registrar.close()
        return load

    verdict = history.check(run(scenario()).recorder.operations)
    assert verdict.stale > 0 and verdict.lost == 0
    assert {v.kind for v in verdict.violations} == {history.STALE}


def test_a_lost_first_copy_is_retransmitted():
    async def scenario():
        registrar, client, load, _ = await harness({"silent_first": True}, aors=1, clients=1)
        op, _ = await load.transact(load.agents[0], load.targets.all()[0], history.ADD, "sip:x@192.0.2.1:5060", 60)
        client.close()
        registrar.close()
        return op, client, registrar

    op, client, registrar = run(scenario())
    assert op.status == 200 and set(op.listed) == {"sip:x@192.0.2.1:5060"}
    assert client.retransmissions >= 1 and registrar.received == 1 + client.retransmissions


def test_no_answer_within_timer_f_is_an_unknown_outcome():
    async def scenario():
        registrar, client, load, _ = await harness({"mute": True}, aors=1, clients=1)
        op, _ = await load.transact(load.agents[0], load.targets.all()[0], history.QUERY, None, None)
        client.close()
        registrar.close()
        return op, registrar, client

    op, registrar, client = run(scenario())
    assert op.completed is None and op.outcome == history.UNKNOWN
    # all 7 fit in Timer F on an idle machine; a loaded one's late wake-ups may leave the last out
    assert 1 < registrar.received == 1 + client.retransmissions <= 1 + sipclient.MAX_RETRANSMISSIONS


def test_a_503_is_recorded_and_sent_again_after_retry_after_as_a_new_transaction():
    async def scenario():
        registrar, client, load, _ = await harness({"busy_first": True}, aors=1, clients=1)
        await load.operate(load.agents[0], load.targets.all()[0], history.ADD, "sip:x@192.0.2.1:5060", 60)
        client.close()
        registrar.close()
        return load

    first, retry = run(scenario()).recorder.operations
    assert (first.status, first.reason, first.outcome) == (503, "DHT Timeout", history.UNKNOWN)
    assert retry.status == 200 and retry.retry_of == first.id and retry.contact == first.contact


def test_a_drained_node_gets_nothing_new_once_drained_and_an_admitted_one_takes_its_turns():
    def once(condition, seconds=30):
        deadline = time.monotonic() + seconds
        while not condition():
            assert time.monotonic() < deadline, "the load ended first"
            time.sleep(0.01)   # poll interval

    async def scenario():
        registrars = [await StandInRegistrar.start() for _ in range(3)]
        client = await sipclient.Client.open("127.0.0.1", **FAST)
        targets = [workload.Node(f"n{i}", "127.0.0.1", r.port) for i, r in enumerate(registrars)]
        load = workload.Workload(client, targets[:2], workload.Recorder(io.StringIO()), aors=5)
        marks = {}

        def change():   # what a planned change does, from the injector's thread
            once(lambda: len(load.recorder.operations) >= 20)
            marks["drained"] = load.targets.drain("n1", timeout=10)
            marks["drained_at"] = time.time()
            count = len(load.recorder.operations)
            once(lambda: len(load.recorder.operations) >= count + 20)
            marks["admitted_at"] = time.time()
            load.targets.admit(targets[2])

        await asyncio.gather(load.run(seconds=3.0, rate=100), asyncio.to_thread(change))
        client.close()
        for registrar in registrars:
            registrar.close()
        return load.recorder.operations, marks

    operations, marks = run(scenario())
    assert marks["drained"]
    at = {name: [op.invoked for op in operations if op.node == name] for name in ("n0", "n1", "n2")}
    assert at["n1"] and max(at["n1"]) < marks["drained_at"]
    assert at["n2"] and min(at["n2"]) >= marks["admitted_at"]
    after = [op.completed for op in operations if op.node == "n1"]
    assert all(done is not None and done <= marks["drained_at"] for done in after), "drained: every answer in"
