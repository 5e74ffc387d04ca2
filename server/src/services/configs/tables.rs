//! Kafka 4.4.0's config tables as the broker reports them in DescribeConfigs: every topic config
//! with its default, type and broker synonyms; the broker configs kwire-server reports; the
//! cluster-wide dynamic defaults; and the numbering of resource types, config sources and config
//! types.
//!
//! The defaults are Kafka 4.4.0's (`LogConfig`, `ServerLogConfigs`, `GroupCoordinatorConfig`,
//! `ReplicationConfigs`, ...), with each config's type (the `ConfigType` of DescribeConfigs v3+)
//! and, for a topic config, the broker configs that stand for it (Kafka's
//! `ServerTopicConfigSynonyms`), which DescribeConfigs lists as its synonyms. Checked against the
//! real broker by `tests/tests/it/kafka_admin_oracle.rs`.

/// DescribeConfigs' resource types (Kafka's `ConfigResource.Type`).
pub mod resource {
    /// A topic.
    pub const TOPIC: i8 = 2;
    /// A broker (name: its id, or "" for the cluster-wide defaults).
    pub const BROKER: i8 = 4;
    /// A broker's log4j loggers.
    pub const BROKER_LOGGER: i8 = 8;
    /// Client metrics subscriptions (KIP-714).
    pub const CLIENT_METRICS: i8 = 16;
    /// A group (KIP-848 group configs).
    pub const GROUP: i8 = 32;
}

/// Where a config's value comes from (Kafka's `DescribeConfigsResponse.ConfigSource`).
pub mod source {
    /// Set on the topic (CreateTopics, AlterConfigs).
    pub const TOPIC_CONFIG: i8 = 1;
    /// A cluster-wide dynamic broker default (Kafka 4.4's controller writes
    /// `min.insync.replicas=1` as one when it formats a cluster).
    pub const DYNAMIC_DEFAULT_BROKER_CONFIG: i8 = 3;
    /// Set in the broker's static configuration (server.properties; for kwire-server, its
    /// command line).
    pub const STATIC_BROKER_CONFIG: i8 = 4;
    /// Kafka's default.
    pub const DEFAULT_CONFIG: i8 = 5;
    /// A broker logger's level.
    pub const DYNAMIC_BROKER_LOGGER_CONFIG: i8 = 6;
}

/// The type of a config's value (Kafka's `ConfigDef.Type` as DescribeConfigs v3+ numbers it).
pub mod kind {
    /// `true`/`false`.
    pub const BOOLEAN: i8 = 1;
    /// Free text.
    pub const STRING: i8 = 2;
    /// A 32-bit integer.
    pub const INT: i8 = 3;
    /// A 16-bit integer.
    pub const SHORT: i8 = 4;
    /// A 64-bit integer.
    pub const LONG: i8 = 5;
    /// A double.
    pub const DOUBLE: i8 = 6;
    /// A comma-separated list.
    pub const LIST: i8 = 7;
}

/// One topic config: name, Kafka 4.4's default value, type, and the broker config that stands
/// for it, which DescribeConfigs lists as its synonym (Kafka 4.4 lists only the first of
/// `ServerTopicConfigSynonyms`' names: `retention.ms` shows `log.retention.ms`, which has no
/// default, and so no synonym at all).
pub struct TopicConfig {
    /// The topic config's name.
    pub name: &'static str,
    /// Kafka 4.4.0's default value.
    pub default: &'static str,
    /// Its [`kind`].
    pub kind: i8,
    /// Its broker synonyms.
    pub synonyms: &'static [&'static str],
}

const fn tc(
    name: &'static str,
    default: &'static str,
    kind: i8,
    synonyms: &'static [&'static str],
) -> TopicConfig {
    TopicConfig {
        name,
        default,
        kind,
        synonyms,
    }
}

