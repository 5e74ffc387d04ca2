//! The source that a rendered diagnostic shows, bounded: codespan-reporting reads files through
//! its `Files` trait, and [`Snippets`] gives it, per label, only the lines the snippet prints,
//! each line longer than [`MAX_LINE`] bytes cut to a window of at most [`WINDOW`] bytes around
//! the label, with `…` where it was cut. Lines, columns and the text of short lines are those of
//! the real file, so a diagnostic on an ordinary spec renders exactly as it would from the whole
//! file; one on a 1 MB line prints about 120 bytes of it, not the megabyte.

use crate::diagnostics::{floor_char_boundary, LineIndex};
use codespan_reporting::files::{Error, Files, Location};
use std::ops::Range;

/// Lines longer than this (in bytes, without the line break) are cut.
pub const MAX_LINE: usize = 160;
/// The most bytes of a cut line that are shown.
pub const WINDOW: usize = 120;
/// Bytes shown before the label's start on a cut line (when the line has them), and after its
/// end (within [`WINDOW`]).
const BEFORE: usize = 40;
const AFTER: usize = 80;
/// Lines codespan may print after a multi-line label's first line, and before its last: its
/// default context (3 and 1) and the one line it prints instead of a one-line gap.
const TOP_LINES: usize = 5;
const BOTTOM_LINES: usize = 2;
const ELLIPSIS: &str = "…";

/// One shown line: where it is in the snippet's text, and which bytes of the real line it holds.
#[derive(Debug, Clone)]
struct Line {
    /// Its 0-based line in the real file.
    line: usize,
    /// Its range in [`Snippet::text`], line break included.
    range: Range<usize>,
    /// The real bytes shown (`window.start` sits at `range.start + prefix`).
    window: Range<usize>,
    /// The length of the `…` in front (0 when the line starts with the real line).
    prefix: usize,
}

/// One label's file, as codespan sees it.
#[derive(Debug, Clone)]
pub struct Snippet<'a> {
    name: String,
    index: &'a LineIndex<'a>,
    /// The shown lines, in order, each ending with `\n` (as the real line does, when it has one).
    text: String,
    lines: Vec<Line>,
}

impl<'a> Snippet<'a> {
    /// The snippet of `index`'s text (named `name`) for a label over `label` (real byte
    /// offsets); returns it with the label's range in the snippet's text.
    pub fn new(
        name: String,
        index: &'a LineIndex<'a>,
        label: Range<usize>,
    ) -> (Snippet<'a>, Range<usize>) {
        let text = index.text();
        let end = floor_char_boundary(text, label.end.max(label.start));
        let start = floor_char_boundary(text, label.start).min(end);
        let (first, last) = (index.line_of(start), index.line_of(end));
        let mut shown: Vec<usize> = (first..=last.min(first + TOP_LINES)).collect();
        shown.extend((last.saturating_sub(BOTTOM_LINES).max(first + TOP_LINES + 1))..=last);
        let mut s = Snippet {
            name,
            index,
            text: String::new(),
            lines: Vec::with_capacity(shown.len()),
        };
        for line in shown {
            // The part of the label on this line anchors the window.
            let content = index.line_range(line);
            let anchor = if line == first {
                start..if line == last { end } else { start }
            } else if line == last {
                end..end
            } else {
                content.start..content.start
            };
            s.push_line(line, content, anchor);
        }
        let range = s.to_snippet(start)..s.to_snippet(end);
        (s, range)
    }

    fn push_line(&mut self, line: usize, content: Range<usize>, anchor: Range<usize>) {
        let text = self.index.text();
        // The line with its break, as codespan's own files give it.
        let next = if line + 1 < self.index.line_count() {
            self.index.line_range(line + 1).start
        } else {
            text.len()
        };
        let from = self.text.len();
        if content.len() <= MAX_LINE {
            self.text.push_str(&text[content.start..next]);
            self.lines.push(Line {
                line,
                range: from..self.text.len(),
                window: content,
                prefix: 0,
            });
            return;
        }
        let lo = floor_char_boundary(text, anchor.start.saturating_sub(BEFORE).max(content.start));
        let want = anchor.end.max(anchor.start + 1) + AFTER;
        let mut hi = want
            .min(lo + WINDOW)
            .min(content.end)
            .max(anchor.start.min(content.end));
        while !text.is_char_boundary(hi) {
            hi += 1;
        }
        let prefix = if lo > content.start { ELLIPSIS } else { "" };
        self.text.push_str(prefix);
        self.text.push_str(&text[lo..hi]);
        if hi < content.end {
            self.text.push_str(ELLIPSIS);
        }
        self.text.push_str(&text[content.end..next]);
        self.lines.push(Line {
            line,
            range: from..self.text.len(),
            window: lo..hi,
            prefix: prefix.len(),
        });
    }

    /// Where real byte `offset` (on a shown line) is in the snippet's text: clamped to its
    /// line's window.
    fn to_snippet(&self, offset: usize) -> usize {
        let line = self.index.line_of(offset);
        match self.lines.iter().find(|l| l.line == line) {
            Some(l) => {
                l.range.start + l.prefix + offset.clamp(l.window.start, l.window.end)
                    - l.window.start
            }
            None => self.text.len(),
        }
    }

    /// The real byte offset of snippet byte `at` on `line`.
    fn to_real(&self, line: &Line, at: usize) -> usize {
        let inside = at.saturating_sub(line.range.start + line.prefix);
        (line.window.start + inside).min(line.window.end)
    }

    fn shown(&self, line: usize) -> Option<&Line> {
        self.lines
            .binary_search_by_key(&line, |l| l.line)
            .ok()
            .map(|i| &self.lines[i])
    }
}

/// The files of one diagnostic: one [`Snippet`] per label, by index.
#[derive(Debug, Clone, Default)]
pub struct Snippets<'a>(pub Vec<Snippet<'a>>);

impl Snippets<'_> {
    fn get(&self, id: usize) -> Result<&Snippet<'_>, Error> {
        self.0.get(id).ok_or(Error::FileMissing)
    }
}

impl<'a> Files<'a> for Snippets<'a> {
    type FileId = usize;
    type Name = String;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<String, Error> {
        Ok(self.get(id)?.name.clone())
    }

    fn source(&'a self, id: usize) -> Result<&'a str, Error> {
        Ok(&self.get(id)?.text)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, Error> {
        let s = self.get(id)?;
        let i = s
            .lines
            .partition_point(|l| l.range.start <= byte_index)
            .max(1)
            - 1;
        Ok(s.lines.get(i).map_or(0, |l| l.line))
    }

    fn column_number(
        &'a self,
        id: usize,
        line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        let s = self.get(id)?;
        let real = s.shown(line_index).map_or(0, |l| s.to_real(l, byte_index));
        Ok(s.index.line_col(real).1)
    }

    fn location(&'a self, id: usize, byte_index: usize) -> Result<Location, Error> {
        let line_index = self.line_index(id, byte_index)?;
        Ok(Location {
            line_number: line_index + 1,
            column_number: self.column_number(id, line_index, byte_index)?,
        })
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, Error> {
        let s = self.get(id)?;
        // A line codespan does not print (inside a long multi-line label): empty.
        Ok(s.shown(line_index)
            .map_or(s.text.len()..s.text.len(), |l| l.range.clone()))
    }
}
