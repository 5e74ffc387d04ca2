//! Kafka 4.x coordinator records: the `coordinator-key` and `coordinator-value` specs of a folder
//! paired into record types, as Kafka's `CoordinatorRecordTypeGenerator` pairs them.
//!
//! A key's `apiKey` is its record type, and the value of the same record carries the same
//! `apiKey`; kwire also expects the pair to be named `XKey` and `XValue` (the folder rule K4010 in
//! [`crate::validate`]). The record type is named `X`, the key's name without its `Key` suffix
//! (Kafka strips `Key` and `Value` from the key's name).

use crate::ir::{MessageKind, Spec};

/// One record type: a key and its value.
#[derive(Debug, Clone, Copy)]
pub struct RecordPair<'a> {
    /// The record type (both specs' `apiKey`).
    pub id: i16,
    /// The `coordinator-key` spec.
    pub key: &'a Spec,
    /// The `coordinator-value` spec.
    pub value: &'a Spec,
}

impl RecordPair<'_> {
    /// The record type's name: the key's name without `Key` (`KwireTopicKey` → `KwireTopic`).
    pub fn name(&self) -> &str {
        stem(&self.key.name)
    }
}

/// A coordinator key's name without its `Key` suffix (the whole name when it has none).
pub fn stem(key_name: &str) -> &str {
    key_name.strip_suffix("Key").filter(|s| !s.is_empty()).unwrap_or(key_name)
}

/// The name kwire expects of the value paired with the key named `key_name` (`XKey` → `XValue`).
pub fn value_name_for(key_name: &str) -> String {
    format!("{}Value", stem(key_name))
}

/// The record types of `specs`: every record type that has exactly one key and at least one
/// value (the first of each, in input order; the folder rules report duplicates and strays),
/// sorted by record type.
pub fn pairs<'a>(specs: &[&'a Spec]) -> Vec<RecordPair<'a>> {
    let mut keys: std::collections::BTreeMap<i16, &'a Spec> = std::collections::BTreeMap::new();
    let mut values: std::collections::HashMap<i16, &'a Spec> = std::collections::HashMap::new();
    for s in specs {
        let Some(id) = s.api_key.assigned() else { continue };
        match s.kind {
            MessageKind::CoordinatorKey => {
                keys.entry(id).or_insert(s);
            }
            MessageKind::CoordinatorValue => {
                values.entry(id).or_insert(s);
            }
            _ => {}
        }
    }
    keys.into_iter().filter_map(|(id, key)| Some(RecordPair { id, key, value: values.get(&id)? })).collect()
}

#[cfg(test)]
mod tests {
    use super::{stem, value_name_for};

    #[test]
    fn stems_drop_the_key_suffix_only() {
        assert_eq!(stem("KwireTopicKey"), "KwireTopic");
        assert_eq!(stem("KeyFooKey"), "KeyFoo");
        assert_eq!(stem("Key"), "Key");
        assert_eq!(stem("Foo"), "Foo");
        assert_eq!(value_name_for("OffsetCommitKey"), "OffsetCommitValue");
    }
}
