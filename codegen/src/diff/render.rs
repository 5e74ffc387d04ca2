//! Rendering findings: as `kwire check` renders diagnostics (codespan-reporting, file:line:col,
//! the source line and a caret), with a label in the old file and one in the new; and as JSON.

use super::finding::{Finding, Impact, Side};
use crate::diagnostics::line_col;
use crate::source::Checked;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};
use std::collections::HashMap;

/// The text of the file a side points at: looked up among the files of `c` by path.
fn text_of<'a>(c: &'a Checked, side: &Side) -> Option<&'a str> {
    c.files.iter().find(|f| f.path.display().to_string() == side.file).map(|f| f.text.as_str())
}

/// Renders findings as `kwire check` renders diagnostics: `error[K5002]` for a breaking finding,
/// `warning[K5101]` for a compatible one, a label in the old file ("old") and one in the new
/// ("new") where the finding has them, and a note naming the message, versions and path.
pub fn render_human(f: &[Finding], old: &Checked, new: &Checked, color: bool) -> String {
    let mut files = SimpleFiles::new();
    // Each file is added once, whatever the number of findings in it.
    // Keyed by side too: the two sides may give the same path different texts (a file against
    // its committed version).
    let mut ids: HashMap<(bool, String), usize> = HashMap::new();
    let mut label = |is_old: bool, c: &Checked, side: &Option<Side>| -> Option<(usize, std::ops::Range<usize>)> {
        let s = side.as_ref()?;
        let text = text_of(c, s)?;
        let id = *ids.entry((is_old, s.file.clone())).or_insert_with(|| files.add(s.file.clone(), text.to_string()));
        let end = s.span.end.max(s.span.start).min(text.len());
        Some((id, s.span.start.min(end)..end))
    };
    let mut diags = Vec::new();
    for x in f {
        let (o, n) = (label(true, old, &x.old), label(false, new, &x.new));
        let mut labels = Vec::new();
        if let Some((id, r)) = o {
            let l = if n.is_none() { Label::primary(id, r) } else { Label::secondary(id, r) };
            labels.push(l.with_message("old"));
        }
        if let Some((id, r)) = n {
            labels.push(Label::primary(id, r).with_message("new"));
        }
        let severity = match x.impact {
            Impact::Breaking => Severity::Error,
            Impact::Compatible => Severity::Warning,
        };
        let mut note = format!(
            "{} {}, version{} {}",
            x.impact.as_str(),
            x.message,
            if x.versions.len() == 1 { "" } else { "s" },
            list(&x.versions)
        );
        if !x.path.is_empty() {
            note.push_str(&format!(", field {}", x.path));
        }
        diags.push(
            CsDiagnostic::new(severity)
                .with_code(x.code)
                .with_message(&x.text)
                .with_labels(labels)
                .with_notes(vec![note]),
        );
    }
    let config = term::Config::default();
    let bytes = if color {
        let mut w = termcolor::Ansi::new(Vec::new());
        for d in &diags {
            let _ = term::emit(&mut w, &config, &files, d);
        }
        w.into_inner()
    } else {
        let mut w = termcolor::NoColor::new(Vec::new());
        for d in &diags {
            let _ = term::emit(&mut w, &config, &files, d);
        }
        w.into_inner()
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

fn list(vs: &[i16]) -> String {
    if vs.is_empty() {
        return "none".to_string();
    }
    vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

fn side_json(c: &Checked, side: &Option<Side>) -> serde_json::Value {
    match side {
        None => serde_json::Value::Null,
        Some(s) => {
            let (line, column) = text_of(c, s).map(|t| line_col(t, s.span.start)).unwrap_or((0, 0));
            serde_json::json!({ "column": column, "file": s.file, "line": line })
        }
    }
}

/// The findings as one JSON array of objects `{code, kind, message, new, old, path, severity,
/// text, versions}`; `old` and `new` are `{file, line, column}` (1-based, as `kwire check
/// --format json`) or null for a side without the thing (an added or removed message).
pub fn to_json(f: &[Finding], old: &Checked, new: &Checked) -> serde_json::Value {
    serde_json::Value::Array(
        f.iter()
            .map(|x| {
                // Keys in alphabetical order, as render::to_json (the same whether or not
                // serde_json keeps insertion order).
                serde_json::json!({
                    "code": x.code,
                    "kind": x.kind,
                    "message": x.message,
                    "new": side_json(new, &x.new),
                    "old": side_json(old, &x.old),
                    "path": x.path,
                    "severity": x.impact.as_str(),
                    "text": x.text,
                    "versions": x.versions,
                })
            })
            .collect(),
    )
}
