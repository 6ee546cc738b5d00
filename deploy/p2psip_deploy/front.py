"""The front of `up --front POLICY`: one src/front process before the nodes, started once they
answer, recorded with role `front` (its policy as the backend) so that `status` lists it and
`down` stops it by PID. Its folder is <run dir>/front/ (console.log: its stdout and stderr)."""
import shlex
import shutil
import sys
import time
from pathlib import Path

from . import cpus, files, layout, netns, processes, remote

ROLE = "front"
FOLDER = "front"
LISTENING = "p2psip-front listening on"   # the line the front prints once its sockets are bound
SETTINGS = "front.properties"   # in its folder: `up --set p2psip.front.*`, and with `up --tls` the TLS options (a password: mode 0600)
NODES_FILE = "nodes.txt"        # in its folder: the nodes it sends to, one SIP address a line, re-read on change
NODES_NOW = "nodes now "        # what it logs, with the list, once it took a changed nodes file


class FrontError(Exception):
    pass


def command(address: str, port: int, node_addresses: list[str], policy: str, state: str = "") -> list[str]:
    """The front's JVM; with `state` (one of layout.FRONT_STATES) its --state, else the front's own default."""
    # Out of heap, the front exits rather than keep a process that may no longer forward (as a node).
    return (["java", "-XX:+ExitOnOutOfMemoryError", "-jar", str(layout.FRONT_JAR), "--listen", f"{address}:{port}",
             "--nodes", ",".join(node_addresses), "--policy", policy] + (["--state", state] if state else []))


def http_port(front_port: int, http_offset: int, index: int) -> int:
    """Front process `index`'s HTTP port (status page, /metrics): the first's is its SIP port +
    http_offset, the next ones' count down from there (the nodes' count up from theirs)."""
    return front_port + http_offset - index


def node_up_line(index: int, node_address: str) -> str:
    """What the front logs when it first hears from node `index` of its --nodes list
    (Nodes.setUp and Node.toString in src/front)."""
    return f"node{index}({node_address}) is up"


def start(run_dir: Path, address: str, port: int, policy: str, nodes: list[processes.Process],
          timeout: float, namespace: str = "", stores=None, tls_offset: int = 0, index: int = 0,
          shared: bool = False, http_port: int = 0, status_members: list[str] = (), login: str = "",
          ssh_config: str = "", state: str = "", cpu_list: str = "", settings: dict | None = None) -> processes.Process:
    """Starts the front before `nodes`, records it, and returns once it listens and has heard from
    every node (so that the first requests are spread, not answered 503); FrontError otherwise.
    With `login`, on that machine over ssh (its jar copied there already). The caller stops it
    (with everything else) when this fails. `state`: its --state (layout.FRONT_STATES; "" its own
    default); `cpu_list`: the CPUs it runs on (`up --cpus front=...`; "" any); `settings`: the
    `p2psip.front.*` entries of `up --set`, written to its settings file. The rest: `prepare`."""
    node_addresses = [n.sip_address for n in nodes]
    folder, front_command, tls_port = prepare(run_dir, address, port, policy, node_addresses, stores, tls_offset,
                                              index, shared, http_port, status_members, state, settings)
    expected = [LISTENING] + [node_up_line(i, a) for i, a in enumerate(node_addresses)]
    if login:  # its folder (and TLS settings) to its machine, at the same path
        try:
            remote.copy(login, ssh_config, [folder])
        except remote.RemoteError as e:
            raise FrontError(str(e)) from e
    return launch(run_dir, folder, front_command, address, port, policy, namespace, expected, timeout,
                  tls_port=tls_port, http_port=http_port, login=login, ssh_config=ssh_config, cpu_list=cpu_list)


def prepare(run_dir: Path, address: str, port: int, policy: str, node_addresses: list[str], stores=None,
            tls_offset: int = 0, index: int = 0, shared: bool = False, http_port: int = 0,
            status_members: list[str] = (), state: str = "", settings: dict | None = None) -> tuple[Path, list[str], int]:
    """Front process `index`'s folder (front/, or front-INDEX/), emptied, with its TLS settings, and
    the command that runs it; returns (folder, command, TLS port or 0). With `stores` (`up --tls`)
    it also listens for TLS on port + tls_offset. `shared`: one of several front processes on the
    same address (SO_REUSEPORT), each with an inner port of its own for the nodes. With `http_port`
    it serves its status page and /metrics there, listing `status_members`. `settings` (the
    `p2psip.front.*` entries of `up --set`) go to its settings file too."""
    folder = fresh_folder(run_dir, FOLDER if index == 0 else f"{FOLDER}-{index}")
    front_command = command(address, port, node_addresses, policy, state)
    write_nodes(folder / NODES_FILE, node_addresses)
    front_command += ["--nodes-file", str(folder / NODES_FILE)]
    if shared:
        front_command += ["--reuse-port", "true", "--inner", f"{address}:0"]
    if http_port:
        front_command += ["--status", f"{address}:{http_port}", "--status-members", ",".join(status_members)]
    tls_port = 0
    lines = "".join(f"{key}={value}\n" for key, value in (settings or {}).items())
    if stores:
        tls_port = port + tls_offset
        lines += tls_settings(stores, tls_port)
    if lines:
        files.write_private(folder / SETTINGS, lines)
        front_command += ["--config", str(folder / SETTINGS)]
    return folder, front_command, tls_port


