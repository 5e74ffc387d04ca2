//! Spec files on disk, and the front half of the pipeline (parse, lower) over a set of them.

use crate::diagnostics::Diagnostic;
use crate::ir::Spec;
use std::path::{Path, PathBuf};

/// One spec file's text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as given (used in diagnostics).
    pub path: PathBuf,
    /// The text.
    pub text: String,
}

impl SourceFile {
    /// The file name (`MetadataRequest.json`).
    pub fn file_name(&self) -> String {
        self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

/// Reads the `*.json` files directly inside `dir` (no recursion, as Kafka's generator), sorted
/// by name.
///
/// # Errors
/// I/O errors reading the folder or a file.
pub fn read_dir(dir: &Path) -> std::io::Result<Vec<SourceFile>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths.into_iter().map(read_file).collect()
}

/// Every folder at or under `dir` that directly holds `*.json` files, sorted: the units of a
/// recursive check or corpus run (Kafka's generator reads one folder at a time).
///
/// # Errors
/// I/O errors reading a folder.
pub fn spec_folders(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut has_json = false;
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                has_json = true;
            }
        }
        if has_json {
            out.push(d);
        }
    }
    out.sort();
    Ok(out)
}

/// Reads one spec file.
///
/// # Errors
/// I/O errors, or text that is not UTF-8.
pub fn read_file(path: PathBuf) -> std::io::Result<SourceFile> {
    let text = std::fs::read_to_string(&path)?;
    Ok(SourceFile { path, text })
}

/// What checking a set of files found: per file, its diagnostics and (if it lowered) its spec.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The files, in input order.
    pub files: Vec<SourceFile>,
    /// Diagnostics per file (same order as `files`).
    pub diagnostics: Vec<Vec<Diagnostic>>,
    /// Specs of files without errors.
    pub specs: Vec<Spec>,
}

impl Checked {
    /// Number of errors over all files.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().flatten().filter(|d| d.is_error()).count()
    }
    /// Number of warnings over all files.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.iter().flatten().filter(|d| !d.is_error()).count()
    }
}

/// Parses, lowers and validates every file, then applies the folder-wide rules to the set (the
/// files are one folder, Kafka's unit). A file with an error contributes its diagnostics but no
/// spec.
pub fn check_files(files: Vec<SourceFile>) -> Checked {
    check(files, true)
}

/// As [`check_files`], without the folder-wide rules (for files checked one by one).
pub fn check_files_alone(files: Vec<SourceFile>) -> Checked {
    check(files, false)
}

fn check(files: Vec<SourceFile>, folder_rules: bool) -> Checked {
    let mut diagnostics = Vec::new();
    let mut specs = Vec::new();
    let mut spec_file = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let parsed = crate::syntax::parse(&f.text);
        let mut diags = parsed.diagnostics;
        if let Some(root) = &parsed.value {
            let lowered = crate::lower::lower(&f.file_name(), root);
            diags.extend(lowered.diagnostics);
            if let Some(spec) = &lowered.spec {
                let lc = |o: usize| crate::render::line_col(&f.text, o);
                diags.extend(crate::validate::validate_spec(spec, &lc));
            }
            if !diags.iter().any(|d| d.is_error()) {
                if let Some(spec) = lowered.spec {
                    specs.push(spec);
                    spec_file.push(i);
                }
            }
        }
        diagnostics.push(diags);
    }
    if folder_rules {
        let refs: Vec<&Spec> = specs.iter().collect();
        for fd in crate::validate::validate_folder(&refs) {
            diagnostics[spec_file[fd.spec]].push(fd.diagnostic);
        }
    }
    for d in &mut diagnostics {
        d.sort_by_key(|d| (d.span.start, d.span.end));
    }
    Checked { files, diagnostics, specs }
}
