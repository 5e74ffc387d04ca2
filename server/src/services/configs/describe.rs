//! DescribeConfigs' answers per resource, as Kafka 4.4's `ConfigHelper.describeConfigs`: topic
//! configs (Kafka's defaults, overridden by the configs CreateTopics gave, or by kwire-server's
//! own settings through their broker synonyms), the broker configs, group configs, the broker
//! logger and client-metrics subscriptions. The handler turns them into the response.

use kwire_protocol::error::ErrorCode;

use super::tables::{
    kind, resource, source, BROKER_CONFIGS, DYNAMIC_DEFAULT_BROKER_CONFIGS, TOPIC_CONFIGS,
};
use crate::config::ServerConfig;
use crate::names::valid_topic_name;
use crate::services::cluster::NODE_ID;
use crate::services::topics::table::TopicTable;

/// What DescribeConfigs reads: kwire-server's configuration, and the broker configs it sets.
#[derive(Debug, Clone)]
pub struct Configs {
    config: ServerConfig,
    /// The broker configs kwire-server's configuration sets (name, value), only those that
    /// differ from Kafka's default.
    statics: Vec<(&'static str, String)>,
}

/// A resource's configs, or its error (code and message).
pub type EntriesResult = Result<Vec<ConfigEntry>, (ErrorCode, String)>;

impl Configs {
    /// The configs of a server started with `config`.
    pub fn new(config: &ServerConfig) -> Self {
        Configs {
            config: config.clone(),
            statics: static_broker_configs(config),
        }
    }

    /// The configs of one resource (DescribeConfigs v`version`), per resource type:
    ///
    /// * TOPIC (2): every topic config of [`TOPIC_CONFIGS`], the value CreateTopics gave
    ///   (source TOPIC_CONFIG) or Kafka's default (DEFAULT_CONFIG; STATIC_BROKER_CONFIG when
    ///   kwire-server's own configuration sets the synonym); the synonyms are the topic's own
    ///   value, then the broker synonyms that have a value. An unknown topic:
    ///   UNKNOWN_TOPIC_OR_PARTITION; an illegal name: INVALID_TOPIC_EXCEPTION.
    /// * BROKER (4) "1": the broker configs of [`BROKER_CONFIGS`] (read-only, as Kafka marks the
    ///   configs it cannot change at run time: kwire changes none); "" (the cluster-wide dynamic
    ///   defaults): none; another id or a name that is not a number: INVALID_REQUEST.
    /// * GROUP (32), any group id (existing or not, as Kafka): the group configs.
    /// * BROKER_LOGGER (8) "1": the root logger at INFO (DYNAMIC_BROKER_LOGGER_CONFIG, type 0,
    ///   documentation "" from v3, as Kafka); other names as for BROKER.
    /// * CLIENT_METRICS (16), any name: the defaults of a subscription (`interval.ms` 300000,
    ///   empty `match` and `metrics`), as Kafka answers for a subscription nobody created.
    /// * another type: INVALID_REQUEST.
    ///
    /// # Errors
    /// The resource's error code and message, as above.
    pub fn resource(
        &self,
        topics: &TopicTable,
        resource_type: i8,
        name: &str,
        version: i16,
    ) -> EntriesResult {
        match resource_type {
            resource::TOPIC => topic_entries(topics, &self.statics, name),
            resource::BROKER => broker_entries(&self.statics, name),
            resource::GROUP => group_entries(&self.config),
            resource::BROKER_LOGGER => broker_logger_entries(name, version),
            resource::CLIENT_METRICS => Ok(client_metrics_entries()),
            t => Err((
                ErrorCode::InvalidRequest,
                format!("Unsupported resource type: {}", resource_type_name(t)),
            )),
        }
    }
}

/// Whether `t` is a resource type Kafka knows (one that is not fails the whole request, as
/// Kafka's `ConfigResource.Type.forId` gives UNKNOWN, which its request handler refuses for
/// every resource).
pub fn known_resource_type(t: i8) -> bool {
    matches!(
        t,
        resource::TOPIC
            | resource::BROKER
            | resource::BROKER_LOGGER
            | resource::CLIENT_METRICS
            | resource::GROUP
    )
}

/// The broker configs kwire-server's own configuration sets: reported as
/// STATIC_BROKER_CONFIG with kwire's value (kwire-server's command line is its
/// server.properties). `node.id` and `broker.id` are 1.
fn static_broker_configs(c: &ServerConfig) -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("broker.id", NODE_ID.to_string()),
        ("node.id", NODE_ID.to_string()),
        ("num.partitions", c.default_partitions.to_string()),
        (
            "auto.create.topics.enable",
            c.auto_create_topics.to_string(),
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

/// One config of a resource's answer, before the keys filter.
#[derive(Debug, Clone)]
pub struct ConfigEntry {
    /// The config's name.
    pub name: &'static str,
    /// Its value (`None`: no value, e.g. a broker config without a default).
    pub value: Option<String>,
    /// Where the value comes from ([`source`]).
    pub source: i8,
    /// The value's type ([`kind`]).
    pub kind: i8,
    /// Whether it cannot be changed at run time.
    pub read_only: bool,
    /// Its synonyms: (name, value, source), in Kafka's order of precedence.
    pub synonyms: Vec<(&'static str, Option<String>, i8)>,
    /// Kafka's documentation is its prose: kwire answers null (or "" where Kafka always gives
    /// "", a logger's).
    pub documentation: Option<&'static str>,
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

fn topic_entries(
    topics: &TopicTable,
    statics: &[(&'static str, String)],
    name: &str,
) -> EntriesResult {
    if let Err(e) = valid_topic_name(name) {
        return Err((ErrorCode::InvalidTopicException, e));
    }
    let Some(t) = topics.get(name) else {
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
) -> Vec<ConfigEntry> {
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
            ConfigEntry {
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
            .map(|(n, v)| ConfigEntry {
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
            ConfigEntry {
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
fn group_entries(c: &ServerConfig) -> EntriesResult {
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
        .map(|(name, (value, source), kind)| ConfigEntry {
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
    Ok(vec![ConfigEntry {
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
fn client_metrics_entries() -> Vec<ConfigEntry> {
    [
        ("interval.ms", "300000", kind::INT),
        ("match", "", kind::LIST),
        ("metrics", "", kind::LIST),
    ]
    .into_iter()
    .map(|(name, value, kind)| ConfigEntry {
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
