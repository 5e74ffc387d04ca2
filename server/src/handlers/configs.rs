//! DescribeConfigs v1-4: topic configs (Kafka 4.4's defaults, overridden by the configs
//! CreateTopics gave), the broker configs clients read, and unknown resources answered as Kafka
//! 4.4 answers them. Checked against the real broker by `tests/tests/it/kafka_admin_oracle.rs`.
//!
//! The tables below hold Kafka 4.4.0's defaults (`LogConfig`, `ServerLogConfigs`,
//! `GroupCoordinatorConfig`, `ReplicationConfigs`, ...) as the broker reports them, with each
//! config's type (the `ConfigType` of DescribeConfigs v3+) and, for a topic config, the broker
//! configs that stand for it (Kafka's `ServerTopicConfigSynonyms`), which DescribeConfigs lists
//! as its synonyms.

use kwire_protocol::error::ErrorCode;
use kwire_protocol::generated::describe_configs_request::DescribeConfigsRequest;
use kwire_protocol::generated::describe_configs_response::{
    DescribeConfigsResourceResult, DescribeConfigsResponse, DescribeConfigsResult,
    DescribeConfigsSynonym,
};
use kwire_protocol::generated::ApiKey;

use super::Ctx;
use crate::broker::{Broker, NODE_ID};
use crate::config::ServerConfig;
use crate::topics::valid_topic_name;

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

/// The broker configs kwire-server's own configuration sets: reported as
/// STATIC_BROKER_CONFIG with kwire's value (kwire-server's command line is its
/// server.properties). `node.id` and `broker.id` are 1.
fn static_broker_configs(b: &Broker, c: &ServerConfig) -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("broker.id", NODE_ID.to_string()),
        ("node.id", NODE_ID.to_string()),
        ("num.partitions", b.default_partitions.to_string()),
        (
            "auto.create.topics.enable",
            b.auto_create_partitions.is_some().to_string(),
        ),
        (
            "group.min.session.timeout.ms",
            c.group_min_session_timeout_ms.to_string(),
        ),
        (
            "group.max.session.timeout.ms",
            c.group_max_session_timeout_ms.to_string(),
        ),
        (
            "group.initial.rebalance.delay.ms",
            c.group_initial_rebalance_delay_ms.to_string(),
        ),
        ("group.max.size", c.group_max_size.to_string()),
        // kwire computes target assignments at every group epoch bump.
        ("group.consumer.assignment.interval.ms", "0".to_string()),
        ("group.streams.assignment.interval.ms", "0".to_string()),
    ];
    if let Some(ms) = c.streams_initial_rebalance_delay_ms {
        out.push(("group.streams.initial.rebalance.delay.ms", ms.to_string()));
    }
    if let Some(n) = c.streams_num_standby_replicas {
        out.push(("group.streams.num.standby.replicas", n.to_string()));
    }
    if let Some(ms) = c.session_timeout_ms {
        out.push(("group.consumer.session.timeout.ms", ms.to_string()));
        out.push(("group.streams.session.timeout.ms", ms.to_string()));
    }
    if let Some(ms) = c.heartbeat_interval_ms {
        out.push(("group.consumer.heartbeat.interval.ms", ms.to_string()));
        out.push(("group.streams.heartbeat.interval.ms", ms.to_string()));
    }
    // Only what differs from Kafka's default counts as set: kwire-server always has a value.
    out.retain(|(name, value)| {
        BROKER_CONFIGS
            .iter()
            .find(|(n, ..)| n == name)
            .is_none_or(|(_, d, _)| d != &Some(value.as_str()))
    });
    out
}

/// Whether a topic with these configs lets DeleteRecords remove records: its
/// `cleanup.policy` includes `delete` (Kafka's `LogConfig.delete`; the default is `delete`).
pub fn deletes_records(configs: &[(String, String)]) -> bool {
    configs
        .iter()
        .rev()
        .find(|(k, _)| k == "cleanup.policy")
        .is_none_or(|(_, v)| v.split(',').any(|p| p.trim() == "delete"))
}

/// Whether `name` is a topic config Kafka 4.4 knows (CreateTopics refuses others).
pub fn is_topic_config(name: &str) -> bool {
    TOPIC_CONFIGS.iter().any(|c| c.name == name)
}

