"""KIP-848 consumer groups against kwire-server, driven by real librdkafka 2.16 consumers.

Tests 1-7 of the issue, the durability test lives in test_durability.py and hostile input in
test_hostile.py. Every wait has a deadline; the heartbeat interval H comes from conftest.py.
"""

from __future__ import annotations

import logging
import re
import time

from confluent_kafka import ConsumerGroupState, ConsumerGroupType
from confluent_kafka.admin import NewTopic

from conftest import HEARTBEAT_MS
from kwire_harness import (Group, Member, admin, balanced, committed_offsets, describe_group_raw, fmt_snapshot,
                           fmt_tps, high_watermarks, metric, partitions, produce, producer)

H = HEARTBEAT_MS / 1000.0
P6 = partitions("t6", 6)


def three_balanced(servers, clients, group: str):
    srv = servers.start(["t6:6"])
    g = Group(poll_timeout=0.01)
    clients["groups"].append(g)
    t0 = time.monotonic()
    for i in range(3):
        g.add(Member(srv.bootstrap, group, f"{group}-c{i}")).subscribe(["t6"])
    t_balanced = g.wait_balanced(P6, timeout=20, sizes=[2, 2, 2])
    return srv, g, t_balanced - t0


# 1 ------------------------------------------------------------------------------------------
def test_three_consumers_split_six_partitions(servers, clients):
    srv, g, took = three_balanced(servers, clients, "g1")
    metric(f"test 1: 3 consumers x 6 partitions balanced {took:.2f} s after subscribe (H={HEARTBEAT_MS} ms, "
           f"{took / H:.1f} H); {g.samples} samples")
    final = g.snapshot()
    # It stays that way: nothing moves for 4 more heartbeat intervals.
    g.run_for(4 * H)
    assert g.snapshot() == final, f"assignment moved after balancing: {fmt_snapshot(final)} -> {fmt_snapshot(g.snapshot())}"
    assert all(len(s) == 2 for s in final.values()), fmt_snapshot(final)
    assert set().union(*final.values()) == P6
    assert not g.overlaps, f"a partition had two owners at once: {g.overlaps[:5]}"
    for m in g.members:
        assert not m.lost_events(), f"{m.name} lost partitions: {m.lost_events()}"


# 2 ------------------------------------------------------------------------------------------
def test_close_one_of_three_rebalances_within_three_intervals(servers, clients):
    srv, g, _ = three_balanced(servers, clients, "g2")
    leaver = g.members[0]
    t_closed = leaver.close()
    t_done = g.wait_balanced(P6, timeout=10, sizes=[3, 3])
    took = t_done - t_closed
    sample_round = 2 * g.poll_timeout + 0.03  # how late a round of polls can notice it
    metric(f"test 2: close 1 of 3 -> the other two hold 3 each {took * 1000:.0f} ms after close() returned "
           f"({took / H:.2f} H; bound 3 H = {3 * HEARTBEAT_MS} ms)")
    assert took <= 3 * H + sample_round, (
        f"the two remaining consumers held 3 partitions each {took * 1000:.0f} ms after close(), more than "
        f"3 heartbeat intervals ({3 * HEARTBEAT_MS} ms) plus one sampling round")
    assert not g.overlaps, f"a partition had two owners at once: {g.overlaps[:5]}"


