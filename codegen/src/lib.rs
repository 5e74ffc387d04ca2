//! # kwire-codegen
//!
//! A compiler for Kafka's JSON message specs. Data flows one way:
//!
//! ```text
//! spec text ─syntax─▶ tree with spans ─lower─▶ IR (ir::Spec) ─rust─▶ tokens ─prettyplease─▶ files
//!                        └──────── diagnostics (code, span, message, help) ◀──┘
//! ```
//!
//! * [`syntax`]: the spec dialect (JSON with comments and `TBD`), with error recovery.
//! * [`lower`]: Kafka's leniencies and struct resolution, into [`ir`].
//! * [`rust`]: the Rust emitter: a plan per struct, then the owned, JSON and view emitters.
//! * [`Builder`]: for build scripts, in the manner of prost-build.
//! * [`render`]: rustc-style and JSON rendering of [`diagnostics`].
//! * [`names`]: Rust names for spec names (shared by [`validate`] and [`rust`]).
//! * [`records`]: Kafka 4.x coordinator records, keys and values paired by record type (shared
//!   by [`validate`] and [`rust`]).
//! * [`diff`]: `kwire diff`: what changed between two sets of specs, and whether the bytes did.

pub mod builder;
pub mod diagnostics;
pub mod diff;
pub mod ir;
pub mod lower;
pub mod names;
pub mod records;
pub mod render;
pub mod rust;
pub mod source;
mod suggest;
pub mod syntax;
pub mod validate;

pub use builder::{Builder, Error};
pub use source::{check_files, check_files_alone, Checked, SourceFile};
