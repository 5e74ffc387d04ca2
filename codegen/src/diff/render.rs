//! Rendering findings: as `kwire check` renders diagnostics (codespan-reporting, file:line:col,
//! the source line and a caret), with a label in the old file and one in the new; and as JSON.

use super::finding::{Finding, Impact, Side};
use crate::diagnostics::LineIndex;
use crate::render::snippet::{Snippet, Snippets};
use crate::source::Checked;
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity};
use codespan_reporting::term;
use std::collections::HashMap;

/// The line index of every file of a checked set, by path as sides name them, made when first
/// asked for.
struct Texts<'a> {
    checked: &'a Checked,
    by_path: HashMap<String, usize>,
    indexes: HashMap<usize, LineIndex<'a>>,
}

impl<'a> Texts<'a> {
    fn new(checked: &'a Checked) -> Self {
        let by_path = checked
            .files
            .iter()
            .enumerate()
            .rev()
            .map(|(i, f)| (f.path.display().to_string(), i))
            .collect();
        Texts {
            checked,
            by_path,
            indexes: HashMap::new(),
        }
    }
    /// The index of the file a side points at.
    fn index(&mut self, side: &Side) -> Option<&LineIndex<'a>> {
        let i = *self.by_path.get(&side.file)?;
        let checked = self.checked;
        Some(
            self.indexes
                .entry(i)
                .or_insert_with(|| LineIndex::new(&checked.files[i].text)),
        )
    }
}

/// Renders findings as `kwire check` renders diagnostics: `error[K5002]` for a breaking finding,
/// `note[K5101]` for a compatible one (not a `warning`: nothing is wrong with it), a label in the old file ("old") and one in the new
/// ("new") where the finding has them, and a note naming the message, versions and path. Long
/// source lines are cut to a window around the label, as `kwire check` cuts them.
pub fn render_human(f: &[Finding], old: &Checked, new: &Checked, color: bool) -> String {
    let (mut old_texts, mut new_texts) = (Texts::new(old), Texts::new(new));
    let config = term::Config::default();
    let mut out = String::new();
    for x in f {
        let mut snippets = Vec::new();
        let mut labels = Vec::new();
        for (texts, side, what) in [
            (&mut old_texts, &x.old, "old"),
            (&mut new_texts, &x.new, "new"),
        ] {
            let Some(s) = side else { continue };
            let Some(index) = texts.index(s) else {
                continue;
            };
            let (snippet, range) = Snippet::new(s.file.clone(), index, s.span.start..s.span.end);
            snippets.push(snippet);
            labels.push((snippets.len() - 1, range, what));
        }
        let labels: Vec<_> = labels
            .into_iter()
            .map(|(id, r, what)| {
                // The new side is the primary label; the old one is when there is no new side.
                let l = if what == "new" || x.new.is_none() {
                    Label::primary(id, r)
                } else {
                    Label::secondary(id, r)
                };
                l.with_message(what)
            })
            .collect();
        let severity = match x.impact {
            Impact::Breaking => Severity::Error,
            Impact::Compatible => Severity::Note,
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
        let d = CsDiagnostic::new(severity)
            .with_code(x.code)
            .with_message(&x.text)
            .with_labels(labels)
            .with_notes(vec![note]);
        let files = Snippets(snippets);
        out.push_str(&crate::render::emit_to_string(color, |w| {
            term::emit(w, &config, &files, &d)
        }));
    }
    out
}

fn list(vs: &[i16]) -> String {
    if vs.is_empty() {
        return "none".to_string();
    }
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn side_json(texts: &mut Texts, side: &Option<Side>) -> serde_json::Value {
    match side {
        None => serde_json::Value::Null,
        Some(s) => {
            let (line, column) = texts
                .index(s)
                .map_or((0, 0), |ix| ix.line_col(s.span.start));
            serde_json::json!({ "column": column, "file": s.file, "line": line })
        }
    }
}

/// The findings as one JSON array of objects `{code, kind, level, message, new, old, path,
/// severity, text, versions}`: `severity` is the impact (`breaking` or `compatible`), `level` the
/// label the human form gives it (`error` or `note`); `old` and `new` are `{file, line, column}` (1-based, as `kwire check
/// --format json`) or null for a side without the thing (an added or removed message).
pub fn to_json(f: &[Finding], old: &Checked, new: &Checked) -> serde_json::Value {
    let (mut old_texts, mut new_texts) = (Texts::new(old), Texts::new(new));
    serde_json::Value::Array(
        f.iter()
            .map(|x| {
                // Keys in alphabetical order, as render::to_json (the same whether or not
                // serde_json keeps insertion order).
                serde_json::json!({
                    "code": x.code,
                    "kind": x.kind,
                    "level": x.impact.level(),
                    "message": x.message,
                    "new": side_json(&mut new_texts, &x.new),
                    "old": side_json(&mut old_texts, &x.old),
                    "path": x.path,
                    "severity": x.impact.as_str(),
                    "text": x.text,
                    "versions": x.versions,
                })
            })
            .collect(),
    )
}
