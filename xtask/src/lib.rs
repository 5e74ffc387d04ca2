//! kwire's project tasks as a library, so that tests run them in-process (a test that spawned
//! `cargo xtask` would wait on the workspace's build lock).

pub mod arch;
pub mod build_cost;
pub mod build_time;
pub mod codegen;
pub mod corpus;
pub mod scratch;
