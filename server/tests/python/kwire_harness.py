"""Helpers for driving a kwire-server with real librdkafka clients (confluent-kafka 2.16.1).

Everything here is bounded: every wait has a deadline, every loop polls the consumers it watches
(librdkafka runs rebalance callbacks, and so acknowledges assignments, only inside poll()).
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

HOST = "127.0.0.1"
TP = Tuple[str, int]

# Values reported by the tests and printed at the end of the run (conftest.py).
METRICS: List[str] = []


def metric(line: str) -> None:
    METRICS.append(line)
    print(line, flush=True)


def server_bin() -> str:
    path = os.environ.get("KWIRE_SERVER_BIN")
    if not path:
        raise RuntimeError("KWIRE_SERVER_BIN is not set (the Rust runner server/tests/librdkafka.rs sets it)")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"KWIRE_SERVER_BIN={path} is not an executable file")
    return path


def free_port() -> int:
    """A port that was free a moment ago (for tests that restart the server on the same port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------------------------
# The server process
# --------------------------------------------------------------------------------------------


class KwireServer:
    """One kwire-server process. `start()` waits for its `listening on` line; stderr goes to a file."""

    def __init__(self, workdir: str, topics: Iterable[str], heartbeat_ms: int = 250, port: int = 0,
                 data_dir: Optional[str] = None, session_timeout_ms: Optional[int] = None,
                 max_frame_bytes: Optional[int] = None, idle_timeout_ms: Optional[int] = None,
                 rust_log: Optional[str] = None, name: str = "server", extra_args: Iterable[str] = ()):
        self.workdir = workdir
        self.topics = list(topics)
        self.heartbeat_ms = heartbeat_ms
        self.requested_port = port
        self.data_dir = data_dir
        self.session_timeout_ms = session_timeout_ms
        self.max_frame_bytes = max_frame_bytes
        self.idle_timeout_ms = idle_timeout_ms
        self.rust_log = rust_log or os.environ.get("KWIRE_TEST_RUST_LOG", "debug")
        self.name = name
        self.extra_args = list(extra_args)
        self.proc: Optional[subprocess.Popen] = None
        self.port: Optional[int] = None
        self.starts = 0
        self.stderr_paths: List[str] = []
        self.exit_codes: List[int] = []
        self._stdout_lines: List[str] = []

    # -- lifecycle ---------------------------------------------------------------------------

    def args(self) -> List[str]:
        port = self.port if self.port is not None else self.requested_port
        a = [server_bin(), "--listen", f"{HOST}:{port}"]
        for t in self.topics:
            a += ["--topic", t]
        a += ["--heartbeat-interval-ms", str(self.heartbeat_ms)]
        if self.data_dir is not None:
            a += ["--data", self.data_dir]
        if self.session_timeout_ms is not None:
            a += ["--session-timeout-ms", str(self.session_timeout_ms)]
        if self.max_frame_bytes is not None:
            a += ["--max-frame-bytes", str(self.max_frame_bytes)]
        if self.idle_timeout_ms is not None:
            a += ["--idle-timeout-ms", str(self.idle_timeout_ms)]
        return a + self.extra_args

    def start(self, timeout: float = 20.0) -> "KwireServer":
        assert self.proc is None, "already running"
        self.starts += 1
        path = os.path.join(self.workdir, f"{self.name}.{self.starts}.stderr")
        self.stderr_paths.append(path)
        env = dict(os.environ)
        env["RUST_LOG"] = self.rust_log
        env.setdefault("RUST_BACKTRACE", "1")
        args = self.args()
        with open(path, "wb") as err:
            err.write(("$ " + " ".join(args) + "\n").encode())
            err.flush()
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=err, env=env)
        first = threading.Event()
        line_holder: List[str] = []

        def drain(stream, proc=self.proc):
            for raw in iter(stream.readline, b""):
                text = raw.decode(errors="replace").rstrip("\n")
                self._stdout_lines.append(text)
                if not first.is_set():
                    line_holder.append(text)
                    first.set()
            first.set()  # EOF: the process is gone

        threading.Thread(target=drain, args=(self.proc.stdout,), daemon=True).start()
        if not first.wait(timeout):
            self.kill()
            raise AssertionError(f"kwire-server printed nothing on stdout within {timeout}s\n{self.stderr_tail()}")
        if not line_holder:
            code = self.proc.wait(5)
            self.proc = None
            raise AssertionError(f"kwire-server exited ({code}) before listening\n{self.stderr_tail()}")
        line = line_holder[0]
        prefix = f"kwire-server listening on {HOST}:"
        if not line.startswith(prefix):
            self.kill()
            raise AssertionError(f"unexpected first stdout line {line!r} (want {prefix!r}PORT)")
        port = int(line[len(prefix):].strip())
        if self.port is not None:
            assert port == self.port, f"restarted on port {port}, asked for {self.port}"
        if self.requested_port:
            assert port == self.requested_port, f"listening on {port}, asked for {self.requested_port}"
        self.port = port
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def bootstrap(self) -> str:
        return f"{HOST}:{self.port}"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> int:
        """Signal the server and wait for it; returns its exit code (negative: killed by signal)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError(f"kwire-server ignored signal {sig} for {timeout}s")
        self.exit_codes.append(code)
        self.proc = None
        return code

    def kill(self) -> None:
        """SIGKILL (no chance to flush anything)."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            code = self.proc.wait(10)
            self.exit_codes.append(code)
            self.proc = None

    def restart(self, sig: int = signal.SIGKILL) -> "KwireServer":
        if sig == signal.SIGKILL:
            self.kill()
        else:
            self.stop(sig)
        return self.start()

    # -- observation -------------------------------------------------------------------------

    def status_kib(self, key: str) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        raise KeyError(key)

    def vm_hwm_kib(self) -> int:
        return self.status_kib("VmHWM")

    def vm_rss_kib(self) -> int:
        return self.status_kib("VmRSS")

    def stderr_tail(self, max_bytes: int = 8000) -> str:
        out = []
        for p in self.stderr_paths[-2:]:
            try:
                with open(p, "rb") as f:
                    f.seek(0, os.SEEK_END)
                    size = f.tell()
                    f.seek(max(0, size - max_bytes))
                    out.append(f"--- {p} (last {min(size, max_bytes)} of {size} bytes) ---\n"
                               + f.read().decode(errors="replace"))
            except OSError:
                pass
        return "\n".join(out)

    def stderr_text(self) -> str:
        out = []
        for p in self.stderr_paths:
            with open(p, "rb") as f:
                out.append(f.read().decode(errors="replace"))
        return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Clients
