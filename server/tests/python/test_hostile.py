"""Hostile input on other sockets while a well-behaved consumer keeps its assignment (test 8)."""

from __future__ import annotations

import random
import socket
import struct
import time

from conftest import HEARTBEAT_MS
from kwire_harness import (Group, Member, api_versions_raw, connect, describe_group_raw, fmt_snapshot, metric,
                           partitions, request_frame, wait_outcomes)

H = HEARTBEAT_MS / 1000.0
P6 = partitions("t6", 6)
IDLE_TIMEOUT_MS = 3000
MAX_FRAME = 8 << 20
RSS_LIMIT_KIB = 200 * 1024


def test_hostile_input_does_not_disturb_a_consumer(servers, clients):
    srv = servers.start(["t6:6"], idle_timeout_ms=IDLE_TIMEOUT_MS, max_frame_bytes=MAX_FRAME)
    g = Group()
    clients["groups"].append(g)
    c = g.add(Member(srv.bootstrap, "g8", "g8-steady"))
    c.subscribe(["t6"])
    g.wait_balanced(P6, timeout=20)
    g.run_for(2 * H)
    changes = []
    g.watchers.append(lambda s: changes.append(fmt_snapshot(s)) if s.get("g8-steady") != P6 else None)
    before = describe_group_raw(srv.port, "g8")
    hwm_start = srv.vm_hwm_kib()
    rnd = random.Random(8)

    # Each case: the bytes sent, and whether our side then half-closes.
    cases = {
        "garbage frame (64 random bytes, size 64)": (struct.pack(">i", 64) + rnd.randbytes(64), False),
        "raw garbage (HTTP request)": (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", False),
        "size 0x7fffffff then 1 KiB": (struct.pack(">i", 0x7FFFFFFF) + bytes(1024), False),
        "size -1": (struct.pack(">i", -1) + bytes(16), False),
        "size 0": (struct.pack(">i", 0), False),
        "truncated frame then close": (struct.pack(">i", 100) + bytes(10), True),
        "unknown api key 999": (request_frame(999, 0, 1, b"", flexible=False), False),
        "ApiVersions v99": (request_frame(18, 99, 1, b"", flexible=False), False),
        "Metadata v12 body cut short (valid size)": (request_frame(3, 12, 1, b"\x02", flexible=True), False),
    }
    for i in range(50):  # fifty more 2 GiB prefixes at once
        cases[f"size 0x7fffffff #{i}"] = (struct.pack(">i", 0x7FFFFFFF) + bytes(64), False)
    socks = []
    for name, (payload, half_close) in cases.items():
        s = connect(srv.port)
        try:
            s.sendall(payload)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may already have closed it
        socks.append(s)
    t0 = time.monotonic()
    results = wait_outcomes(socks, 10.0, g.step)
    took = time.monotonic() - t0
    for s in socks:
        s.close()
    report = {name: r for name, r in zip(cases, results)}
    hostile_lines = [f"{n}: {r}" for n, r in report.items() if not n.startswith("size 0x7fffffff #")]
    metric(f"test 8: hostile frames answered/closed within {took:.2f} s: " + "; ".join(hostile_lines))
    unanswered = [n for n, r in report.items() if r is None]
    assert not unanswered, f"neither answered nor closed within 10 s: {unanswered}"

    # A frame below --max-frame-bytes whose body never comes: closed at the idle timeout at the latest.
    slow = connect(srv.port)
    slow.sendall(struct.pack(">i", MAX_FRAME - 16) + bytes(1 << 20))

    # A thousand idle connections, opened in batches while the consumer keeps polling.
    idle = []
    t_open = time.monotonic()
    for batch in range(10):
        for _ in range(100):
            idle.append(connect(srv.port))
        g.step()
    opened = time.monotonic() - t_open
    # The server still serves new connections while holding them.
    assert 68 in api_versions_raw(srv.port), "ApiVersions should list ConsumerGroupHeartbeat"
    t_idle = time.monotonic()
    idle_results = wait_outcomes(idle + [slow], IDLE_TIMEOUT_MS / 1000.0 + 10.0, g.step)
    idle_took = time.monotonic() - t_idle
    closed = sum(1 for r in idle_results[:-1] if r is not None)
    slow_result = idle_results[-1]
    hwm = srv.vm_hwm_kib()
    rss = srv.vm_rss_kib()
    for s in idle + [slow]:
        s.close()
    g.run_for(2 * H)
    after = describe_group_raw(srv.port, "g8")
    metric(f"test 8: 1000 idle connections opened in {opened:.2f} s; {closed} closed by the server within "
           f"{idle_took:.1f} s (idle timeout {IDLE_TIMEOUT_MS} ms); half-sent 8 MiB frame: {slow_result}")
    metric(f"test 8: server VmHWM {hwm / 1024:.1f} MiB (at start of the hostile phase {hwm_start / 1024:.1f} MiB), "
           f"VmRSS now {rss / 1024:.1f} MiB")

    assert not changes, f"the consumer's assignment changed: {changes[:3]}"
    assert c.assignment() == P6
    assert not c.lost_events(), c.lost_events()
    assert set(after.members) == set(before.members), f"{before.summary()}\n{after.summary()}"
    assert [m.epoch for m in after.members.values()] == [m.epoch for m in before.members.values()], (
        f"member epoch changed:\n{before.summary()}\n{after.summary()}")
    assert hwm < RSS_LIMIT_KIB, f"server peak RSS {hwm / 1024:.1f} MiB >= 200 MiB"
    assert closed == 1000, f"only {closed} of 1000 idle connections were closed within the idle timeout + 10 s"
    assert slow_result is not None, "a half-sent frame was held open past the idle timeout + 10 s"
