from pathlib import Path

from p2psip_deploy import layout, nodes, processes, share

CHORD = ("2026-11-26 12:00:00 INFO counters {dht.chord.gets=3, dht.chord.range.permille=249, "
         "dht.chord.range.ppm=249871, dht.chord.records=1234, registrar.registers=10}\n")


def node_folder(tmp_path: Path, name: str, console: str) -> Path:
    folder = tmp_path / name
    (folder / "logs").mkdir(parents=True)
    (folder / "logs" / "console.log").write_text(console)
    return folder


def test_the_share_is_read_in_millionths_and_printed_to_three_places_with_the_records():
    found = share.of_counters(share.last_counters(CHORD))
    assert found == share.Share(0.249871, 1234)
    assert found.describe() == "share 0.250 records 1234"


def test_the_members_a_chord_node_sees_in_one_hop_are_printed_after_its_records():
    console = CHORD.replace("dht.chord.gets=3,", "dht.chord.gets=3, dht.chord.members=4, dht.chord.members.large=0,")
    found = share.of_counters(share.last_counters(console))
    assert found == share.Share(0.249871, 1234, 4)
    assert found.describe() == "share 0.250 records 1234 members 4"


def test_the_members_a_bryan_peer_sees_in_one_hop_are_printed_as_chords_are():
    console = ("counters {dht.bryan.members=4, dht.bryan.members.large=0, dht.bryan.one-hop=120, "
               "dht.bryan.range.ppm=250123, dht.bryan.records=99}\n")
    found = share.of_counters(share.last_counters(console))
    assert found == share.Share(0.250123, 99, 4)
    assert found.describe() == "share 0.250 records 99 members 4"


def test_the_last_counters_of_a_console_count_and_a_share_in_thousandths_alone_is_read_too():
    console = ("counters {dht.bryan.range.permille=-1, dht.bryan.records=0}\nother line\n"
               "counters {dht.bryan.range.permille=500, dht.bryan.records=7}\n")
    assert share.of_counters(share.last_counters(console)) == share.Share(0.5, 7)


def test_bryans_share_summed_over_its_places_is_read_as_chords_is():
    console = ("counters {dht.bryan.places=64, dht.bryan.range.permille=289, dht.bryan.range.ppm=289512, "
               "dht.bryan.records=5678, dht.bryan.requests.in=12}\n")
    found = share.of_counters(share.last_counters(console))
    assert found == share.Share(0.289512, 5678)
    assert found.describe() == "share 0.290 records 5678"


def test_an_unknown_range_or_a_backend_without_one_prints_dashes(tmp_path):
    assert share.of_counters({"dht.chord.range.ppm": -1, "dht.chord.records": 3}).describe() == "share - records 3"
    assert share.of_counters({"dht.memory.gets": 1}).describe() == "share - records -"
    assert share.of_node(tmp_path / "nowhere").describe() == "share - records -"


def test_status_prints_each_nodes_share_and_records_from_its_console(tmp_path):
    run_dir = tmp_path / "run"
    folder = node_folder(run_dir, "node-0", CHORD)
    gone = 2 ** 22 + 12345  # no such PID: the line says gone, and still what the node last logged
    processes.save(run_dir, [processes.Process("node", "chord", "127.0.0.1", 5070, gone, 1, str(folder), 6070)])
    (line,) = nodes.status_lines(run_dir)
    assert line.endswith("share 0.250 records 1234"), line


def test_up_has_nodes_log_their_counters_often_enough_for_status():
    options = nodes.UpOptions(nodes=1, base_port=7000, run_dir=Path("/tmp/unused"))
    (spec,) = nodes.node_specs(options, layout.APPS["p2psip"])
    assert spec.properties["p2psip.metrics.interval"] == "10s"