# --------------------------------------------------------------------------------------------


def consumer_config(bootstrap: str, group: str, name: str, **extra) -> dict:
    # group.protocol=consumer; session.timeout.ms, heartbeat.interval.ms, partition.assignment.strategy
    # and group.protocol.type must stay out of the config: with group.protocol=consumer (KIP-848)
    # these are the broker's business, and librdkafka refuses to create the consumer with
    # _INVALID_ARG if any of them is set.
    conf = {
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": "consumer",
        "client.id": name,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "enable.partition.eof": False,
        "reconnect.backoff.ms": 50,
        "reconnect.backoff.max.ms": 500,
        "socket.connection.setup.timeout.ms": 5000,
    }
    conf.update({k.replace("_", "."): v for k, v in extra.items()})
    return conf


class Member:
    """A confluent_kafka.Consumer with a name, its callbacks' history and what it consumed."""

    def __init__(self, bootstrap: str, group: str, name: str, **extra):
        self.name = name
        self.conf = consumer_config(bootstrap, group, name, **extra)
        self.consumer = Consumer(self.conf)
        self.closed = False
        self.events: List[Tuple[float, str, List[TP]]] = []
        self.messages: List[Tuple[str, int, int, bytes]] = []  # topic, partition, offset, value
        self.errors: List[KafkaError] = []
        self.subscribed_at: Optional[float] = None
        self.upto: Dict[TP, int] = {}       # offset after the last record read, per partition
        self.committed: Dict[TP, int] = {}  # what this member's commits were acknowledged with
        self.commit_errors: List[str] = []

    def subscribe(self, topics: List[str]) -> None:
        def cb(kind):
            def f(_consumer, parts):
                self.events.append((time.monotonic(), kind, [(p.topic, p.partition) for p in parts]))
            return f

        self.subscribed_at = time.monotonic()
        self.consumer.subscribe(topics, on_assign=cb("assign"), on_revoke=cb("revoke"), on_lost=cb("lost"))

    def poll(self, timeout: float = 0.01) -> int:
        """One poll; returns the number of records received. A fatal error fails the test."""
        msg = self.consumer.poll(timeout)
        if msg is None:
            return 0
        err = msg.error()
        if err is not None:
            self.errors.append(err)
            if err.code() == KafkaError._FATAL or err.fatal():
                raise AssertionError(f"{self.name}: fatal librdkafka error {err}")
            return 0
        tp = (msg.topic(), msg.partition())
        self.messages.append((tp[0], tp[1], msg.offset(), msg.value()))
        self.upto[tp] = max(self.upto.get(tp, 0), msg.offset() + 1)
        return 1

    def commit_owned(self) -> None:
        """Synchronously commits, for each partition this member owns and has read from, the offset
        after the last record it read, unless already committed. A commit refused during a
        rebalance (stale epoch, partition moved) is recorded and retried on a later call, as an
        application would."""
        owned = self.assignment()
        todo = [TopicPartition(t, p, off) for (t, p), off in self.upto.items()
                if (t, p) in owned and self.committed.get((t, p)) != off]
        if not todo:
            return
        try:
            res = self.consumer.commit(offsets=todo, asynchronous=False)
        except KafkaException as e:
            self.commit_errors.append(str(e))
            return
        for tp in res or []:
            if tp.error is None:
                self.committed[(tp.topic, tp.partition)] = tp.offset
            else:
                self.commit_errors.append(f"{tp.topic}[{tp.partition}]@{tp.offset}: {tp.error}")

    def assignment(self) -> Set[TP]:
        if self.closed:
            return set()
        return {(p.topic, p.partition) for p in self.consumer.assignment()}

    def lost_events(self) -> List[Tuple[float, str, List[TP]]]:
        return [e for e in self.events if e[1] == "lost"]

    def member_id(self) -> str:
        return self.consumer.memberid()

    def close(self) -> float:
        """close(); returns the monotonic time at which it returned."""
        if not self.closed:
            self.consumer.close()
            self.closed = True
        return time.monotonic()


