//! Confluent's Rust client (`confluent-kafka` 1.0, its KIP-848 consumer, `group.protocol=consumer`)
//! against kwire-server: a consumer joins a group, reads every record, commits chosen offsets and
//! leaves; a second consumer of the same group (`auto.offset.reset=latest`, so only the committed
//! offsets can place it) resumes exactly there; a third reads the offsets the second committed.
//!
//! Run by kwire's `tests/tests/it/confluent_rust.rs`, which starts the server, creates and fills
//! the topic, and passes: `KWIRE_BOOTSTRAP` (host:port), `KWIRE_TOPIC`, `KWIRE_PARTITIONS`,
//! `KWIRE_PER_PARTITION` (records per partition, values `p<partition>-<index>`), `KWIRE_GROUP`.
//! Without `KWIRE_BOOTSTRAP` the test says so and passes (nothing to talk to).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use confluent_kafka::common::serialization::StringDeserializer;
use confluent_kafka::common::TopicPartition;
use confluent_kafka::consumer::{Consumer, ConsumerConfig, KafkaConsumer, OffsetAndMetadata};

/// How long a consumer may take to get all the records it expects.
const DEADLINE: Duration = Duration::from_secs(60);

struct Setup {
    bootstrap: String,
    topic: String,
    partitions: i32,
    per_partition: i64,
    group: String,
}

fn setup() -> Option<Setup> {
    let bootstrap = std::env::var("KWIRE_BOOTSTRAP").ok()?;
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} not set"));
    Some(Setup {
        bootstrap,
        topic: var("KWIRE_TOPIC"),
        partitions: var("KWIRE_PARTITIONS").parse().expect("KWIRE_PARTITIONS"),
        per_partition: var("KWIRE_PER_PARTITION")
            .parse()
            .expect("KWIRE_PER_PARTITION"),
        group: var("KWIRE_GROUP"),
    })
}

fn consumer(s: &Setup, client: &str, reset: &str) -> KafkaConsumer<String, String> {
    let props: HashMap<String, String> = [
        ("bootstrap.servers", s.bootstrap.as_str()),
        ("group.id", s.group.as_str()),
        ("group.protocol", "consumer"),
        ("client.id", client),
        ("auto.offset.reset", reset),
        ("enable.auto.commit", "false"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let config = ConsumerConfig::new(&props).expect("consumer config");
    KafkaConsumer::new(config, StringDeserializer::new(), StringDeserializer::new())
        .expect("consumer")
}

/// Polls until `want` records arrived; returns (offset, value) per partition, in arrival order.
async fn read(
    c: &mut KafkaConsumer<String, String>,
    want: usize,
    who: &str,
) -> BTreeMap<i32, Vec<(i64, String)>> {
    let deadline = Instant::now() + DEADLINE;
    let mut got: BTreeMap<i32, Vec<(i64, String)>> = BTreeMap::new();
    let mut n = 0;
    while n < want {
        assert!(
            Instant::now() < deadline,
            "{who}: {n} of {want} records within {DEADLINE:?}: {got:?}"
        );
        let records = c
            .poll(Duration::from_millis(500))
            .await
            .unwrap_or_else(|e| panic!("{who}: poll: {e}"));
        for r in &records {
            got.entry(r.partition())
                .or_default()
                .push((r.offset(), r.value().cloned().unwrap_or_default()));
            n += 1;
        }
    }
    got
}

fn partitions(s: &Setup) -> Vec<TopicPartition> {
    (0..s.partitions)
        .map(|p| TopicPartition::new(s.topic.as_str(), p))
        .collect()
}

/// Checks that each partition's records are offsets `from..per_partition` with their values.
fn check(s: &Setup, got: &BTreeMap<i32, Vec<(i64, String)>>, from: i64, who: &str) {
    for p in 0..s.partitions {
        let expected: Vec<(i64, String)> = (from..s.per_partition)
            .map(|i| (i, format!("p{p}-{i}")))
            .collect();
        assert_eq!(
            got.get(&p).cloned().unwrap_or_default(),
            expected,
            "{who}: partition {p}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumes_commits_and_resumes_at_the_committed_offsets() {
    let Some(s) = setup() else {
        println!("confluent-rust: KWIRE_BOOTSTRAP not set: run by kwire's tests/tests/it/confluent_rust.rs");
        return;
    };
    let total = (s.partitions as i64 * s.per_partition) as usize;
    let resume = s.per_partition / 2;

    // 1. Join, read everything from the start, commit `resume` on every partition, leave.
    let t0 = Instant::now();
    let mut c1 = consumer(&s, "kwire-cf-1", "earliest");
    c1.subscribe_with_topics(vec![s.topic.clone()])
        .await
        .expect("subscribe");
    let got = read(&mut c1, total, "consumer 1").await;
    check(&s, &got, 0, "consumer 1");
    println!(
        "confluent-rust: consumer 1 joined and read {total} records from {} partitions in {:.1} s",
        s.partitions,
        t0.elapsed().as_secs_f64()
    );
    let offsets: HashMap<TopicPartition, OffsetAndMetadata> = partitions(&s)
        .into_iter()
        .map(|tp| (tp, OffsetAndMetadata::new(resume).expect("offset")))
        .collect();
    c1.commit_sync_with_offsets(offsets).await.expect("commit");
    let committed = c1.committed(&partitions(&s)).await.expect("committed");
    for tp in partitions(&s) {
        assert_eq!(
            committed.get(&tp).cloned().flatten().map(|o| o.offset()),
            Some(resume),
            "{tp:?}"
        );
    }
    c1.close().await.expect("close 1");
    println!("confluent-rust: consumer 1 committed offset {resume} on every partition and left");

    // 2. A new member of the group resumes at the committed offsets (reset=latest would read
    //    nothing), then commits its position.
    let mut c2 = consumer(&s, "kwire-cf-2", "latest");
    c2.subscribe_with_topics(vec![s.topic.clone()])
        .await
        .expect("subscribe");
    let rest = total - (s.partitions as i64 * resume) as usize;
    let got = read(&mut c2, rest, "consumer 2").await;
    check(&s, &got, resume, "consumer 2");
    c2.commit_sync().await.expect("commit 2");
    c2.close().await.expect("close 2");
    println!(
        "confluent-rust: consumer 2 resumed at offset {resume}, read {rest} records, committed its position"
    );

    // 3. What the group committed last: the end of every partition.
    let mut c3 = consumer(&s, "kwire-cf-3", "latest");
    let committed = c3.committed(&partitions(&s)).await.expect("committed");
    for tp in partitions(&s) {
        assert_eq!(
            committed.get(&tp).cloned().flatten().map(|o| o.offset()),
            Some(s.per_partition),
            "{tp:?}"
        );
    }
    c3.close().await.expect("close 3");
    println!(
        "confluent-rust: consumer 3 reads committed offset {} on every partition",
        s.per_partition
    );
}
