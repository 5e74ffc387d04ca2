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
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
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
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            help: None,
        }
    }
    /// A warning with `code` at `span`.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: Severity::Warning,
            message: message.into(),
            span,
            help: None,
        }
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
    /// Cuts the message and the help to [`MAX_TEXT`] bytes each (at a character boundary, with
    /// `…`): they quote the spec's own text (names, keys, values), which can be any length, and a
    /// diagnostic stays small whatever the input.
    pub fn shorten(&mut self) {
        shorten(&mut self.message);
        if let Some(h) = &mut self.help {
            shorten(h);
        }
    }
}

/// The most bytes of a diagnostic's message, and of its help (see [`Diagnostic::shorten`]).
pub const MAX_TEXT: usize = 400;

fn shorten(text: &mut String) {
    if text.len() > MAX_TEXT {
        let cut = floor_char_boundary(text, MAX_TEXT);
        text.truncate(cut);
        text.push('…');
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text` (an offset inside a
/// character counts as that character's start; past the end, as the end).
///
/// Linear in `offset`: for many offsets into one text, use a [`LineIndex`].
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, text[line_start..offset].chars().count() + 1)
}

/// `offset` clamped to `text` and moved back to the start of the character it falls in.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Bytes per block of [`LineIndex`]'s character counts: a column costs at most this many byte
/// reads.
const BLOCK: usize = 256;

/// Lines and character counts of one text, indexed once, so that [`LineIndex::line_col`] answers
/// in O(log lines + 256) whatever the length of the lines (as [`line_col`] answers, which reads
/// the text up to the offset each time). Memory: one `usize` per line and per 256 bytes.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the start of each line (the first is 0).
    line_starts: Vec<usize>,
    /// `chars[i]`: the number of characters in `text[..i * BLOCK]`.
    chars: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text` (one pass).
    pub fn new(text: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let mut chars = Vec::with_capacity(text.len() / BLOCK + 1);
        let mut n = 0;
        for block in text.as_bytes().chunks(BLOCK) {
            chars.push(n);
            n += char_starts(block);
        }
        chars.push(n);
        LineIndex {
            text,
            line_starts,
            chars,
        }
    }
    /// The text indexed.
    pub fn text(&self) -> &'a str {
        self.text
    }
    /// The number of lines (a text without `\n` has one).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
    /// The 0-based line of byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = floor_char_boundary(self.text, offset);
        self.line_starts.partition_point(|&s| s <= offset) - 1
    }
    /// The byte range of 0-based line `line`, without its `\n` (clamped to the last line).
    pub fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let line = line.min(self.line_starts.len() - 1);
        let start = self.line_starts[line];
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next - 1);
        start..end
    }
    /// The number of characters in `text[..offset]` (`offset` on a character boundary).
    fn chars_before(&self, offset: usize) -> usize {
        let block = offset / BLOCK;
        self.chars[block] + char_starts(&self.text.as_bytes()[block * BLOCK..offset])
    }
    /// As [`line_col`]: the 1-based line and column (in characters) of byte `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(self.text, offset);
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        (
            line + 1,
            self.chars_before(offset) - self.chars_before(start) + 1,
        )
    }
}

/// The number of characters that start in `bytes` (UTF-8: the bytes that are not continuation
/// bytes).
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

#[cfg(test)]
mod tests {
    use super::{line_col, LineIndex};

    #[test]
    fn line_index_agrees_with_line_col_everywhere() {
        let mut text = String::from("{\n  \"a\": \"é😀\u{a0}x\",\r\n\n");
        text.push_str(&"ü".repeat(700));
        text.push_str("\nend");
        let ix = LineIndex::new(&text);
        for offset in 0..=text.len() + 3 {
            assert_eq!(
                ix.line_col(offset),
                line_col(&text, offset),
                "offset {offset}"
            );
        }
        assert_eq!(ix.line_count(), 5);
        assert_eq!(&text[ix.line_range(1)], "  \"a\": \"é😀\u{a0}x\",\r");
        assert_eq!(&text[ix.line_range(4)], "end");
        assert_eq!(ix.line_range(9), ix.line_range(4));
        let empty = LineIndex::new("");
        assert_eq!(
            (empty.line_col(0), empty.line_col(5), empty.line_range(0)),
            ((1, 1), (1, 1), 0..0)
        );
    }
}
