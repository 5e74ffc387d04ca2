//! Names and words: Kafka's topic-name rules, API names for log lines, and counted nouns.
//!
//! A leaf: it imports nothing from the crate.

use kwire_protocol::generated::ApiKey;

/// The most partitions a topic may have (`--topic`, CreateTopics, streams internal topics,
/// `--default-partitions`): kwire-server's own limit; Kafka has none below `i32::MAX`.
pub const MAX_PARTITIONS: i32 = 100_000;

/// Kafka's topic-name rule (`Topic.validate`): 1-249 characters of `[a-zA-Z0-9._-]`, not `.`
/// or `..`.
///
/// # Errors
/// Kafka's message for the first rule the name breaks.
pub fn valid_topic_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return Err("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > 249 {
        return Err(format!(
            "Topic name is illegal, it can't be longer than 249 characters, topic name: {name}"
        ));
    }
    if !name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || c == b'-')
    {
        return Err(format!("Topic name {name} is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"));
    }
    Ok(())
}

/// A topic name with every '.' replaced by '_': two names with the same key collide (Kafka's
/// `Topic.hasCollision`: its metric names cannot tell them apart).
pub fn collision_key(name: &str) -> String {
    name.replace('.', "_")
}

/// The name of a raw API key: Kafka 4.4's name (`ApiKeys`), or `API key N` for a key Kafka does
/// not define.
pub fn api_label(key: i16) -> String {
    ApiKey::from_i16(key).map_or_else(|| format!("API key {key}"), |k| k.name().to_string())
}

/// `n` and a noun, in the plural unless `n` is 1: `1 partition`, `3 partitions` (`subtopology`
/// becomes `subtopologies`).
pub fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    match noun.strip_suffix('y') {
        _ if n == N::from(1) => format!("1 {noun}"),
        Some(stem) => format!("{n} {stem}ies"),
        None => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names() {
        assert!(valid_topic_name("orders.v1_x-2").is_ok());
        assert!(valid_topic_name("").is_err());
        assert!(valid_topic_name("..").is_err());
        assert!(valid_topic_name("a b").is_err());
        assert!(valid_topic_name(&"x".repeat(250)).is_err());
        assert_eq!(collision_key("a.b_c"), "a_b_c");
    }

    #[test]
    fn api_labels_and_counts() {
        assert_eq!(api_label(71), "GetTelemetrySubscriptions");
        assert_eq!(api_label(-1), "API key -1");
        assert_eq!(api_label(95), "API key 95");
        assert_eq!(count(1, "subtopology"), "1 subtopology");
        assert_eq!(count(2usize, "subtopology"), "2 subtopologies");
        assert_eq!(count(0, "partition"), "0 partitions");
    }
}
