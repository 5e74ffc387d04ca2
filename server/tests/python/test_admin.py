"""AdminClient calls of confluent-kafka 2.16 (librdkafka 2.16) against kwire-server."""

from __future__ import annotations

from kwire_harness import admin, metric


def test_admin_list_topics_lists_every_topic(servers, clients):
    # librdkafka's all-topics Metadata v13 request carries 3 bytes after its body; Kafka 4.4
    # ignores them, and kwire-server must answer rather than close the connection.
    srv = servers.start(["t1:3", "t2:1"])
    a = admin(srv.bootstrap)
    clients["others"].append(a)
    md = a.list_topics(timeout=10)
    topics = {name: len(t.partitions) for name, t in md.topics.items() if not name.startswith("__")}
    metric(f"test admin: AdminClient.list_topics() found {sorted(topics.items())}, "
           f"{len(md.brokers)} broker(s), cluster id {md.cluster_id}")
    assert topics == {"t1": 3, "t2": 1}, topics
    assert list(md.brokers) == [1], md.brokers
    assert all(t.error is None for t in md.topics.values()), md.topics
    # A topic by name too.
    one = a.list_topics(topic="t1", timeout=10)
    assert len(one.topics["t1"].partitions) == 3
