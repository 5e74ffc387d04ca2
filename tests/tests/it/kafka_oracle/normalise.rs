//! What the comparison leaves out or renames before two responses are compared.
//!
//! Responses are compared in Kafka's JSON form (`Response::to_json` at the version asked for),
//! after [`Names::normalise`]:
//! - every string bound to a symbolic name (a member id the coordinator generated, a member id the
//!   test generated for a ConsumerGroupHeartbeat v1 member, a topic id) is replaced by that name,
//!   wherever it appears (member ids, leaders, describe results, assignments);
//! - `throttleTimeMs` is dropped (timing);
//! - `errorMessage` is dropped (free text; the error code is compared), and so is a streams
//!   status's `statusDetail` (free text; the status code is compared);
//! - `clientHost` is dropped (Kafka writes the peer as `/127.0.0.1`, an `InetAddress` string);
//! - a null `subscribedTopicRegex` is compared as "" (what Kafka 4.4.0 writes for a member
//!   without a regex);
//! - every array is sorted (by the compact JSON of its normalised elements): the order of
//!   members, groups and partitions in these responses comes from hash maps on both sides and
//!   carries no meaning.

use kwire_protocol::wire::json::Value;
use std::collections::HashMap;

/// The symbolic names of one scenario on one side.
#[derive(Debug, Default, Clone)]
pub struct Names {
    map: HashMap<String, String>,
}

impl Names {
    /// Binds `raw` to `name` unless `raw` is empty or already bound (the first binding wins).
    pub fn bind(&mut self, raw: &str, name: &str) {
        if !raw.is_empty() {
            self.map
                .entry(raw.to_string())
                .or_insert_with(|| name.to_string());
        }
    }

    /// The name bound to `raw`, if any.
    pub fn name_of(&self, raw: &str) -> Option<&str> {
        self.map.get(raw).map(String::as_str)
    }

    /// `v` with the rules of this module applied.
    pub fn normalise(&self, v: Value) -> Value {
        self.normalise_with(v, &Migration::default())
    }

    /// `v` with the rules of this module and those of `m` applied.
    pub fn normalise_with(&self, v: Value, m: &Migration) -> Value {
        let v = self.normalise_inner(v);
        m.apply(v)
    }

    fn normalise_inner(&self, v: Value) -> Value {
        match v {
            Value::String(s) => match self.map.get(&s) {
                Some(n) => Value::String(n.clone()),
                None => Value::String(s),
            },
            Value::Array(a) => {
                let mut items: Vec<Value> =
                    a.into_iter().map(|x| self.normalise_inner(x)).collect();
                items.sort_by_cached_key(|x| x.to_string());
                Value::Array(items)
            }
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .filter(|(k, _)| {
                        !matches!(
                            k.as_str(),
                            "throttleTimeMs" | "errorMessage" | "clientHost" | "statusDetail"
                        )
                    })
                    .map(|(k, x)| (k, self.normalise_inner(x)))
                    .collect(),
            ),
            other => other,
        }
    }
}

/// The extra rules of the migration scenarios (accepted differences A7 and A8 of the module
/// docs).
#[derive(Debug, Default, Clone)]
pub struct Migration {
    /// Server-side assignments compared by size: every `partitions` array of numbers becomes
    /// its length, and assignment bytes (`assignment`, `memberAssignment` strings) are dropped
    /// (the scripts record them decoded, as `partitions` arrays).
    pub counts: bool,
    /// Epochs relative to the first epoch of a new consumer group: `memberEpoch`,
    /// `generationId`, `groupEpoch` and `assignmentEpoch` values above 0 become
    /// `value - base + 1`.
    pub epoch_base: Option<i32>,
}

impl Migration {
    fn apply(&self, v: Value) -> Value {
        match v {
            Value::Array(a) => Value::Array(a.into_iter().map(|x| self.apply(x)).collect()),
            Value::Object(o) => Value::Object(
                o.into_iter()
                    .filter(|(k, x)| {
                        !(self.counts
                            && matches!(k.as_str(), "assignment" | "memberAssignment")
                            && x.is_string())
                    })
                    .map(|(k, x)| {
                        let x = match (k.as_str(), x) {
                            ("partitions", Value::Array(a))
                                if self.counts && a.iter().all(Value::is_number) =>
                            {
                                Value::from(a.len())
                            }
                            (
                                "memberEpoch" | "generationId" | "groupEpoch" | "assignmentEpoch",
                                Value::Number(n),
                            ) => match (self.epoch_base, n.as_i64()) {
                                (Some(base), Some(e)) if e > 0 => {
                                    Value::from(e - i64::from(base) + 1)
                                }
                                _ => Value::Number(n),
                            },
                            (_, x) => self.apply(x),
                        };
                        (k, x)
                    })
                    .collect(),
            ),
            other => other,
        }
    }
}

#[test]
fn migration_rules_count_partitions_and_rebase_epochs() {
    let m = Migration {
        counts: true,
        epoch_base: Some(2),
    };
    let v: Value = serde_json::json!({"memberEpoch": 3, "generationId": -1, "assignment": "AAM=",
        "x": {"assignment": {"topicPartitions": [{"topicId": "t", "partitions": [2, 3]}]}}});
    assert_eq!(
        Names::default().normalise_with(v, &m),
        serde_json::json!({"memberEpoch": 2, "generationId": -1,
            "x": {"assignment": {"topicPartitions": [{"topicId": "t", "partitions": 2}]}}})
    );
}

#[test]
fn names_replace_ids_everywhere_and_arrays_are_sorted() {
    let mut n = Names::default();
    n.bind("c-123", "a");
    n.bind("c-456", "b");
    n.bind("c-123", "z");
    n.bind("", "empty");
    let v: Value = serde_json::json!({
        "throttleTimeMs": 5, "errorCode": 0, "errorMessage": "x", "leader": "c-456",
        "members": [{"memberId": "c-456"}, {"memberId": "c-123"}], "memberId": ""
    });
    assert_eq!(
        n.normalise(v),
        serde_json::json!({"errorCode": 0, "leader": "b", "members": [{"memberId": "a"}, {"memberId": "b"}], "memberId": ""})
    );
    assert_eq!(n.name_of("c-123"), Some("a"));
}
