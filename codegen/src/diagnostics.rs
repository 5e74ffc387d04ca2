//! Diagnostics: what the parser, the lowering and the validator report about a spec file.
//!
//! Every diagnostic carries a stable code (`K` and four digits: K1xxx syntax, K2xxx message and
//! field rules, K3xxx structs, K4xxx folder-wide), a severity, the byte span of the offending text
//! in its file, a message in the spec's own terms and an optional help line.

use std::ops::Range;

/// A half-open byte range `start..end` into one spec file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset one past the last byte.
    pub end: usize,
}

impl Span {
    /// A span covering `start..end` (bytes).
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    /// As a `Range<usize>` for renderers.
    pub fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// How bad a diagnostic is: an error stops code generation for its file, a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Something Kafka accepts but is probably wrong.
    Warning,
    /// Something Kafka's generator rejects (or kwire rejects deliberately).
    Error,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding about a spec file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code, e.g. `"K1001"`.
    pub code: &'static str,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in the spec's own terms.
    pub message: String,
    /// The offending text.
    pub span: Span,
    /// A fix, where one is known ("did you mean `int8`?").
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error with `code` at `span`.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic { code, severity: Severity::Error, message: message.into(), span, help: None }
    }
    /// A warning with `code` at `span`.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic { code, severity: Severity::Warning, message: message.into(), span, help: None }
    }
    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let offset = (0..=offset).rev().find(|o| text.is_char_boundary(*o)).unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, text[line_start..offset].chars().count() + 1)
}
