"""Classic consumer groups (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) against kwire-server, driven by
real clients, and mixed groups where classic and KIP-848 members share one group.

- librdkafka 2.16 (confluent-kafka 2.16.1) with `group.protocol=classic`, the eager `range` assignor and
  `cooperative-sticky` (KIP-429);
- kafka-python 3.0.0 (pure Python, classic only) with its `range` and `cooperative-sticky` assignors;
- a mixed group of librdkafka members, classic (`range`) and `group.protocol=consumer`: the group is
  upgraded to a consumer group by the first KIP-848 member (KIP-848 online migration, policy
  `bidirectional`, Kafka's default) and downgraded back to a classic group when the last KIP-848 member
  leaves. Both are observed with raw ListGroups v5 (the `GroupType` field) and asserted;
- librdkafka's `cooperative-sticky` leader copies the sticky user data into every assignment, so once its
  members have owned partitions the upgrade is refused (Kafka 4.4: "an unsupported custom assignor is in
  use") and the group stays classic.

Every scenario here was also run against a real Kafka 4.4.0 broker (same settings) with the same results.

Each scenario checks what a Kafka 4.4 broker gives: every partition owned by exactly one member and the
members' counts differing by at most one (exact sizes given), a rebalance on every join and leave, no
partition ever owned by two members at once (sampled after every poll round for librdkafka, replayed from
the rebalance callbacks' ledger for kafka-python, whose consumers poll in their own threads), synchronous
commits accepted once the group is stable, and a consumer started later in the same group resuming at the
committed offsets: it reads exactly the messages produced after them, from the committed offset on.

The server runs with `--group-min-session-timeout-ms 500` and `--group-initial-rebalance-delay-ms 0`
(Kafka's defaults, 6000 and 3000 ms, would make every test wait seconds), the clients with session
timeouts of 3 s and heartbeat intervals of 100 ms. Every wait polls for its condition with a deadline.
"""

from __future__ import annotations

import threading
import time
from typing import Dict, List, Optional, Set, Tuple

import pytest

import kwire_harness as kh
from kwire_harness import (TP, Group, Member, balanced, committed_offsets, compact_str, fmt_snapshot, fmt_tps,
                           high_watermarks, metric, partitions, produce, producer, raw_call, uvarint)

# kafka-python 3.0.0 loads its protocol schemas with importlib.resources' deprecated read_text.
pytestmark = pytest.mark.filterwarnings("ignore:(read|open)_text is deprecated:DeprecationWarning")

TOPIC = "t6"
P6 = partitions(TOPIC, 6)
# The classic-group flags of kwire-server (Kafka: group.min.session.timeout.ms,
# group.initial.rebalance.delay.ms).
CLASSIC_ARGS = ["--group-min-session-timeout-ms", "500", "--group-initial-rebalance-delay-ms", "0"]
SESSION_MS = 3000
HEARTBEAT_MS = 100
# The rebalance timeout of a classic member (max.poll.interval.ms): how long a join round may wait for a
# member that does not rejoin.
MAX_POLL_MS = 10000
WAIT_S = 20.0


def classic_server(servers, **kw) -> kh.KwireServer:
    return servers.start([f"{TOPIC}:6"], extra_args=CLASSIC_ARGS + kw.pop("extra_args", []), **kw)


def classic_member(srv, group: str, name: str, strategy: str, **extra) -> Member:
    """A librdkafka consumer speaking the classic group protocol with client-side assignor `strategy`."""
    conf = dict(group_protocol="classic", partition_assignment_strategy=strategy, session_timeout_ms=SESSION_MS,
                heartbeat_interval_ms=HEARTBEAT_MS, max_poll_interval_ms=MAX_POLL_MS)
    conf.update(extra)
    return Member(srv.bootstrap, group, name, **conf)


def values(prefix: str, n: int) -> List[Tuple[bytes, bytes]]:
    return [(f"{prefix}{i}".encode(), f"{prefix}{i}".encode()) for i in range(n)]