# 3 ------------------------------------------------------------------------------------------
def test_thousand_messages_across_a_rebalance_and_committed_offsets_survive_restart(servers, clients, tmp_path):
    data = tmp_path / "data3"
    data.mkdir()
    srv = servers.start(["t6:6"], data_dir=str(data))
    g = Group(poll_timeout=0.01)
    clients["groups"].append(g)
    for i in range(2):
        g.add(Member(srv.bootstrap, "g3", f"g3-c{i}")).subscribe(["t6"])
    g.wait_balanced(P6, timeout=20, sizes=[3, 3])

    p = producer(srv.bootstrap)
    values = [(str(i).encode(), f"m{i}".encode()) for i in range(1000)]
    want = {v for _, v in values}
    sent = 0

    def send(n):
        nonlocal sent
        produce(p, "t6", values[sent:sent + n])
        sent += n

    def consume_round():
        g.step()
        g.commit_round()  # synchronous commits of what each member read from what it owns

    send(300)
    end = time.monotonic() + 20
    while len(g.distinct_values()) < 200:
        assert time.monotonic() < end, f"only {len(g.distinct_values())} of the first 300 messages consumed in 20 s"
        consume_round()
    phases = [("before join", len(g.distinct_values()))]

    # A third consumer joins mid-way; messages keep coming, 50 at a time, until it is balanced.
    g.add(Member(srv.bootstrap, "g3", "g3-c2")).subscribe(["t6"])
    t_join = time.monotonic()
    end = t_join + 20
    while not balanced(g.snapshot(), P6, [2, 2, 2]):
        assert time.monotonic() < end, f"no 2/2/2 balance 20 s after the third member joined: {fmt_snapshot(g.snapshot())}"
        if sent < 600:
            send(50)
        consume_round()
    join_took = time.monotonic() - t_join
    phases.append(("join rebalance", len(g.distinct_values())))
    send(600 - sent)

    # Then the first consumer leaves mid-way, again while messages keep coming.
    g.members[0].close()
    t_leave = time.monotonic()
    end = t_leave + 20
    while not balanced(g.snapshot(), P6, [3, 3]):
        assert time.monotonic() < end, f"no 3/3 balance 20 s after a member left: {fmt_snapshot(g.snapshot())}"
        if sent < 900:
            send(50)
        consume_round()
    leave_took = time.monotonic() - t_leave
    phases.append(("leave rebalance", len(g.distinct_values())))
    send(1000 - sent)

    end = time.monotonic() + 30
    while len(g.distinct_values()) < 1000:
        assert time.monotonic() < end, (
            f"{len(g.distinct_values())} of 1000 distinct messages consumed; "
            f"missing e.g. {sorted(want - g.distinct_values())[:10]}")
        consume_round()
    phases.append(("end", len(g.distinct_values())))
    total = sum(len(m.messages) for m in g.members)
    assert g.distinct_values() == want
    assert not g.overlaps, f"a partition had two owners at once: {g.overlaps[:5]}"

    # Committed == high watermark on every partition, once the owners have committed what they read.
    live = g.live()[0]
    hw = high_watermarks(live, "t6", 6)
    assert sum(hw.values()) == 1000, f"high watermarks {hw} do not add up to 1000"
    end = time.monotonic() + 15
    while True:
        consume_round()
        committed = committed_offsets(live, "t6", 6)
        if committed == hw:
            break
        assert time.monotonic() < end, (f"committed {committed} != high watermarks {hw}; commit errors "
                                        f"{ {m.name: m.commit_errors[-3:] for m in g.members} }")
    errors = sum(len(m.commit_errors) for m in g.members)
    metric(f"test 3: 1000 messages, {total} deliveries ({total - 1000} duplicates); distinct consumed by phase "
           f"{phases}; join balanced in {join_took:.2f} s, leave in {leave_took:.2f} s; {errors} commits refused "
           f"during rebalances; committed {sorted(committed.values())}")
    g.close_all()

    # Restart with the same --data: a fresh consumer of g3 reads the same committed offsets.
    code = srv.stop()
    assert code == 0, f"kwire-server exited {code} on SIGTERM"
    srv.port = None
    srv.start()
    fresh = Member(srv.bootstrap, "g3", "g3-fresh")
    clients["others"].append(fresh)
    got = committed_offsets(fresh, "t6", 6)
    assert got == hw, f"after restart committed offsets are {got}, before {hw}"


# 4 ------------------------------------------------------------------------------------------
def test_regex_subscription_picks_up_a_topic_created_later(servers, clients):
    srv = servers.start(["pat-a:2", "zzz:2"])
    g = Group()
    clients["groups"].append(g)
    m = g.add(Member(srv.bootstrap, "g4", "g4-c0"))
    m.subscribe(["^pat.*"])
    want = partitions("pat-a", 2)
    g.wait_for(lambda s: s["g4-c0"] == want, 20, f"the regex consumer to own {fmt_tps(want)}")

    a = admin(srv.bootstrap)
    futures = a.create_topics([NewTopic("pat-b", 3, 1), NewTopic("other-c", 2, 1)], request_timeout=10)
    for name, f in futures.items():
        f.result(timeout=15)  # raises on a CreateTopics error
    t_created = time.monotonic()
    want |= partitions("pat-b", 3)
    t_got = g.wait_for(lambda s: s["g4-c0"] == want, 20, f"the regex consumer to own {fmt_tps(want)}")
    metric(f"test 4: regex ^pat.* picked up pat-b {t_got - t_created:.2f} s after CreateTopics returned")
    g.run_for(2 * H)
    got = m.assignment()
    assert got == want, f"regex ^pat.* owns {fmt_tps(got)}, want {fmt_tps(want)} (zzz and other-c must not match)"