def tls_settings(stores, tls_port: int) -> str:
    return (f"p2psip.front.tls.port={tls_port}\np2psip.front.tls.key-store={stores.key_store('front')}\n"
            f"p2psip.front.tls.store-password={stores.password}\n")


def fresh_folder(run_dir: Path, name: str = FOLDER) -> Path:
    """<run dir>/front/ (or another name), emptied: a front's files and its console.log."""
    folder = (run_dir / name).resolve()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


def launch(run_dir: Path, folder: Path, front_command: list[str], address: str, port: int, policy: str,
           namespace: str, expected: list[str], timeout: float, kind: str = "", tls_port: int = 0,
           http_port: int = 0, login: str = "", ssh_config: str = "", cpu_list: str = "") -> processes.Process:
    """Runs `front_command` in `folder` (in `namespace`, if any; on the CPUs of `cpu_list`, if any),
    records it with role front, and returns once its console.log holds every `expected` line;
    FrontError otherwise. `kind` follows the policy in what is printed (which front it is, when not
    src/front)."""
    log = folder / "console.log"
    try:
        pid, ticks = processes.launch(netns.exec_in(namespace, cpus.pinned(cpu_list, front_command)), log, folder,
                                      login, ssh_config)
    except RuntimeError as e:  # it ended before it could be recorded
        raise FrontError(str(e)) from e
    front = processes.Process(ROLE, policy, address, port, pid, ticks, str(folder), netns=namespace, tls_port=tls_port,
                              http_port=http_port, login=login, ssh_config=ssh_config, cpus=cpu_list)
    processes.record(run_dir, front)
    where = f", namespace {namespace}" if namespace else ""
    where += f", CPUs {cpu_list}" if cpu_list else ""
    secure = f", TLS {address}:{tls_port}" if tls_port else ""
    print(f"front: pid {pid}, SIP {front.sip_address} (udp+tcp){secure}{where}, policy {policy}{kind}, folder {folder}",
          file=sys.stderr, flush=True)
    wait_for_lines(front, log, expected, timeout)
    return front


def wait_for_lines(front: processes.Process, log: Path, expected: list[str], timeout: float, after: int = 0) -> None:
    """Polls the front's log until it holds every expected line (past its first `after`
    characters); FrontError when the front died or the deadline passed first."""
    deadline = time.monotonic() + timeout
    while True:
        missing = [line for line in expected if line not in read_log(front, log)[after:]]
        if not missing:
            return
        if not processes.alive(front):
            raise FrontError(f"the front (pid {front.pid}) ended while starting; see {log}")
        if time.monotonic() >= deadline:
            raise FrontError(f"the front did not log {missing} in time; see {log}")
        time.sleep(1.0 if front.login else 0.1)  # poll interval; the front probes its nodes every second


def read_log(front: processes.Process, log: Path) -> str:
    """The front's console.log so far, read where it runs."""
    if front.login:
        return remote.run(front.login, front.ssh_config, f"cat {shlex.quote(str(log))} 2>/dev/null").stdout
    return log.read_text(errors="replace") if log.is_file() else ""


def write_nodes(path: Path, node_addresses: list[str]) -> None:
    """The nodes file, replaced whole, so that the front never reads half of it."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text("".join(a + "\n" for a in node_addresses))
    temporary.replace(path)


def set_nodes(run_dir: Path, nodes: list[processes.Process], timeout: float) -> None:
    """Every src/front process of run_dir sends new requests to `nodes` alone: their nodes file
    rewritten, and returned once each logged that it took it; FrontError past `timeout`."""
    node_addresses = [n.sip_address for n in nodes]
    for front in processes.load(run_dir):
        if front.role != ROLE or front.backend not in layout.FRONT_POLICIES or not processes.alive(front):
            continue
        log = Path(front.folder) / "console.log"
        seen = len(read_log(front, log))
        write_nodes(Path(front.folder) / NODES_FILE, node_addresses)
        if front.login:
            try:
                remote.copy(front.login, front.ssh_config, [Path(front.folder) / NODES_FILE])
            except remote.RemoteError as e:
                raise FrontError(str(e)) from e
        wait_for_lines(front, log, [NODES_NOW + ",".join(node_addresses)], timeout, after=seen)