/// A resource's answer, before the keys filter.
struct Entry {
    name: &'static str,
    value: Option<String>,
    source: i8,
    kind: i8,
    read_only: bool,
    synonyms: Vec<(&'static str, Option<String>, i8)>,
    /// Kafka's documentation is its prose: kwire answers null (or "" where Kafka always gives
    /// "", a logger's).
    documentation: Option<&'static str>,
}

/// DescribeConfigs v1-4, per resource as Kafka 4.4's `ConfigHelper.describeConfigs`:
///
/// * TOPIC (2): every topic config of [`TOPIC_CONFIGS`], the value CreateTopics gave
///   (source TOPIC_CONFIG) or Kafka's default (DEFAULT_CONFIG; STATIC_BROKER_CONFIG when
///   kwire-server's own configuration sets the synonym); with IncludeSynonyms, the topic's own
///   value, then the broker synonyms that have a value. An unknown topic:
///   UNKNOWN_TOPIC_OR_PARTITION; an illegal name: INVALID_TOPIC_EXCEPTION.
/// * BROKER (4) "1": the broker configs of [`BROKER_CONFIGS`] (read-only, as Kafka marks the
///   configs it cannot change at run time: kwire changes none); "" (the cluster-wide dynamic
///   defaults): none; another id or a name that is not a number: INVALID_REQUEST.
/// * GROUP (32), any group id (existing or not, as Kafka): the group configs of [`group_entries`].
/// * BROKER_LOGGER (8) "1": the root logger at INFO (DYNAMIC_BROKER_LOGGER_CONFIG, type 0,
///   documentation "" from v3, as Kafka); other names as for BROKER.
/// * CLIENT_METRICS (16), any name: the defaults of a subscription (`interval.ms` 300000, empty
///   `match` and `metrics`), as Kafka answers for a subscription nobody created.
/// * A type Kafka does not know: INVALID_REQUEST for every resource of the request.
///
/// `ConfigurationKeys` null or empty lists every config; otherwise the named ones kwire knows
/// (unknown names are left out, as Kafka does). Documentation (v3+) is null.
pub fn describe_configs(
    b: &mut Broker,
    config: &ServerConfig,
    ctx: &Ctx<'_>,
    r: &DescribeConfigsRequest,
) -> DescribeConfigsResponse {
    let v = ctx.version;
    let statics = static_broker_configs(b, config);
    // One resource of a type Kafka does not know fails the whole request (Kafka's
    // `ConfigResource.Type.forId` gives UNKNOWN, which its request handler refuses for all).
    let unknown_type = r.resources.iter().map(|res| res.resource_type).find(|t| {
        !matches!(
            *t,
            resource::TOPIC
                | resource::BROKER
                | resource::BROKER_LOGGER
                | resource::CLIENT_METRICS
                | resource::GROUP
        )
    });
    let results = r
        .resources
        .iter()
        .map(|res| {
            let entries = match res.resource_type {
                _ if unknown_type.is_some() => Err((
                    ErrorCode::InvalidRequest,
                    format!(
                        "Unsupported resource type {} in the request",
                        unknown_type.unwrap_or_default()
                    ),
                )),
                resource::TOPIC => topic_entries(b, &statics, &res.resource_name),
                resource::BROKER => broker_entries(&statics, &res.resource_name),
                resource::GROUP => group_entries(config, &res.resource_name),
                resource::BROKER_LOGGER => broker_logger_entries(&res.resource_name, v),
                resource::CLIENT_METRICS => Ok(client_metrics_entries()),
                t => Err((
                    ErrorCode::InvalidRequest,
                    format!("Unsupported resource type: {}", resource_type_name(t)),
                )),
            };
            let mut result = DescribeConfigsResult {
                error_code: ErrorCode::None.code(),
                error_message: None,
                resource_type: res.resource_type,
                resource_name: res.resource_name.clone(),
                ..Default::default()
            };
            match entries {
                Ok(entries) => {
                    let keys = res.configuration_keys.as_deref().unwrap_or(&[]);
                    result.configs = entries
                        .into_iter()
                        .filter(|e| keys.is_empty() || keys.iter().any(|k| **k == *e.name))
                        .map(|e| DescribeConfigsResourceResult {
                            documentation: e.documentation.map(Into::into),
                            name: e.name.into(),
                            value: e.value.map(Into::into),
                            read_only: e.read_only,
                            config_source: e.source,
                            is_sensitive: false,
                            synonyms: if r.include_synonyms {
                                e.synonyms
                                    .into_iter()
                                    .map(|(name, value, source)| DescribeConfigsSynonym {
                                        name: name.into(),
                                        value: value.map(Into::into),
                                        source,
                                        ..Default::default()
                                    })
                                    .collect()
                            } else {
                                Vec::new()
                            },
                            config_type: if v >= 3 { e.kind } else { 0 },
                            ..Default::default()
                        })
                        .collect();
                }
                Err((code, message)) => {
                    ctx.refused(
                        ApiKey::DescribeConfigs,
                        format_args!(
                            "resource {} {:?}: {code}: {message}",
                            res.resource_type, &*res.resource_name
                        ),
                    );
                    result.error_code = code.code();
                    result.error_message = Some(message.into());
                }
            }
            result
        })
        .collect();
    DescribeConfigsResponse {
        throttle_time_ms: 0,
        results,
        ..Default::default()
    }
}

/// Kafka's name of a `ConfigResource.Type` id.
fn resource_type_name(t: i8) -> &'static str {
    match t {
        resource::TOPIC => "TOPIC",
        resource::BROKER => "BROKER",
        resource::BROKER_LOGGER => "BROKER_LOGGER",
        resource::CLIENT_METRICS => "CLIENT_METRICS",
        resource::GROUP => "GROUP",
        _ => "UNKNOWN",
    }
}

