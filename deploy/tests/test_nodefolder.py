"""What up writes into a node folder: sip.xml, node.properties, server.xml, the router config."""
import re
import stat
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from p2psip_deploy import backends, files, layout, nodefolder, nodes

SIP_XML = """<sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee">
  <app-name>p2psip</app-name>
  <servlet>
    <javaee:servlet-name>p2psip</javaee:servlet-name>
    <javaee:servlet-class>org.p2psip.servlet.MemorySipServlet</javaee:servlet-class>
    <javaee:load-on-startup>1</javaee:load-on-startup>
  </servlet>
</sip-app>"""


def test_the_registry_lists_every_backend_of_the_war_with_its_servlet():
    registered = backends.registered()
    assert {"chord", "bamboo", "hazelcast", "bryan", "memory"} <= set(registered), registered
    assert list(registered) == sorted(registered)
    assert all(b.servlet.startswith("org.p2psip.servlet.") and b.servlet.endswith("SipServlet")
               for b in registered.values()), registered


def test_what_sets_a_backend_apart_is_the_registrys():
    assert backends.has("memory", "alone") and not backends.has("chord", "alone")
    assert backends.has("bryan", "joins-after-init") and not backends.has("chord", "joins-after-init")
    assert backends.has("bamboo", "on-disk") and not backends.has("hazelcast", "on-disk")
    assert "--add-opens" in backends.named("hazelcast").jvm_arguments and not backends.named("chord").jvm_arguments
    assert nodes.warms_up_together(nodes.UpOptions(dht="chord", nodes=2))
    assert not nodes.warms_up_together(nodes.UpOptions(dht="bryan", nodes=2)), "a Bryan node joins after init"


def test_an_unknown_backend_is_refused_with_the_registered_ones():
    with pytest.raises(backends.BackendsError, match="unknown --dht kademlia; one of .*chord"):
        backends.servlet_of("kademlia")


def test_sip_xml_names_the_servlet_the_registry_gives_each_backend():
    for backend, registered in backends.registered().items():
        expected = registered.servlet
        rewritten = nodefolder.with_servlet_class(SIP_XML, backends.servlet_of(backend))
        servlet = ElementTree.fromstring(rewritten).find(f"{{{nodefolder.SIP_APP_NS}}}servlet")
        classes = [c.text for c in servlet.iter() if c.tag.endswith("servlet-class")]
        assert classes == [expected], backend


def test_the_registry_is_asked_once_per_build_of_the_war(tmp_path, monkeypatch):
    lib = tmp_path / "p2psip" / "WEB-INF" / "lib"
    lib.mkdir(parents=True)
    (lib / "dht-api.jar").write_text("api")
    asked = []
    monkeypatch.setattr(backends.build, "app_ready", lambda app: True)
    monkeypatch.setattr(backends, "_lib", lambda: lib)
    monkeypatch.setattr(backends, "_cache", lambda: tmp_path / "backends.txt")
    monkeypatch.setattr(backends, "_ask_registry", lambda: asked.append(1) or ["chord x.ChordSipServlet - -"])
    for _ in range(2):
        backends.registered.cache_clear()
        assert backends.registered() == {"chord": backends.Backend("x.ChordSipServlet", frozenset(), ())}
    assert len(asked) == 1, "the second run read the cache"
    (lib / "dht-memory.jar").write_text("a jar more")
    backends.registered.cache_clear()
    backends.registered()
    assert len(asked) == 2, "a changed WAR is asked again"
    backends.registered.cache_clear()


def test_the_wars_own_sip_xml_takes_a_backends_servlet():
    war_sip_xml = (layout.ROOT / "src/servlet/src/main/webapp/WEB-INF/sip.xml").read_text()
    rewritten = nodefolder.with_servlet_class(war_sip_xml, "x.Y")
    assert re.findall(r"<servlet-class>([^<]*)</servlet-class>", rewritten) == ["x.Y"]
    assert "<listener-class>org.p2psip.servlet.BranchTimeouts</listener-class>" in rewritten


