//! The spec dialect's lexer: turns text into [`Token`]s with byte spans.
//!
//! Whitespace and comments (`// line`, `/* block */`) are skipped. Lexical errors (unterminated
//! strings and comments, raw control characters, bad escapes, bad numbers, stray characters) are
//! reported here, with the codes documented in the parser's module docs, and the lexer always
//! keeps going: every byte of the input ends up in a token, in skipped trivia, or in an
//! [`TokenKind::Invalid`] token whose error has already been reported. The parser skips invalid
//! tokens silently, so that one stray character gives one diagnostic.
//!
//! A string that runs into the end of its line has a missing or an extra `"` somewhere on that
//! line, after which every quote pairs up wrongly. The lexer then tries each place where a quote
//! could be added or dropped, keeps the one that makes the line read as JSON, reports it once,
//! and re-lexes the line as if it were fixed ([`Lexer::try_repair`]); only if none fits is the
//! string cut at the end of its text.

use crate::diagnostics::{Diagnostic, Span};

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TokenKind {
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `:`
    Colon,
    /// `,`
    Comma,
    /// A double-quoted string, escapes resolved. `terminated` is false when the closing quote is
    /// missing and no repair of its line was found (the error is already reported; the parser
    /// avoids follow-on errors).
    Str {
        /// The string's content, escapes resolved.
        value: String,
        /// Whether the closing `"` was found.
        terminated: bool,
    },
    /// A single-quoted string (not JSON; the parser reports it where it is used).
    SingleQuoted(String),
    /// A number's source text; invalid literals are already reported but kept.
    Number(String),
    /// A bare identifier-like word (`true`, `false`, `null`, `TBD`, ...).
    Word(String),
    /// Text that is no token at all; already reported.
    Invalid,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Its bytes (strings: quotes included; a repaired string's missing quote has no byte, so
    /// its span starts or ends where the quote belongs).
    pub span: Span,
}

/// The lexer's result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lexed {
    /// All tokens in source order.
    pub tokens: Vec<Token>,
    /// Lexical errors (about in source order; [`parse`](super::parser::parse) sorts all).
    pub diagnostics: Vec<Diagnostic>,
    /// True when an unterminated block comment or string ran into the end of the input: the
    /// parser then does not report the (follow-on) unexpected end of input.
    pub eof_swallowed: bool,
}

/// Splits `src` into tokens, reporting lexical errors.
pub(crate) fn lex(src: &str) -> Lexed {
    lex_with(src, true)
}

/// [`lex`], with or without the repair of a line's mis-paired quotes (see [`Lexer::try_repair`]).
fn lex_with(src: &str, repair: bool) -> Lexed {
    let mut lexer = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        diags: Vec::new(),
        eof_swallowed: false,
        string_continues_until: None,
        repair_budget: if repair { REPAIR_BUDGET } else { 0 },
        repair: None,
        repaired_up_to: 0,
    };
    lexer.run();
    Lexed {
        tokens: lexer.tokens,
        diagnostics: lexer.diags,
        eof_swallowed: lexer.eof_swallowed,
    }
}

/// Lines longer than this (bytes) are not considered for quote repair.
const MAX_REPAIR_LINE: usize = 400;

/// Total bytes of trial lexing that quote repairs may spend on one input (keeps the lexer
/// linear on adversarial input).
const REPAIR_BUDGET: usize = 4 << 20;

/// A quote repair: where a `"` is missing (inserted with zero width) or which `"` is extra.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repair {
    Insert(usize),
    Remove(usize),
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diags: Vec<Diagnostic>,
    eof_swallowed: bool,
    /// While lexing a string that spans raw line breaks: the offset of its closing quote, so the
    /// look-ahead runs once per string and not once per line break.
    string_continues_until: Option<usize>,
    /// Bytes of trial lexing left for quote repairs; 0 disables them.
    repair_budget: usize,
    /// The pending quote repair of a line (see [`Lexer::try_repair`]): a `"` missing from the
    /// source, which the lexer acts as if it stood (with zero width) at its offset, or an extra
    /// `"`, which it skips.
    repair: Option<Repair>,
    /// Strings starting before this offset are not repaired (one repair per line, so that the
    /// lexer, which steps back to re-lex a repaired line, always terminates).
    repaired_up_to: usize,
}

