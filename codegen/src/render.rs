//! Rendering diagnostics: rustc style (file:line:col, the source line, a caret underline, help)
//! and JSON for tools.

use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{Checked, NotUtf8};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

pub use crate::diagnostics::line_col;

/// Renders one file's diagnostics in rustc's style.
pub fn render(path: &str, text: &str, diags: &[Diagnostic], color: bool) -> String {
    let mut files = SimpleFiles::new();
    let id = files.add(path.to_string(), text.to_string());
    let config = term::Config::default();
    let mut buf = termcolor::NoColor::new(Vec::new());
    if color {
        let mut abuf = termcolor::Ansi::new(Vec::new());
        for d in diags {
            emit_one(&mut abuf, &config, &files, id, text, d);
        }
        return String::from_utf8_lossy(&abuf.into_inner()).into_owned();
    }
    for d in diags {
        emit_one(&mut buf, &config, &files, id, text, d);
    }
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

fn emit_one(
    out: &mut dyn termcolor::WriteColor,
    config: &term::Config,
    files: &SimpleFiles<String, String>,
    id: usize,
    text: &str,
    d: &Diagnostic,
) {
    let cs = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
    };
    let end = d.span.end.max(d.span.start).min(text.len());
    let start = d.span.start.min(end);
    let mut cs = cs.with_code(d.code).with_message(&d.message).with_labels(vec![Label::primary(id, start..end)]);
    if let Some(h) = &d.help {
        cs = cs.with_notes(vec![format!("help: {h}")]);
    }
    let _ = term::emit(out, config, files, &cs);
}

/// Renders every file's diagnostics, in file order.
pub fn render_all(checked: &Checked, color: bool) -> String {
    let mut s = String::new();
    for (f, d) in checked.files.iter().zip(&checked.diagnostics) {
        if !d.is_empty() {
            s.push_str(&render(&f.path.display().to_string(), &f.text, d, color));
        }
    }
    s
}

/// One diagnostic as the JSON object of `kwire check --format json`.
pub fn to_json(path: &str, text: &str, d: &Diagnostic) -> serde_json::Value {
    let (line, column) = line_col(text, d.span.start);
    let (end_line, end_column) = line_col(text, d.span.end.max(d.span.start));
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

/// Every diagnostic as one JSON array.
pub fn json_all(checked: &Checked) -> serde_json::Value {
    let mut items = Vec::new();
    for (f, ds) in checked.files.iter().zip(&checked.diagnostics) {
        for d in ds {
            items.push(to_json(&f.path.display().to_string(), &f.text, d));
        }
    }
    serde_json::Value::Array(items)
}

/// A file that is not UTF-8, in the style of [`render`] (no code: what is wrong is the file's
/// encoding, not its text, which cannot be read; no source line: the file may be binary).
pub fn render_not_utf8(n: &NotUtf8, color: bool) -> String {
    let bytes = if color {
        let mut w = termcolor::Ansi::new(Vec::new());
        write_not_utf8(&mut w, n);
        w.into_inner()
    } else {
        let mut w = termcolor::NoColor::new(Vec::new());
        write_not_utf8(&mut w, n);
        w.into_inner()
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

fn write_not_utf8(out: &mut impl termcolor::WriteColor, n: &NotUtf8) {
    use termcolor::{Color, ColorSpec};
    // Writing into a `Vec` does not fail.
    let _ = (|| -> std::io::Result<()> {
        out.set_color(ColorSpec::new().set_fg(Some(Color::Red)).set_bold(true).set_intense(true))?;
        write!(out, "error")?;
        out.set_color(ColorSpec::new().set_bold(true))?;
        write!(out, ": file is not valid UTF-8: byte 0x{:02x} at byte offset {}", n.byte, n.offset)?;
        out.reset()?;
        writeln!(out)?;
        writeln!(out, "  ┌─ {}:{}:{}", n.path.display(), n.line, n.column)?;
        writeln!(out, "  │")?;
        writeln!(out, "  = help: {}", n.help())?;
        writeln!(out)
    })();
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
