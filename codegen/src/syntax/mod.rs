//! The spec dialect's syntax: Kafka's JSON with `//` and `/* */` comments and the bare word `TBD`.
//!
//! [`parse`] turns spec text into a tree of [`Value`]s, each with the byte [`Span`] it came from.
//! It never stops at the first error: it recovers and reports every independent syntax error of
//! the file as a [`Diagnostic`](crate::diagnostics::Diagnostic) with a `K1xxx` code.
//!
//! Leniencies kept from Kafka's Jackson reader: duplicate keys are kept in order (the consumer
//! decides that the last one wins), and numbers keep their source text so that later phases can
//! apply Kafka's coercions (a float truncated to an int, an int read as a string).

mod lexer;
mod parser;
mod tree;

pub use crate::diagnostics::Span;
pub use tree::{Member, Parsed, Value, ValueKind};

/// Parses spec text. See the module docs for the dialect.
pub fn parse(src: &str) -> Parsed {
    parser::parse(src)
}
