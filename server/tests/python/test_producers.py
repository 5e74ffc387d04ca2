"""Producers with their default settings (idempotence on) write to topics that did not exist, and
consumers read back exactly what they sent.

- librdkafka 2.16 (confluent-kafka 2.16.1): `enable.idempotence=true`, each `compression.type`;
  read back with a librdkafka consumer.
- kafka-python 3.0.0: its defaults (idempotence on since KIP-679, acks=all), without compression
  and with each codec; read back with kafka-python's consumer. Its send() takes no null header
  value and no message with both key and value null, so its messages have none (its consumer
  reads null header values: the librdkafka tests' batches prove the server keeps them).

Every message set has null keys, null values, empty keys and values, duplicate header keys, null
and empty header values, binary and non-ASCII keys, and producer timestamps out of order. The
consumer's records must equal what was sent, field by field, at the offsets the delivery reports
gave, and the offsets of each partition must run 0..n-1 in the order sent (nothing lost, nothing
stored twice). Then the stored batches are read with raw Fetch requests and their headers checked:
a producer id and epoch from InitProducerId, base sequences that continue each other from 0, and
the codec asked for.

One kwire-server serves the whole file, started with no topic and `--default-partitions 3`: every
topic here is created, with three partitions, by the first Metadata request that names it (Kafka's
auto.create.topics.enable=true).
"""

from __future__ import annotations

import random
import time
from typing import Dict, List, Optional, Tuple

import pytest

import kwire_harness as kh

# (key, value, headers, timestamp ms) as the producer was given them.
Header = Tuple[str, Optional[bytes]]
Sent = Tuple[Optional[bytes], Optional[bytes], List[Header], int]
# (partition, offset, key, value, headers, timestamp ms) as a consumer saw them.
Seen = Tuple[int, int, Optional[bytes], Optional[bytes], List[Header], int]

# kafka-python 3.0.0 loads its protocol schemas with importlib.resources' deprecated read_text.
pytestmark = pytest.mark.filterwarnings("ignore:(read|open)_text is deprecated:DeprecationWarning")

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
COUNT = 240
# Partitions of the auto-created topics (the server's --default-partitions): several, so that
# producer state is kept per partition and the partitioners spread the messages.
PARTITIONS = 3
DEADLINE_S = 30.0


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = kh.KwireServer(str(tmp_path_factory.mktemp("producers")), [], name="producers",
                         extra_args=["--default-partitions", str(PARTITIONS)]).start()
    yield srv
    code = srv.stop()
    assert code == 0, f"kwire-server exited {code} on SIGTERM\n{srv.stderr_tail()}"


@pytest.fixture(autouse=True)
def server_log_on_failure(request, server):
    yield
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        print(f"\n===== kwire-server stderr: {server.stderr_paths} =====\n{server.stderr_tail()}")


def messages(seed: int, count: int = COUNT) -> List[Sent]:
    """`count` messages cycling through eight shapes; most values are compressible, so that every
    batch is worth compressing (librdkafka sends a batch uncompressed when compression does not
    shrink it)."""
    rnd = random.Random(seed)
    base = int(time.time() * 1000) - 3_600_000
    out: List[Sent] = []
    for i in range(count):
        # Not monotonic: a record may be older than the one before it (negative timestamp delta).
        ts = base + 17 * i - (i % 5) * 1000
        shape = i % 8
        if shape == 0:
            m = (None, f"null key {i}".encode(), [("dup", b"1"), ("dup", b"2"), ("dup", b"1")], ts)
        elif shape == 1:
            m = (f"tombstone-{i}".encode(), None, [("null-value", None)], ts)
        elif shape == 2:
            m = (b"", b"", [], ts)
        elif shape == 3:
            m = (None, None, [("a", b""), ("a", None), ("b", b"x"), ("a", b"third")], ts)
        elif shape == 4:
            m = (bytes(range(256)), (f"{i:06d}" + "compressible " * 150).encode(), [], ts)
        elif shape == 5:
            m = (f"ключ-{i}".encode(), rnd.randbytes(64) + b"\x00" * 512, [("ü-ß", b"\x00\xff")], ts)
        elif shape == 6:
            m = (b"k", b"v", [(f"h{j}", str(j).encode() * j) for j in range(6)], ts)
        else:
            m = (None, ('{"i": %d, "text": "%s"}' % (i, "abc" * 40)).encode(), [("", b"empty key")], ts)
        out.append(m)
    return out


def kafka_python_safe(sent: List[Sent]) -> List[Sent]:
    """kafka-python's send() refuses a header value of None and a message whose key and value are
    both None (limits of its API, not of the wire): those become an empty header value and the
    key b"both-null"."""
    out: List[Sent] = []
    for k, v, h, ts in sent:
        if k is None and v is None:
            k = b"both-null"
        out.append((k, v, [(hk, b"" if hv is None else hv) for hk, hv in h], ts))
    return out