/// Every topic config of Kafka 4.4.0, with its default, in name order.
pub const TOPIC_CONFIGS: &[TopicConfig] = &[
    tc(
        "cleanup.policy",
        "delete",
        kind::LIST,
        &["log.cleanup.policy"],
    ),
    tc(
        "compression.gzip.level",
        "-1",
        kind::INT,
        &["compression.gzip.level"],
    ),
    tc(
        "compression.lz4.level",
        "9",
        kind::INT,
        &["compression.lz4.level"],
    ),
    tc(
        "compression.type",
        "producer",
        kind::STRING,
        &["compression.type"],
    ),
    tc(
        "compression.zstd.level",
        "3",
        kind::INT,
        &["compression.zstd.level"],
    ),
    tc(
        "delete.retention.ms",
        "86400000",
        kind::LONG,
        &["log.cleaner.delete.retention.ms"],
    ),
    tc(
        "errors.deadletterqueue.group.enable",
        "false",
        kind::BOOLEAN,
        &[],
    ),
    tc(
        "file.delete.delay.ms",
        "60000",
        kind::LONG,
        &["log.segment.delete.delay.ms"],
    ),
    tc(
        "flush.messages",
        "9223372036854775807",
        kind::LONG,
        &["log.flush.interval.messages"],
    ),
    tc(
        "flush.ms",
        "9223372036854775807",
        kind::LONG,
        &["log.flush.interval.ms"],
    ),
    tc(
        "follower.replication.throttled.replicas",
        "",
        kind::LIST,
        &[],
    ),
    tc(
        "index.interval.bytes",
        "4096",
        kind::INT,
        &["log.index.interval.bytes"],
    ),
    tc("leader.replication.throttled.replicas", "", kind::LIST, &[]),
    tc(
        "local.retention.bytes",
        "-2",
        kind::LONG,
        &["log.local.retention.bytes"],
    ),
    tc(
        "local.retention.ms",
        "-2",
        kind::LONG,
        &["log.local.retention.ms"],
    ),
    tc(
        "max.compaction.lag.ms",
        "9223372036854775807",
        kind::LONG,
        &["log.cleaner.max.compaction.lag.ms"],
    ),
    tc(
        "max.decompressed.message.bytes",
        "2147483639",
        kind::INT,
        &["max.decompressed.message.bytes"],
    ),
    tc(
        "max.message.bytes",
        "1048588",
        kind::INT,
        &["message.max.bytes"],
    ),
    tc(
        "message.timestamp.after.max.ms",
        "3600000",
        kind::LONG,
        &["log.message.timestamp.after.max.ms"],
    ),
    tc(
        "message.timestamp.before.max.ms",
        "9223372036854775807",
        kind::LONG,
        &["log.message.timestamp.before.max.ms"],
    ),
    tc(
        "message.timestamp.type",
        "CreateTime",
        kind::STRING,
        &["log.message.timestamp.type"],
    ),
    tc(
        "min.cleanable.dirty.ratio",
        "0.5",
        kind::DOUBLE,
        &["log.cleaner.min.cleanable.ratio"],
    ),
    tc(
        "min.compaction.lag.ms",
        "0",
        kind::LONG,
        &["log.cleaner.min.compaction.lag.ms"],
    ),
    tc(
        "min.insync.replicas",
        "1",
        kind::INT,
        &["min.insync.replicas"],
    ),
    tc("preallocate", "false", kind::BOOLEAN, &["log.preallocate"]),
    tc(
        "remote.copy.lag.bytes",
        "-1",
        kind::LONG,
        &["log.remote.copy.lag.bytes"],
    ),
    tc(
        "remote.copy.lag.ms",
        "0",
        kind::LONG,
        &["log.remote.copy.lag.ms"],
    ),
    tc("remote.log.copy.disable", "false", kind::BOOLEAN, &[]),
    tc("remote.log.delete.on.disable", "false", kind::BOOLEAN, &[]),
    tc("remote.storage.enable", "false", kind::BOOLEAN, &[]),
    tc(
        "retention.bytes",
        "-1",
        kind::LONG,
        &["log.retention.bytes"],
    ),
    tc(
        "retention.ms",
        "604800000",
        kind::LONG,
        &["log.retention.ms"],
    ),
    tc(
        "segment.bytes",
        "1073741824",
        kind::INT,
        &["log.segment.bytes"],
    ),
    tc(
        "segment.index.bytes",
        "10485760",
        kind::INT,
        &["log.index.size.max.bytes"],
    ),
    tc(
        "segment.jitter.ms",
        "0",
        kind::LONG,
        &["log.roll.jitter.ms"],
    ),
    tc("segment.ms", "604800000", kind::LONG, &["log.roll.ms"]),
    tc(
        "unclean.leader.election.enable",
        "false",
        kind::BOOLEAN,
        &["unclean.leader.election.enable"],
    ),
];

