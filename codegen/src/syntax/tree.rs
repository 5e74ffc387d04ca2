//! The tree [`parse`](super::parse) builds: [`Value`]s with their spans. A leaf module, so the
//! parser and the `syntax` facade both take the types from here.

use crate::diagnostics::{Diagnostic, Span};

/// A JSON value with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// What the value is.
    pub kind: ValueKind,
    /// Where it is: for strings the span includes the quotes.
    pub span: Span,
}

/// The kinds of value the dialect has.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueKind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A JSON number, as its source text (e.g. `"-1"`, `"1000.5"`, `"1e3"`).
    Number(String),
    /// A string, with escapes resolved.
    String(String),
    /// A bare word that is not `true`, `false` or `null` (only `TBD` is legal, and only as the
    /// value of `apiKey`; the parser accepts any word here and lets lowering judge).
    Word(String),
    /// `[ ... ]`.
    Array(Vec<Value>),
    /// `{ ... }`, members in source order, duplicates kept.
    Object(Vec<Member>),
}

/// One `"key": value` pair of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The key, escapes resolved.
    pub key: String,
    /// The key's span, quotes included.
    pub key_span: Span,
    /// The value.
    pub value: Value,
}

/// What [`parse`](super::parse) returns: the tree (absent only when nothing resembling a value was found) and
/// every syntax error, in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The root value; after a syntax error it holds what could be recovered.
    pub value: Option<Value>,
    /// Syntax diagnostics (codes K1xxx).
    pub diagnostics: Vec<Diagnostic>,
}

impl Value {
    /// The object's members, if this is an object.
    pub fn as_object(&self) -> Option<&[Member]> {
        match &self.kind {
            ValueKind::Object(m) => Some(m),
            _ => None,
        }
    }
    /// A short name of the kind, for messages ("a string", "an object").
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            ValueKind::Null => "null",
            ValueKind::Bool(_) => "a boolean",
            ValueKind::Number(_) => "a number",
            ValueKind::String(_) => "a string",
            ValueKind::Word(_) => "a bare word",
            ValueKind::Array(_) => "an array",
            ValueKind::Object(_) => "an object",
        }
    }
}
