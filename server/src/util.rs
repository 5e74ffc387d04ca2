//! Small helpers: CRC-32C, the wall clock, random numbers and the server's member-id generator.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use kwire_protocol::coordinator::MemberIdGenerator;
use kwire_protocol::wire::Uuid;

/// Milliseconds since the Unix epoch (the coordinator's clock: wall time, so that deadlines
/// replayed after a restart make sense).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A random 64-bit number: std's per-process random hash keys over a counter and the clock.
pub fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.finish()
}

/// A random topic or member id in Kafka's style: never zero, and never one whose text form
/// starts with `-` (Kafka's `Uuid.randomUuid` rule; the top bit of the first byte is cleared).
pub fn random_uuid() -> Uuid {
    let v = (u128::from(random_u64()) << 64) | u128::from(random_u64());
    fix_uuid(v)
}

/// A topic id derived from the topic's name (FNV-1a 128), for servers without `--data`: the
/// same name gives the same id in every run. Same rules as [`random_uuid`].
pub fn uuid_from_name(name: &str) -> Uuid {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in b"kwire-topic:".iter().chain(name.as_bytes()) {
        h ^= u128::from(*b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013B);
    }
    fix_uuid(h)
}

fn fix_uuid(v: u128) -> Uuid {
    let mut bytes = v.to_be_bytes();
    bytes[0] &= 0x7f;
    if bytes.iter().all(|b| *b == 0) || bytes == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] {
        bytes[15] = 0x2a;
    }
    Uuid(bytes)
}

/// Member ids for ConsumerGroupHeartbeat v0 joins: random UUIDs in Kafka's text form (URL-safe
/// base64, 22 characters), from std's per-process random keys and the clock.
#[derive(Debug, Default)]
pub struct RandomMemberIds;

impl MemberIdGenerator for RandomMemberIds {
    fn generate(&mut self) -> String {
        random_uuid().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_check_value() {
        // The standard check value of CRC-32C.
        assert_eq!(kwire_protocol::records::crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn ids_are_stable_and_valid() {
        assert_eq!(uuid_from_name("t1"), uuid_from_name("t1"));
        assert_ne!(uuid_from_name("t1"), uuid_from_name("t2"));
        for _ in 0..100 {
            let u = random_uuid();
            assert_ne!(u, Uuid::ZERO);
            assert!(!u.to_string().starts_with('-'));
        }
        let mut g = RandomMemberIds;
        assert_ne!(g.generate(), g.generate());
    }
}