/// The broker configs kwire-server reports: name, Kafka 4.4.0's default (`None`: no default,
/// e.g. `log.retention.ms`, which `log.retention.hours` stands in for), type. The topic configs'
/// synonyms are all here.
pub const BROKER_CONFIGS: &[(&str, Option<&str>, i8)] = &[
    ("auto.create.topics.enable", Some("true"), kind::BOOLEAN),
    ("broker.id", Some("-1"), kind::INT),
    ("compression.gzip.level", Some("-1"), kind::INT),
    ("compression.lz4.level", Some("9"), kind::INT),
    ("compression.type", Some("producer"), kind::STRING),
    ("compression.zstd.level", Some("3"), kind::INT),
    ("default.replication.factor", Some("1"), kind::INT),
    ("delete.topic.enable", Some("true"), kind::BOOLEAN),
    (
        "group.consumer.assignment.interval.ms",
        Some("1000"),
        kind::INT,
    ),
    (
        "group.consumer.assignors",
        Some("uniform,range"),
        kind::LIST,
    ),
    (
        "group.consumer.heartbeat.interval.ms",
        Some("5000"),
        kind::INT,
    ),
    (
        "group.consumer.migration.policy",
        Some("bidirectional"),
        kind::STRING,
    ),
    (
        "group.consumer.session.timeout.ms",
        Some("45000"),
        kind::INT,
    ),
    (
        "group.coordinator.rebalance.protocols",
        Some("classic,consumer,streams"),
        kind::LIST,
    ),
    ("group.initial.rebalance.delay.ms", Some("3000"), kind::INT),
    ("group.max.session.timeout.ms", Some("1800000"), kind::INT),
    ("group.max.size", Some("2147483647"), kind::INT),
    ("group.min.session.timeout.ms", Some("6000"), kind::INT),
    (
        "group.streams.assignment.interval.ms",
        Some("1000"),
        kind::INT,
    ),
    ("group.streams.assignors", Some("sticky"), kind::LIST),
    (
        "group.streams.heartbeat.interval.ms",
        Some("5000"),
        kind::INT,
    ),
    (
        "group.streams.initial.rebalance.delay.ms",
        Some("3000"),
        kind::INT,
    ),
    ("group.streams.max.standby.replicas", Some("2"), kind::INT),
    ("group.streams.num.standby.replicas", Some("0"), kind::INT),
    ("group.streams.session.timeout.ms", Some("45000"), kind::INT),
    (
        "log.cleaner.delete.retention.ms",
        Some("86400000"),
        kind::LONG,
    ),
    (
        "log.cleaner.max.compaction.lag.ms",
        Some("9223372036854775807"),
        kind::LONG,
    ),
    ("log.cleaner.min.cleanable.ratio", Some("0.5"), kind::DOUBLE),
    ("log.cleaner.min.compaction.lag.ms", Some("0"), kind::LONG),
    ("log.cleanup.policy", Some("delete"), kind::LIST),
    (
        "log.flush.interval.messages",
        Some("9223372036854775807"),
        kind::LONG,
    ),
    ("log.flush.interval.ms", None, kind::LONG),
    (
        "log.flush.scheduler.interval.ms",
        Some("9223372036854775807"),
        kind::LONG,
    ),
    ("log.index.interval.bytes", Some("4096"), kind::INT),
    ("log.index.size.max.bytes", Some("10485760"), kind::INT),
    ("log.local.retention.bytes", Some("-2"), kind::LONG),
    ("log.local.retention.ms", Some("-2"), kind::LONG),
    (
        "log.message.timestamp.after.max.ms",
        Some("3600000"),
        kind::LONG,
    ),
    (
        "log.message.timestamp.before.max.ms",
        Some("9223372036854775807"),
        kind::LONG,
    ),
    (
        "log.message.timestamp.type",
        Some("CreateTime"),
        kind::STRING,
    ),
    ("log.preallocate", Some("false"), kind::BOOLEAN),
    ("log.remote.copy.lag.bytes", Some("-1"), kind::LONG),
    ("log.remote.copy.lag.ms", Some("0"), kind::LONG),
    ("log.retention.bytes", Some("-1"), kind::LONG),
    ("log.retention.hours", Some("168"), kind::INT),
    ("log.retention.minutes", None, kind::INT),
    ("log.retention.ms", None, kind::LONG),
    ("log.roll.hours", Some("168"), kind::INT),
    ("log.roll.jitter.hours", Some("0"), kind::INT),
    ("log.roll.jitter.ms", None, kind::LONG),
    ("log.roll.ms", None, kind::LONG),
    ("log.segment.bytes", Some("1073741824"), kind::INT),
    ("log.segment.delete.delay.ms", Some("60000"), kind::LONG),
    (
        "max.decompressed.message.bytes",
        Some("2147483639"),
        kind::INT,
    ),
    ("message.max.bytes", Some("1048588"), kind::INT),
    ("min.insync.replicas", Some("1"), kind::INT),
    ("max.request.partition.size.limit", Some("2000"), kind::INT),
    ("node.id", None, kind::INT),
    ("num.partitions", Some("1"), kind::INT),
    ("offsets.topic.num.partitions", Some("50"), kind::INT),
    ("offsets.topic.replication.factor", Some("3"), kind::SHORT),
    ("transaction.state.log.min.isr", Some("2"), kind::INT),
    (
        "transaction.state.log.replication.factor",
        Some("3"),
        kind::SHORT,
    ),
    (
        "unclean.leader.election.enable",
        Some("false"),
        kind::BOOLEAN,
    ),
];

/// The cluster-wide dynamic broker defaults: what a freshly formatted Kafka 4.4 cluster holds
/// (its controller's bootstrap records set `min.insync.replicas`).
pub const DYNAMIC_DEFAULT_BROKER_CONFIGS: &[(&str, &str)] = &[("min.insync.replicas", "1")];