# 5 ------------------------------------------------------------------------------------------
def test_static_member_restarts_and_gets_its_partitions_back(servers, clients):
    srv = servers.start(["t6:6"], session_timeout_ms=15000)
    g = Group()
    clients["groups"].append(g)
    a = g.add(Member(srv.bootstrap, "g5", "g5-static", group_instance_id="static-a"))
    b = g.add(Member(srv.bootstrap, "g5", "g5-dynamic"))
    a.subscribe(["t6"])
    b.subscribe(["t6"])
    g.wait_balanced(P6, timeout=20, sizes=[3, 3])
    mine = a.assignment()
    b_had = b.assignment()
    violations = []
    g.watchers.append(lambda s: violations.append(fmt_snapshot(s)) if s.get("g5-dynamic", set()) & mine else None)

    before = describe_group_raw(srv.port, "g5")
    t_closed = a.close()  # librdkafka sends the leave with epoch -2 for a static member
    g.run_for(4 * H)       # longer than a rebalance would take: nothing may move to b
    during = describe_group_raw(srv.port, "g5")
    a2 = g.add(Member(srv.bootstrap, "g5", "g5-static2", group_instance_id="static-a"))
    a2.subscribe(["t6"])
    t_back = g.wait_for(lambda s: s["g5-static2"] == mine and s["g5-dynamic"] == b_had, 15,
                        f"the restarted static member to own {fmt_tps(mine)} again")
    g.run_for(2 * H)
    after = describe_group_raw(srv.port, "g5")
    metric(f"test 5: static member back with {fmt_tps(mine)} {t_back - t_closed:.2f} s after close "
           f"(restart after {4 * H:.2f} s); epochs before/during/after: "
           f"{sorted(m.epoch for m in before.members.values())} / {sorted(m.epoch for m in during.members.values())}"
           f" / {sorted(m.epoch for m in after.members.values())}")
    assert not violations, f"the dynamic member got a partition of the absent static member: {violations[:3]}"
    assert b.assignment() == b_had and a2.assignment() == mine
    st = [m for m in during.members.values() if m.instance_id == "static-a"]
    assert st and st[0].epoch == -2, f"while away, the static member should be held at epoch -2: {during.summary()}"
    assert len(after.members) == 2, f"the old static member should be replaced, not kept: {after.summary()}"
    assert not g.overlaps, g.overlaps[:5]


# 6 ------------------------------------------------------------------------------------------
def range_layout(desc, topic: str, n: int) -> dict:
    """Kafka's range assignor for one topic: dynamic members sorted by member id, each a contiguous run."""
    ids = sorted(desc.members)
    per, extra = divmod(n, len(ids))
    out, start = {}, 0
    for i, mid in enumerate(ids):
        k = per + (1 if i < extra else 0)
        out[mid] = frozenset((topic, q) for q in range(start, start + k))
        start += k
    return out


def admin_describe(srv, group):
    a = admin(srv.bootstrap)
    return a.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=15)


