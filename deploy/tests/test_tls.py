"""`up --tls`: the deployment's CA and each process's key store, and what a node folder says of them."""
import stat
import subprocess
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from p2psip_deploy import layout, nodefolder, nodes, tls


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> tls.Stores:
    return tls.make(tmp_path_factory.mktemp("run"), {"node-0": "127.0.0.1", "front": "127.0.0.2"})


def listing(store: Path, password: str) -> str:
    return subprocess.run(["keytool", "-list", "-v", "-keystore", str(store), "-storepass", password],
                          capture_output=True, text=True, check=True).stdout


def test_each_process_gets_a_key_and_a_certificate_the_ca_signed_for_its_address(stores):
    ca_subject = "CN=p2psip deployment CA"
    for name, address in (("node-0", "127.0.0.1"), ("front", "127.0.0.2")):
        text = listing(stores.key_store(name), stores.password)
        assert "PrivateKeyEntry" in text and "Certificate chain length: 2" in text, text
        assert f"Owner: CN={name}" in text and f"Issuer: {ca_subject}" in text, text
        assert f"IPAddress: {address}" in text, text


def test_the_trust_store_holds_the_ca_alone(stores):
    text = listing(stores.trust_store, stores.password)
    assert "trustedCertEntry" in text and "PrivateKeyEntry" not in text and "Your keystore contains 1 entry" in text


def test_every_file_is_its_owners_alone(stores):
    assert stat.S_IMODE(stores.folder.stat().st_mode) == 0o700
    for path in stores.folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert (stores.folder / "password").read_text().strip() == stores.password


def test_a_node_with_tls_listens_on_its_tls_port_and_names_its_stores(tmp_path, stores):
    options = nodes.UpOptions(nodes=2, base_port=7000, run_dir=tmp_path, tls=True, overlay_tls=True)
    spec = nodes.node_specs(options, layout.APPS["p2psip"], stores=stores)[1]
    assert spec.tls_port == 9001
    connectors = ElementTree.fromstring(nodefolder.server_xml(spec)).iter("Connector")
    assert {(c.get("port"), c.get("signalingTransport")) for c in connectors} == \
        {("7001", "udp"), ("7001", "tcp"), ("9001", "tls"), ("10001", None)}   # the last: HTTP
    assert spec.properties["p2psip.tls.key-store"] == str(stores.key_store("node-1"))
    assert spec.properties["p2psip.overlay.tls"] == "true"
    stack = nodefolder.stack_properties(spec)
    assert f"javax.net.ssl.keyStore={stores.key_store('node-1')}" in stack
    assert "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256" in stack


def test_without_tls_a_node_has_no_tls_connector_nor_stores(tmp_path):
    spec = nodes.node_specs(nodes.UpOptions(nodes=1, base_port=7000, run_dir=tmp_path), layout.APPS["p2psip"])[0]
    assert spec.tls_port == 0 and "p2psip.tls.key-store" not in spec.properties
    assert "tls" not in nodefolder.server_xml(spec) and "javax.net.ssl" not in nodefolder.stack_properties(spec)


def test_tls_ports_are_checked_free_before_up(tmp_path):
    options = nodes.UpOptions(nodes=2, base_port=7000, run_dir=tmp_path, tls=True, front="rr", front_port=6000)
    assert {9000, 9001, 8000} <= nodes.node_ports(options)