# --------------------------------------------------------------------------------------------
# Raw ListGroups v5: the group's type (classic or consumer), which no client API shows reliably
# --------------------------------------------------------------------------------------------


def list_groups_raw(port: int) -> Dict[str, Tuple[str, str, str]]:
    """ListGroups v5 (key 16, flexible) with no filter: group id -> (protocol type, state, group type)."""
    body = uvarint(1) + uvarint(1) + b"\x00"  # empty states filter, empty types filter, no tags
    r = raw_call(port, 16, 5, body, flexible=True)
    r.i32()  # throttle
    err = r.i16()
    assert err == 0, f"ListGroups error {err}"

    def grp(r):
        out = (r.compact_str(), r.compact_str(), r.compact_str(), r.compact_str())
        r.tags()
        return out

    return {g[0]: (g[1], g[2], g[3]) for g in r.compact_array(grp) or []}


def group_type(port: int, group: str) -> Optional[str]:
    g = list_groups_raw(port).get(group)
    return None if g is None else g[2]


def describe_groups_raw(port: int, group: str) -> Tuple[int, str, str, str, List[Tuple[str, str]]]:
    """DescribeGroups v5 (key 15, flexible): (error, state, protocol type, protocol, [(member id, client id)])."""
    body = uvarint(2) + compact_str(group) + b"\x00" + b"\x00"  # one group, no authorized ops, no tags
    r = raw_call(port, 15, 5, body, flexible=True)
    r.i32()  # throttle

    def member(r):
        mid = r.compact_str()
        r.compact_str()  # instance id
        cid = r.compact_str()
        r.compact_str()  # host
        r.take(r.uvarint() - 1)  # metadata (compact bytes)
        r.take(r.uvarint() - 1)  # assignment
        r.tags()
        return mid, cid

    def grp(r):
        err = r.i16()
        r.compact_str()  # group id
        state, ptype, proto = r.compact_str(), r.compact_str(), r.compact_str()
        ms = r.compact_array(member) or []
        r.i32()  # authorized operations
        r.tags()
        return err, state, ptype, proto, ms

    groups = r.compact_array(grp) or []
    assert len(groups) == 1, f"{len(groups)} groups in the DescribeGroups response"
    return groups[0]


# --------------------------------------------------------------------------------------------
# librdkafka, group.protocol=classic
# --------------------------------------------------------------------------------------------


def kept_throughout(g: Group, name: str, since: float, kept: Set[TP]) -> bool:
    """Whether every assignment sample of `name` taken after `since` held all of `kept`."""
    return all(kept <= set(parts) for (t, parts) in g.history[name] if t >= since)


def revoked_all(m: Member, since: float, had: Set[TP]) -> bool:
    """Whether `m`'s revoke callback gave up all of `had` at once after `since` (an eager rebalance)."""
    return any(kind == "revoke" and set(parts) >= had for (t, kind, parts) in m.events if t >= since)


def wait_state(port: int, group: str, state: str, timeout: float = WAIT_S) -> None:
    """Polls DescribeGroups until `group` is in `state` (the last leave may still be on its way)."""
    end = time.monotonic() + timeout
    while True:
        desc = describe_groups_raw(port, group)
        if desc[1] == state:
            return
        assert time.monotonic() < end, f"{group} not {state} after {timeout}s: {desc}"
        time.sleep(0.02)  # pacing the polls of the server


def consume_until(g: Group, pred, what: str, timeout: float = WAIT_S) -> float:
    end = time.monotonic() + timeout
    while True:
        g.step()
        g.commit_round()
        if pred():
            return time.monotonic()
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; {fmt_snapshot(g.snapshot())}; "
                                 f"commit errors { {m.name: m.commit_errors[-3:] for m in g.members} }; "
                                 f"errors { {m.name: [str(e) for e in m.errors[-3:]] for m in g.members} }")


