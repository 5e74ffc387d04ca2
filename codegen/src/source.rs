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

/// Parses and lowers every file. A file with an error contributes its diagnostics but no spec.
pub fn check_files(files: Vec<SourceFile>) -> Checked {
    let mut diagnostics = Vec::new();
    let mut specs = Vec::new();
    for f in &files {
        let parsed = crate::syntax::parse(&f.text);
        let mut diags = parsed.diagnostics;
        if let Some(root) = &parsed.value {
            let lowered = crate::lower::lower(&f.file_name(), root);
            diags.extend(lowered.diagnostics);
            if !diags.iter().any(|d| d.is_error()) {
                specs.extend(lowered.spec);
            }
        }
        diags.sort_by_key(|d| (d.span.start, d.span.end));
        diagnostics.push(diags);
    }
    Checked { files, diagnostics, specs }
}