def test_servlet_elements_are_moved_into_the_sip_app_namespace():
    rewritten = nodefolder.with_servlet_class(SIP_XML, "x.Y")
    assert "javaee:servlet" not in rewritten and "javaee:load-on-startup" not in rewritten
    assert "<servlet-name>p2psip</servlet-name>" in rewritten


@pytest.mark.parametrize("servlet", ["<servlet/>", "<servlet><servlet-class>a.B</servlet-class>"
                                     "<servlet-class>c.D</servlet-class></servlet>",
                                     "<servlet><servlet-class>a.B</servlet-class></servlet>" * 2, ""])
def test_sip_xml_without_exactly_one_servlet_with_one_class_is_refused(servlet):
    with pytest.raises(ValueError):
        nodefolder.with_servlet_class(f'<sip-app xmlns="{nodefolder.SIP_APP_NS}">{servlet}</sip-app>', "x.Y")


def specs(tmp_path: Path, count: int, **settings):
    options = nodes.UpOptions(nodes=count, base_port=7000, run_dir=tmp_path, settings=settings)
    return nodes.node_specs(options, layout.APPS["p2psip"])


def test_node_properties_of_a_three_node_deployment(tmp_path):
    written = [s.properties for s in specs(tmp_path, 3)]
    assert [p["p2psip.sip.address"] for p in written] == ["127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"]
    assert [p["p2psip.overlay.address"] for p in written] == ["127.0.0.1:8000", "127.0.0.1:8001", "127.0.0.1:8002"]
    assert [p["p2psip.overlay.bootstrap"] for p in written] == ["", "127.0.0.1:8000", "127.0.0.1:8000"]
    assert {p["p2psip.overlay.members"] for p in written} == {"127.0.0.1:8000,127.0.0.1:8001,127.0.0.1:8002"}
    secrets = {p["p2psip.overlay.secret"] for p in written}
    assert len(secrets) == 1 and re.fullmatch(r"[0-9a-f]{32}", secrets.pop())
    assert written[1]["p2psip.data.dir"] == str((tmp_path / "node-1" / "data").resolve())


def test_every_deployment_gets_its_own_secret(tmp_path):
    assert specs(tmp_path, 1)[0].properties["p2psip.overlay.secret"] != \
        specs(tmp_path, 1)[0].properties["p2psip.overlay.secret"]


def test_set_overrides_a_generated_property(tmp_path):
    spec = specs(tmp_path, 1, **{"p2psip.data.dir": "/elsewhere", "p2psip.dht.deadline": "500ms"})[0]
    assert spec.properties["p2psip.data.dir"] == "/elsewhere"
    assert spec.properties["p2psip.dht.deadline"] == "500ms"


def test_server_xml_has_udp_and_tcp_connectors_and_t1(tmp_path):
    spec = specs(tmp_path, 2)[1]
    spec.t1_ms = 100
    server = ElementTree.fromstring(nodefolder.server_xml(spec))
    service = server.find("Service")
    assert service.get("baseTimerInterval") == "100"
    connectors = {(c.get("ipAddress"), c.get("port"), c.get("signalingTransport")) for c in service.findall("Connector")}
    assert connectors == {("127.0.0.1", "7001", "udp"), ("127.0.0.1", "7001", "tcp"), (None, "10001", None)}


def test_the_http_connector_serves_the_status_page_on_the_nodes_address_at_the_http_offset(tmp_path):
    options = nodes.UpOptions(nodes=2, base_port=7000, run_dir=tmp_path, http_offset=3000)
    spec = nodes.node_specs(options, layout.APPS["p2psip"])[1]
    http = [c for c in ElementTree.fromstring(nodefolder.server_xml(spec)).iter("Connector")
            if c.get("protocol") == "org.apache.coyote.http11.Http11NioProtocol"]
    assert [(c.get("address"), c.get("port")) for c in http] == [("127.0.0.1", "10001")]
    assert spec.properties["p2psip.status.members"] == "127.0.0.1:10000,127.0.0.1:10001"