def expected_records(sent: List[Sent], delivered: Dict[int, Tuple[int, int]]) -> List[Seen]:
    """What a consumer must see: every sent message at the (partition, offset) its delivery report
    gave, in offset order."""
    assert len(delivered) == len(sent), f"{len(delivered)} of {len(sent)} delivery reports"
    rows = [(delivered[i][0], delivered[i][1], k, v, h, ts) for i, (k, v, h, ts) in enumerate(sent)]
    return sorted(rows, key=lambda r: (r[0], r[1]))


def check_offsets_in_send_order(sent: List[Sent], delivered: Dict[int, Tuple[int, int]]) -> Dict[int, int]:
    """Per partition the offsets run 0..n-1 in the order the messages were sent; returns the
    count per partition."""
    per: Dict[int, List[int]] = {}
    for i in range(len(sent)):
        p, off = delivered[i]
        per.setdefault(p, []).append(off)
    for p, offs in per.items():
        assert offs == list(range(len(offs))), f"partition {p}: offsets in send order {offs[:20]}..."
    return {p: len(offs) for p, offs in per.items()}


def check_stored_batches(port: int, topic: str, counts: Dict[int, int], codec: str) -> str:
    """The stored batches of every partition that got messages: idempotent (one producer id,
    epoch >= 0, base sequences 0, n, n+m, ... matching the offsets), none transactional, and
    compressed with `codec` (at least one; the others uncompressed). Returns a one-line summary."""
    n_batches = 0
    compressed = 0
    pids = set()
    for p, n in sorted(counts.items()):
        hw, batches = kh.fetch_batches_raw(port, topic, p)
        assert hw == n, f"{topic}[{p}]: high watermark {hw}, {n} messages delivered (stored twice or lost)"
        assert batches, f"{topic}[{p}]: no batch"
        for b in batches:
            assert b.magic == 2, b
            assert b.producer_id >= 0 and b.producer_epoch >= 0, f"not an idempotent batch: {b}"
            assert b.base_sequence == b.base_offset, f"sequence {b.base_sequence} at offset {b.base_offset}: {b}"
            assert b.record_count == b.last_offset_delta + 1, b
            # librdkafka and kafka-python send a batch uncompressed when compression does not shrink it.
            assert b.compression in (codec, "none"), f"{topic}[{p}]: a {b.compression} batch, asked for {codec}: {b}"
            assert not b.attributes & 0x30, f"transactional or control batch: {b}"
            pids.add((b.producer_id, b.producer_epoch))
            compressed += b.compression == codec
        n_batches += len(batches)
    assert len(pids) == 1, f"{topic}: more than one producer id/epoch: {pids}"
    assert compressed > 0, f"{topic}: no {codec} batch among {n_batches}"
    return (f"{sum(counts.values())} records in {n_batches} batches ({compressed} {codec}) over "
            f"{len(counts)} partitions, producer id/epoch {pids.pop()}")


# --------------------------------------------------------------------------------------------
# librdkafka
# --------------------------------------------------------------------------------------------


def rdkafka_produce(bootstrap: str, topic: str, sent: List[Sent], conf: dict) -> Dict[int, Tuple[int, int]]:
    from confluent_kafka import Producer

    delivered: Dict[int, Tuple[int, int]] = {}
    failures: List[str] = []
    errors: List[str] = []
    p = Producer({"bootstrap.servers": bootstrap, "client.id": "kwire-test-producer", "linger.ms": 5,
                  "reconnect.backoff.max.ms": 500, "error_cb": lambda e: errors.append(str(e)), **conf})

    def report(i):
        def cb(err, msg):
            if err is not None:
                failures.append(f"message {i}: {err}")
            else:
                delivered[i] = (msg.partition(), msg.offset())
        return cb

    for i, (k, v, h, ts) in enumerate(sent):
        while True:
            try:
                p.produce(topic, value=v, key=k, headers=h or None, timestamp=ts, on_delivery=report(i))
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    try:
        left = p.flush(DEADLINE_S)
    except Exception as e:  # noqa: BLE001 - a fatal error surfaces here (as a SystemError in 2.16.1)
        raise AssertionError(f"flush failed ({e!r}); librdkafka errors: {errors} (its log is in the captured "
                             "stderr)") from e
    assert not failures, f"delivery failures: {failures[:5]}; librdkafka errors: {errors}"
    assert left == 0, f"{left} messages not delivered within {DEADLINE_S}s; librdkafka errors: {errors}"
    return delivered