/// True for the bytes JSON allows between tokens.
fn is_json_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

fn is_word_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Bytes swallowed into a number token (maximal munch, so `0x1F` or `1.2.3` is one bad literal).
fn is_number_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_')
}

/// How to write a control character inside a JSON string.
fn control_escape(c: char) -> (&'static str, String) {
    match c {
        '\n' => ("newline", "\\n".to_string()),
        '\r' => ("carriage return", "\\r".to_string()),
        '\t' => ("tab", "\\t".to_string()),
        '\u{8}' => ("backspace", "\\b".to_string()),
        '\u{c}' => ("form feed", "\\f".to_string()),
        _ => ("control character", format!("\\u{:04x}", c as u32)),
    }
}

/// Checks a number's source text against the JSON grammar
/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; on failure returns a help line.
fn check_number(raw: &str) -> Result<(), String> {
    let b = raw.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'+') {
        return Err("JSON numbers cannot start with `+`: remove it".to_string());
    }
    if b.first() == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - s
    };
    let int_start = i;
    let n = digits(&mut i);
    if n == 0 {
        return Err(if b.get(i) == Some(&b'.') {
            "a JSON number needs a digit before the `.`: write `0.` first".to_string()
        } else {
            "a JSON number needs at least one digit".to_string()
        });
    }
    if n > 1 && b[int_start] == b'0' {
        return Err("JSON numbers cannot have leading zeros: remove them".to_string());
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return Err("a JSON number needs a digit after the `.`".to_string());
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return Err("the exponent needs at least one digit, e.g. `1e3`".to_string());
        }
    }
    if i < b.len() {
        let rest = &raw[i..];
        if rest.starts_with(['x', 'X']) && &raw[int_start..i] == "0" {
            return Err("JSON numbers are decimal: write the value in base 10".to_string());
        }
        return Err(format!(
            "a JSON number cannot be followed by `{rest}`; if this is text, put it in double quotes"
        ));
    }
    Ok(())
}

/// How many characters of a string's text look like JSON structure (`{ } [ ] : ,`), not
/// counting the `[]` of a Kafka array type such as `[]TaskId`.
fn structural_chars(text: &str) -> usize {
    text.replace("[]", "")
        .chars()
        .filter(|c| matches!(c, '{' | '}' | '[' | ']' | ':' | ','))
        .count()
}

/// True for the tokens that begin a value.
fn is_value_start(kind: &TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::Str { .. }
            | TokenKind::Number(_)
            | TokenKind::Word(_)
            | TokenKind::LBrace
            | TokenKind::LBracket
    )
}

/// True when a line lexed without error and reads like a line of JSON: only the words `true`,
/// `false`, `null` and `TBD`; no two values (or a closer and a value) in a row without a
/// separator; every `:` right after a string and before a value (or the line's end); and, on a
/// line that starts with `"key":`, a `:` after every string that follows a `,` at the line's
/// own level.
fn plausible_line(lexed: &Lexed) -> bool {
    if !lexed.diagnostics.is_empty() || lexed.eof_swallowed {
        return false;
    }
    let ends_value = |k: &TokenKind| {
        matches!(
            k,
            TokenKind::Str { .. }
                | TokenKind::Number(_)
                | TokenKind::Word(_)
                | TokenKind::RBrace
                | TokenKind::RBracket
        )
    };
    // A line that starts with `"key":` is inside an object: at its own level, a string after a
    // `,` is a key, so a `:` must follow it.
    let in_object = matches!(
        (
            lexed.tokens.first().map(|t| &t.kind),
            lexed.tokens.get(1).map(|t| &t.kind)
        ),
        (Some(TokenKind::Str { .. }), Some(TokenKind::Colon))
    );
    let mut depth = 0usize;
    let mut prev: Option<&TokenKind> = None;
    for (i, tok) in lexed.tokens.iter().enumerate() {
        let kind = &tok.kind;
        match kind {
            TokenKind::LBrace | TokenKind::LBracket => depth += 1,
            TokenKind::RBrace | TokenKind::RBracket => depth = depth.saturating_sub(1),
            TokenKind::Str { .. }
                if in_object
                    && depth == 0
                    && prev == Some(&TokenKind::Comma)
                    && lexed.tokens.get(i + 1).map(|t| &t.kind) != Some(&TokenKind::Colon) =>
            {
                return false
            }
            _ => {}
        }
        match kind {
            TokenKind::Word(w) if !matches!(w.as_str(), "true" | "false" | "null" | "TBD") => {
                return false
            }
            TokenKind::Invalid
            | TokenKind::SingleQuoted(_)
            | TokenKind::Str {
                terminated: false, ..
            } => return false,
            TokenKind::Colon
                if !matches!(prev, Some(TokenKind::Str { .. }))
                    || lexed
                        .tokens
                        .get(i + 1)
                        .is_some_and(|t| !is_value_start(&t.kind)) =>
            {
                return false
            }
            _ => {}
        }
        if is_value_start(kind) && prev.is_some_and(ends_value) {
            return false;
        }
        prev = Some(kind);
    }
    true
}

