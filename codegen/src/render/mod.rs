//! Rendering diagnostics: rustc style (file:line:col, the source line, a caret underline, help)
//! and JSON for tools.
//!
//! Both are bounded per diagnostic, whatever the input: a source line longer than
//! [`snippet::MAX_LINE`] bytes is shown as a window around the span ([`snippet`]), and every
//! position is computed from one [`LineIndex`] per file. [`Human`] streams: each diagnostic is
//! rendered and handed on as it comes, up to a limit on their number (rustc-style volume by
//! default, [`DEFAULT_MAX_DIAGNOSTICS`]), and the rest are counted ("... and 19950 more errors").

pub mod snippet;

use crate::diagnostics::{Diagnostic, LineIndex, Severity};
use crate::source::{Checked, NotUtf8};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::term::{self, termcolor};
use snippet::{Snippet, Snippets};

pub use crate::diagnostics::line_col;

/// How many diagnostics `kwire check` (and [`render_all`]) prints by default; the others are
/// counted. (`kwire check --max-diagnostics N` changes it, 0 prints all.)
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 50;

/// The human form, streamed: diagnostics are rendered one at a time and handed to the caller's
/// `emit` as they are, until `limit` of them were; the rest are only counted
/// ([`Human::more`]). Memory: one rendered diagnostic, and one [`LineIndex`] of the file being
/// rendered.
#[derive(Debug)]
pub struct Human {
    color: bool,
    /// The most diagnostics rendered; `usize::MAX` for no limit.
    limit: usize,
    shown: usize,
    more_errors: usize,
    more_warnings: usize,
    config: term::Config,
}

impl Human {
    /// A renderer that renders at most `max` diagnostics (0: all), with ANSI colors if `color`.
    pub fn new(color: bool, max: usize) -> Human {
        let limit = if max == 0 { usize::MAX } else { max };
        Human {
            color,
            limit,
            shown: 0,
            more_errors: 0,
            more_warnings: 0,
            config: term::Config::default(),
        }
    }

    /// Whether one more diagnostic is rendered; counts it if not.
    fn admit(&mut self, is_error: bool) -> bool {
        if self.shown < self.limit {
            self.shown += 1;
            return true;
        }
        if is_error {
            self.more_errors += 1;
        } else {
            self.more_warnings += 1;
        }
        false
    }

    /// Renders the diagnostics of the file `path` (its text `text`), each handed to `emit`.
    pub fn file(
        &mut self,
        path: &str,
        text: &str,
        diags: &[Diagnostic],
        emit: &mut dyn FnMut(&str),
    ) {
        let mut index = None;
        for d in diags {
            if self.admit(d.is_error()) {
                let index = index.get_or_insert_with(|| LineIndex::new(text));
                emit(&self.one(path, index, d));
            }
        }
    }

    /// Renders a file that is not UTF-8 (an error), handed to `emit`.
    pub fn not_utf8(&mut self, n: &NotUtf8, emit: &mut dyn FnMut(&str)) {
        if self.admit(true) {
            emit(&render_not_utf8(n, self.color));
        }
    }

    /// "... and 19950 more errors and 3 more warnings" when some were not rendered.
    pub fn more(&self) -> Option<String> {
        let plural =
            |n: usize, what: &str| format!("{n} more {what}{}", if n == 1 { "" } else { "s" });
        match (self.more_errors, self.more_warnings) {
            (0, 0) => None,
            (e, 0) => Some(format!("... and {}", plural(e, "error"))),
            (0, w) => Some(format!("... and {}", plural(w, "warning"))),
            (e, w) => Some(format!(
                "... and {} and {}",
                plural(e, "error"),
                plural(w, "warning")
            )),
        }
    }

    /// One diagnostic in rustc's style.
    fn one(&self, path: &str, index: &LineIndex, d: &Diagnostic) -> String {
        let cs = match d.severity {
            Severity::Error => CsDiagnostic::error(),
            Severity::Warning => CsDiagnostic::warning(),
        };
        let (snippet, range) = Snippet::new(path.to_string(), index, d.span.start..d.span.end);
        let files = Snippets(vec![snippet]);
        let mut cs = cs
            .with_code(d.code)
            .with_message(&d.message)
            .with_labels(vec![Label::primary(0, range)]);
        if let Some(h) = &d.help {
            cs = cs.with_notes(vec![format!("help: {h}")]);
        }
        emit_to_string(self.color, |w| term::emit(w, &self.config, &files, &cs))
    }
}