def test_the_status_members_name_the_fronts_after_the_nodes_counting_down_from_the_fronts_port(tmp_path):
    options = nodes.UpOptions(nodes=2, base_port=7000, run_dir=tmp_path, front="rr", front_port=7040,
                              front_processes=2)
    assert nodes.status_addresses(options, None) == ["127.0.0.1:10000", "127.0.0.1:10001",
                                                     "127.0.0.1:10040", "127.0.0.1:10039"]


@pytest.mark.parametrize("trace, level", [(False, "0"), (True, "16")])
def test_sip_trace_sets_the_stack_trace_level_that_logs_every_message(tmp_path, trace, level):
    spec = specs(tmp_path, 1)[0]
    spec.sip_trace = trace
    lines = nodefolder.stack_properties(spec).splitlines()
    assert f"gov.nist.javax.sip.TRACE_LEVEL={level}" in lines


def test_the_stack_gets_the_nodes_message_threads(tmp_path):
    spec = specs(tmp_path, 1)[0]
    assert "gov.nist.javax.sip.THREAD_POOL_SIZE=8" in nodefolder.stack_properties(spec).splitlines()
    spec.sip_threads = 64
    assert "gov.nist.javax.sip.THREAD_POOL_SIZE=64" in nodefolder.stack_properties(spec).splitlines()


def test_udp_goes_through_the_intake_and_the_stacks_own_queue_check_is_off(tmp_path):
    lines = nodefolder.stack_properties(specs(tmp_path, 1)[0]).splitlines()
    assert "gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY=org.p2psip.intake.IntakeProcessorFactory" in lines
    assert "gov.nist.javax.sip.CONGESTION_CONTROL_TIMEOUT=0" in lines


def test_application_router_sends_every_method_to_the_app():
    routes = dict(line.split(": ", 1) for line in nodefolder.dar_properties().splitlines())
    assert list(routes) == ["ALL"] and routes["ALL"].startswith('("p2psip"')


@pytest.mark.parametrize("cap, noted", [(212992, True), (2 * 1024 * 1024, False), (4194304, False)])
def test_a_kernel_cap_below_the_nodes_receive_buffer_is_noted_with_the_sysctl_that_lifts_it(
        tmp_path, monkeypatch, cap, noted):
    rmem_max = tmp_path / "rmem_max"
    rmem_max.write_text(f"{cap}\n")
    monkeypatch.setattr(nodefolder, "RMEM_MAX", rmem_max)
    note = nodefolder.receive_buffer_note()
    assert bool(note) == noted
    if noted:
        assert str(cap) in note and f"net.core.rmem_max={nodefolder.RECEIVE_BUFFER_BYTES}" in note


def test_an_unreadable_cap_is_no_note(tmp_path, monkeypatch):
    monkeypatch.setattr(nodefolder, "RMEM_MAX", tmp_path / "missing")
    assert nodefolder.receive_buffer_note() == ""


def test_the_stack_asks_for_the_receive_buffer(tmp_path):
    lines = nodefolder.stack_properties(specs(tmp_path, 1)[0]).splitlines()
    assert f"gov.nist.javax.sip.RECEIVE_UDP_BUFFER_SIZE={nodefolder.RECEIVE_BUFFER_BYTES}" in lines


def test_node_properties_holding_the_secret_are_readable_by_their_owner_only(tmp_path):
    spec = specs(tmp_path, 1)[0]
    spec.folder.mkdir(parents=True)
    (spec.folder / "node.properties").write_text("left over, world-readable")
    files.write_private(spec.folder / "node.properties", nodefolder.node_properties(spec.properties))
    written = spec.folder / "node.properties"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert spec.properties["p2psip.overlay.secret"] in written.read_text()
