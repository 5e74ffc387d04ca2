//! Nothing here: the test is `tests/consumer.rs`, run by kwire's `tests/tests/it/confluent_rust.rs`
//! against a kwire-server it starts (`KWIRE_BOOTSTRAP`).