/// What `write` writes into a buffer (ANSI-colored if `color`), as text.
pub(crate) fn emit_to_string<E>(
    color: bool,
    write: impl FnOnce(&mut dyn termcolor::WriteColor) -> Result<(), E>,
) -> String {
    // Writing into a `Vec` does not fail, nor does codespan on the files it is given.
    let bytes = if color {
        let mut w = termcolor::Ansi::new(Vec::new());
        let _ = write(&mut w);
        w.into_inner()
    } else {
        let mut w = termcolor::NoColor::new(Vec::new());
        let _ = write(&mut w);
        w.into_inner()
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Renders one file's diagnostics in rustc's style, all of them.
pub fn render(path: &str, text: &str, diags: &[Diagnostic], color: bool) -> String {
    let mut s = String::new();
    Human::new(color, 0).file(path, text, diags, &mut |d| s.push_str(d));
    s
}

/// Renders every file's diagnostics, in file order, the first [`DEFAULT_MAX_DIAGNOSTICS`] of
/// them, then a line counting the rest.
pub fn render_all(checked: &Checked, color: bool) -> String {
    let mut s = String::new();
    let mut human = Human::new(color, DEFAULT_MAX_DIAGNOSTICS);
    for (f, d) in checked.files.iter().zip(&checked.diagnostics) {
        human.file(&f.path.display().to_string(), &f.text, d, &mut |d| {
            s.push_str(d)
        });
    }
    if let Some(more) = human.more() {
        s.push_str(&format!("{more} not shown\n"));
    }
    s
}

/// One diagnostic as the JSON object of `kwire check --format json`. Reads `text` up to the
/// span: for many diagnostics of one file, use [`json_file`].
pub fn to_json(path: &str, text: &str, d: &Diagnostic) -> serde_json::Value {
    json_at(path, &LineIndex::new(text), d)
}

/// One diagnostic as the JSON object of `kwire check --format json`, its positions from `index`.
fn json_at(path: &str, index: &LineIndex, d: &Diagnostic) -> serde_json::Value {
    let (line, column) = index.line_col(d.span.start);
    let (end_line, end_column) = index.line_col(d.span.end.max(d.span.start));
    // Keys in alphabetical order: the output is the same whether or not serde_json keeps
    // insertion order (its `preserve_order` feature, which kwire-protocol's `json` turns on).
    serde_json::json!({
        "code": d.code,
        "column": column,
        "end_column": end_column,
        "end_line": end_line,
        "file": path,
        "help": d.help,
        "line": line,
        "message": d.message,
        "severity": d.severity.as_str(),
    })
}

/// Every diagnostic of the file `path` as its JSON object, each handed to `emit` as it is made
/// (one [`LineIndex`] for the file).
pub fn json_file(
    path: &str,
    text: &str,
    diags: &[Diagnostic],
    emit: &mut dyn FnMut(serde_json::Value),
) {
    if diags.is_empty() {
        return;
    }
    let index = LineIndex::new(text);
    for d in diags {
        emit(json_at(path, &index, d));
    }
}

/// Every diagnostic as one JSON array.
pub fn json_all(checked: &Checked) -> serde_json::Value {
    let mut items = Vec::new();
    for (f, ds) in checked.files.iter().zip(&checked.diagnostics) {
        json_file(&f.path.display().to_string(), &f.text, ds, &mut |v| {
            items.push(v)
        });
    }
    serde_json::Value::Array(items)
}

/// A file that is not UTF-8, in the style of [`render`] (no code: what is wrong is the file's
/// encoding, not its text, which cannot be read; no source line: the file may be binary).
pub fn render_not_utf8(n: &NotUtf8, color: bool) -> String {
    emit_to_string(color, |w| write_not_utf8(w, n))
}

fn write_not_utf8(out: &mut dyn termcolor::WriteColor, n: &NotUtf8) -> std::io::Result<()> {
    use termcolor::{Color, ColorSpec};
    (|| -> std::io::Result<()> {
        out.set_color(
            ColorSpec::new()
                .set_fg(Some(Color::Red))
                .set_bold(true)
                .set_intense(true),
        )?;
        write!(out, "error")?;
        out.set_color(ColorSpec::new().set_bold(true))?;
        write!(
            out,
            ": file is not valid UTF-8: byte 0x{:02x} at byte offset {}",
            n.byte, n.offset
        )?;
        out.reset()?;
        writeln!(out)?;
        writeln!(out, "  ┌─ {}:{}:{}", n.path.display(), n.line, n.column)?;
        writeln!(out, "  │")?;
        writeln!(out, "  = help: {}", n.help())?;
        writeln!(out)
    })()
}

/// A file that is not UTF-8 as an object of `kwire check --format json`: as [`to_json`], with
/// `code` null (see [`render_not_utf8`]) and a one-character span at the first invalid byte.
pub fn not_utf8_json(n: &NotUtf8) -> serde_json::Value {
    serde_json::json!({
        "code": null,
        "column": n.column,
        "end_column": n.column + 1,
        "end_line": n.line,
        "file": n.path.display().to_string(),
        "help": n.help(),
        "line": n.line,
        "message": format!("file is not valid UTF-8: byte 0x{:02x} at byte offset {}", n.byte, n.offset),
        "severity": "error",
    })
}