class Group:
    """Members polled round-robin from this one thread, their assignments sampled after every round.

    Assignments only change inside a member's poll(), so the samples taken after a round are a
    consistent snapshot of what every member owned at that moment.
    """

    def __init__(self, poll_timeout: float = 0.01):
        self.members: List[Member] = []
        self.poll_timeout = poll_timeout
        self.samples = 0
        self.overlaps: List[str] = []
        self.history: Dict[str, List[Tuple[float, frozenset]]] = {}
        self.watchers: List[Callable[[Dict[str, Set[TP]]], None]] = []
        self.paused: Set[str] = set()

    def add(self, m: Member) -> Member:
        self.members.append(m)
        self.history[m.name] = []
        return m

    def live(self) -> List[Member]:
        return [m for m in self.members if not m.closed]

    def by_name(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)

    def snapshot(self) -> Dict[str, Set[TP]]:
        return {m.name: m.assignment() for m in self.live()}

    def step(self) -> Dict[str, Set[TP]]:
        for m in self.live():
            if m.name not in self.paused:
                m.poll(self.poll_timeout)
        snap = self.snapshot()
        self.samples += 1
        now = time.monotonic()
        for name, parts in snap.items():
            h = self.history[name]
            if not h or h[-1][1] != parts:
                h.append((now, frozenset(parts)))
        owners: Dict[TP, str] = {}
        for name, parts in snap.items():
            for tp in parts:
                if tp in owners:
                    self.overlaps.append(f"sample {self.samples}: {tp} owned by {owners[tp]} and {name}")
                owners[tp] = name
        for w in self.watchers:
            w(snap)
        return snap

    def commit_round(self) -> None:
        for m in self.live():
            m.commit_owned()

    def distinct_values(self) -> Set[bytes]:
        return {v for m in self.members for (_, _, _, v) in m.messages}

    def run_for(self, seconds: float) -> Dict[str, Set[TP]]:
        end = time.monotonic() + seconds
        snap = self.step()
        while time.monotonic() < end:
            snap = self.step()
        return snap

    def wait_for(self, pred: Callable[[Dict[str, Set[TP]]], bool], timeout: float, what: str) -> float:
        """Steps until pred(snapshot) holds; returns the monotonic time it first held."""
        end = time.monotonic() + timeout
        while True:
            snap = self.step()
            if pred(snap):
                return time.monotonic()
            if time.monotonic() > end:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}; last snapshot "
                                     f"{fmt_snapshot(snap)}; errors "
                                     f"{ {m.name: [str(e) for e in m.errors[-3:]] for m in self.members} }")

    def wait_balanced(self, partitions: Set[TP], timeout: float = 15.0, sizes: Optional[List[int]] = None) -> float:
        return self.wait_for(lambda s: balanced(s, partitions, sizes), timeout,
                             f"a balanced assignment of {len(partitions)} partitions over {len(self.live())} members")

    def close_all(self) -> None:
        for m in self.members:
            try:
                m.close()
            except Exception:  # noqa: BLE001 - teardown must go on
                pass


