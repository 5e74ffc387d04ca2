//! Tests of the [`GroupCoordinator`](super::GroupCoordinator) facade, one file per group type:
//! scenarios taken from Kafka's tests and randomised simulations (proptest, 1,000 cases each in
//! plain `cargo test`). They drive the facade, so they live beside it rather than inside the
//! group-type folders, which never name the facade. After every step each test compares the
//! state with `replay` of the records emitted so far.

mod classic_bad_input;
mod classic_scenarios;
mod classic_sim;
mod consumer_scenarios;
mod consumer_sim;
mod harness;
mod migration_scenarios;
mod streams_scenarios;
mod streams_sim;
mod streams_v1_scenarios;
