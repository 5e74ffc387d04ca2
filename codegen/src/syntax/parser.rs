//! The spec dialect's parser: a hand-written recursive-descent JSON parser with error recovery.
//!
//! The grammar is RFC 8259 JSON plus `// line` and `/* block */` comments and bare words
//! (identifier-like: `[A-Za-z_$][A-Za-z0-9_$]*`). `true`, `false` and `null` are the JSON literals;
//! any other word (in practice `TBD`, the value of `apiKey` in a draft) becomes
//! [`ValueKind::Word`] and is judged by lowering, not here. Numbers keep their source text (a
//! malformed one is reported and kept). A UTF-8 byte-order mark at the start is skipped.
//!
//! # Recovery
//!
//! The parser never stops at the first error. It reports every independent error once, in source
//! order, and returns the best tree it can recover; the aim is one diagnostic per slip (a test
//! checks that deleting or typing any one structural character of a real spec gives exactly
//! one):
//!
//! * a missing `,` is assumed and parsing goes on with the next member of the same object;
//! * a stray token (a word, `,`, `:`, an extra closer or opener) is reported and skipped, and a
//!   missing `,` or `:` right after it is not reported again;
//! * a missing `"` (or an extra one) is found by the lexer, which re-lexes the line with the quote
//!   added (or dropped) where the line then reads as JSON; failing that, an unterminated string
//!   ends at the end of its line, before any trailing `,` `}` `]`;
//! * a missing `}` or `]` before the next element or member, or a missing `{` before a member in
//!   an array, is detected and the tree built as if it were there;
//! * a closer of the wrong kind is read as a typo, as closing an enclosing container, or as stray;
//!   which reading, and whether an extra closer or opener is stray, is decided by running the
//!   bracket structure of the rest of the input under each reading and keeping the most balanced
//!   one (bounded look-ahead, bounded number of runs);
//! * at the end of input every open container is closed, reported once.
//!
//! Recovery always consumes input or closes a container, so it terminates on any text; nesting
//! deeper than [`MAX_DEPTH`] is reported and skipped without recursion, so deep input cannot
//! overflow the stack; and the costs of the look-aheads are capped, so time stays near-linear.
//!
//! # Diagnostic codes
//!
//! | Code  | Meaning | Span | Help |
//! |-------|---------|------|------|
//! | K1001 | Unexpected character or token: a stray `#` comment, `;`, `=`, `@`; a `:` or `,` out of place; a word, value or bracket where none fits; an extra `"`; a single-quoted string value; a wrong or extra closer; a member in an array whose `{` is missing | the character(s) or token (zero-width where the missing `{` belongs) | what to remove or write instead, e.g. "remove this `,`", "insert `{` here" |
//! | K1002 | Missing `,` between members or elements | zero-width, right after the previous value | "insert `,` here" |
//! | K1003 | Unterminated string: its closing (or opening) `"` is missing | the string as repaired, from its `"` (or where it belongs) to where the other one belongs; unrepaired, from its `"` to the end of its text | "insert `\"` at the end (start) of the highlighted text", or "add the closing `\"` ..." |
//! | K1004 | Raw control character (newline, tab, ...) inside a string | the character (CRLF: both bytes) | "escape the newline as \n", "escape the tab as \t", ... |
//! | K1005 | Invalid escape sequence (`\x`, short `\u12`, unpaired surrogate) | the escape | the valid escapes |
//! | K1006 | Unterminated block comment | the `/*` | "close the comment with `*/`" |
//! | K1007 | Trailing comma before `}` or `]` (Kafka's Jackson rejects it) | the `,` | "remove this `,`" |
//! | K1008 | Missing `:` after an object key | zero-width, right after the key | "insert `:` here" |
//! | K1009 | Non-string object key (bare word, single-quoted string, number) | the key | "write \"key\"" |
//! | K1010 | Unclosed `{` or `[`: at the end of input, before a closer of an enclosing container, or before the next element or member; the message names the opener's line and column | zero-width at the end of input, the closer, or zero-width where the missing closer belongs | the closer(s) to insert |
//! | K1011 | Trailing content after the root value | from the first to the last trailing token | "remove everything after the root value; ..." |
//! | K1012 | Invalid number literal (`+1`, `01`, `1.`, `.5`, `1e`, `0x1F`, `-`) | the literal | what JSON requires |
//! | K1013 | Empty input: no value, only whitespace and comments | zero-width at the end of input | "a spec file is one JSON object: `{ ... }`" |
//! | K1014 | Nesting deeper than [`MAX_DEPTH`] levels | the `{` or `[` that is one too deep | "flatten the structure; ..." (everything inside it is skipped) |
//! | K1015 | Whitespace JSON does not allow between tokens (U+00A0 no-break space and other Unicode spaces) | the run of it on one line | "replace it with plain spaces" (then skipped as whitespace) |

use super::lexer::{lex, Token, TokenKind};
use super::tree::{Member, Parsed, Value, ValueKind};
use crate::diagnostics::{Diagnostic, LineIndex, Span};

/// The deepest nesting of objects and arrays accepted; the root container is level 1.
pub const MAX_DEPTH: usize = 128;

/// How many tokens a recovery simulation looks ahead (see `Parser::wrong_closer`).
const SIMULATION_TOKENS: usize = 50_000;

/// How many recovery simulations one parse may run; later wrong closers use a cheap heuristic,
/// so that adversarial input stays linear-ish.
const MAX_SIMULATIONS: usize = 300;

/// Parses spec text into a tree and its syntax diagnostics (see the module docs).
pub fn parse(src: &str) -> Parsed {
    let lexed = lex(src);
    let mut p = Parser::new(src, lexed.tokens, lexed.eof_swallowed);
    let value = p.root();
    let mut diagnostics = lexed.diagnostics;
    diagnostics.extend(p.diags);
    diagnostics.sort_by_key(|d| d.span.start);
    Parsed { value, diagnostics }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delim {
    Brace,
    Bracket,
}

impl Delim {
    fn open(self) -> &'static str {
        match self {
            Delim::Brace => "{",
            Delim::Bracket => "[",
        }
    }
    fn close(self) -> &'static str {
        match self {
            Delim::Brace => "}",
            Delim::Bracket => "]",
        }
    }
}

/// Where a container's loop is.
#[derive(Debug, Clone, Copy)]
enum State {
    /// Right after the opener: a member/element or the closer.
    Start,
    /// After a `,` (its span): a member/element; a closer here is a trailing comma.
    AfterComma(Span),
    /// After a member/element: a `,` or the closer.
    AfterValue,
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    diags: Vec<Diagnostic>,
    /// Open containers, outermost first, with their openers' spans.
    stack: Vec<(Delim, Span)>,
    /// The unexpected end of input is reported once, by the innermost container.
    eof_reported: bool,
    /// The lexer's unterminated comment or string ate the end of input (already reported).
    eof_swallowed: bool,
    /// End offset of the last consumed token.
    prev_end: usize,
    /// The last consumed token was an unterminated string, an invalid token or a token skipped
    /// as stray, whose error was reported already: a missing `,` or `:` right after it is a
    /// follow-on error (the bad token may have stood in for it), not reported.
    prev_suppresses: bool,
    /// Recovery simulations run so far (bounded by [`MAX_SIMULATIONS`]).
    simulations: usize,
    /// The lines of the text, indexed on first use by [`Parser::at`].
    lines: Option<LineIndex<'a>>,
    /// A `,` consumed by an object whose `}` turned out to be missing; it separates the
    /// enclosing array's elements (see [`Parser::object_ends_before_value`]).
    pending_comma: Option<Span>,
}

/// How a token reads after "unexpected": "`}`", "string", "word `x`".
fn describe_bare(kind: &TokenKind) -> String {
    let d = describe(kind);
    d.strip_prefix("a ")
        .or_else(|| d.strip_prefix("the "))
        .map_or(d.clone(), str::to_string)
}

/// How a token reads in a message: "`}`", "a string", "the word `x`".
fn describe(kind: &TokenKind) -> String {
    match kind {
        TokenKind::LBrace => "`{`".into(),
        TokenKind::RBrace => "`}`".into(),
        TokenKind::LBracket => "`[`".into(),
        TokenKind::RBracket => "`]`".into(),
        TokenKind::Colon => "`:`".into(),
        TokenKind::Comma => "`,`".into(),
        TokenKind::Str { .. } => "a string".into(),
        TokenKind::SingleQuoted(_) => "a single-quoted string".into(),
        TokenKind::Number(n) => format!("the number `{n}`"),
        TokenKind::Word(w) => format!("the word `{w}`"),
        TokenKind::Invalid => "invalid text".into(),
    }
}