def balanced(snap: Dict[str, Set[TP]], partitions: Set[TP], sizes: Optional[List[int]] = None) -> bool:
    sets = list(snap.values())
    if not sets:
        return False
    union: Set[TP] = set()
    total = 0
    for s in sets:
        union |= s
        total += len(s)
    if union != partitions or total != len(partitions):
        return False
    lens = sorted(len(s) for s in sets)
    if sizes is not None:
        return lens == sorted(sizes)
    return lens[-1] - lens[0] <= 1


def fmt_snapshot(snap: Dict[str, Set[TP]]) -> str:
    return "{" + ", ".join(f"{k}: {fmt_tps(v)}" for k, v in sorted(snap.items())) + "}"


def fmt_tps(tps: Iterable[TP]) -> str:
    by: Dict[str, List[int]] = {}
    for t, p in tps:
        by.setdefault(t, []).append(p)
    return "{" + " ".join(f"{t}{sorted(ps)}" for t, ps in sorted(by.items())) + "}"


def committed_offsets(m: "Member", topic: str, n: int, timeout: float = 10) -> Dict[TP, int]:
    return {(tp.topic, tp.partition): tp.offset
            for tp in m.consumer.committed([TopicPartition(topic, q) for q in range(n)], timeout=timeout)}


def high_watermarks(m: "Member", topic: str, n: int) -> Dict[TP, int]:
    return {(topic, q): m.consumer.get_watermark_offsets(TopicPartition(topic, q), timeout=5)[1] for q in range(n)}


def partitions(topic: str, n: int) -> Set[TP]:
    return {(topic, p) for p in range(n)}


def producer(bootstrap: str, **extra) -> Producer:
    conf = {"bootstrap.servers": bootstrap, "linger.ms": 5, "client.id": "kwire-test-producer",
            "reconnect.backoff.max.ms": 500}
    conf.update({k.replace("_", "."): v for k, v in extra.items()})
    return Producer(conf)


def produce(p: Producer, topic: str, values: List[Tuple[Optional[bytes], bytes]], timeout: float = 30.0) -> None:
    failures: List[str] = []

    def report(err, msg):
        if err is not None:
            failures.append(f"{msg.key()}: {err}")

    for key, value in values:
        while True:
            try:
                p.produce(topic, value=value, key=key, on_delivery=report)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    left = p.flush(timeout)
    assert left == 0, f"{left} messages not delivered within {timeout}s"
    assert not failures, f"delivery failures: {failures[:5]}"


def admin(bootstrap: str, **extra) -> AdminClient:
    conf = {"bootstrap.servers": bootstrap, "client.id": "kwire-test-admin", "reconnect.backoff.max.ms": 500}
    conf.update(extra)
    return AdminClient(conf)


# --------------------------------------------------------------------------------------------
# A raw Kafka client, for what the Python API does not show (member epochs) and hostile input
# --------------------------------------------------------------------------------------------


class Reader:
    def __init__(self, data: bytes):
        self.b = data
        self.i = 0

    def take(self, n: int) -> bytes:
        if self.i + n > len(self.b):
            raise ValueError(f"short read: need {n} at {self.i}, have {len(self.b) - self.i}")
        out = self.b[self.i:self.i + n]
        self.i += n
        return out

    def i8(self) -> int:
        return struct.unpack(">b", self.take(1))[0]

    def i16(self) -> int:
        return struct.unpack(">h", self.take(2))[0]

    def i32(self) -> int:
        return struct.unpack(">i", self.take(4))[0]

    def i64(self) -> int:
        return struct.unpack(">q", self.take(8))[0]

    def uvarint(self) -> int:
        shift = 0
        out = 0
        while True:
            b = self.take(1)[0]
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7

    def compact_str(self) -> Optional[str]:
        n = self.uvarint()
        if n == 0:
            return None
        return self.take(n - 1).decode()

    def compact_array(self, item: Callable[["Reader"], object]) -> Optional[list]:
        n = self.uvarint()
        if n == 0:
            return None
        return [item(self) for _ in range(n - 1)]

    def uuid(self) -> str:
        return str(uuid.UUID(bytes=self.take(16)))

    def tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def uvarint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def compact_str(s: Optional[str]) -> bytes:
    if s is None:
        return b"\x00"
    b = s.encode()
    return uvarint(len(b) + 1) + b