impl<'a> Lexer<'a> {
    /// Whether the pending quote repair is at `pos` (words and numbers stop there).
    fn repair_at(&self, pos: usize) -> bool {
        matches!(self.repair, Some(Repair::Insert(p) | Repair::Remove(p)) if p == pos)
    }

    fn push(&mut self, kind: TokenKind, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, end),
        });
    }

    fn error(&mut self, code: &'static str, span: Span, message: String, help: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(code, span, message).with_help(help));
    }

    fn char_at(&self, pos: usize) -> char {
        // `pos` is always a char boundary below `len`.
        self.src[pos..].chars().next().unwrap_or('\u{fffd}')
    }

    fn run(&mut self) {
        // A UTF-8 byte-order mark is accepted (as Jackson does) and skipped.
        if self.src.starts_with('\u{feff}') {
            self.pos = '\u{feff}'.len_utf8();
        }
        while self.pos < self.bytes.len() {
            let start = self.pos;
            match self.repair {
                Some(Repair::Insert(p)) if p == start => {
                    // A repaired line's missing opening quote.
                    self.repair = None;
                    self.string_from(start, start);
                    continue;
                }
                Some(Repair::Remove(d)) if d == start => {
                    self.repair = None;
                    self.pos += 1;
                    continue;
                }
                Some(Repair::Insert(p) | Repair::Remove(p)) if p < start => self.repair = None,
                _ => {}
            }
            let b = self.bytes[start];
            match b {
                _ if is_json_whitespace(b) => self.pos += 1,
                b'{' => self.single(TokenKind::LBrace),
                b'}' => self.single(TokenKind::RBrace),
                b'[' => self.single(TokenKind::LBracket),
                b']' => self.single(TokenKind::RBracket),
                b':' => self.single(TokenKind::Colon),
                b',' => self.single(TokenKind::Comma),
                b'"' => self.string_from(start, start + 1),
                b'/' if self.bytes.get(start + 1) == Some(&b'/') => self.line_comment(),
                b'/' if self.bytes.get(start + 1) == Some(&b'*') => self.block_comment(),
                b'#' => self.hash_comment(),
                b'\'' => self.single_quoted(),
                b'-' | b'+' | b'0'..=b'9' => self.number(),
                b'.' if self.bytes.get(start + 1).is_some_and(u8::is_ascii_digit) => self.number(),
                _ if is_word_start(b) => self.word(),
                _ if self.char_at(start).is_whitespace() => self.foreign_whitespace(),
                _ => self.unexpected(),
            }
        }
    }

    fn single(&mut self, kind: TokenKind) {
        self.push(kind, self.pos, self.pos + 1);
        self.pos += 1;
    }

    fn line_comment(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        match self.src[start + 2..].find("*/") {
            Some(i) => self.pos = start + 2 + i + 2,
            None => {
                self.pos = self.bytes.len();
                self.eof_swallowed = true;
                self.error(
                    "K1006",
                    Span::new(start, start + 2),
                    "unterminated block comment: this `/*` is never closed".to_string(),
                    "close the comment with `*/`",
                );
            }
        }
    }

    fn hash_comment(&mut self) {
        let start = self.pos;
        self.line_comment();
        // Trailing whitespace of the line (e.g. the `\r` of CRLF) is not part of the comment.
        let mut end = self.pos;
        while end > start && is_json_whitespace(self.bytes[end - 1]) {
            end -= 1;
        }
        self.error(
            "K1001",
            Span::new(start, end),
            "unexpected character `#`: `#` comments are not allowed".to_string(),
            "use `//` for a line comment",
        );
        self.push(TokenKind::Invalid, start, end);
    }

    fn word(&mut self) {
        let start = self.pos;
        while self.pos < self.bytes.len()
            && is_word_continue(self.bytes[self.pos])
            && !self.repair_at(self.pos)
        {
            self.pos += 1;
        }
        let text = self.src[start..self.pos].to_string();
        self.push(TokenKind::Word(text), start, self.pos);
    }

    fn number(&mut self) {
        let start = self.pos;
        self.pos += 1;
        while self.pos < self.bytes.len()
            && is_number_continue(self.bytes[self.pos])
            && !self.repair_at(self.pos)
        {
            self.pos += 1;
        }
        let raw = &self.src[start..self.pos];
        if let Err(help) = check_number(raw) {
            let message = format!("invalid number literal `{raw}`");
            self.error("K1012", Span::new(start, self.pos), message, help);
        }
        self.push(TokenKind::Number(raw.to_string()), start, self.pos);
    }

    /// Whitespace that JSON does not allow between tokens (U+00A0 no-break space, pasted from a
    /// wiki page, and the other Unicode spaces): one diagnostic for a run of it on a line (plain
    /// spaces and tabs between included), then skipped as whitespace, so that the tokens around
    /// it are judged as if it were a plain space (a missing comma is still reported).
    fn foreign_whitespace(&mut self) {
        let start = self.pos;
        let mut end = start;
        let mut last_foreign = start;
        while end < self.bytes.len() {
            let c = self.char_at(end);
            if matches!(c, ' ' | '\t') {
                end += 1;
            } else if c.is_whitespace() && !matches!(c, '\n' | '\r') {
                end += c.len_utf8();
                last_foreign = end;
            } else {
                break;
            }
        }
        let first = self.char_at(start);
        let name = match first {
            '\u{a0}' => "no-break space (U+00A0)".to_string(),
            '\u{2007}' => "figure space (U+2007)".to_string(),
            '\u{202f}' => "narrow no-break space (U+202F)".to_string(),
            '\u{3000}' => "ideographic space (U+3000)".to_string(),
            c => format!("space character U+{:04X}", c as u32),
        };
        self.error(
            "K1015",
            Span::new(start, last_foreign),
            format!("{name} where JSON allows only plain whitespace"),
            "replace it with plain spaces (it often comes from copying a web page)",
        );
        self.pos = last_foreign;
    }

    /// A run of characters that start no token, reported once.
    fn unexpected(&mut self) {
        let start = self.pos;
        let first = self.char_at(start);
        self.pos += first.len_utf8();
        // `/` and `.` start tokens only in some contexts; treat them as stray on their own.
        if !matches!(first, '/' | '.') {
            while self.pos < self.bytes.len() {
                let b = self.bytes[self.pos];
                if is_json_whitespace(b)
                    || is_word_start(b)
                    || b.is_ascii_digit()
                    || b"{}[]:,\"'/#-+.".contains(&b)
                {
                    break;
                }
                self.pos += self.char_at(self.pos).len_utf8();
            }
        }
        let text = &self.src[start..self.pos];
        let shown: String = text.chars().flat_map(char::escape_debug).collect();
        let message = if text.chars().count() == 1 {
            format!("unexpected character `{shown}`")
        } else {
            format!("unexpected characters `{shown}`")
        };
        let help = match first {
            '/' => "comments start with `//` or `/*`; otherwise remove this `/`",
            '=' => "use `:` between a key and its value",
            ';' => "use `,` to separate members and elements",
            '.' => "a number needs a digit before the `.`, e.g. `0.5`",
            '(' | ')' | '<' | '>' => "JSON groups with `{ }` (objects) and `[ ]` (arrays)",
            _ if first.is_whitespace() => "only spaces, tabs and line breaks may separate tokens",
            _ => "remove it, or put text in double quotes",
        };
        self.error("K1001", Span::new(start, self.pos), message, help);
        self.push(TokenKind::Invalid, start, self.pos);
    }

    fn single_quoted(&mut self) {
        let start = self.pos;
        let mut i = start + 1;
        let mut value = String::new();
        while i < self.bytes.len() {
            let c = self.char_at(i);
            match c {
                '\'' => {
                    self.pos = i + 1;
                    self.push(TokenKind::SingleQuoted(value), start, self.pos);
                    return;
                }
                // Not across a line or a double quote: then the `'` is just stray (e.g. `it's`).
                '\n' | '\r' | '"' => break,
                '\\' if i + 1 < self.bytes.len() && !matches!(self.bytes[i + 1], b'\n' | b'\r') => {
                    let e = self.char_at(i + 1);
                    value.push(e);
                    i += 1 + e.len_utf8();
                }
                _ => {
                    value.push(c);
                    i += c.len_utf8();
                }
            }
        }
        // No closing quote on this line: just a stray `'`.
        self.pos = start + 1;
        self.error(
            "K1001",
            Span::new(start, start + 1),
            "unexpected character `'`".to_string(),
            "JSON strings use double quotes: `\"...\"`",
        );
        self.push(TokenKind::Invalid, start, start + 1);
    }

    /// Decides whether a raw line break at `nl` inside a string is part of the string (a
    /// multi-line string, reported as a raw control character) or marks an unterminated string.
    /// It is part of the string when a later closing `"` exists and is followed by something that
    /// may follow a string (`,` `:` `}` `]` or the end of input), not by more text (which means
    /// that quote opens the next string).
    fn string_continues(&mut self, nl: usize) -> bool {
        if let Some(q) = self.string_continues_until {
            return nl < q;
        }
        let b = self.bytes;
        let mut i = nl;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        if i >= b.len() {
            return false;
        }
        let q = i;
        let mut j = q + 1;
        while j < b.len() && is_json_whitespace(b[j]) {
            j += 1;
        }
        let ok =
            j >= b.len() || matches!(b[j], b',' | b':' | b'}' | b']') || b[j..].starts_with(b"//");
        if ok {
            self.string_continues_until = Some(q);
        }
        ok
    }

    /// Lexes a double-quoted string whose opening `"` starts at `start` and whose content starts
    /// at `content` (`start + 1`, or `start` for a repaired line's missing opening quote).
    ///
    /// An unterminated string is first offered to [`Lexer::try_repair`]. Failing that, it ends
    /// at the end of its line (or of the input), minus any trailing run of whitespace, `,`, `}`
    /// and `]`: those are lexed as tokens again, so that `"about": "text },` still closes its
    /// object.
    fn string_from(&mut self, start: usize, content: usize) {
        let len = self.bytes.len();
        let diags_before = self.diags.len();
        let mut value = String::new();
        let mut i = content;
        // End offset and value length after the last character that is not whitespace or
        // `,` `}` `]`: where an unterminated string is cut.
        let mut keep = (i, 0);
        self.string_continues_until = None;
        let terminated = loop {
            match self.repair {
                Some(Repair::Insert(p)) if p == i && i > start => {
                    // A repaired line's missing closing quote.
                    self.repair = None;
                    break true;
                }
                Some(Repair::Remove(d)) if d == i => {
                    // A repaired line's extra quote.
                    self.repair = None;
                    i += 1;
                    continue;
                }
                _ => {}
            }
            if i >= len || matches!(self.bytes[i], b'\n' | b'\r') && !self.string_continues(i) {
                if self.try_repair(start, i, keep.0) {
                    return;
                }
                let (cut, value_len) = keep;
                value.truncate(value_len);
                // Errors reported inside the cut-off tail (a raw tab) are dropped: it is lexed again.
                let inside = self.diags.split_off(diags_before);
                self.diags
                    .extend(inside.into_iter().filter(|d| d.span.start < cut));
                // Only when nothing is lexed again did the string swallow the end of input.
                self.eof_swallowed |= cut == len;
                let (what, help) = if i >= len {
                    ("input", "add the closing `\"`")
                } else {
                    ("line", "add the closing `\"` at the end of the text")
                };
                self.error(
                    "K1003",
                    Span::new(start, cut),
                    format!("unterminated string: the {what} ends before its closing `\"`"),
                    help,
                );
                i = cut;
                break false;
            }
            let c = self.char_at(i);
            match c {
                '"' => {
                    i += 1;
                    break true;
                }
                '\\' => {
                    i = self.escape(i, &mut value);
                    keep = (i, value.len());
                }
                '\n' | '\r' => {
                    // Here the string goes on after the line break (checked above).
                    // CRLF is one line break.
                    let n = if c == '\r' && self.bytes.get(i + 1) == Some(&b'\n') {
                        2
                    } else {
                        1
                    };
                    let (what, esc) = if n == 2 {
                        ("line break", "\\r\\n".to_string())
                    } else {
                        control_escape(c)
                    };
                    // The line break and the indentation after it are one mistake (a string
                    // wrapped over lines): one diagnostic, pointing at the break.
                    let mut end = i + n;
                    while end < len && matches!(self.bytes[end], b' ' | b'\t') {
                        end += 1;
                    }
                    // Zero-width at the break, so that renderers show one line with a caret.
                    self.error(
                        "K1004",
                        Span::new(i, i),
                        format!("raw {what} inside a string"),
                        format!("escape the {what} as {esc}, or join the lines"),
                    );
                    value.push_str(&self.src[i..end]);
                    i = end;
                    keep = (i, value.len());
                }
                _ if (c as u32) < 0x20 => {
                    // A run of the same control character is one mistake.
                    let mut end = i + 1;
                    while end < len && self.bytes[end] == c as u8 {
                        end += 1;
                    }
                    let (what, esc) = control_escape(c);
                    let what = if end - i > 1 {
                        format!("{what}s")
                    } else {
                        what.to_string()
                    };
                    self.error(
                        "K1004",
                        Span::new(i, end),
                        format!("raw {what} inside a string"),
                        format!("escape the {what} as {esc}"),
                    );
                    value.push_str(&self.src[i..end]);
                    i = end;
                    if c != '\t' {
                        keep = (i, value.len());
                    }
                }
                _ => {
                    value.push(c);
                    i += c.len_utf8();
                    if !matches!(c, ' ' | ',' | '}' | ']') {
                        keep = (i, value.len());
                    }
                }
            }
        };
        self.string_continues_until = None;
        if matches!(self.repair, Some(Repair::Insert(p) | Repair::Remove(p)) if p < i) {
            // Stepped over (inside an escape): forget it rather than act on it later.
            self.repair = None;
        }
        self.pos = i;
        self.push(TokenKind::Str { value, terminated }, start, i);
    }

    /// Repairs a line whose quotes pair up wrongly because one `"` is missing or one is extra.
    ///
    /// Called when the string opened at `start` runs into the end of its line at `eol` (`cut`:
    /// where the plain recovery would cut it). The line is lexed again on trial, once with a
    /// `"` inserted at each place where one could be missing (between tokens or at a word's
    /// edge: at the end of the string's text first, then earlier on the line, then inside the
    /// string), then once without each of its `"` (between two word characters, only where the
    /// result lies inside a string). A trial
    /// counts when the line reads plausibly (no lexical error, only legal words, no two values
    /// in a row, every `:` after a string); the best one has the lowest score: twice the
    /// structural characters (`{ } [ ] : ,`, not counting the `[]` of a Kafka array type) inside
    /// the string it changes, plus one for a removal, plus two for an insertion that makes an
    /// empty string; ties go to the earlier trial.
    ///
    /// The lexer then reports one diagnostic (K1003 for a missing quote, K1001 for an extra one),
    /// steps back to the line's first affected token and re-lexes the line with a zero-width
    /// `"` at the insertion point, or skipping the extra `"`.
    fn try_repair(&mut self, start: usize, eol: usize, cut: usize) -> bool {
        if start < self.repaired_up_to || self.repair_budget == 0 {
            return false;
        }
        let line_start = self.src[..start].rfind('\n').map_or(0, |k| k + 1);
        let region_start = self
            .tokens
            .iter()
            .rev()
            .take_while(|t| t.span.start >= line_start)
            .last()
            .map_or(start, |t| t.span.start);
        let region_len = eol - region_start;
        if region_len > MAX_REPAIR_LINE {
            return false;
        }
        let src = self.src;
        let word_ish = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '+' | '-');
        // Whether `p` is at a word's edge or outside words (so a quote there splits no token).
        let at_edge = |p: usize, after_from: usize| {
            let before = src[..p].chars().next_back();
            let after = src[after_from..eol].chars().next();
            p == region_start || !before.is_some_and(word_ish) || !after.is_some_and(word_ish)
        };
        let insertions = (cut..=eol)
            .chain((region_start..start).rev())
            .chain(start + 1..cut)
            .filter(|&p| src.is_char_boundary(p) && (p == eol || at_edge(p, p)))
            .map(Repair::Insert);
        let removals = (region_start..eol)
            .filter(|&d| self.bytes[d] == b'"')
            .map(Repair::Remove);
        let mut best: Option<(usize, Repair, Span)> = None;
        for repair in insertions.chain(removals) {
            if self.repair_budget < region_len + 1 {
                self.repair_budget = 0;
                break;
            }
            self.repair_budget -= region_len + 1;
            let (trial, q) = match repair {
                Repair::Insert(p) => (
                    format!("{}\"{}", &src[region_start..p], &src[p..eol]),
                    p - region_start,
                ),
                Repair::Remove(d) => (
                    format!("{}{}", &src[region_start..d], &src[d + 1..eol]),
                    d - region_start,
                ),
            };
            let lexed = lex_with(&trial, false);
            if !plausible_line(&lexed) {
                continue;
            }
            // The string the repair changes, in trial offsets.
            let changed = lexed.tokens.iter().find(|t| {
                matches!(t.kind, TokenKind::Str { .. })
                    && match repair {
                        Repair::Insert(_) => t.span.start == q || t.span.end == q + 1,
                        // The string around the removed quote, or one starting or ending there.
                        Repair::Remove(_) => t.span.start <= q + 1 && q <= t.span.end,
                    }
            });
            if let Repair::Remove(d) = repair {
                // Between two word characters, a removal must land inside a string: elsewhere
                // the trial would join two words that the real lexer keeps apart.
                let inside = changed.is_some_and(|t| t.span.start < q && q < t.span.end);
                if !(inside || d + 1 == eol || at_edge(d, d + 1)) {
                    continue;
                }
            }
            let (score, span) = match (repair, changed) {
                (Repair::Insert(p), Some(t)) => {
                    let span = if t.span.start == q {
                        Span::new(p, region_start + t.span.end - 1)
                    } else {
                        Span::new(region_start + t.span.start, p)
                    };
                    let text = &trial[t.span.start + 1..t.span.end - 1];
                    // An empty string is rarely what a missing quote was for.
                    (
                        2 * structural_chars(text) + if text.is_empty() { 2 } else { 0 },
                        span,
                    )
                }
                (Repair::Insert(_), None) => continue,
                (Repair::Remove(d), t) => {
                    let inside = t.map_or(0, |t| {
                        structural_chars(&trial[t.span.start + 1..t.span.end - 1])
                    });
                    (2 * inside + 1, Span::new(d, d + 1))
                }
            };
            if best.is_none_or(|b| score < b.0) {
                best = Some((score, repair, span));
            }
        }
        let Some((_, repair, span)) = best else {
            return false;
        };
        // Step back to the first token that the repair changes.
        let at = match repair {
            Repair::Insert(p) | Repair::Remove(p) => p,
        };
        let mut reset = start.min(at);
        while self.tokens.last().is_some_and(|t| t.span.end > at) {
            if let Some(t) = self.tokens.pop() {
                reset = reset.min(t.span.start);
            }
        }
        while self.diags.last().is_some_and(|d| d.span.start >= reset) {
            self.diags.pop();
        }
        let (code, message, help) = match repair {
            Repair::Insert(p) if p == span.start => (
                "K1003",
                "unterminated string: its opening `\"` is missing, so the quotes after it pair up wrongly",
                "insert `\"` at the start of the highlighted text",
            ),
            Repair::Insert(_) => {
                ("K1003", "unterminated string: its closing `\"` is missing", "insert `\"` at the end of the highlighted text")
            }
            Repair::Remove(_) => (
                "K1001",
                "unexpected `\"`: this extra quote makes the quotes after it pair up wrongly",
                "remove this `\"`",
            ),
        };
        if let Repair::Insert(_) = repair {
            self.eof_swallowed |= span.end == self.bytes.len();
        }
        self.error(code, span, message.to_string(), help);
        self.repair = Some(repair);
        self.repaired_up_to = eol + 1;
        self.pos = reset;
        true
    }

    /// Reads four hex digits at `i`; returns the value and how many hex digits were there.
    fn hex4(&self, i: usize) -> (u32, usize) {
        let mut v = 0;
        let mut n = 0;
        while n < 4 {
            match self
                .bytes
                .get(i + n)
                .and_then(|b| (*b as char).to_digit(16))
            {
                Some(d) => v = v * 16 + d,
                None => break,
            }
            n += 1;
        }
        (v, n)
    }

    /// Lexes the escape whose `\` is at `i`, appending its character; returns the next offset.
    fn escape(&mut self, i: usize, value: &mut String) -> usize {
        let len = self.bytes.len();
        if i + 1 >= len {
            // `"...\` at the end of input: the string is unterminated.
            return i + 1;
        }
        let e = self.char_at(i + 1);
        let simple = match e {
            '"' => Some('"'),
            '\\' => Some('\\'),
            '/' => Some('/'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            _ => None,
        };
        if let Some(c) = simple {
            value.push(c);
            return i + 2;
        }
        if e == 'u' {
            let (hi, n) = self.hex4(i + 2);
            let end = i + 2 + n;
            if n < 4 {
                self.error(
                    "K1005",
                    Span::new(i, end),
                    format!("invalid escape sequence `{}`", &self.src[i..end]),
                    "`\\u` takes exactly four hex digits, e.g. `\\u00e9`",
                );
                value.push('\u{fffd}');
                return end;
            }
            if (0xD800..0xDC00).contains(&hi) {
                // A high surrogate must be followed by `\u` and a low surrogate.
                if self.bytes.get(end) == Some(&b'\\') && self.bytes.get(end + 1) == Some(&b'u') {
                    let (lo, m) = self.hex4(end + 2);
                    if m == 4 && (0xDC00..0xE000).contains(&lo) {
                        let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        value.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                        return end + 6;
                    }
                }
                self.error(
                    "K1005",
                    Span::new(i, end),
                    format!("invalid escape sequence `{}`: unpaired high surrogate", &self.src[i..end]),
                    "follow it with a low surrogate `\\udc00`..`\\udfff`, or escape the character itself",
                );
                value.push('\u{fffd}');
                return end;
            }
            if (0xDC00..0xE000).contains(&hi) {
                self.error(
                    "K1005",
                    Span::new(i, end),
                    format!(
                        "invalid escape sequence `{}`: unpaired low surrogate",
                        &self.src[i..end]
                    ),
                    "a low surrogate must follow a high surrogate `\\ud800`..`\\udbff`",
                );
                value.push('\u{fffd}');
                return end;
            }
            value.push(char::from_u32(hi).unwrap_or('\u{fffd}'));
            return end;
        }
        if (e as u32) < 0x20 {
            // A backslash before a raw control character: report the backslash and let the
            // string loop handle the control character (or the line break) itself.
            self.error(
                "K1005",
                Span::new(i, i + 1),
                "invalid escape sequence: `\\` before a raw control character".to_string(),
                "remove the `\\`",
            );
            return i + 1;
        }
        let end = i + 1 + e.len_utf8();
        let shown: String = e.escape_debug().collect();
        let help = if e == '\'' {
            "a single quote needs no escape: write `'`".to_string()
        } else {
            "valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX; write `\\\\` for a backslash"
                .to_string()
        };
        self.error(
            "K1005",
            Span::new(i, end),
            format!("invalid escape sequence `\\{shown}`"),
            help,
        );
        value.push(e);
        end
    }
}
