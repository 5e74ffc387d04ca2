"""Durability: SIGKILL in the middle of a rebalance, restart on the same port with the same --data.

The rebalance is frozen on purpose so that the state at the kill is known: a third consumer has
joined (the group epoch is bumped and the target assignment recomputed) but the two old members are
not polled, so they cannot acknowledge the revocation of the partitions the newcomer is waiting for.
The broker's view (ConsumerGroupDescribe, with member epochs) is taken before the kill and again
right after the restart, before the clients reconnect, and must be identical. Then the consumers are
polled again: the group must finish the rebalance with the same member ids, without fencing anyone,
and the committed offsets must be those committed before the kill.
"""

from __future__ import annotations

import time

from conftest import HEARTBEAT_MS
from kwire_harness import (Group, Member, committed_offsets, describe_group_raw, free_port, high_watermarks, metric,
                           partitions, produce, producer)

H = HEARTBEAT_MS / 1000.0
P6 = partitions("t6", 6)


def state(d):
    return (d.state, d.group_epoch, d.assignment_epoch, d.assignor,
            {mid: (m.instance_id, m.epoch, m.client_id, m.assignment, m.target) for mid, m in d.members.items()})


def test_sigkill_mid_rebalance_then_restart_resumes_the_group(servers, clients, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    port = free_port()
    srv = servers.start(["t6:6"], port=port, data_dir=str(data), session_timeout_ms=20000)

    p = producer(srv.bootstrap)
    produce(p, "t6", [(f"k{i}".encode(), f"v{i}".encode()) for i in range(60)])

    g = Group()
    clients["groups"].append(g)
    c1 = g.add(Member(srv.bootstrap, "gd", "gd-c1"))
    c2 = g.add(Member(srv.bootstrap, "gd", "gd-c2"))
    c1.subscribe(["t6"])
    c2.subscribe(["t6"])
    g.wait_balanced(P6, timeout=20, sizes=[3, 3])
    hw = high_watermarks(c1, "t6", 6)
    assert sum(hw.values()) == 60, hw
    end = time.monotonic() + 20
    while True:
        g.step()
        g.commit_round()  # synchronous commits of what each member read from what it owns
        committed_before = committed_offsets(c1, "t6", 6)
        if len(g.distinct_values()) == 60 and committed_before == hw:
            break
        assert time.monotonic() < end, (
            f"{len(g.distinct_values())} of 60 messages consumed, committed {committed_before}, high watermarks "
            f"{hw}; commit errors { {m.name: m.commit_errors[-3:] for m in g.members} }")
    ids = {m.name: m.member_id() for m in (c1, c2)}
    stable = describe_group_raw(port, "gd")

    # The rebalance: c3 joins while c1 and c2 are not polled (they cannot release partitions).
    g.paused = {"gd-c1", "gd-c2"}
    c3 = g.add(Member(srv.bootstrap, "gd", "gd-c3"))
    c3.subscribe(["t6"])
    g.wait_for(lambda s: len(describe_group_raw(port, "gd").members) == 3, 10, "the third member to join")
    # Let every member heartbeat a few times, so the frozen state is reached, then check it holds.
    g.run_for(4 * H)
    before = describe_group_raw(port, "gd")
    g.run_for(2 * H)
    again = describe_group_raw(port, "gd")
    assert state(before) == state(again), f"not quiescent:\n{before.summary()}\n{again.summary()}"
    assert before.state.lower() != "stable", f"the group should be mid-rebalance: {before.summary()}"
    assert before.group_epoch > stable.group_epoch, f"{stable.summary()}\n{before.summary()}"
    assert any(m.assignment != m.target for m in before.members.values()), before.summary()

    # SIGKILL, and restart on the same port with the same --data.
    t_kill = time.monotonic()
    srv.kill()
    srv.start()
    t_up = time.monotonic()
    after = describe_group_raw(port, "gd")
    metric(f"durability: restart took {t_up - t_kill:.2f} s; before kill: {before.summary()}")
    metric(f"durability: after restart:  {after.summary()}")
    assert state(after) == state(before), (
        f"the group did not come back as it was\nbefore: {before.summary()}\nafter:  {after.summary()}")

    # The clients reconnect and the rebalance completes, without anyone being fenced.
    g.paused = set()
    t_resume = time.monotonic()
    g.wait_balanced(P6, timeout=30, sizes=[2, 2, 2])
    metric(f"durability: balanced 2/2/2 {time.monotonic() - t_resume:.2f} s after resuming the polls")
    g.run_for(2 * H)
    final = describe_group_raw(port, "gd")
    assert {m.name: m.member_id() for m in (c1, c2)} == ids, "member ids changed across the restart"
    assert set(final.members) == set(before.members), f"members changed:\n{before.summary()}\n{final.summary()}"
    for mid, m in final.members.items():
        assert m.epoch >= before.members[mid].epoch, f"epoch went back:\n{before.summary()}\n{final.summary()}"
    for m in g.members:
        assert not m.lost_events(), f"{m.name} was fenced (partitions lost) across the restart: {m.lost_events()}"
    assert not g.overlaps, f"a partition had two owners at once: {g.overlaps[:5]}"

    # Committed offsets are intact, seen by a consumer that is not a member.
    fresh = Member(srv.bootstrap, "gd", "gd-fresh")
    clients["others"].append(fresh)
    got = committed_offsets(fresh, "t6", 6)
    assert got == committed_before, f"committed offsets after restart {got}, before {committed_before}"


def test_sigkill_at_moments_of_live_rebalances(servers, clients, tmp_path):
    """Kills at less controlled moments: the group keeps being polled, and the server is killed
    0 to 2/3 H after a member joins or leaves. After each restart the group must converge on the
    live members without fencing any of them (a fenced member would see on_lost), which holds only
    if every state change a client was told about had reached the log before the answer went out."""
    data = tmp_path / "data"
    data.mkdir()
    port = free_port()
    srv = servers.start(["t6:6"], port=port, data_dir=str(data), session_timeout_ms=6000)
    g = Group()
    clients["groups"].append(g)
    for i in range(2):
        g.add(Member(srv.bootstrap, "gk", f"gk-c{i}")).subscribe(["t6"])
    g.wait_balanced(P6, timeout=20)
    steps = [("join", 0.0), ("join", H / 3), ("leave", 0.0), ("join", 2 * H / 3), ("leave", H / 3)]
    took = []
    for n, (what, delay) in enumerate(steps):
        if what == "join":
            g.add(Member(srv.bootstrap, "gk", f"gk-c{len(g.members)}")).subscribe(["t6"])
        else:
            g.live()[0].close()
        g.run_for(delay)
        srv.kill()
        srv.start()
        t0 = time.monotonic()
        g.wait_balanced(P6, timeout=20)
        g.run_for(2 * H)
        d = describe_group_raw(port, "gk")
        took.append(round(time.monotonic() - t0 - 2 * H, 2))
        live = {m.member_id(): m.name for m in g.live()}
        assert set(d.members) == set(live), f"step {n} ({what}, kill after {delay:.2f} s): broker has {d.summary()}, live consumers {live}"
        assert all(m.epoch == d.group_epoch for m in d.members.values()), f"step {n}: not stable: {d.summary()}"
        for m in g.members:
            assert not m.lost_events(), f"step {n} ({what}, kill after {delay:.2f} s): {m.name} was fenced: {m.lost_events()}"
        assert not g.overlaps, f"step {n}: a partition had two owners at once: {g.overlaps[:5]}"
    metric(f"durability (live): {len(steps)} SIGKILLs during joins/leaves, balanced again after {took} s")