def rdkafka_consume(bootstrap: str, topic: str, want: int) -> List[Seen]:
    from confluent_kafka import OFFSET_BEGINNING, TIMESTAMP_CREATE_TIME, Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "kwire-test-readback", "client.id": "kwire-readback",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "reconnect.backoff.max.ms": 500})
    try:
        md = c.list_topics(topic, timeout=10)
        parts = sorted(md.topics[topic].partitions)
        assert parts == list(range(PARTITIONS)), f"{topic}: partitions {parts}"
        c.assign([TopicPartition(topic, q, OFFSET_BEGINNING) for q in parts])
        seen: List[Seen] = []
        end = time.monotonic() + DEADLINE_S
        while len(seen) < want:
            assert time.monotonic() < end, f"read {len(seen)} of {want} in {DEADLINE_S}s"
            msg = c.poll(0.2)
            if msg is None:
                continue
            assert msg.error() is None, f"consumer error {msg.error()}"
            ts_type, ts = msg.timestamp()
            assert ts_type == TIMESTAMP_CREATE_TIME, f"timestamp type {ts_type} at {msg.offset()}"
            seen.append((msg.partition(), msg.offset(), msg.key(), msg.value(), list(msg.headers() or []), ts))
        return sorted(seen, key=lambda r: (r[0], r[1]))
    finally:
        c.close()


@pytest.mark.parametrize("codec", CODECS)
def test_librdkafka_idempotent_producer_to_a_new_topic(server, codec):
    topic = f"rdkafka-idempotent-{codec}"
    sent = messages(seed=CODECS.index(codec))
    t0 = time.monotonic()
    delivered = rdkafka_produce(server.bootstrap, topic, sent,
                                # Small batches: several per partition, pipelined (up to 5 in flight).
                                {"enable.idempotence": True, "compression.type": codec, "batch.num.messages": 40})
    counts = check_offsets_in_send_order(sent, delivered)
    seen = rdkafka_consume(server.bootstrap, topic, len(sent))
    assert seen == expected_records(sent, delivered)
    summary = check_stored_batches(server.port, topic, counts, codec)
    kh.metric(f"librdkafka idempotent producer, {codec}: {summary}, read back exactly "
              f"({time.monotonic() - t0:.2f} s)")


# --------------------------------------------------------------------------------------------
# kafka-python
# --------------------------------------------------------------------------------------------


def kafka_python_produce(bootstrap: str, topic: str, sent: List[Sent], **conf) -> Dict[int, Tuple[int, int]]:
    from kafka import KafkaProducer

    # max_block_ms (default 60 s) bounds how long send() waits for the topic's metadata, so that a
    # server that does not create the topic fails the test sooner; it changes nothing that is sent.
    p = KafkaProducer(bootstrap_servers=bootstrap, client_id="kwire-kafka-python", max_block_ms=10_000, **conf)
    try:
        # Defaults: idempotence stays on only if the producer found the broker able to do it.
        assert p.config["enable_idempotence"] is True, "kafka-python turned idempotence off"
        assert p.config["acks"] == -1, p.config["acks"]
        futures = [p.send(topic, key=k, value=v, headers=h, timestamp_ms=ts) for (k, v, h, ts) in sent]
        p.flush(timeout=DEADLINE_S)
        delivered = {}
        for i, f in enumerate(futures):
            md = f.get(timeout=DEADLINE_S)
            delivered[i] = (md.partition, md.offset)
        return delivered
    finally:
        p.close(timeout=10)


def kafka_python_consume(bootstrap: str, topic: str, want: int) -> List[Seen]:
    from kafka import KafkaConsumer, TopicPartition

    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, client_id="kwire-kafka-python-readback",
                      enable_auto_commit=False, auto_offset_reset="earliest")
    try:
        parts = None
        end = time.monotonic() + DEADLINE_S
        while not parts:
            assert time.monotonic() < end, f"no partitions of {topic} in {DEADLINE_S}s"
            parts = c.partitions_for_topic(topic)
        assert sorted(parts) == list(range(PARTITIONS)), f"{topic}: partitions {parts}"
        tps = [TopicPartition(topic, q) for q in sorted(parts)]
        c.assign(tps)
        c.seek_to_beginning(*tps)
        seen: List[Seen] = []
        while len(seen) < want:
            assert time.monotonic() < end, f"read {len(seen)} of {want} in {DEADLINE_S}s"
            for recs in c.poll(timeout_ms=200).values():
                for r in recs:
                    assert r.timestamp_type == 0, f"timestamp type {r.timestamp_type} at {r.offset}"
                    seen.append((r.partition, r.offset, r.key, r.value, list(r.headers), r.timestamp))
        return sorted(seen, key=lambda r: (r[0], r[1]))
    finally:
        c.close()


@pytest.mark.parametrize("codec", CODECS)
def test_kafka_python_default_producer_to_a_new_topic(server, codec):
    topic = f"kafka-python-default-{codec}"
    sent = kafka_python_safe(messages(seed=10 + CODECS.index(codec)))
    t0 = time.monotonic()
    conf = {} if codec == "none" else {"compression_type": codec}
    delivered = kafka_python_produce(server.bootstrap, topic, sent, **conf)
    counts = check_offsets_in_send_order(sent, delivered)
    seen = kafka_python_consume(server.bootstrap, topic, len(sent))
    assert seen == expected_records(sent, delivered)
    summary = check_stored_batches(server.port, topic, counts, codec)
    kh.metric(f"kafka-python default producer, {codec}: {summary}, read back exactly "
              f"({time.monotonic() - t0:.2f} s)")