@pytest.mark.parametrize("strategy", ["range", "cooperative-sticky"])
def test_librdkafka_classic_group_join_leave_commit_resume(servers, clients, strategy, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    srv = classic_server(servers, data_dir=str(data))
    grp = f"lc-{strategy}"
    p = producer(srv.bootstrap)
    first = values("a", 300)
    produce(p, TOPIC, first)

    g = Group(poll_timeout=0.01)
    clients["groups"].append(g)
    t0 = time.monotonic()
    for i in range(2):
        g.add(classic_member(srv, grp, f"{grp}-c{i}", strategy)).subscribe([TOPIC])
    g.wait_balanced(P6, timeout=WAIT_S, sizes=[3, 3])
    t_two = time.monotonic()
    desc = describe_groups_raw(srv.port, grp)
    assert desc[0] == 0 and desc[2] == "consumer", f"DescribeGroups: {desc}"
    assert desc[3] == strategy, f"the group should run the {strategy} protocol: {desc}"
    assert sorted(c for _, c in desc[4]) == [f"{grp}-c0", f"{grp}-c1"], desc
    assert group_type(srv.port, grp) == "classic"

    # A third member joins: a rebalance to 2/2/2.
    before = {m.name: m.assignment() for m in g.live()}
    t_join = time.monotonic()
    g.add(classic_member(srv, grp, f"{grp}-c2", strategy)).subscribe([TOPIC])
    t_three = consume_until(g, lambda: balanced(g.snapshot(), P6, [2, 2, 2]), "2/2/2 after the third join")
    after = g.snapshot()
    for name, had in before.items():
        kept = had & after[name]
        if strategy == "cooperative-sticky":
            # KIP-429: the partitions a member keeps are never revoked, and it keeps 2 of its 3.
            assert len(kept) == 2, f"{name} had {fmt_tps(had)}, has {fmt_tps(after[name])}: not sticky"
            assert kept_throughout(g, name, t_join, kept), f"{name} lost {fmt_tps(kept)} during the rebalance"
        else:
            # Eager: every member gives up everything before rejoining.
            m = g.by_name(name)
            assert revoked_all(m, t_join, had), f"{name} never revoked all of {fmt_tps(had)}: {m.events}"

    # Consume everything, committing as we go.
    consume_until(g, lambda: g.distinct_values() == {v for _, v in first}, "all 300 messages")

    # The first member leaves (LeaveGroup from close()): a rebalance to 3/3.
    t_leave = g.members[0].close()
    t_two_again = consume_until(g, lambda: balanced(g.snapshot(), P6, [3, 3]), "3/3 after a leave")
    live = g.live()[0]
    hw = high_watermarks(live, TOPIC, 6)
    assert sum(hw.values()) == 300
    consume_until(g, lambda: committed_offsets(live, TOPIC, 6) == hw, "commits up to the high watermarks")
    assert not g.overlaps, f"a partition had two owners at once: {g.overlaps[:5]}"
    refused = sum(len(m.commit_errors) for m in g.members)
    g.close_all()
    wait_state(srv.port, grp, "Empty")
    assert group_type(srv.port, grp) == "classic"

    # kwire-server restarts from its durable log (--data): the empty classic group comes back with its
    # committed offsets.
    code = srv.stop()
    assert code == 0, f"kwire-server exited {code} on SIGTERM"
    srv.port = None
    srv.start()
    assert list_groups_raw(srv.port).get(grp) == ("consumer", "Empty", "classic"), list_groups_raw(srv.port)
    p = producer(srv.bootstrap)

    # Restart: more messages, then a fresh member of the same group reads exactly those.
    second = values("b", 120)
    produce(p, TOPIC, second)
    g2 = Group(poll_timeout=0.01)
    clients["groups"].append(g2)
    fresh = g2.add(classic_member(srv, grp, f"{grp}-fresh", strategy))
    fresh.subscribe([TOPIC])
    t_fresh = time.monotonic()
    end = t_fresh + WAIT_S
    while len(fresh.messages) < len(second):
        assert time.monotonic() < end, f"the restarted consumer read {len(fresh.messages)} of {len(second)}"
        g2.step()
    g2.run_for(0.3)  # anything re-read would show up now
    got = {v for (_, _, _, v) in fresh.messages}
    assert got == {v for _, v in second}, f"re-read or missed: {sorted(got ^ {v for _, v in second})[:10]}"
    assert len(fresh.messages) == len(second), "duplicates after the restart"
    starts: Dict[TP, int] = {}
    for (t, q, off, _) in fresh.messages:
        starts[(t, q)] = min(starts.get((t, q), off), off)
    for tp, off in starts.items():
        assert off == hw[tp], f"{tp}: the restarted consumer started at {off}, committed {hw[tp]}"
    metric(f"librdkafka classic {strategy}: 2 members balanced {t_two - t0:.2f} s, third join -> 2/2/2 "
           f"{t_three - t_join:.2f} s, leave -> 3/3 {t_two_again - t_leave:.2f} s, {refused} commits refused "
           f"during rebalances, restart resumed at {sorted(hw.values())}")


def test_librdkafka_classic_member_that_stops_polling_leaves_and_comes_back(servers, clients):
    """A member that stops polling for longer than max.poll.interval.ms leaves the group (librdkafka sends
    the LeaveGroup itself, as Kafka's Java client does), the other takes its partitions, and it rejoins
    once it polls again."""
    srv = classic_server(servers)
    grp = "lc-timeout"
    g = Group(poll_timeout=0.01)
    clients["groups"].append(g)
    for i in range(2):
        g.add(classic_member(srv, grp, f"{grp}-c{i}", "range", session_timeout_ms=1000,
                             heartbeat_interval_ms=100, max_poll_interval_ms=2000)).subscribe([TOPIC])
    g.wait_balanced(P6, timeout=WAIT_S, sizes=[3, 3])
    frozen = g.members[1]
    frozen_had = frozen.assignment()
    g.paused.add(frozen.name)
    t_paused = time.monotonic()
    g.wait_for(lambda s: s[g.members[0].name] == P6, WAIT_S, "the polling member to own all 6 partitions")
    took = time.monotonic() - t_paused
    metric(f"librdkafka classic: a member that stopped polling lost {fmt_tps(frozen_had)} after {took:.2f} s "
           f"(max.poll.interval.ms 2000)")
    g.paused.discard(frozen.name)
    g.wait_balanced(P6, timeout=WAIT_S, sizes=[3, 3])  # and it comes back after polling again
    # Once it polls again it learns that it lost its partitions (the group moved on without it).
    gone = [e for e in frozen.events if e[0] >= t_paused and e[1] in ("revoke", "lost") and set(e[2]) >= frozen_had]
    assert gone, f"{frozen.name} never gave up {fmt_tps(frozen_had)}: {frozen.events}"


# --------------------------------------------------------------------------------------------
# kafka-python (classic only), one thread per consumer
# --------------------------------------------------------------------------------------------


class Ledger:
    """What every kafka-python consumer's rebalance listener saw, with monotonic times, in one list.

    A member's revoke callback runs before it sends its JoinGroup, and the new owner's assign callback
    after its SyncGroup answer, which the coordinator only gives after that JoinGroup: replayed in time
    order, the events show a partition with two owners only if the group really gave it to two."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events: List[Tuple[float, str, str, frozenset]] = []

    def add(self, name: str, kind: str, tps) -> None:
        with self.lock:
            self.events.append((time.monotonic(), name, kind, frozenset((tp.topic, tp.partition) for tp in tps)))

    def overlaps(self) -> List[str]:
        with self.lock:
            events = sorted(self.events, key=lambda e: e[0])
        owned: Dict[str, Set[TP]] = {}
        out = []
        for (t, name, kind, tps) in events:
            mine = owned.setdefault(name, set())
            if kind == "assigned":
                for tp in tps:
                    for other, theirs in owned.items():
                        if other != name and tp in theirs:
                            out.append(f"{t:.3f}: {tp} assigned to {name} while {other} owns it")
                mine |= tps
            else:  # revoked, lost, stopped
                mine -= tps if kind != "stopped" else set(mine)
        return out


class KPMember(threading.Thread):
    """A kafka-python KafkaConsumer in its own thread: polls, records what it reads, commits synchronously
    what it has read from the partitions it owns, and publishes its assignment after every poll."""

    def __init__(self, bootstrap: str, group: str, name: str, strategy: str, ledger: Ledger):
        super().__init__(name=name, daemon=True)
        self.bootstrap, self.group, self.strategy, self.ledger = bootstrap, group, strategy, ledger
        self.lock = threading.Lock()
        self.owned: Set[TP] = set()
        self.messages: List[Tuple[str, int, int, bytes]] = []
        self.committed: Dict[TP, int] = {}
        self.commit_errors: List[str] = []
        self.failure: Optional[BaseException] = None
        self.stop_flag = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        try:
            self._run()
        except BaseException as e:  # noqa: BLE001 - reported by the test
            self.failure = e
            self.ready.set()

    def _run(self) -> None:
        from kafka import KafkaConsumer, OffsetAndMetadata
        from kafka import TopicPartition as KTP
        from kafka.consumer.subscription_state import ConsumerRebalanceListener
        from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
        from kafka.coordinator.assignors.range import RangePartitionAssignor

        me = self

        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                me.ledger.add(me.name, "revoked", revoked)

            def on_partitions_assigned(self, assigned):
                me.ledger.add(me.name, "assigned", assigned)

            def on_partitions_lost(self, lost):
                me.ledger.add(me.name, "lost", lost)

        assignor = {"range": RangePartitionAssignor, "cooperative-sticky": CooperativeStickyAssignor}
        c = None
        try:
            c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=self.group, client_id=self.name,
                              auto_offset_reset="earliest", enable_auto_commit=False,
                              session_timeout_ms=SESSION_MS, heartbeat_interval_ms=HEARTBEAT_MS,
                              max_poll_interval_ms=MAX_POLL_MS, request_timeout_ms=5000,
                              retry_backoff_ms=50, reconnect_backoff_max_ms=500,
                              partition_assignment_strategy=[assignor[self.strategy]])
            # The topic's metadata before joining: a kafka-python 3.0 leader that assigns before it has
            # the topic's partitions assigns nothing, and the rejoin its metadata change then starts can
            # finish unseen (need_rejoin() turns False once the leader's assignment snapshot matches
            # the metadata, so join_group_async never consumes the finished join task, never re-enables
            # heartbeats, and the member is expired). kwire answers the first join fast enough to hit it.
            assert c.partitions_for_topic(TOPIC) == set(range(6)), f"{self.name}: no metadata for {TOPIC}"
            c.subscribe([TOPIC], listener=Listener())
            self.ready.set()
            upto: Dict[TP, int] = {}
            while not self.stop_flag.is_set():
                recs = c.poll(timeout_ms=50)
                with self.lock:
                    for tp, rs in recs.items():
                        for r in rs:
                            self.messages.append((tp.topic, tp.partition, r.offset, r.value))
                            upto[(tp.topic, tp.partition)] = r.offset + 1
                    self.owned = {(tp.topic, tp.partition) for tp in c.assignment()}
                todo = {kh_tp: off for kh_tp, off in upto.items()
                        if kh_tp in self.owned and self.committed.get(kh_tp) != off}
                if todo:
                    try:
                        c.commit({KTP(t, q): OffsetAndMetadata(off, "", -1) for (t, q), off in todo.items()},
                                 timeout_ms=3000)
                        with self.lock:
                            self.committed.update(todo)
                    except Exception as e:  # noqa: BLE001 - refused during a rebalance: retried later
                        self.commit_errors.append(repr(e))
        except BaseException as e:  # noqa: BLE001 - reported by the test
            self.failure = e
        finally:
            self.ready.set()
            self.ledger.add(self.name, "stopped", ())
            with self.lock:
                self.owned = set()
            if c is not None:
                try:
                    c.close(autocommit=False, timeout_ms=5000)
                except Exception:  # noqa: BLE001
                    pass

    def assignment(self) -> Set[TP]:
        with self.lock:
            return set(self.owned)

    def stop(self) -> float:
        self.stop_flag.set()
        self.join(15)
        assert not self.is_alive(), f"{self.name} did not stop within 15 s"
        return time.monotonic()


class KPGroup:
    def __init__(self, srv, group: str, strategy: str):
        self.srv, self.group, self.strategy = srv, group, strategy
        self.ledger = Ledger()
        self.members: List[KPMember] = []

    def add(self, name: str) -> KPMember:
        m = KPMember(self.srv.bootstrap, self.group, name, self.strategy, self.ledger)
        self.members.append(m)
        m.start()
        return m

    def live(self) -> List[KPMember]:
        return [m for m in self.members if m.is_alive()]

    def snapshot(self) -> Dict[str, Set[TP]]:
        return {m.name: m.assignment() for m in self.live()}

    def check(self) -> None:
        for m in self.members:
            if m.failure is not None:
                raise AssertionError(f"{m.name} failed: {m.failure!r}")

    def wait_for(self, pred, what: str, timeout: float = WAIT_S) -> float:
        end = time.monotonic() + timeout
        while True:
            self.check()
            if pred():
                return time.monotonic()
            if time.monotonic() > end:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}: {fmt_snapshot(self.snapshot())}"
                                     f"; commit errors { {m.name: m.commit_errors[-3:] for m in self.members} }")
            time.sleep(0.02)  # the consumers run in their own threads; this only paces the check

    def wait_balanced(self, sizes: List[int]) -> float:
        return self.wait_for(lambda: balanced(self.snapshot(), P6, sizes), f"a {sizes} balance")

    def stop_all(self) -> None:
        for m in self.members:
            if m.is_alive():
                m.stop()


@pytest.mark.parametrize("strategy", ["range", "cooperative-sticky"])
def test_kafka_python_group_join_leave_commit_resume(servers, clients, strategy):
    srv = classic_server(servers)
    grp = f"kp-{strategy}"
    p = producer(srv.bootstrap)
    first = values("a", 300)
    produce(p, TOPIC, first)
    g = KPGroup(srv, grp, strategy)
    try:
        t0 = time.monotonic()
        g.add(f"{grp}-c0")
        g.add(f"{grp}-c1")
        t_two = g.wait_balanced([3, 3])
        # A cooperative rebalance may follow the balance the members already hold (kafka-python
        # rejoins once more after revoking): wait for the group to settle before describing it.
        g.wait_for(lambda: describe_groups_raw(srv.port, grp)[1] == "Stable", "a Stable group")
        desc = describe_groups_raw(srv.port, grp)
        assert desc[0] == 0 and desc[1] == "Stable" and desc[2] == "consumer" and desc[3] == strategy, desc
        assert group_type(srv.port, grp) == "classic"

        t_join = time.monotonic()
        g.add(f"{grp}-c2")
        t_three = g.wait_balanced([2, 2, 2])
        g.wait_for(lambda: len({v for m in g.members for (_, _, _, v) in m.messages}) == 300, "all 300 messages")

        t_leave = g.members[0].stop()
        t_two_again = g.wait_balanced([3, 3])
        # Every member commits what it read from what it owns: in the end, everything.
        hw = {(TOPIC, q): 0 for q in range(6)}
        for (_, q, off, _) in (x for m in g.members for x in m.messages):
            hw[(TOPIC, q)] = max(hw[(TOPIC, q)], off + 1)
        assert sum(hw.values()) == 300, hw

        def all_committed():
            # Offsets only grow: the highest acknowledged commit of each partition, by any member.
            done: Dict[TP, int] = {}
            for m in g.members:
                with m.lock:
                    for tp, off in m.committed.items():
                        done[tp] = max(done.get(tp, 0), off)
            return done == hw

        g.wait_for(all_committed, "commits of every partition up to its end")
        overlaps = g.ledger.overlaps()
        assert not overlaps, f"a partition had two owners at once: {overlaps[:5]}"
        refused = sum(len(m.commit_errors) for m in g.members)
        g.stop_all()
        g.check()
        wait_state(srv.port, grp, "Empty")
    finally:
        g.stop_all()

    # The committed offsets as librdkafka sees them (a third opinion), then a restarted kafka-python
    # member of the same group reads exactly the messages produced after them.
    probe = Member(srv.bootstrap, grp, f"{grp}-probe", group_protocol="classic")
    clients["others"].append(probe)
    assert committed_offsets(probe, TOPIC, 6) == hw
    second = values("b", 120)
    produce(p, TOPIC, second)
    g2 = KPGroup(srv, grp, strategy)
    try:
        fresh = g2.add(f"{grp}-fresh")
        g2.wait_for(lambda: len(fresh.messages) >= len(second), "the restarted consumer to read 120 messages")

        def read_upto():
            with fresh.lock:
                out: Dict[TP, int] = {}
                for (t, q, off, _) in fresh.messages:
                    out[(t, q)] = max(out.get((t, q), 0), off + 1)
                return out, dict(fresh.committed)

        g2.wait_for(lambda: read_upto()[0] == read_upto()[1], "the restarted consumer's commits")
        with fresh.lock:
            seen = list(fresh.messages)
    finally:
        g2.stop_all()
    g2.check()
    assert sorted(v for (_, _, _, v) in seen) == sorted(v for _, v in second), "re-read or missed after restart"
    starts: Dict[TP, int] = {}
    for (t, q, off, _) in seen:
        starts[(t, q)] = min(starts.get((t, q), off), off)
    for tp, off in starts.items():
        assert off == hw[tp], f"{tp}: the restarted consumer started at {off}, committed {hw[tp]}"
    metric(f"kafka-python {strategy}: 2 members balanced {t_two - t0:.2f} s, third join -> 2/2/2 "
           f"{t_three - t_join:.2f} s, leave -> 3/3 {t_two_again - t_leave:.2f} s, {refused} commits refused "
           f"during rebalances, restart resumed at {sorted(hw.values())}")


# --------------------------------------------------------------------------------------------
# A mixed group: librdkafka classic members and KIP-848 members together
# --------------------------------------------------------------------------------------------


def test_librdkafka_mixed_group_upgrade_and_downgrade(servers, clients):
    strategy = "range"
    srv = classic_server(servers)
    grp = f"mix-{strategy}"
    p = producer(srv.bootstrap)
    produce(p, TOPIC, values("a", 120))
    g = Group(poll_timeout=0.01)
    clients["groups"].append(g)
    t0 = time.monotonic()
    for i in range(2):
        g.add(classic_member(srv, grp, f"{grp}-classic{i}", strategy)).subscribe([TOPIC])
    g.wait_balanced(P6, timeout=WAIT_S, sizes=[3, 3])
    assert group_type(srv.port, grp) == "classic", list_groups_raw(srv.port)

    # Upgrade: the first KIP-848 member turns the classic group into a consumer group.
    t_up = time.monotonic()
    g.add(Member(srv.bootstrap, grp, f"{grp}-new0")).subscribe([TOPIC])
    g.wait_for(lambda s: group_type(srv.port, grp) == "consumer", WAIT_S, "the group to become a consumer group")
    t_upgraded = consume_until(g, lambda: balanced(g.snapshot(), P6, [2, 2, 2]), "2/2/2 in the mixed group")
    described = kh.describe_group_raw(srv.port, grp)
    assert described.error == 0, described.summary()
    assert sorted(m.client_id for m in described.members.values()) == sorted(m.name for m in g.live()), \
        described.summary()
    # The server's view of who owns what agrees with every client's.
    assert {m.client_id: set(m.assignment) for m in described.members.values()} == g.snapshot(), \
        described.summary()

    # A second KIP-848 member, then every member consumes and commits.
    g.add(Member(srv.bootstrap, grp, f"{grp}-new1")).subscribe([TOPIC])
    consume_until(g, lambda: balanced(g.snapshot(), P6, [2, 2, 1, 1]), "a 2/2/1/1 balance with 4 members")
    consume_until(g, lambda: len(g.distinct_values()) == 120, "all 120 messages in the mixed group")
    live = g.live()[0]
    hw = high_watermarks(live, TOPIC, 6)
    consume_until(g, lambda: committed_offsets(live, TOPIC, 6) == hw, "commits up to the high watermarks")

    # A classic member leaves the mixed group: still a consumer group, still balanced.
    g.by_name(f"{grp}-classic0").close()
    consume_until(g, lambda: balanced(g.snapshot(), P6, [2, 2, 2]), "2/2/2 after a classic member left")
    assert group_type(srv.port, grp) == "consumer"

    # Downgrade: when the last KIP-848 member leaves, the group is classic again, with its classic member.
    g.by_name(f"{grp}-new0").close()
    consume_until(g, lambda: balanced(g.snapshot(), P6, [3, 3]), "3/3 with one KIP-848 member left")
    assert group_type(srv.port, grp) == "consumer"
    t_down = g.by_name(f"{grp}-new1").close()
    g.wait_for(lambda s: group_type(srv.port, grp) == "classic", WAIT_S, "the group to become classic again")
    t_downgraded = consume_until(g, lambda: balanced(g.snapshot(), P6, [6]), "the classic member to own all 6")
    desc = describe_groups_raw(srv.port, grp)
    assert desc[0] == 0 and desc[2] == "consumer" and [c for _, c in desc[4]] == [f"{grp}-classic1"], desc
    # The committed offsets survived both conversions.
    assert committed_offsets(g.by_name(f"{grp}-classic1"), TOPIC, 6) == hw
    assert not g.overlaps, f"a partition had two owners at once: {g.overlaps[:5]}"
    metric(f"mixed librdkafka group ({strategy}): upgraded and 2/2/2 {t_upgraded - t_up:.2f} s after the first "
           f"KIP-848 member subscribed; downgraded and 6 {t_downgraded - t_down:.2f} s after the last one closed "
           f"(whole test {time.monotonic() - t0:.1f} s)")


def test_librdkafka_cooperative_sticky_user_data_refuses_the_upgrade(servers, clients):
    """librdkafka's cooperative-sticky leader copies each member's sticky user data (owned partitions and
    generation, KIP-341) into the member's assignment. Once a member has owned partitions, the classic
    group's assignments carry user data, which a consumer group cannot keep: Kafka 4.4 refuses the upgrade
    (`ConsumerGroup.fromClassicGroup`: GROUP_ID_NOT_FOUND, "an unsupported custom assignor is in use"),
    librdkafka's KIP-848 member fails fatally, and the classic group goes on as it was."""
    srv = classic_server(servers)
    grp = "mix-coop"
    g = Group(poll_timeout=0.01)
    clients["groups"].append(g)
    g.add(classic_member(srv, grp, f"{grp}-classic0", "cooperative-sticky")).subscribe([TOPIC])
    g.wait_balanced(P6, timeout=WAIT_S, sizes=[6])
    g.add(classic_member(srv, grp, f"{grp}-classic1", "cooperative-sticky")).subscribe([TOPIC])
    g.wait_balanced(P6, timeout=WAIT_S, sizes=[3, 3])
    desc = describe_groups_raw(srv.port, grp)
    assert desc[1] == "Stable" and desc[3] == "cooperative-sticky", desc

    new = Member(srv.bootstrap, grp, f"{grp}-new0")
    clients["others"].append(new)
    new.subscribe([TOPIC])
    end = time.monotonic() + WAIT_S
    fatal = None
    while fatal is None:
        assert time.monotonic() < end, f"the KIP-848 member was not refused: {[str(e) for e in new.errors]}"
        g.step()
        try:
            new.poll(0.01)
        except AssertionError as e:  # Member.poll raises on a fatal error
            fatal = str(e)
    assert "group id does not exist" in fatal.lower(), fatal
    assert group_type(srv.port, grp) == "classic", list_groups_raw(srv.port)
    g.run_for(0.5)
    assert balanced(g.snapshot(), P6, [3, 3]), fmt_snapshot(g.snapshot())
    assert describe_groups_raw(srv.port, grp)[1] == "Stable"
    assert not g.overlaps, g.overlaps[:5]
    metric(f"librdkafka cooperative-sticky classic group: KIP-848 member refused ({fatal.split(':', 1)[-1].strip()})")