/// True for tokens that begin a value.
fn starts_value(kind: &TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::LBrace
            | TokenKind::LBracket
            | TokenKind::Str { .. }
            | TokenKind::SingleQuoted(_)
            | TokenKind::Number(_)
            | TokenKind::Word(_)
    )
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, tokens: Vec<Token>, eof_swallowed: bool) -> Self {
        Parser {
            src,
            tokens,
            pos: 0,
            diags: Vec::new(),
            stack: Vec::new(),
            eof_reported: false,
            eof_swallowed,
            prev_end: 0,
            prev_suppresses: false,
            simulations: 0,
            lines: None,
            pending_comma: None,
        }
    }

    fn peek(&self) -> Option<&TokenKind> {
        self.tokens.get(self.pos).map(|t| &t.kind)
    }

    fn peek_span(&self) -> Span {
        self.tokens
            .get(self.pos)
            .map_or(Span::new(self.src.len(), self.src.len()), |t| t.span)
    }

    fn peek_at(&self, n: usize) -> Option<&TokenKind> {
        self.tokens.get(self.pos + n).map(|t| &t.kind)
    }

    /// Consumes the next token (the caller has checked there is one).
    fn bump(&mut self) -> Token {
        let span = self.peek_span();
        let tok = match self.tokens.get_mut(self.pos) {
            Some(t) => std::mem::replace(
                t,
                Token {
                    kind: TokenKind::Invalid,
                    span,
                },
            ),
            None => Token {
                kind: TokenKind::Invalid,
                span,
            },
        };
        self.pos += 1;
        self.prev_end = tok.span.end;
        self.prev_suppresses = matches!(
            tok.kind,
            TokenKind::Invalid
                | TokenKind::Str {
                    terminated: false,
                    ..
                }
        );
        tok
    }

    fn error(&mut self, code: &'static str, span: Span, message: String, help: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(code, span, message).with_help(help));
    }

    /// "line L, column C" of a byte offset, for messages. The text is indexed once
    /// ([`LineIndex`]), so messages stay cheap on any input.
    fn at(&mut self, offset: usize) -> String {
        let src = self.src;
        let (line, col) = self
            .lines
            .get_or_insert_with(|| LineIndex::new(src))
            .line_col(offset);
        format!("line {line}, column {col}")
    }

    fn root(&mut self) -> Option<Value> {
        if self.tokens.iter().all(|t| t.kind == TokenKind::Invalid) {
            if !self.eof_swallowed {
                let end = self.src.len();
                self.error(
                    "K1013",
                    Span::new(end, end),
                    "empty input: the file holds no JSON value".to_string(),
                    "a spec file is one JSON object: `{ ... }`",
                );
            }
            return None;
        }
        // Skip (and report once) anything before the first token that can start a value.
        let mut junk: Option<(Span, String)> = None;
        while let Some(kind) = self.peek() {
            if starts_value(kind) {
                break;
            }
            let silent = *kind == TokenKind::Invalid;
            let what = describe(kind);
            let tok = self.bump();
            if !silent {
                match &mut junk {
                    Some((span, _)) => *span = span.to(tok.span),
                    None => junk = Some((tok.span, what)),
                }
            }
        }
        if let Some((span, what)) = junk {
            self.error(
                "K1001",
                span,
                format!("expected a JSON value, found {what}"),
                "a spec file is one JSON object: remove the text before its `{`",
            );
        }
        self.peek()?;
        let value = self.value(0);
        // Trailing content (invalid tokens are reported already).
        let mut trailing: Option<Span> = None;
        while self.peek().is_some() {
            let tok = self.bump();
            if tok.kind != TokenKind::Invalid {
                trailing = Some(trailing.map_or(tok.span, |s| s.to(tok.span)));
            }
        }
        if let Some(span) = trailing {
            let end = value.as_ref().map_or(0, |v| v.span.end);
            let ends = self.at(end);
            self.error(
                "K1011",
                span,
                format!("trailing content after the root value (which ends at {ends})"),
                "remove everything after the root value; a spec file holds exactly one value",
            );
        }
        value
    }

    /// Reports the unexpected end of input once, naming the innermost open container.
    fn report_eof(&mut self) {
        if self.eof_reported || self.eof_swallowed {
            return;
        }
        self.eof_reported = true;
        let end = self.src.len();
        let Some(&(delim, open)) = self.stack.last() else {
            self.error(
                "K1010",
                Span::new(end, end),
                "unexpected end of input: expected a value".to_string(),
                "add the missing value",
            );
            return;
        };
        let closers: String = self.stack.iter().rev().map(|(d, _)| d.close()).collect();
        let outer = self.stack.len() - 1;
        let mut message = format!(
            "unexpected end of input: the `{}` at {} is never closed",
            delim.open(),
            self.at(open.start)
        );
        if outer > 0 {
            message.push_str(&format!(
                " (nor {} enclosing `{{`/`[`)",
                if outer == 1 {
                    "is its".to_string()
                } else {
                    format!("are its {outer}")
                }
            ));
        }
        let help = if outer == 0 {
            format!("close it with `{closers}`")
        } else {
            format!("close every open bracket with `{closers}`")
        };
        self.error("K1010", Span::new(end, end), message, help);
    }

    /// Scores a recovery hypothesis by running the bracket structure of the rest of the input
    /// from token `from` with the open containers `stack`: mismatched or stray closers, plus
    /// containers left open at the end, plus one if content follows after everything closed.
    /// Lower is better. The scan is bounded (see [`SIMULATION_TOKENS`]).
    fn simulate(&self, mut stack: Vec<Delim>, from: usize) -> usize {
        let mut score = 0;
        let mut trailing = false;
        for tok in self.tokens.iter().skip(from).take(SIMULATION_TOKENS) {
            let closer = match tok.kind {
                TokenKind::LBrace => {
                    stack.push(Delim::Brace);
                    continue;
                }
                TokenKind::LBracket => {
                    stack.push(Delim::Bracket);
                    continue;
                }
                TokenKind::RBrace => Delim::Brace,
                TokenKind::RBracket => Delim::Bracket,
                TokenKind::Invalid => continue,
                _ => {
                    trailing |= stack.is_empty();
                    continue;
                }
            };
            match stack.last() {
                Some(d) if *d == closer => {
                    stack.pop();
                }
                _ => score += 1,
            }
        }
        score + stack.len() + usize::from(trailing)
    }

    /// A closer of the wrong kind inside the innermost container; returns `true` when the
    /// innermost container is to be closed here (the closer then consumed or not, see below).
    ///
    /// Three readings, the one that best balances the rest of the input wins (ties in this
    /// order): the innermost container is unclosed and an enclosing one of the closer's kind ends
    /// here (K1010; the closer is left to the caller); the closer is a typo for the right one
    /// (K1001; consumed, the container closed); the closer is stray (K1001 unless `quiet_stray`;
    /// skipped).
    fn wrong_closer(&mut self, closer: Delim, quiet_stray: bool) -> bool {
        let span = self.peek_span();
        let Some(&(delim, open)) = self.stack.last() else {
            // Not reached: containers push themselves before looking at tokens.
            self.bump();
            return false;
        };
        let opened = self.at(open.start);
        let outer: Vec<Delim> = self.stack[..self.stack.len() - 1]
            .iter()
            .map(|(d, _)| *d)
            .collect();
        let unclosed = outer.iter().rposition(|d| *d == closer).map(|i| {
            // Intermediate containers between the innermost and the match are unclosed too.
            let skipped = outer.len() - 1 - i;
            skipped + self.sim_or(0, |p| p.simulate(outer[..i].to_vec(), p.pos + 1))
        });
        let typo_default = matches!(
            self.peek_at(1),
            None | Some(TokenKind::RBrace | TokenKind::RBracket)
        );
        let typo = self.sim_or(usize::from(!typo_default), |p| {
            p.simulate(outer.clone(), p.pos + 1)
        });
        let stray = self.sim_or(usize::from(typo_default), |p| {
            let all: Vec<Delim> = p.stack.iter().map(|(d, _)| *d).collect();
            p.simulate(all, p.pos + 1)
        });
        if let Some(score) = unclosed {
            if score <= typo && score <= stray {
                self.error(
                    "K1010",
                    span,
                    format!(
                        "unclosed `{}`: the `{}` at {} is never closed, found `{}` first",
                        delim.open(),
                        delim.open(),
                        opened,
                        closer.close()
                    ),
                    format!(
                        "insert `{}` before this `{}`",
                        delim.close(),
                        closer.close()
                    ),
                );
                return true;
            }
        }
        let is_typo = typo <= stray;
        if is_typo {
            self.error(
                "K1001",
                span,
                format!(
                    "expected `{}` to close the `{}` at {}, found `{}`",
                    delim.close(),
                    delim.open(),
                    opened,
                    closer.close()
                ),
                format!("replace this `{}` with `{}`", closer.close(), delim.close()),
            );
        } else if !quiet_stray {
            self.error(
                "K1001",
                span,
                format!(
                    "unexpected `{}`: no `{}` is open here (the innermost open bracket is the `{}` at {})",
                    closer.close(),
                    closer.open(),
                    delim.open(),
                    opened
                ),
                format!("remove this `{}`", closer.close()),
            );
        }
        self.bump();
        is_typo
    }

    /// The next token is a closer directly followed by a value (so a `,` is missing after the
    /// container it closes, or the closer is stray). Decides by [`Parser::simulate`], weighing
    /// "stray" against "closes" (the innermost container if it matches, else whatever
    /// [`Parser::wrong_closer`] makes of it), with or without an opener after it being stray.
    /// A stray closer is reported (K1001) and skipped (`true`).
    fn closer_is_stray(&mut self) -> bool {
        let Some(closer) = self.peek().and_then(|k| match k {
            TokenKind::RBrace => Some(Delim::Brace),
            TokenKind::RBracket => Some(Delim::Bracket),
            _ => None,
        }) else {
            return false;
        };
        if !self.peek_at(1).is_some_and(starts_value) || self.stack.is_empty() {
            return false;
        }
        let all: Vec<Delim> = self.stack.iter().map(|(d, _)| *d).collect();
        let matches = all.last() == Some(&closer);
        let outer = all[..all.len() - 1].to_vec();
        let next_opens = matches!(
            self.peek_at(1),
            Some(TokenKind::LBrace | TokenKind::LBracket)
        );
        let close = self.sim_or(0, |p| {
            let mut best = if matches {
                p.simulate(outer.clone(), p.pos + 1)
            } else {
                p.simulate(all.clone(), p.pos)
            };
            if matches && next_opens {
                // It closes, and the opener after it is the stray one.
                best = best.min(p.simulate(outer, p.pos + 2));
            }
            best
        });
        let stray = self.sim_or(1, |p| p.simulate(all, p.pos + 1));
        if stray >= close {
            return false;
        }
        let what = describe_bare(self.peek().unwrap_or(&TokenKind::Invalid));
        self.error(
            "K1001",
            self.peek_span(),
            format!("unexpected {what}: it closes nothing here, the text after it goes on inside"),
            format!("remove this {what}"),
        );
        self.skip_reported();
        true
    }

    /// The next token is a `{` or `[` where no value belongs (where a key does, or right after
    /// an element). Decides by [`Parser::simulate`] whether it is stray rather than a value
    /// (keyless, or missing a `,` before it); a stray opener is reported (K1001) and skipped
    /// (`true`).
    fn opener_is_stray(&mut self) -> bool {
        let all: Vec<Delim> = self.stack.iter().map(|(d, _)| *d).collect();
        let opener = if self.peek() == Some(&TokenKind::LBrace) {
            Delim::Brace
        } else {
            Delim::Bracket
        };
        let next_opens = matches!(
            self.peek_at(1),
            Some(TokenKind::LBrace | TokenKind::LBracket)
        );
        let keep = self.sim_or(0, |p| {
            let mut best = p.simulate(all.clone(), p.pos);
            if next_opens {
                // It stays, and the opener after it is the stray one.
                let mut with = all.clone();
                with.push(opener);
                best = best.min(p.simulate(with, p.pos + 2));
            }
            best
        });
        let stray = self.sim_or(1, |p| p.simulate(all, p.pos + 1));
        if stray >= keep {
            return false;
        }
        let what = describe_bare(self.peek().unwrap_or(&TokenKind::Invalid));
        self.error(
            "K1001",
            self.peek_span(),
            format!("unexpected {what}: nothing closes it, the text after it belongs outside"),
            format!("remove this {what}"),
        );
        self.skip_reported();
        true
    }

    /// The next token is a `{` that cannot start a valid object: neither `}` nor `"key":`
    /// follows it (an error case, worth a simulation to see if the `{` is stray).
    fn suspicious_brace(&self) -> bool {
        if self.peek() != Some(&TokenKind::LBrace) {
            return false;
        }
        match self.peek_at(1) {
            Some(
                TokenKind::LBrace | TokenKind::LBracket | TokenKind::Comma | TokenKind::RBracket,
            ) => true,
            // A key without its `:` (but not `"key" x :`, where the junk is the error).
            Some(
                TokenKind::Str { .. }
                | TokenKind::Word(_)
                | TokenKind::Number(_)
                | TokenKind::SingleQuoted(_),
            ) => {
                matches!(
                    self.peek_at(2),
                    None | Some(TokenKind::Comma | TokenKind::RBrace | TokenKind::RBracket)
                )
            }
            _ => false,
        }
    }

    /// Consumes a token just reported as stray: a missing `,` or `:` right after it is a
    /// follow-on error (the stray token may have stood in for it).
    fn skip_reported(&mut self) {
        self.bump();
        self.prev_suppresses = true;
    }

    /// Runs `f` (a simulation) while the budget lasts, else returns `fallback` (the fallbacks
    /// make an enclosing match win, then the typo reading if the end of input or a closer
    /// follows, else the stray reading).
    fn sim_or(&mut self, fallback: usize, f: impl FnOnce(&Self) -> usize) -> usize {
        self.simulations += 1;
        if self.simulations > MAX_SIMULATIONS {
            fallback
        } else {
            f(self)
        }
    }

    fn unexpected_colon(&mut self, in_array: bool) {
        let span = self.peek_span();
        let help = if in_array {
            "arrays hold values, not `key: value` members; remove this `:` or use an object `{ }`"
        } else {
            "remove this `:`"
        };
        self.error("K1001", span, "unexpected `:`".to_string(), help);
        self.skip_reported();
    }

    /// Parses a value at nesting `depth` (number of enclosing containers). Returns `None`, having
    /// reported why (or leaving it to the enclosing container), when there is no value here.
    fn value(&mut self, depth: usize) -> Option<Value> {
        let mut skipped_invalid = false;
        loop {
            let kind = match self.peek() {
                None => {
                    self.report_eof();
                    return None;
                }
                Some(k) => k,
            };
            // A stray token before the value: a `,` (`"a": ,"x"`), a closer (decided by
            // simulation), or a word glued to it (`"a": x"y"`).
            let next_is_value = self.peek_at(1).is_some_and(starts_value)
                && self.peek_at(2) != Some(&TokenKind::Colon);
            let stray = match kind {
                TokenKind::Comma => next_is_value,
                TokenKind::Word(w) => {
                    next_is_value && !matches!(w.as_str(), "true" | "false" | "null" | "TBD")
                }
                _ => false,
            };
            let closer = matches!(kind, TokenKind::RBrace | TokenKind::RBracket);
            if stray {
                let what = describe_bare(kind);
                self.error(
                    "K1001",
                    self.peek_span(),
                    format!("unexpected {what} before the value"),
                    format!("remove this {what}"),
                );
                self.skip_reported();
                continue;
            }
            if closer && next_is_value && self.closer_is_stray() {
                continue;
            }
            if self.suspicious_brace() && self.opener_is_stray() {
                continue;
            }
            let Some(kind) = self.peek() else { continue };
            match kind {
                TokenKind::Invalid => {
                    self.bump();
                    skipped_invalid = true;
                }
                TokenKind::Colon => self.unexpected_colon(false),
                TokenKind::LBrace => return self.object(depth),
                TokenKind::LBracket => return self.array(depth),
                TokenKind::Comma | TokenKind::RBrace | TokenKind::RBracket => {
                    let closes_innermost = matches!(
                        (kind, self.stack.last()),
                        (TokenKind::RBrace, Some((Delim::Brace, _)))
                            | (TokenKind::RBracket, Some((Delim::Bracket, _)))
                            | (TokenKind::Comma, _)
                    );
                    if closes_innermost && !skipped_invalid {
                        let what = describe(kind);
                        self.error(
                            "K1001",
                            self.peek_span(),
                            format!("expected a value, found {what}"),
                            format!("write a value before this {what}"),
                        );
                    }
                    return None;
                }
                _ => {
                    let tok = self.bump();
                    let kind = match tok.kind {
                        TokenKind::Str { value, .. } => ValueKind::String(value),
                        TokenKind::SingleQuoted(value) => {
                            self.error(
                                "K1001",
                                tok.span,
                                "unexpected single-quoted string: JSON strings use double quotes"
                                    .to_string(),
                                format!("write \"{}\"", value.escape_debug()),
                            );
                            ValueKind::String(value)
                        }
                        TokenKind::Number(raw) => ValueKind::Number(raw),
                        TokenKind::Word(w) => match w.as_str() {
                            "true" => ValueKind::Bool(true),
                            "false" => ValueKind::Bool(false),
                            "null" => ValueKind::Null,
                            _ => ValueKind::Word(w),
                        },
                        // Unreachable: the arms above took every other kind.
                        _ => return None,
                    };
                    return Some(Value {
                        kind,
                        span: tok.span,
                    });
                }
            }
        }
    }

    /// Reports a too-deep container at the next token and skips it, balanced, without recursion.
    fn too_deep(&mut self) {
        let open = self.bump();
        self.error(
            "K1014",
            open.span,
            format!("nesting too deep: more than {MAX_DEPTH} levels of `{{`/`[`"),
            "flatten the structure; this container and everything inside it is skipped",
        );
        let mut level = 1usize;
        while level > 0 {
            match self.peek() {
                None => return,
                Some(TokenKind::LBrace | TokenKind::LBracket) => level += 1,
                Some(TokenKind::RBrace | TokenKind::RBracket) => level -= 1,
                Some(_) => {}
            }
            self.bump();
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        if depth >= MAX_DEPTH {
            self.too_deep();
            return None;
        }
        let open = self.bump().span;
        Some(self.object_body(depth, open))
    }

    /// The members of an object and its `}`, after the `{` at `open` (zero-width when the `{`
    /// is missing and only implied).
    fn object_body(&mut self, depth: usize, open: Span) -> Value {
        self.stack.push((Delim::Brace, open));
        let mut members = Vec::new();
        let mut keyless_reported = false;
        let mut state = State::Start;
        let end = loop {
            let Some(kind) = self.peek() else {
                self.report_eof();
                break self.prev_end;
            };
            let (closer, opener) = (
                *kind == TokenKind::RBrace,
                matches!(kind, TokenKind::LBrace | TokenKind::LBracket),
            );
            // Error cases only (a `}` followed by a value; an opener where a key belongs).
            if opener && self.object_ends_before_value(state) {
                break self.prev_end;
            }
            if closer && self.closer_is_stray() || opener && self.opener_is_stray() {
                continue;
            }
            let Some(kind) = self.peek() else { continue };
            match (state, kind) {
                (_, TokenKind::Invalid) => {
                    self.bump();
                }
                (_, TokenKind::RBrace) => {
                    if let State::AfterComma(comma) = state {
                        self.error(
                            "K1007",
                            comma,
                            "trailing `,` before `}`: Kafka's JSON reader rejects trailing commas"
                                .to_string(),
                            "remove this `,`",
                        );
                    }
                    break self.bump().span.end;
                }
                (_, TokenKind::RBracket) => {
                    // After keyless values, a stray `]` is the closer of the missing `[` that
                    // made them keyless: already reported.
                    let quiet = std::mem::take(&mut keyless_reported);
                    if self.wrong_closer(Delim::Bracket, quiet) {
                        break self.prev_end;
                    }
                }
                (_, TokenKind::Colon) => {
                    // E.g. `"a": "b": "c"` or `{: 1}`: drop the value after the `:` too.
                    self.unexpected_colon(false);
                    if self.peek().is_some_and(starts_value)
                        && self.peek_at(1) != Some(&TokenKind::Colon)
                    {
                        self.value(depth + 1);
                    }
                    state = State::AfterValue;
                    self.prev_suppresses = true;
                }
                (State::AfterValue, TokenKind::Comma) => {
                    state = State::AfterComma(self.bump().span)
                }
                (
                    State::AfterValue,
                    TokenKind::Word(_)
                    | TokenKind::Number(_)
                    | TokenKind::Str { .. }
                    | TokenKind::SingleQuoted(_),
                ) if self.peek_at(1) != Some(&TokenKind::Colon) && !self.prev_suppresses => {
                    // `"a": "b"x,`: not a member (no `:` follows), so junk after the value.
                    let what = describe_bare(kind);
                    self.error(
                        "K1001",
                        self.peek_span(),
                        format!("unexpected {what} after the member's value"),
                        format!("remove this {what}, or add `,` and a key before it"),
                    );
                    self.skip_reported();
                }
                (State::AfterValue, _) => {
                    // A member starts without a `,` before it.
                    if !self.prev_suppresses {
                        let at = self.prev_end;
                        self.error(
                            "K1002",
                            Span::new(at, at),
                            "missing `,` between object members".to_string(),
                            "insert `,` here",
                        );
                    }
                    state = State::Start;
                }
                (_, TokenKind::Comma) => {
                    let span = self.peek_span();
                    self.error(
                        "K1001",
                        span,
                        "unexpected `,`: expected a member `\"key\": value`".to_string(),
                        "remove this `,`",
                    );
                    self.skip_reported();
                }
                (_, TokenKind::LBrace | TokenKind::LBracket) => {
                    let what = describe(kind);
                    let span = self.peek_span();
                    // Reported once per object: a run of keyless values is one mistake (often
                    // a missing `[` before them).
                    if !keyless_reported {
                        keyless_reported = true;
                        self.error(
                            "K1001",
                            span,
                            format!("expected a member `\"key\": value`, found {what}"),
                            "give the value a key: `\"key\": ...`, or wrap the values in `[ ]`",
                        );
                    }
                    // Parse it (and drop it) to keep the brackets balanced.
                    self.value(depth + 1);
                    state = State::AfterValue;
                }
                (_, TokenKind::Str { .. }) => {
                    if let Some(m) = self.member(depth) {
                        members.push(m);
                    }
                    state = self.state_after_value();
                }
                (_, TokenKind::Word(_) | TokenKind::Number(_) | TokenKind::SingleQuoted(_)) => {
                    if self.peek_at(1) == Some(&TokenKind::Colon) {
                        if let Some(m) = self.member(depth) {
                            members.push(m);
                        }
                    } else {
                        let what = describe(kind);
                        let span = self.peek_span();
                        self.error(
                            "K1001",
                            span,
                            format!("expected a member `\"key\": value`, found {what}"),
                            "an object holds `\"key\": value` members; remove this or add its key",
                        );
                        self.skip_reported();
                    }
                    state = State::AfterValue;
                }
            }
        };
        self.stack.pop();
        Value {
            kind: ValueKind::Object(members),
            span: Span::new(open.start, end),
        }
    }

    /// The state after a member or element: after a value, or after a `,` when the value was
    /// an object closed implicitly (its `}` missing) right after a `,` that now separates the
    /// enclosing container's elements.
    fn state_after_value(&mut self) -> State {
        match self.pending_comma.take() {
            Some(comma) => State::AfterComma(comma),
            None => State::AfterValue,
        }
    }

    /// At a member position of an object inside an array, a `{` or `[` arrives: decides whether
    /// the object's `}` is missing (reported, and `true`: the object ends before the value,
    /// which becomes the array's next element) rather than the value lacking a key.
    fn object_ends_before_value(&mut self, state: State) -> bool {
        self.ends_before(state, Delim::Bracket, None, "element")
    }

    /// At an element position of an array inside an object, `"key":` arrives: decides whether
    /// the array's `]` is missing (reported, and `true`: the array ends before the member, which
    /// becomes the object's next member) rather than the member's object lacking its `{`.
    fn array_ends_before_member(&mut self, state: State) -> bool {
        self.ends_before(state, Delim::Brace, Some(Delim::Brace), "member")
    }

    /// Whether the innermost container, whose parent is a `parent`, ends here without its closer.
    /// It is weighed (by [`Parser::simulate`]) against going on inside it, with `extra` opened
    /// first if given; only after a `,`, which the parent then takes over.
    fn ends_before(
        &mut self,
        state: State,
        parent: Delim,
        extra: Option<Delim>,
        next: &str,
    ) -> bool {
        let n = self.stack.len();
        let State::AfterComma(comma) = state else {
            return false;
        };
        if n < 2 || self.stack[n - 2].0 != parent {
            return false;
        }
        let mut inside: Vec<Delim> = self.stack.iter().map(|(d, _)| *d).collect();
        let outside = inside[..n - 1].to_vec();
        inside.extend(extra);
        let stay = self.sim_or(0, |p| p.simulate(inside, p.pos));
        let close = self.sim_or(1, |p| p.simulate(outside, p.pos));
        if close >= stay {
            return false;
        }
        let (delim, open) = self.stack[n - 1];
        let opened = self.at(open.start);
        let at = comma.start;
        self.error(
            "K1010",
            Span::new(at, at),
            format!(
                "unclosed `{}`: the `{}` at {opened} is never closed before the next {next}",
                delim.open(),
                delim.open()
            ),
            format!("insert `{}` here", delim.close()),
        );
        self.pending_comma = Some(comma);
        true
    }

    /// Parses `key: value` (the key token is next). `None` when there is no value to keep.
    fn member(&mut self, depth: usize) -> Option<Member> {
        let key_tok = self.bump();
        let key_span = key_tok.span;
        let key = match key_tok.kind {
            TokenKind::Str { value, .. } => value,
            TokenKind::Word(text) | TokenKind::Number(text) => {
                self.error(
                    "K1009",
                    key_span,
                    format!(
                        "object keys must be double-quoted strings, found {}",
                        describe_text(&text)
                    ),
                    format!("write \"{text}\""),
                );
                text
            }
            TokenKind::SingleQuoted(text) => {
                self.error(
                    "K1009",
                    key_span,
                    "object keys must be double-quoted strings, found a single-quoted string"
                        .to_string(),
                    format!("write \"{}\"", text.escape_debug()),
                );
                text
            }
            _ => return None,
        };
        let suppress = self.prev_suppresses;
        // Invalid tokens between the key and the `:` are reported already.
        let mut skipped_invalid = false;
        while self.peek() == Some(&TokenKind::Invalid) {
            self.bump();
            skipped_invalid = true;
        }
        // `"key"x: value`, `"key",: value`: one stray token before the `:`.
        if self.peek_at(1) == Some(&TokenKind::Colon)
            && self
                .peek()
                .is_some_and(|k| !matches!(k, TokenKind::Colon | TokenKind::Str { .. }))
        {
            let what = describe_bare(self.peek().unwrap_or(&TokenKind::Invalid));
            self.error(
                "K1001",
                self.peek_span(),
                format!(
                    "unexpected {what} between the key {} and its `:`",
                    &self.src[key_span.range()]
                ),
                format!("remove this {what}"),
            );
            self.skip_reported();
        }
        let value = match self.peek() {
            None => {
                self.report_eof();
                None
            }
            Some(TokenKind::Colon) => {
                self.bump();
                self.value(depth + 1)
            }
            Some(kind) if starts_value(kind) => {
                if !suppress && !skipped_invalid {
                    self.error(
                        "K1008",
                        Span::new(key_span.end, key_span.end),
                        format!("missing `:` after the key {}", &self.src[key_span.range()]),
                        "insert `:` here",
                    );
                }
                self.value(depth + 1)
            }
            Some(_) => {
                if !suppress && !skipped_invalid {
                    self.error(
                        "K1008",
                        Span::new(key_span.end, key_span.end),
                        format!(
                            "missing `:` and a value after the key {}",
                            &self.src[key_span.range()]
                        ),
                        "insert `:` here, followed by the value",
                    );
                }
                None
            }
        };
        value.map(|value| Member {
            key,
            key_span,
            value,
        })
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth >= MAX_DEPTH {
            self.too_deep();
            return None;
        }
        let open = self.bump().span;
        self.stack.push((Delim::Bracket, open));
        let mut items = Vec::new();
        let mut state = State::Start;
        let end = loop {
            let Some(kind) = self.peek() else {
                self.report_eof();
                break self.prev_end;
            };
            let closer = *kind == TokenKind::RBracket;
            let opener = matches!(kind, TokenKind::LBrace | TokenKind::LBracket)
                && matches!(state, State::AfterValue)
                || self.suspicious_brace();
            // Error cases only (a `]` followed by a value; an opener right after an element).
            if closer && self.closer_is_stray() || opener && self.opener_is_stray() {
                continue;
            }
            let Some(kind) = self.peek() else { continue };
            match (state, kind) {
                (_, TokenKind::Invalid) => {
                    self.bump();
                }
                (_, TokenKind::RBracket) => {
                    if let State::AfterComma(comma) = state {
                        self.error(
                            "K1007",
                            comma,
                            "trailing `,` before `]`: Kafka's JSON reader rejects trailing commas"
                                .to_string(),
                            "remove this `,`",
                        );
                    }
                    break self.bump().span.end;
                }
                (_, TokenKind::RBrace) => {
                    if self.wrong_closer(Delim::Brace, false) {
                        break self.prev_end;
                    }
                }
                (_, TokenKind::Colon) => {
                    // E.g. `["a": 1]` or `[{}:, 1]`: drop the `:`; no `,` is then required.
                    self.unexpected_colon(true);
                    state = State::AfterValue;
                }
                (State::AfterValue, TokenKind::Comma) => {
                    state = State::AfterComma(self.bump().span)
                }
                (State::AfterValue, _) => {
                    if !self.prev_suppresses {
                        let at = self.prev_end;
                        self.error(
                            "K1002",
                            Span::new(at, at),
                            "missing `,` between array elements".to_string(),
                            "insert `,` here",
                        );
                    }
                    state = State::Start;
                }
                (_, TokenKind::Comma) => {
                    let span = self.peek_span();
                    self.error(
                        "K1001",
                        span,
                        "unexpected `,`: expected an array element".to_string(),
                        "remove this `,`",
                    );
                    self.skip_reported();
                }
                (_, TokenKind::Str { .. }) if self.peek_at(1) == Some(&TokenKind::Colon) => {
                    if self.array_ends_before_member(state) {
                        break self.prev_end;
                    }
                    // `"key": value` as an element: the object's `{` is missing.
                    let at = self.peek_span().start;
                    self.error(
                        "K1001",
                        Span::new(at, at),
                        "expected an array element, found an object member: the `{` is missing"
                            .to_string(),
                        "insert `{` here",
                    );
                    if depth + 1 >= MAX_DEPTH {
                        // Not reached with a sane MAX_DEPTH; skip the member as a value.
                        self.bump();
                    } else {
                        items.push(self.object_body(depth + 1, Span::new(at, at)));
                    }
                    state = self.state_after_value();
                }
                _ => {
                    if let Some(v) = self.value(depth + 1) {
                        items.push(v);
                    }
                    state = self.state_after_value();
                }
            }
        };
        self.stack.pop();
        Some(Value {
            kind: ValueKind::Array(items),
            span: Span::new(open.start, end),
        })
    }
}