/// A broker config's values in Kafka's order of precedence (the first one is in force):
/// (value, source) from the cluster-wide dynamic defaults, kwire's own setting, Kafka's default.
fn broker_values(statics: &[(&'static str, String)], name: &str) -> Vec<(String, i8)> {
    let mut out = Vec::new();
    if let Some((_, v)) = DYNAMIC_DEFAULT_BROKER_CONFIGS
        .iter()
        .find(|(n, _)| *n == name)
    {
        out.push((v.to_string(), source::DYNAMIC_DEFAULT_BROKER_CONFIG));
    }
    if let Some((_, v)) = statics.iter().find(|(n, _)| *n == name) {
        out.push((v.clone(), source::STATIC_BROKER_CONFIG));
    }
    if let Some(d) = BROKER_CONFIGS
        .iter()
        .find(|(n, ..)| *n == name)
        .and_then(|(_, d, _)| *d)
    {
        out.push((d.to_string(), source::DEFAULT_CONFIG));
    }
    out
}

type EntriesResult = Result<Vec<Entry>, (ErrorCode, String)>;

fn topic_entries(b: &Broker, statics: &[(&'static str, String)], name: &str) -> EntriesResult {
    if let Err(e) = valid_topic_name(name) {
        return Err((ErrorCode::InvalidTopicException, e));
    }
    let Some(t) = b.topics.get(name) else {
        return Err((
            ErrorCode::UnknownTopicOrPartition,
            format!("The topic '{name}' does not exist."),
        ));
    };
    Ok(topic_config_entries(&t.configs, statics))
}

/// Every topic config of a topic whose own configs are `configs`: its value and source.
fn topic_config_entries(
    configs: &[(String, String)],
    statics: &[(&'static str, String)],
) -> Vec<Entry> {
    TOPIC_CONFIGS
        .iter()
        .map(|c| {
            let own = configs
                .iter()
                .rev()
                .find(|(k, _)| k == c.name)
                .map(|(_, v)| v.clone());
            let mut synonyms = Vec::new();
            if let Some(v) = &own {
                synonyms.push((c.name, Some(v.clone()), source::TOPIC_CONFIG));
            }
            let mut inherited = None;
            for s in c.synonyms {
                for (v, src) in broker_values(statics, s) {
                    synonyms.push((*s, Some(v.clone()), src));
                    if inherited.is_none() && src != source::DEFAULT_CONFIG {
                        inherited = Some((v, src));
                    }
                }
            }
            let (value, source) = match (own, inherited) {
                (Some(v), _) => (v, source::TOPIC_CONFIG),
                (None, Some(v)) => v,
                (None, None) => (c.default.to_string(), source::DEFAULT_CONFIG),
            };
            Entry {
                name: c.name,
                value: Some(value),
                source,
                kind: c.kind,
                read_only: false,
                synonyms,
                documentation: None,
            }
        })
        .collect()
}

/// The configs a CreateTopics v5+ answer lists for a new topic with `configs`: every topic config
/// with its value and source (name, value, source), as Kafka 4.4 answers.
pub fn created_topic_configs(configs: &[(String, String)]) -> Vec<(&'static str, String, i8)> {
    topic_config_entries(configs, &[])
        .into_iter()
        .map(|e| (e.name, e.value.unwrap_or_default(), e.source))
        .collect()
}

fn broker_entries(statics: &[(&'static str, String)], name: &str) -> EntriesResult {
    if name.is_empty() {
        // The cluster-wide dynamic defaults.
        return Ok(DYNAMIC_DEFAULT_BROKER_CONFIGS
            .iter()
            .map(|(n, v)| Entry {
                name: n,
                value: Some(v.to_string()),
                source: source::DYNAMIC_DEFAULT_BROKER_CONFIG,
                kind: BROKER_CONFIGS
                    .iter()
                    .find(|(b, ..)| b == n)
                    .map_or(kind::STRING, |(_, _, k)| *k),
                read_only: false,
                synonyms: vec![(
                    *n,
                    Some(v.to_string()),
                    source::DYNAMIC_DEFAULT_BROKER_CONFIG,
                )],
                documentation: None,
            })
            .collect());
    }
    match name.parse::<i32>() {
        Ok(NODE_ID) => {}
        Ok(_) => {
            return Err((
                ErrorCode::InvalidRequest,
                format!(
                    "Unexpected broker id, expected {NODE_ID} or empty string, but received {name}"
                ),
            ))
        }
        Err(_) => {
            return Err((
                ErrorCode::InvalidRequest,
                format!("Broker id must be an integer, but it is: {name}"),
            ))
        }
    }
    Ok(BROKER_CONFIGS
        .iter()
        .map(|(n, _, kind)| {
            let values = broker_values(statics, n);
            let synonyms = values
                .iter()
                .map(|(v, src)| (*n, Some(v.clone()), *src))
                .collect();
            let (value, source) = match values.into_iter().next() {
                Some((v, s)) => (Some(v), s),
                None => (None, source::DEFAULT_CONFIG),
            };
            Entry {
                name: n,
                value,
                source,
                kind: *kind,
                read_only: !dynamic_broker_config(n),
                synonyms,
                documentation: None,
            }
        })
        .collect())
}

/// The group configs of Kafka 4.4 (`GroupConfig`) for any group: each one's value is the broker
/// setting it defaults to (`group.consumer.session.timeout.ms` for `consumer.session.timeout.ms`,
/// ...): kwire-server's own (STATIC_BROKER_CONFIG) where it has one, else Kafka's default.
/// kwire-server computes target assignments at every group epoch bump, so its
/// `consumer.assignment.interval.ms` and `streams.assignment.interval.ms` are 0; one session
/// timeout and one heartbeat interval serve consumer and streams groups. No group can have
/// configs of its own (IncrementalAlterConfigs is not served).
fn group_entries(c: &ServerConfig, name: &str) -> EntriesResult {
    let _ = name;
    let set = |v: Option<i32>, default: &'static str| match v {
        Some(v) => (v.to_string(), source::STATIC_BROKER_CONFIG),
        None => (default.to_string(), source::DEFAULT_CONFIG),
    };
    let fixed = |v: &'static str| (v.to_string(), source::STATIC_BROKER_CONFIG);
    let default = |v: &'static str| (v.to_string(), source::DEFAULT_CONFIG);
    let entries: Vec<(&'static str, (String, i8), i8)> = vec![
        ("consumer.assignment.interval.ms", fixed("0"), kind::INT),
        (
            "consumer.heartbeat.interval.ms",
            set(c.heartbeat_interval_ms, "5000"),
            kind::INT,
        ),
        (
            "consumer.session.timeout.ms",
            set(c.session_timeout_ms, "45000"),
            kind::INT,
        ),
        (
            "errors.deadletterqueue.copy.record.enable",
            default("false"),
            kind::BOOLEAN,
        ),
        (
            "errors.deadletterqueue.topic.name",
            default(""),
            kind::STRING,
        ),
        ("share.assignment.interval.ms", default("1000"), kind::INT),
        ("share.auto.offset.reset", default("latest"), kind::STRING),
        ("share.delivery.count.limit", default("5"), kind::INT),
        ("share.heartbeat.interval.ms", default("5000"), kind::INT),
        (
            "share.isolation.level",
            default("read_uncommitted"),
            kind::STRING,
        ),
        (
            "share.partition.max.record.locks",
            default("2000"),
            kind::INT,
        ),
        ("share.record.lock.duration.ms", default("30000"), kind::INT),
        (
            "share.renew.acknowledge.enable",
            default("true"),
            kind::BOOLEAN,
        ),
        ("share.session.timeout.ms", default("45000"), kind::INT),
        ("streams.assignment.interval.ms", fixed("0"), kind::INT),
        ("streams.assignor.name", default("sticky"), kind::STRING),
        (
            "streams.heartbeat.interval.ms",
            set(c.heartbeat_interval_ms, "5000"),
            kind::INT,
        ),
        (
            "streams.initial.rebalance.delay.ms",
            set(c.streams_initial_rebalance_delay_ms, "3000"),
            kind::INT,
        ),
        (
            "streams.num.standby.replicas",
            set(c.streams_num_standby_replicas, "0"),
            kind::INT,
        ),
        (
            "streams.rack.aware.assignment.tags",
            if c.streams_rack_aware_assignment_tags.is_empty() {
                default("")
            } else {
                (
                    c.streams_rack_aware_assignment_tags.join(","),
                    source::STATIC_BROKER_CONFIG,
                )
            },
            kind::LIST,
        ),
        (
            "streams.session.timeout.ms",
            set(c.session_timeout_ms, "45000"),
            kind::INT,
        ),
    ];
    Ok(entries
        .into_iter()
        .map(|(name, (value, source), kind)| Entry {
            name,
            value: Some(value),
            source,
            kind,
            read_only: false,
            synonyms: Vec::new(),
            documentation: None,
        })
        .collect())
}

/// Whether Kafka 4.4 can change a broker config at run time (DescribeConfigs' `ReadOnly` false):
/// among those kwire reports, the broker synonyms of topic configs (`log.retention.ms`,
/// `compression.type`, ...) and the assignment intervals.
fn dynamic_broker_config(name: &str) -> bool {
    TOPIC_CONFIGS.iter().any(|c| c.synonyms.contains(&name))
        || matches!(
            name,
            "group.consumer.assignment.interval.ms" | "group.streams.assignment.interval.ms"
        )
}

/// A BROKER_LOGGER resource: this broker's root logger (kwire logs at INFO).
fn broker_logger_entries(name: &str, version: i16) -> EntriesResult {
    if name.is_empty() {
        return Err((
            ErrorCode::InvalidRequest,
            "Broker id must not be empty".to_string(),
        ));
    }
    broker_entries(&[], name)?;
    Ok(vec![Entry {
        name: "root",
        value: Some("INFO".to_string()),
        source: source::DYNAMIC_BROKER_LOGGER_CONFIG,
        kind: 0,
        read_only: false,
        synonyms: Vec::new(),
        documentation: (version >= 3).then_some(""),
    }])
}

/// A CLIENT_METRICS resource: a subscription's defaults (KIP-714; kwire has no subscriptions).
fn client_metrics_entries() -> Vec<Entry> {
    [
        ("interval.ms", "300000", kind::INT),
        ("match", "", kind::LIST),
        ("metrics", "", kind::LIST),
    ]
    .into_iter()
    .map(|(name, value, kind)| Entry {
        name,
        value: Some(value.to_string()),
        source: source::DEFAULT_CONFIG,
        kind,
        read_only: false,
        synonyms: Vec::new(),
        documentation: None,
    })
    .collect()
}