def request_frame(api_key: int, version: int, corr: int, body: bytes, flexible: bool,
                  client_id: str = "kwire-raw") -> bytes:
    cid = client_id.encode()
    header = struct.pack(">hhih", api_key, version, corr, len(cid)) + cid
    if flexible:
        header += b"\x00"
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError(f"EOF after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def raw_call(port: int, api_key: int, version: int, body: bytes, flexible: bool, timeout: float = 5.0) -> Reader:
    """One request on a fresh connection; returns a reader positioned after the response header."""
    with socket.create_connection((HOST, port), timeout=timeout) as s:
        s.sendall(request_frame(api_key, version, 7, body, flexible))
        size = struct.unpack(">i", recv_exact(s, 4))[0]
        r = Reader(recv_exact(s, size))
    corr = r.i32()
    assert corr == 7, f"correlation id {corr}"
    if flexible and api_key != 18:
        r.tags()
    return r


@dataclass
class DescribedMember:
    member_id: str
    instance_id: Optional[str]
    epoch: int
    client_id: str
    subscribed: List[str]
    regex: Optional[str]
    assignment: frozenset
    target: frozenset


@dataclass
class DescribedGroup:
    error: int
    message: Optional[str]
    group_id: str
    state: str
    group_epoch: int
    assignment_epoch: int
    assignor: str
    members: Dict[str, DescribedMember] = field(default_factory=dict)

    def summary(self) -> str:
        ms = "; ".join(f"{m.client_id}={mid[:6]}.. e{m.epoch} owns {fmt_tps(m.assignment)} target {fmt_tps(m.target)}"
                       for mid, m in sorted(self.members.items(), key=lambda kv: kv[1].client_id))
        return (f"group {self.group_id} state={self.state} epoch={self.group_epoch} "
                f"assignment_epoch={self.assignment_epoch} assignor={self.assignor} [{ms}]")


def _assignment(r: Reader) -> frozenset:
    def tp(r: Reader):
        r.uuid()
        name = r.compact_str()
        parts = r.compact_array(lambda r: r.i32()) or []
        r.tags()
        return [(name, p) for p in parts]

    out = set()
    for lst in r.compact_array(tp) or []:
        out.update(lst)
    r.tags()
    return frozenset(out)


def describe_group_raw(port: int, group: str) -> DescribedGroup:
    """ConsumerGroupDescribe v0 (key 69) on a fresh connection: everything including member epochs."""
    body = uvarint(2) + compact_str(group) + b"\x00" + b"\x00"
    r = raw_call(port, 69, 0, body, flexible=True)
    r.i32()  # throttle

    def member(r: Reader) -> DescribedMember:
        mid = r.compact_str()
        inst = r.compact_str()
        r.compact_str()  # rack
        epoch = r.i32()
        client_id = r.compact_str()
        r.compact_str()  # host
        names = r.compact_array(lambda r: r.compact_str()) or []
        regex = r.compact_str()
        a = _assignment(r)
        t = _assignment(r)
        r.tags()
        return DescribedMember(mid, inst, epoch, client_id, names, regex, a, t)

    def grp(r: Reader) -> DescribedGroup:
        g = DescribedGroup(r.i16(), r.compact_str(), r.compact_str(), r.compact_str(), r.i32(), r.i32(),
                           r.compact_str())
        for m in r.compact_array(member) or []:
            g.members[m.member_id] = m
        r.i32()  # authorized operations
        r.tags()
        return g

    groups = r.compact_array(grp) or []
    assert len(groups) == 1, f"{len(groups)} groups in ConsumerGroupDescribe response"
    return groups[0]


@dataclass
class BatchHeader:
    """The header of one stored record batch (magic 2), as DefaultRecordBatch lays it out."""
    base_offset: int
    length: int
    leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    record_count: int

    @property
    def compression(self) -> str:
        return ("none", "gzip", "snappy", "lz4", "zstd")[self.attributes & 7]


# The fixed part of a v2 batch header after baseOffset and batchLength (49 bytes).
_BATCH_HEADER = struct.Struct(">ibIhiqqqhii")


def fetch_batches_raw(port: int, topic: str, partition: int, timeout: float = 10.0
                      ) -> Tuple[int, List[BatchHeader]]:
    """Every record batch of a partition, read with raw Fetch v11 requests (by topic name, no
    session) from offset 0 up to the high watermark; returns (high watermark, batch headers).
    Checks that each batch starts where the previous one ended."""
    batches: List[BatchHeader] = []
    offset = 0
    end = time.monotonic() + timeout
    while True:
        t = topic.encode()
        body = (struct.pack(">iiiibii", -1, 0, 0, 64 << 20, 0, 0, -1)
                + struct.pack(">ih", 1, len(t)) + t
                + struct.pack(">iiiqqi", 1, partition, -1, offset, -1, 32 << 20)
                + struct.pack(">ih", 0, 0))
        r = raw_call(port, 1, 11, body, flexible=False, timeout=timeout)
        r.i32()  # throttle
        err = r.i16()
        assert err == 0, f"Fetch error {err}"
        r.i32()  # session id
        assert r.i32() == 1
        r.take(r.i16())
        assert r.i32() == 1
        assert r.i32() == partition
        perr = r.i16()
        assert perr == 0, f"Fetch {topic}[{partition}]@{offset}: error {perr}"
        hw = r.i64()
        r.i64()  # last stable offset
        r.i64()  # log start offset
        for _ in range(max(r.i32(), 0)):
            r.i64()
            r.i64()
        r.i32()  # preferred read replica
        n = r.i32()
        data = r.take(n) if n > 0 else b""
        pos = 0
        while pos + 12 <= len(data):
            base_offset, length = struct.unpack_from(">qi", data, pos)
            if pos + 12 + length > len(data):
                break  # a partial batch at the end of the response
            h = BatchHeader(base_offset, length, *_BATCH_HEADER.unpack_from(data, pos + 12))
            assert h.base_offset == offset, f"batch at {h.base_offset}, expected {offset}: {h}"
            batches.append(h)
            offset = h.base_offset + h.last_offset_delta + 1
            pos += 12 + length
        if offset >= hw:
            return hw, batches
        assert time.monotonic() < end, f"{topic}[{partition}]: read up to {offset} of {hw} in {timeout}s"


def api_versions_raw(port: int) -> Dict[int, Tuple[int, int]]:
    """ApiVersions v3 (flexible request, response header v0)."""
    body = compact_str("kwire-raw") + compact_str("0.1") + b"\x00"
    r = raw_call(port, 18, 3, body, flexible=True)
    err = r.i16()
    assert err == 0, f"ApiVersions error {err}"

    def key(r: Reader):
        k, lo, hi = r.i16(), r.i16(), r.i16()
        r.tags()
        return k, (lo, hi)

    return dict(r.compact_array(key) or [])


# --------------------------------------------------------------------------------------------
# Waiting for a socket to be answered or closed, while the consumers keep polling
# --------------------------------------------------------------------------------------------


def outcome(sock: socket.socket) -> Optional[str]:
    """Non-blocking look at a socket: 'eof', 'reset', 'answer:N' or None (nothing yet)."""
    try:
        data = sock.recv(65536, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return None
    except ConnectionResetError:
        return "reset"
    except OSError as e:  # EPIPE and friends
        return f"error:{e.errno}"
    if not data:
        return "eof"
    return f"answer:{len(data)}"


def wait_outcomes(socks: List[socket.socket], timeout: float, tick: Callable[[], object]) -> List[Optional[str]]:
    """Waits until every socket has an outcome or the timeout passes, calling tick() in between."""
    results: List[Optional[str]] = [None] * len(socks)
    end = time.monotonic() + timeout
    while True:
        for i, s in enumerate(socks):
            if results[i] is None:
                results[i] = outcome(s)
        if all(r is not None for r in results) or time.monotonic() > end:
            return results
        tick()


def connect(port: int) -> socket.socket:
    s = socket.create_connection((HOST, port), timeout=5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    return s
