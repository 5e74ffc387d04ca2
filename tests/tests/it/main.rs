//! kwire's integration tests, as one test binary (one link of the kafka-protocol crates and of
//! the generated test code) with one module per area.
//!
//! Tests that need the shared material (Kafka 3.9.0's spec files and the golden librdkafka
//! frames, under `$KWIRE_SHARED` or `../shared` beside the checkout) run when tests/build.rs
//! found it and set `cfg(kwire_shared)`; otherwise libtest lists them as `ignored`, with the
//! reason. Under `CI=true` a missing shared folder fails the build instead.

mod alloc_count;
mod builder;
mod codegen_fresh;
mod confluent_rust;
mod corpus;
mod cross_check;
mod diff_showcase;
mod golden;
mod invalid_rules;
mod java;
mod java_clients;
mod java_groups;
mod java_oracle;
mod java_streams;
mod json_form;
mod kafka_admin_oracle;
mod kafka_oracle;
mod kip_drafts_fixed;
mod record_types;
mod records;
mod records_codecs;
mod records_java;
mod robustness;
mod schemas_mirror;
mod vectors;
mod views;