def test_preferred_server_assignor(servers, clients):
    srv = servers.start(["t6:6"])
    g = Group()
    clients["groups"].append(g)
    g.add(Member(srv.bootstrap, "g6", "g6-uniform", group_remote_assignor="uniform")).subscribe(["t6"])
    g.add(Member(srv.bootstrap, "g6", "g6-range", group_remote_assignor="range")).subscribe(["t6"])
    g.wait_balanced(P6, timeout=20, sizes=[3, 3])
    g.run_for(2 * H)
    one_each = admin_describe(srv, "g6").partition_assignor
    raw1 = describe_group_raw(srv.port, "g6")

    # A second member asking for range: range is now what most members ask for.
    g.add(Member(srv.bootstrap, "g6", "g6-range2", group_remote_assignor="range")).subscribe(["t6"])
    g.wait_balanced(P6, timeout=20, sizes=[2, 2, 2])
    g.wait_for(lambda s: describe_group_raw(srv.port, "g6").assignor == "range", 10, "assignor range")
    raw2 = describe_group_raw(srv.port, "g6")
    g.wait_for(lambda s: all(m.assignment == m.target for m in describe_group_raw(srv.port, "g6").members.values()),
               10, "every member to reach its target")
    raw2 = describe_group_raw(srv.port, "g6")
    two_range = admin_describe(srv, "g6").partition_assignor
    metric(f"test 6: preferred assignor with uniform+range = {one_each!r} (raw {raw1.assignor!r}), "
           f"with uniform+2x range = {two_range!r} (raw {raw2.assignor!r})")
    assert one_each == "uniform", f"a 1-1 tie must go to the first configured assignor (uniform), got {one_each!r}"
    assert two_range == "range", f"2 of 3 members ask for range, got {two_range!r}"
    want = range_layout(raw2, "t6", 6)
    got = {mid: m.assignment for mid, m in raw2.members.items()}
    assert got == want, f"assignments do not follow the range layout: {raw2.summary()}"
    # librdkafka's view agrees with the broker's.
    by_client = {m.client_id: m.assignment for m in raw2.members.values()}
    assert by_client == {name: frozenset(s) for name, s in g.snapshot().items()}


# 7 ------------------------------------------------------------------------------------------
class ListHandler(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def test_admin_describe_shows_members_epochs_and_assignments(servers, clients):
    srv, g, _ = three_balanced(servers, clients, "g7")
    g.run_for(2 * H)
    handler = ListHandler()
    log = logging.getLogger("kwire.admin7")
    log.setLevel(logging.DEBUG)
    log.addHandler(handler)
    a = admin(srv.bootstrap, **{"debug": "protocol,admin", "logger": log})
    d = a.describe_consumer_groups(["g7"], request_timeout=10)["g7"].result(timeout=15)
    for _ in range(10):
        a.poll(0.05)  # delivers librdkafka's log lines to the logger
    raw = describe_group_raw(srv.port, "g7")

    sent = sorted({m.group(1) for line in handler.lines for m in re.finditer(r"Sent (\w+)Request", line)})
    uses = [k for k in ("ConsumerGroupDescribe", "DescribeGroups") if k in sent]
    server_keys = sorted(set(re.findall(r"api[_ ]?key[=: ]+(\d+)", srv.stderr_text(), flags=re.I)))
    metric(f"test 7: AdminClient.describe_consumer_groups sends {uses or 'neither?'} "
           f"(librdkafka requests seen: {sent}; api keys in the server's debug log: {server_keys})")
    metric(f"test 7: {raw.summary()}")

    assert d.group_id == "g7"
    assert d.type == ConsumerGroupType.CONSUMER, f"group type {d.type}"
    assert d.state == ConsumerGroupState.STABLE, f"group state {d.state}"
    assert d.partition_assignor == "uniform", d.partition_assignor
    members = {m.member_id: m for m in d.members}
    want_ids = {c.member_id(): c for c in g.members}
    assert set(members) == set(want_ids), f"described {sorted(members)}, consumers are {sorted(want_ids)}"
    for mid, m in members.items():
        c = want_ids[mid]
        assert m.client_id == c.name
        got = {(tp.topic, tp.partition) for tp in m.assignment.topic_partitions}
        assert got == c.assignment(), f"{c.name}: described {fmt_tps(got)}, consumer has {fmt_tps(c.assignment())}"
        if m.target_assignment is not None:
            tgt = {(tp.topic, tp.partition) for tp in m.target_assignment.topic_partitions}
            assert tgt == got, f"{c.name}: stable group but target {fmt_tps(tgt)} != {fmt_tps(got)}"
    # Epochs (not in the Python API): a stable group has every member at the group epoch.
    assert raw.state.lower() == "stable", raw.summary()
    assert raw.group_epoch == raw.assignment_epoch, raw.summary()
    assert all(m.epoch == raw.group_epoch for m in raw.members.values()), raw.summary()
    assert uses, f"librdkafka sent neither ConsumerGroupDescribe nor DescribeGroups: {sent}"