/// "the word `x`" or "the number `1`" for a key's text.
fn describe_text(text: &str) -> String {
    if text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
        format!("the number `{text}`")
    } else {
        format!("the bare word `{text}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;
    use std::path::PathBuf;

    /// `(code, span, help)` of every diagnostic.
    fn codes(src: &str) -> Vec<(&'static str, Range<usize>, String)> {
        parse(src)
            .diagnostics
            .into_iter()
            .map(|d| (d.code, d.span.range(), d.help.unwrap_or_default()))
            .collect()
    }

    /// The one diagnostic of `src` (fails if there are zero or several).
    fn only(src: &str) -> Diagnostic {
        let p = parse(src);
        assert_eq!(p.diagnostics.len(), 1, "{src:?}: {:#?}", p.diagnostics);
        p.diagnostics.into_iter().next().unwrap()
    }

    /// Asserts `src` has exactly one diagnostic with this code, span and help; returns it.
    fn check(src: &str, code: &str, span: Range<usize>, help: &str) -> Diagnostic {
        let d = only(src);
        assert_eq!(
            (d.code, d.span.range(), d.help.as_deref()),
            (code, span, Some(help)),
            "{src:?}: {d:#?}"
        );
        assert!(d.is_error());
        d
    }

    fn ok(src: &str) -> Value {
        let p = parse(src);
        assert!(p.diagnostics.is_empty(), "{src:?}: {:#?}", p.diagnostics);
        p.value.expect("a value")
    }

    fn members(v: &Value) -> &[Member] {
        v.as_object().expect("an object")
    }

    fn num(s: &str) -> ValueKind {
        ValueKind::Number(s.to_string())
    }

    fn string(s: &str) -> ValueKind {
        ValueKind::String(s.to_string())
    }

    /// The reference material (Kafka's spec corpus): `$KWIRE_SHARED`, else the `shared` folder
    /// beside the workspace root. The tests that read it are ignored unless codegen/build.rs found
    /// it (`cfg(kwire_shared)`, always set under `CI=true`).
    fn shared_dir() -> PathBuf {
        match std::env::var_os("KWIRE_SHARED") {
            Some(d) => PathBuf::from(d),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("..")
                .join("shared"),
        }
    }

    fn json_files(dir: &std::path::Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "json"));
        files.sort();
        files
    }

    // ---------------------------------------------------------------- valid input

    #[test]
    fn spans_of_nested_values() {
        //          0         1         2         3
        //          0123456789012345678901234567890123456
        let src = r#"{"a": [1, {"b": null}], "c": true}"#;
        let v = ok(src);
        assert_eq!(v.span, Span::new(0, 34));
        let m = members(&v);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].key.as_str(), m[0].key_span), ("a", Span::new(1, 4)));
        assert_eq!(m[0].value.span, Span::new(6, 22));
        let ValueKind::Array(items) = &m[0].value.kind else {
            panic!("array")
        };
        assert_eq!(
            items[0],
            Value {
                kind: num("1"),
                span: Span::new(7, 8)
            }
        );
        assert_eq!(items[1].span, Span::new(10, 21));
        let inner = members(&items[1]);
        assert_eq!(
            (inner[0].key.as_str(), inner[0].key_span),
            ("b", Span::new(11, 14))
        );
        assert_eq!(
            inner[0].value,
            Value {
                kind: ValueKind::Null,
                span: Span::new(16, 20)
            }
        );
        assert_eq!((m[1].key.as_str(), m[1].key_span), ("c", Span::new(24, 27)));
        assert_eq!(
            m[1].value,
            Value {
                kind: ValueKind::Bool(true),
                span: Span::new(29, 33)
            }
        );
        assert_eq!(&src[m[0].value.span.range()], r#"[1, {"b": null}]"#);
    }

    #[test]
    fn scalars_and_number_text() {
        let v = ok(r#"[-1, 1000.5, 1e3, 0, -0.5E+10, 2e-3, "", false, null, "x"]"#);
        let ValueKind::Array(items) = v.kind else {
            panic!()
        };
        let kinds: Vec<ValueKind> = items.into_iter().map(|v| v.kind).collect();
        assert_eq!(
            kinds,
            vec![
                num("-1"),
                num("1000.5"),
                num("1e3"),
                num("0"),
                num("-0.5E+10"),
                num("2e-3"),
                string(""),
                ValueKind::Bool(false),
                ValueKind::Null,
                string("x"),
            ]
        );
        // A scalar root is fine syntactically.
        assert_eq!(ok(" 42 ").kind, num("42"));
        assert_eq!(ok(" 42 ").span, Span::new(1, 3));
    }

    #[test]
    fn escapes_resolved_and_string_spans_include_quotes() {
        let src = r#"{"k\u00e9y": "q\" b\\ s\/ \b\f\n\r\t \u0041\ud83d\ude00 é"}"#;
        let v = ok(src);
        let m = &members(&v)[0];
        assert_eq!(m.key, "kéy");
        assert_eq!(m.key_span, Span::new(1, 11));
        assert_eq!(&src[m.key_span.range()], r#""k\u00e9y""#);
        assert_eq!(m.value.kind, string("q\" b\\ s/ \u{8}\u{c}\n\r\t A😀 é"));
        assert_eq!(m.value.span, Span::new(13, src.len() - 1));
        assert!(
            src[m.value.span.range()].starts_with('"') && src[m.value.span.range()].ends_with('"')
        );
    }

    #[test]
    fn comments_everywhere() {
        let src = "// head\n/* a */{/* b */\"a\"/* c */:// d\n/* e */[/* f */1/* g */,/* h */2/* i */]/* j */,\n\
                   // k\n\"b\" : /* l */ TBD /* m */}// tail";
        let v = ok(src);
        let m = members(&v);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].key, "a");
        let ValueKind::Array(items) = &m[0].value.kind else {
            panic!()
        };
        assert_eq!(
            items.iter().map(|v| v.kind.clone()).collect::<Vec<_>>(),
            vec![num("1"), num("2")]
        );
        assert_eq!(m[1].value.kind, ValueKind::Word("TBD".into()));
        assert_eq!(v.span.start, src.find('{').unwrap());
        // Comments at the very end, with and without a newline, and a block comment last.
        ok("{}//");
        ok("{}\n// x\n");
        ok("{} /* x */");
        ok("{}/**/");
        ok("{\"a\"://x\n1}");
        // Comment-looking text inside strings is text.
        assert_eq!(
            members(&ok(r#"{"a": "// not /* a comment"}"#))[0]
                .value
                .kind,
            string("// not /* a comment")
        );
    }

    #[test]
    fn tbd_is_a_word() {
        let src = r#"{ "apiKey": TBD, "type": "request" }"#;
        let v = ok(src);
        let m = members(&v);
        assert_eq!(
            m[0].value,
            Value {
                kind: ValueKind::Word("TBD".into()),
                span: Span::new(12, 15)
            }
        );
        assert_eq!(m[0].value.kind_name(), "a bare word");
        // Any other word is also accepted here; lowering judges it.
        assert_eq!(
            members(&ok(r#"{"a": Infinity}"#))[0].value.kind,
            ValueKind::Word("Infinity".into())
        );
    }

    #[test]
    fn duplicate_keys_kept_in_order() {
        let v = ok(r#"{"versions": "0+", "x": 1, "versions": "1+"}"#);
        let m = members(&v);
        let pairs: Vec<(&str, &ValueKind)> =
            m.iter().map(|m| (m.key.as_str(), &m.value.kind)).collect();
        assert_eq!(
            pairs,
            vec![
                ("versions", &string("0+")),
                ("x", &num("1")),
                ("versions", &string("1+"))
            ]
        );
        assert_eq!(m[2].key_span, Span::new(27, 37));
    }

    #[test]
    fn crlf_and_bom_accepted() {
        let v = ok("\u{feff}{\r\n  \"a\": 1,\r\n  \"b\": [true]\r\n}\r\n");
        assert_eq!(v.span.start, 3);
        assert_eq!(members(&v).len(), 2);
    }

    // ---------------------------------------------------------------- each error code

    #[test]
    fn k1001_unexpected_character_or_token() {
        let d = check(
            r#"{"a": 1 @ }"#,
            "K1001",
            8..9,
            "remove it, or put text in double quotes",
        );
        assert_eq!(d.message, "unexpected character `@`");
        check(
            r#"{"a": 1; "b": 2}"#,
            "K1001",
            7..8,
            "use `,` to separate members and elements",
        );
        check(
            r#"{"a" = 1}"#,
            "K1001",
            5..6,
            "use `:` between a key and its value",
        );
        check("# note\n{}", "K1001", 0..6, "use `//` for a line comment");
        check(r#"{"a": 'x'}"#, "K1001", 6..9, "write \"x\"");
        check(r#"{"a": }"#, "K1001", 6..7, "write a value before this `}`");
        check(
            r#"{"a": , "b": 1}"#,
            "K1001",
            6..7,
            "write a value before this `,`",
        );
        check(r#"[1,,2]"#, "K1001", 3..4, "remove this `,`");
        check(r#"{"a":: 1}"#, "K1001", 5..6, "remove this `:`");
        check(r#"{"a": 1 ], "b": 2}"#, "K1001", 8..9, "remove this `]`");
        check(r#"{"a": 1]"#, "K1001", 7..8, "replace this `]` with `}`");
        check(
            "]{}",
            "K1001",
            0..1,
            "a spec file is one JSON object: remove the text before its `{`",
        );
        check(
            r#"{ "a": 1, oops }"#,
            "K1001",
            10..14,
            "an object holds `\"key\": value` members; remove this or add its key",
        );
        // A stray run of characters is one diagnostic; the value after it is kept.
        let p = parse(r#"{"a": @@@ 1}"#);
        assert_eq!(
            codes(r#"{"a": @@@ 1}"#),
            vec![(
                "K1001",
                6..9,
                "remove it, or put text in double quotes".into()
            )]
        );
        assert_eq!(members(p.value.as_ref().unwrap())[0].value.kind, num("1"));
    }

    #[test]
    fn k1002_missing_comma() {
        let src = "{\n  \"a\": 1\n  \"b\": 2\n}";
        let d = check(src, "K1002", 10..10, "insert `,` here");
        assert_eq!(d.message, "missing `,` between object members");
        // The next member is kept in the same object.
        let v = parse(src).value.unwrap();
        let keys: Vec<&str> = members(&v).iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        // After a nested value: right after its closer.
        check(
            r#"{"a": {"x": 1} "b": []}"#,
            "K1002",
            14..14,
            "insert `,` here",
        );
        let d = check(r#"[1 "two"]"#, "K1002", 2..2, "insert `,` here");
        assert_eq!(d.message, "missing `,` between array elements");
        let ValueKind::Array(items) = parse(r#"[1 "two"]"#).value.unwrap().kind else {
            panic!()
        };
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn k1003_unterminated_string() {
        // The closing quote is missing: the line is repaired (the `,` after the text is the
        // member separator) and the next line parses normally.
        let src = "{\n  \"about\": \"no end,\n  \"name\": \"x\"\n}";
        let d = check(
            src,
            "K1003",
            13..20,
            "insert `\"` at the end of the highlighted text",
        );
        assert_eq!(
            d.message,
            "unterminated string: its closing `\"` is missing"
        );
        assert_eq!(&src[d.span.range()], "\"no end");
        let v = parse(src).value.unwrap();
        let m = members(&v);
        assert_eq!(m[0].value.kind, string("no end"));
        assert_eq!(
            (m[1].key.as_str(), &m[1].value.kind),
            ("name", &string("x"))
        );
        // A key's closing quote: the quotes after it pair up again.
        let src = "{\n  \"name: \"prevTasks\",\n  \"type\": \"int8\"\n}";
        check(
            src,
            "K1003",
            4..9,
            "insert `\"` at the end of the highlighted text",
        );
        let v = parse(src).value.unwrap();
        assert_eq!(members(&v)[0].value.kind, string("prevTasks"));
        // An opening quote.
        let src = "{\n  \"name\": prevTasks\",\n  \"type\": \"int8\"\n}";
        let d = check(
            src,
            "K1003",
            12..22,
            "insert `\"` at the start of the highlighted text",
        );
        assert!(d.message.contains("opening `\"` is missing"));
        assert_eq!(
            members(&parse(src).value.unwrap())[0].value.kind,
            string("prevTasks")
        );
        // The input ends first: no extra end-of-input error.
        check(
            "{\"a\": \"abc",
            "K1003",
            6..10,
            "insert `\"` at the end of the highlighted text",
        );
        // A trailing `}` on the line is taken as structure, not text: the object closes.
        check(
            "{\"a\": \"abc}",
            "K1003",
            6..10,
            "insert `\"` at the end of the highlighted text",
        );
        // No repair reads plausibly (the line has another error): the string is cut at the
        // end of its text, and both errors are reported.
        let src = "{\"a\": 01, \"b\": \"x y,\n\"c\": 1}";
        assert_eq!(
            codes(src),
            vec![
                (
                    "K1012",
                    6..8,
                    "JSON numbers cannot have leading zeros: remove them".into()
                ),
                (
                    "K1003",
                    15..19,
                    "add the closing `\"` at the end of the text".into()
                ),
            ]
        );
        let d = &parse(src).diagnostics[1];
        assert_eq!(
            d.message,
            "unterminated string: the line ends before its closing `\"`"
        );
        assert_eq!(members(&parse(src).value.unwrap()).len(), 3);
        check("\"abc\\", "K1003", 0..5, "add the closing `\"`");
    }

    #[test]
    fn extra_quote_is_one_k1001() {
        let src = "{\n  \"name\": \"prev\"Tasks\",\n  \"type\": \"int8\"\n}";
        let d = check(src, "K1001", 17..18, "remove this `\"`");
        assert_eq!(
            d.message,
            "unexpected `\"`: this extra quote makes the quotes after it pair up wrongly"
        );
        assert_eq!(
            members(&parse(src).value.unwrap())[0].value.kind,
            string("prevTasks")
        );
        // Kafka's `[]Type` strings are not structure: the extra quote is the inner one.
        let src = "{ \"type\": \"[\"]Subtopology\", \"versions\": \"0+\",\n\"x\": 1}";
        check(src, "K1001", 12..13, "remove this `\"`");
        assert_eq!(
            members(&parse(src).value.unwrap())[0].value.kind,
            string("[]Subtopology")
        );
    }

    #[test]
    fn k1015_foreign_whitespace_is_reported_once_per_run_and_skipped() {
        // U+00A0 runs (with plain spaces between) pasted from a wiki page: one diagnostic per run.
        let src = "{\"a\": 1,\n\u{a0} \u{a0} \"b\": 2}";
        let d = check(
            src,
            "K1015",
            9..14,
            "replace it with plain spaces (it often comes from copying a web page)",
        );
        assert_eq!(
            d.message,
            "no-break space (U+00A0) where JSON allows only plain whitespace"
        );
        // Skipped as whitespace: the missing comma it hides is still reported.
        let codes: Vec<_> = parse("[{}\n\u{a0}\u{a0}{}]")
            .diagnostics
            .into_iter()
            .map(|d| d.code)
            .collect();
        assert_eq!(codes, ["K1002", "K1015"]);
    }

    #[test]
    fn k1004_raw_control_character() {
        let src = "{\"a\": \"line one\nline two\"}";
        let d = check(
            src,
            "K1004",
            15..15,
            "escape the newline as \\n, or join the lines",
        );
        assert_eq!(d.message, "raw newline inside a string");
        assert_eq!(
            members(&parse(src).value.unwrap())[0].value.kind,
            string("line one\nline two")
        );
        check("[\"a\tb\"]", "K1004", 3..4, "escape the tab as \\t");
        check(
            "[\"a\rb\"]",
            "K1004",
            3..3,
            "escape the carriage return as \\r, or join the lines",
        );
        check(
            "[\"a\r\nb\"]",
            "K1004",
            3..3,
            "escape the line break as \\r\\n, or join the lines",
        );
        // A wrapped line: the break and the indentation after it are one mistake.
        check(
            "[\"a\n\t\t  b\"]",
            "K1004",
            3..3,
            "escape the newline as \\n, or join the lines",
        );
        // A run of tabs is one mistake.
        let d = check("[\"a\t\t\tb\"]", "K1004", 3..6, "escape the tabs as \\t");
        assert_eq!(d.message, "raw tabs inside a string");
        check(
            "[\"a\u{1}b\"]",
            "K1004",
            3..4,
            "escape the control character as \\u0001",
        );
        check(
            "[\"a\u{8}b\"]",
            "K1004",
            3..4,
            "escape the backspace as \\b",
        );
    }

    #[test]
    fn k1005_invalid_escape() {
        let help = "valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX; write `\\\\` for a backslash";
        let d = check(r#"["a\xb"]"#, "K1005", 3..5, help);
        assert_eq!(d.message, "invalid escape sequence `\\x`");
        check(
            r#"["\'"]"#,
            "K1005",
            2..4,
            "a single quote needs no escape: write `'`",
        );
        check(
            r#"["\u12"]"#,
            "K1005",
            2..6,
            "`\\u` takes exactly four hex digits, e.g. `\\u00e9`",
        );
        check(
            r#"["\uD800x"]"#,
            "K1005",
            2..8,
            "follow it with a low surrogate `\\udc00`..`\\udfff`, or escape the character itself",
        );
        check(
            r#"["\uDC00"]"#,
            "K1005",
            2..8,
            "a low surrogate must follow a high surrogate `\\ud800`..`\\udbff`",
        );
        // The string is still recovered (bad escapes keep the character or become U+FFFD).
        let p = parse(r#"["a\xb\u12"]"#);
        let ValueKind::Array(items) = p.value.unwrap().kind else {
            panic!()
        };
        assert_eq!(items[0].kind, string("axb\u{fffd}"));
        assert_eq!(p.diagnostics.len(), 2);
    }

    #[test]
    fn k1006_unterminated_block_comment() {
        let src = "{\"a\": 1 /* never closed }";
        let d = check(src, "K1006", 8..10, "close the comment with `*/`");
        assert_eq!(
            d.message,
            "unterminated block comment: this `/*` is never closed"
        );
        // The swallowed `}` does not cause a second (follow-on) error.
        assert_eq!(members(&parse(src).value.unwrap()).len(), 1);
        check("/* only", "K1006", 0..2, "close the comment with `*/`");
    }

    #[test]
    fn k1007_trailing_comma() {
        let d = check(r#"{"a": 1, }"#, "K1007", 7..8, "remove this `,`");
        assert!(d.message.contains("trailing `,` before `}`"));
        check("[1, 2,\n]", "K1007", 5..6, "remove this `,`");
        assert_eq!(members(&parse(r#"{"a": 1, }"#).value.unwrap()).len(), 1);
    }

    #[test]
    fn k1008_missing_colon() {
        let d = check(r#"{"a" 1, "b": 2}"#, "K1008", 4..4, "insert `:` here");
        assert_eq!(d.message, "missing `:` after the key \"a\"");
        let v = parse(r#"{"a" 1, "b": 2}"#).value.unwrap();
        assert_eq!(
            members(&v)
                .iter()
                .map(|m| m.key.as_str())
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        check(
            r#"{"a", "b": 2}"#,
            "K1008",
            4..4,
            "insert `:` here, followed by the value",
        );
    }

    #[test]
    fn k1009_non_string_key() {
        let d = check(r#"{name: "x"}"#, "K1009", 1..5, "write \"name\"");
        assert_eq!(
            d.message,
            "object keys must be double-quoted strings, found the bare word `name`"
        );
        let v = parse(r#"{name: "x"}"#).value.unwrap();
        assert_eq!(members(&v)[0].key, "name");
        assert_eq!(members(&v)[0].key_span, Span::new(1, 5));
        check(r#"{'name': "x"}"#, "K1009", 1..7, "write \"name\"");
        check(r#"{1: "x"}"#, "K1009", 1..2, "write \"1\"");
        check(r#"{TBD: "x"}"#, "K1009", 1..4, "write \"TBD\"");
    }

    #[test]
    fn k1010_unclosed_brackets() {
        let src = "{\n  \"a\": [1, 2\n";
        let d = check(
            src,
            "K1010",
            src.len()..src.len(),
            "close every open bracket with `]}`",
        );
        assert_eq!(
            d.message,
            "unexpected end of input: the `[` at line 2, column 8 is never closed (nor is its enclosing `{`/`[`)"
        );
        let d = check("{\"a\": 1", "K1010", 7..7, "close it with `}`");
        assert_eq!(
            d.message,
            "unexpected end of input: the `{` at line 1, column 1 is never closed"
        );
        // Closed by the wrong bracket, an enclosing one of that kind: reported at the closer.
        let d = check(
            r#"{"a": [1, 2}"#,
            "K1010",
            11..12,
            "insert `]` before this `}`",
        );
        assert_eq!(
            d.message,
            "unclosed `[`: the `[` at line 1, column 7 is never closed, found `}` first"
        );
        // The tree is recovered up to the end.
        let v = parse("{\"a\": [1, 2").value.unwrap();
        assert_eq!(v.span, Span::new(0, 11));
        let ValueKind::Array(items) = &members(&v)[0].value.kind else {
            panic!()
        };
        assert_eq!(items.len(), 2);
    }

    #[test]
    fn k1011_trailing_content() {
        let src = "{\"a\": 1}\n}, {\"b\": 2}";
        let d = check(
            src,
            "K1011",
            9..20,
            "remove everything after the root value; a spec file holds exactly one value",
        );
        assert_eq!(
            d.message,
            "trailing content after the root value (which ends at line 1, column 9)"
        );
        assert_eq!(members(&parse(src).value.unwrap()).len(), 1);
    }

    #[test]
    fn k1012_invalid_number() {
        let d = check(
            r#"{"a": +1}"#,
            "K1012",
            6..8,
            "JSON numbers cannot start with `+`: remove it",
        );
        assert_eq!(d.message, "invalid number literal `+1`");
        check(
            "[01]",
            "K1012",
            1..3,
            "JSON numbers cannot have leading zeros: remove them",
        );
        check(
            "[1.]",
            "K1012",
            1..3,
            "a JSON number needs a digit after the `.`",
        );
        check(
            "[.5]",
            "K1012",
            1..3,
            "a JSON number needs a digit before the `.`: write `0.` first",
        );
        check(
            "[1e]",
            "K1012",
            1..3,
            "the exponent needs at least one digit, e.g. `1e3`",
        );
        check(
            "[0x1F]",
            "K1012",
            1..5,
            "JSON numbers are decimal: write the value in base 10",
        );
        check(
            "[-]",
            "K1012",
            1..2,
            "a JSON number needs at least one digit",
        );
        check(
            "[12abc]",
            "K1012",
            1..6,
            "a JSON number cannot be followed by `abc`; if this is text, put it in double quotes",
        );
        // The raw text is kept in the tree.
        let ValueKind::Array(items) = parse("[+1]").value.unwrap().kind else {
            panic!()
        };
        assert_eq!(items[0].kind, num("+1"));
    }

    #[test]
    fn k1013_empty_input() {
        let d = check(
            "",
            "K1013",
            0..0,
            "a spec file is one JSON object: `{ ... }`",
        );
        assert_eq!(d.message, "empty input: the file holds no JSON value");
        check(
            "  \n// only a comment\n/* and another */\n",
            "K1013",
            39..39,
            "a spec file is one JSON object: `{ ... }`",
        );
        assert_eq!(parse("").value, None);
    }

    #[test]
    fn k1014_nesting_too_deep() {
        // 128 levels are fine.
        let src = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        ok(&src);
        let src = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        let d = check(
            &src,
            "K1014",
            128..129,
            "flatten the structure; this container and everything inside it is skipped",
        );
        assert_eq!(
            d.message,
            "nesting too deep: more than 128 levels of `{`/`[`"
        );
        // Objects count the same way; a very deep input neither overflows the stack nor reports twice.
        let deep = format!("{}1{}", "{\"a\":[".repeat(100_000), "]}".repeat(100_000));
        assert_eq!(
            codes(&deep).iter().map(|c| c.0).collect::<Vec<_>>(),
            ["K1014"]
        );
        let unclosed = "[".repeat(200_000);
        assert_eq!(
            codes(&unclosed).iter().map(|c| c.0).collect::<Vec<_>>(),
            ["K1014", "K1010"]
        );
    }

    // ---------------------------------------------------------------- recovery

    #[test]
    fn independent_errors_all_reported() {
        let src = "{\n\
                   \x20 \"apiKey\": 1,\n\
                   \x20 \"type\": \"request\"\n\
                   \x20 \"name\": \"FooRequest\",\n\
                   \x20 \"validVersions\": \"0\",\n\
                   \x20 \"flexibleVersions\": \"0+\",\n\
                   \x20 \"fields\": [\n\
                   \x20   { \"name\": \"A\", \"type\": \"int8\", \"versions\": \"0+\",\n\
                   \x20     \"about\": \"never closed },\n\
                   \x20   { \"name\": \"B\", \"type\": \"int8\", \"versions\": \"0+\" }\n\
                   \x20 ]\n\
                   }\n";
        let p = parse(src);
        let line = |offset: usize| src[..offset].matches('\n').count() + 1;
        let got: Vec<(&str, usize)> = p
            .diagnostics
            .iter()
            .map(|d| (d.code, line(d.span.start)))
            .collect();
        assert_eq!(
            got,
            vec![("K1002", 3), ("K1003", 9)],
            "{:#?}",
            p.diagnostics
        );
        let comma = &p.diagnostics[0];
        assert_eq!(
            comma.span,
            Span::new(
                src.find("\"request\"").unwrap() + 9,
                src.find("\"request\"").unwrap() + 9
            )
        );
        // The tree holds every top-level member and both fields.
        let v = p.value.unwrap();
        let keys: Vec<&str> = members(&v).iter().map(|m| m.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "apiKey",
                "type",
                "name",
                "validVersions",
                "flexibleVersions",
                "fields"
            ]
        );
        let ValueKind::Array(fields) = &members(&v)[5].value.kind else {
            panic!()
        };
        assert_eq!(fields.len(), 2);
        // The string is cut before the trailing ` },`, which closes the field's object.
        assert_eq!(members(&fields[0])[3].value.kind, string("never closed"));
    }

    #[test]
    fn many_errors_in_source_order() {
        let src = "{\n \"a\": 01,\n b: 2,\n \"c\": \"x\\q\",\n \"d\": [1 2],\n \"e\": 3,\n}";
        let got: Vec<&str> = codes(src).into_iter().map(|c| c.0).collect();
        assert_eq!(got, ["K1012", "K1009", "K1005", "K1002", "K1007"]);
        let v = parse(src).value.unwrap();
        assert_eq!(members(&v).len(), 5);
        let starts: Vec<usize> = parse(src)
            .diagnostics
            .iter()
            .map(|d| d.span.start)
            .collect();
        assert!(starts.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn wrong_closers_recover_the_best_reading() {
        // A typo for the right closer, inside an array that goes on.
        assert_eq!(
            codes(r#"[{"a": 1], 2]"#),
            vec![("K1001", 8..9, "replace this `]` with `}`".into())]
        );
        let ValueKind::Array(items) = parse(r#"[{"a": 1], 2]"#).value.unwrap().kind else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        // A missing closer before an enclosing one's.
        assert_eq!(
            codes(r#"[{"a": [1}]"#),
            vec![("K1010", 9..10, "insert `]` before this `}`".into())]
        );
        // A stray closer.
        assert_eq!(codes(r#"{"a": 1 ], "b": 2}"#).len(), 1);
    }

    #[test]
    fn multi_line_string_versus_unterminated() {
        // A closing quote followed by `,` makes the line break part of the string.
        assert_eq!(
            codes("[\"a\nb\nc\", 1]")
                .iter()
                .map(|c| c.0)
                .collect::<Vec<_>>(),
            ["K1004", "K1004"]
        );
        // A quote followed by more text opens the next string: the first one is unterminated
        // (and, repaired, still lacks its `,`).
        assert_eq!(
            codes("[\"a\n \"b\"]")
                .iter()
                .map(|c| c.0)
                .collect::<Vec<_>>(),
            ["K1003", "K1002"]
        );
        // Its `,` inside the unterminated text is taken as the separator.
        assert_eq!(
            codes("[\"a,\n \"b\"]")
                .iter()
                .map(|c| c.0)
                .collect::<Vec<_>>(),
            ["K1003"]
        );
    }

    #[test]
    fn missing_brackets_between_elements_and_members() {
        // A field object's `}` missing before the next element: one error, two elements.
        let src = r#"[{"a": 1, {"b": 2}]"#;
        let d = check(src, "K1010", 8..8, "insert `}` here");
        assert_eq!(
            d.message,
            "unclosed `{`: the `{` at line 1, column 2 is never closed before the next element"
        );
        let ValueKind::Array(items) = parse(src).value.unwrap().kind else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        // An array's `]` missing before the next member.
        let src = r#"{"a": ["x", "b": 1}"#;
        check(src, "K1010", 10..10, "insert `]` here");
        assert_eq!(members(&parse(src).value.unwrap()).len(), 2);
        // A field object's `{` missing.
        let src = r#"[{"name": "x"}, "name": "y", "type": "int8"}]"#;
        let d = check(src, "K1001", 16..16, "insert `{` here");
        assert_eq!(
            d.message,
            "expected an array element, found an object member: the `{` is missing"
        );
        let ValueKind::Array(items) = parse(src).value.unwrap().kind else {
            panic!()
        };
        assert_eq!(members(&items[1]).len(), 2);
        // A `[` missing before a run of objects: the keyless values and the stray `]` are one error.
        let src = r#"{"fields": {"a": 1}, {"b": 2}, {"c": 3}], "x": 1}"#;
        check(
            src,
            "K1001",
            21..22,
            "give the value a key: `\"key\": ...`, or wrap the values in `[ ]`",
        );
    }

    #[test]
    fn stray_tokens_are_one_error_each() {
        // A stray `}` that would otherwise close the root early.
        check(r#"{"a": 1 } "b": 2}"#, "K1001", 8..9, "remove this `}`");
        // A stray opener.
        check(r#"{"a": {"b", "c": 1}"#, "K1001", 6..7, "remove this `{`");
        check("[1, 2 [3]", "K1001", 6..7, "remove this `[`");
        // Junk between a key and its `:`, before a value, after a value.
        let d = check(r#"{"name"x: 1}"#, "K1001", 7..8, "remove this word `x`");
        assert_eq!(
            d.message,
            "unexpected word `x` between the key \"name\" and its `:`"
        );
        check(r#"{"name",: 1}"#, "K1001", 7..8, "remove this `,`");
        check(r#"{"a": ,1}"#, "K1001", 6..7, "remove this `,`");
        check(r#"{"a": x"y"}"#, "K1001", 6..7, "remove this word `x`");
        check(
            r#"{"a": "b" x}"#,
            "K1001",
            10..11,
            "remove this word `x`, or add `,` and a key before it",
        );
        check(r#"{:"a": 1}"#, "K1001", 1..2, "remove this `:`");
        // An apostrophe is not a string quote.
        check(
            r#"{'"a": 1}"#,
            "K1001",
            1..2,
            "JSON strings use double quotes: `\"...\"`",
        );
        ok(r#"{"about": "it's"}"#);
    }

    /// Offsets in a real spec of its structural characters and quotes (outside strings and
    /// comments), and of the starts of its tokens other than numbers and words.
    fn slip_offsets(src: &str) -> (Vec<usize>, Vec<usize>) {
        let (mut delete, mut insert) = (Vec::new(), Vec::new());
        for t in super::super::lexer::lex(src).tokens {
            match t.kind {
                TokenKind::Number(_) | TokenKind::Word(_) => continue,
                TokenKind::Str { .. } => delete.extend([t.span.start, t.span.end - 1]),
                _ => delete.push(t.span.start),
            }
            insert.push(t.span.start);
        }
        (delete, insert)
    }

    /// Every single-character slip in a real spec (a structural character or quote deleted, or
    /// one of `, " } ] : { [ x '` typed before one) gives exactly one diagnostic.
    #[test]
    #[cfg_attr(
        not(kwire_shared),
        ignore = "needs Kafka's specs from the shared material: put it at ../shared or set KWIRE_SHARED, then rebuild"
    )]
    fn one_slip_one_diagnostic() {
        let shared = shared_dir();
        let file = shared.join("kafka-specs/3.9.0/streams/SubscriptionInfoData.json");
        let src = std::fs::read_to_string(file).unwrap();
        let (delete, insert) = slip_offsets(&src);
        assert!(delete.len() > 300 && insert.len() > 200);
        for &i in &delete {
            let mut edited = src.clone();
            edited.remove(i);
            let p = parse(&edited);
            assert_eq!(
                p.diagnostics.len(),
                1,
                "deleting byte {i}: {:#?}",
                p.diagnostics
            );
        }
        for &i in &insert {
            for ins in [",", "\"", "}", "]", ":", "{", "[", "x", "'"] {
                let mut edited = src.clone();
                edited.insert_str(i, ins);
                let p = parse(&edited);
                assert_eq!(
                    p.diagnostics.len(),
                    1,
                    "inserting {ins:?} at {i}: {:#?}",
                    p.diagnostics
                );
            }
        }
    }

    #[test]
    fn positions_in_messages_count_lines_and_chars() {
        let src = "ab\né xé y\n";
        let mut p = Parser::new(src, Vec::new(), false);
        assert_eq!(p.at(0), "line 1, column 1");
        assert_eq!(p.at(3), "line 2, column 1");
        assert_eq!(p.at(5), "line 2, column 2");
        assert_eq!(p.at(9), "line 2, column 5"); // forward on the same line (cursor)
        assert_eq!(p.at(4), "line 2, column 1"); // backwards, inside `é`: rounds down
        assert_eq!(p.at(6), "line 2, column 3");
        assert_eq!(p.at(1), "line 1, column 2"); // back to an earlier line
        assert_eq!(p.at(12), "line 3, column 1");
        assert_eq!(p.at(99), "line 3, column 1");
    }

    // ---------------------------------------------------------------- corpus and robustness

    #[test]
    #[cfg_attr(
        not(kwire_shared),
        ignore = "needs Kafka's specs from the shared material: put it at ../shared or set KWIRE_SHARED, then rebuild"
    )]
    fn real_specs_parse_cleanly() {
        let shared = shared_dir();
        let specs = shared.join("kafka-specs");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(specs.join("3.9.0"))
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        dirs.push(specs.join("streams-2025"));
        let mut n = 0;
        for dir in dirs {
            for file in json_files(&dir) {
                let src = std::fs::read_to_string(&file).unwrap();
                let p = parse(&src);
                assert!(
                    p.diagnostics.is_empty(),
                    "{}: {:#?}",
                    file.display(),
                    p.diagnostics
                );
                let v = p
                    .value
                    .unwrap_or_else(|| panic!("{}: no value", file.display()));
                assert!(
                    v.as_object().is_some(),
                    "{}: root is {}",
                    file.display(),
                    v.kind_name()
                );
                n += 1;
            }
        }
        assert!(n >= 249, "only {n} spec files found");
    }

    #[test]
    #[cfg_attr(
        not(kwire_shared),
        ignore = "needs Kafka's specs from the shared material: put it at ../shared or set KWIRE_SHARED, then rebuild"
    )]
    fn every_prefix_of_a_real_spec() {
        let shared = shared_dir();
        let file = shared.join("kafka-specs/3.9.0/streams/SubscriptionInfoData.json");
        let src = std::fs::read_to_string(file).unwrap();
        let full = parse(&src).value.unwrap();
        let complete = full.span.end;
        for cut in (0..=src.len()).filter(|&i| src.is_char_boundary(i)) {
            let prefix = &src[..cut];
            let p = parse(prefix);
            for d in &p.diagnostics {
                assert!(
                    d.span.start <= d.span.end && d.span.end <= cut,
                    "cut {cut}: {d:?}"
                );
            }
            if cut < complete {
                assert!(
                    !p.diagnostics.is_empty(),
                    "prefix of {cut} bytes parsed cleanly"
                );
            } else {
                assert!(p.diagnostics.is_empty(), "cut {cut}: {:?}", p.diagnostics);
            }
        }
    }

    /// Mutated and random input: no panic, spans in bounds and on char boundaries, sorted.
    #[test]
    fn garbage_never_panics() {
        let base = "// c\n{ \"apiKey\": TBD, \"a\": [1, -2.5e3, {\"b\": \"x\\u00e9\\n\"}], /* d */ \"é\": null }\n";
        let alphabet: Vec<char> = "{}[]:,\"'\\/*#-+.0123456789eEuxtrfn TBD\n\r\té😀\u{1}"
            .chars()
            .collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..3000 {
            let mut chars: Vec<char> = base.chars().collect();
            let edits = 1 + (next() % 6) as usize;
            for _ in 0..edits {
                let i = (next() as usize) % (chars.len() + 1);
                let c = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 if i < chars.len() => chars[i] = c,
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ => chars.insert(i, c),
                }
            }
            let src: String = if round % 10 == 0 {
                (0..(next() % 60))
                    .map(|_| alphabet[(next() as usize) % alphabet.len()])
                    .collect()
            } else {
                chars.into_iter().collect()
            };
            let p = parse(&src);
            let mut last = 0;
            for d in &p.diagnostics {
                assert!(
                    d.span.start <= d.span.end && d.span.end <= src.len(),
                    "{src:?}: {d:?}"
                );
                assert!(
                    src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end),
                    "{src:?}: {d:?}"
                );
                assert!(d.span.start >= last, "{src:?}: not sorted");
                assert!(d.code.starts_with("K1") && d.help.is_some());
                last = d.span.start;
            }
            if p.value.is_none() {
                assert!(
                    !p.diagnostics.is_empty(),
                    "{src:?}: no value and no diagnostic"
                );
            }
        }
    }
}
