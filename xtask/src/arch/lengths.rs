//! ARCHITECTURE.md's length limits (`max-fn-lines`, `max-file-lines`) and the workspace-wide
//! length figures of `--lengths`.
//!
//! A function's length is the lines from its `fn` line to its closing brace, both included
//! (attributes and doc comments are not counted; closures count in the function that holds
//! them). A file's length is its line count. Test code is not held to the limits: functions
//! under `#[cfg(test)]` or marked `#[test]` / `#[tokio::test]`, modules compiled only under
//! `cfg(test)`, and files under a package's `tests/` folder.

use anyhow::{bail, Result};

use super::graph::{place_of, FileInfo, FnInfo, PackageGraph};
use super::rules::{Rule, RuleKind};

/// How many of the longest functions and files `--lengths` lists.
const TOP: usize = 10;

/// A limit and the folders it binds (the last rule of its kind).
type Limit<'a> = Option<(usize, &'a [String])>;

/// What the limits found, and the figures of `--lengths`.
#[derive(Debug, Default)]
pub struct Lengths {
    /// Production functions over a `max-fn-lines` limit of their folder.
    pub long_fns: Vec<String>,
    /// Non-test files over a `max-file-lines` limit of their folder.
    pub long_files: Vec<String>,
    /// The workspace-wide figures (information, not violations).
    pub figures: Vec<String>,
}

/// Is the module place of `file` one of `folders` or under one?
fn under(file: &str, folders: &[String]) -> bool {
    let place = place_of(file);
    folders.iter().any(|f| {
        place
            .strip_prefix(f.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

fn fn_line(f: &FnInfo) -> String {
    format!("{}:{} {} ({} lines)", f.file, f.start, f.name, f.lines())
}

fn file_line(f: &FileInfo) -> String {
    if f.test_lines == 0 {
        format!("{} ({} lines)", f.file, f.lines)
    } else {
        format!(
            "{} ({} lines, {} of them test code)",
            f.file, f.lines, f.test_lines
        )
    }
}

/// Applies the limits of `rules` to every production function and file of `graphs`.
///
/// # Errors
/// A limit naming a folder that holds no source file read.
pub fn check(graphs: &[PackageGraph], rules: &[Rule]) -> Result<Lengths> {
    let mut fns: Vec<&FnInfo> = graphs
        .iter()
        .flat_map(|g| &g.fns)
        .filter(|f| !f.test)
        .collect();
    let mut files: Vec<&FileInfo> = graphs
        .iter()
        .flat_map(|g| &g.files)
        .filter(|f| !f.test)
        .collect();
    fns.sort_by(|a, b| (&a.file, a.start).cmp(&(&b.file, b.start)));
    files.sort_by(|a, b| a.file.cmp(&b.file));
    let all_files: Vec<&str> = graphs
        .iter()
        .flat_map(|g| &g.files)
        .map(|f| f.file.as_str())
        .collect();
    let mut out = Lengths::default();
    let (mut fn_limit, mut file_limit): (Limit, Limit) = (None, None);
    for rule in rules {
        let source = format!("ARCHITECTURE.md:{}", rule.line);
        let (max, folders, is_fn) = match &rule.kind {
            RuleKind::MaxFnLines(max, folders) => (*max, folders, true),
            RuleKind::MaxFileLines(max, folders) => (*max, folders, false),
            _ => continue,
        };
        for folder in folders {
            if !all_files
                .iter()
                .any(|f| under(f, std::slice::from_ref(folder)))
            {
                bail!("{source}: no source file under `{folder}`");
            }
        }
        let limit = format!(
            "max-{}-lines {max}, {source}",
            if is_fn { "fn" } else { "file" }
        );
        if is_fn {
            fn_limit = Some((max, folders.as_slice()));
            for f in fns
                .iter()
                .filter(|f| f.lines() > max && under(&f.file, folders))
            {
                out.long_fns
                    .push(format!("long fn {} ({limit})", fn_line(f)));
            }
        } else {
            file_limit = Some((max, folders.as_slice()));
            for f in files
                .iter()
                .filter(|f| f.lines > max && under(&f.file, folders))
            {
                out.long_files
                    .push(format!("long file {} ({limit})", file_line(f)));
            }
        }
    }
    out.figures = figures(fns, files, fn_limit, file_limit);
    Ok(out)
}

/// One function or file for the figures: its length, its file and its report text.
struct Measured<'a> {
    lines: usize,
    file: &'a str,
    text: String,
}

/// The workspace's longest production functions and non-test files, and every one over the
/// limit outside the folders the limit binds (those are reported as violations already).
fn figures(
    fns: Vec<&FnInfo>,
    files: Vec<&FileInfo>,
    fn_limit: Limit,
    file_limit: Limit,
) -> Vec<String> {
    let fns = fns.iter().map(|f| Measured {
        lines: f.lines(),
        file: &f.file,
        text: fn_line(f),
    });
    let files = files.iter().map(|f| Measured {
        lines: f.lines,
        file: &f.file,
        text: file_line(f),
    });
    let mut out = section("production functions", fns.collect(), fn_limit);
    out.extend(section("non-test files", files.collect(), file_limit));
    out
}

fn section(what: &str, mut items: Vec<Measured>, limit: Limit) -> Vec<String> {
    items.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.text.cmp(&b.text)));
    let mut out = Vec::new();
    if let Some((max, folders)) = limit {
        let over = items.iter().filter(|m| m.lines > max).count();
        let elsewhere: Vec<&Measured> = items
            .iter()
            .filter(|m| m.lines > max && !under(m.file, folders))
            .collect();
        out.push(format!(
            "lengths: {} {what}, {over} over {max} lines, {} of them outside {}:",
            items.len(),
            elsewhere.len(),
            folders.join(" ")
        ));
        out.extend(elsewhere.iter().map(|m| format!("  {}", m.text)));
    }
    out.push(format!("lengths: the {TOP} longest {what}:"));
    out.extend(items.iter().take(TOP).map(|m| format!("  {}", m.text)));
    out
}
