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
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Reads the `*.json` files directly inside `dir` (no recursion, as Kafka's generator), sorted
/// by name.
///
/// # Errors
/// I/O errors reading the folder or a file, or a file that is not UTF-8; an error about a file
/// names it.
pub fn read_dir(dir: &Path) -> std::io::Result<Vec<SourceFile>> {
    spec_paths(dir)?
        .into_iter()
        .map(|p| read_file(p.clone()).map_err(|e| name_file(&p, e)))
        .collect()
}

/// As [`read_dir`], but a file that is not UTF-8 is not an error: it is returned apart, with the
/// place of its first invalid byte, so that the other files can still be checked.
///
/// # Errors
/// I/O errors reading the folder or a file (an error about a file names it).
pub fn read_dir_lenient(dir: &Path) -> std::io::Result<(Vec<SourceFile>, Vec<NotUtf8>)> {
    let (mut files, mut not_utf8) = (Vec::new(), Vec::new());
    for p in spec_paths(dir)? {
        match read_file_lenient(p.clone()).map_err(|e| name_file(&p, e))? {
            Ok(f) => files.push(f),
            Err(n) => not_utf8.push(n),
        }
    }
    Ok((files, not_utf8))
}

/// The `*.json` files directly inside `dir`, sorted.
fn spec_paths(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// `e` with the name of the file it is about in front.
fn name_file(path: &Path, e: std::io::Error) -> std::io::Error {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    std::io::Error::new(e.kind(), format!("{name}: {e}"))
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
/// I/O errors, or text that is not UTF-8 ([`std::io::ErrorKind::InvalidData`], the message says
/// where the first invalid byte is, as [`NotUtf8`]'s `Display`).
pub fn read_file(path: PathBuf) -> std::io::Result<SourceFile> {
    read_file_lenient(path)?
        .map_err(|n| std::io::Error::new(std::io::ErrorKind::InvalidData, n.to_string()))
}

/// Reads one spec file; `Ok(Err(_))` when its bytes are not UTF-8.
///
/// # Errors
/// I/O errors.
pub fn read_file_lenient(path: PathBuf) -> std::io::Result<Result<SourceFile, NotUtf8>> {
    let bytes = std::fs::read(&path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile { path, text }),
        Err(e) => Err(NotUtf8::new(
            path,
            e.as_bytes(),
            e.utf8_error().valid_up_to(),
        )),
    })
}

/// A spec file whose bytes are not UTF-8 (kwire reads spec files as UTF-8 only; Kafka's specs are
/// UTF-8): where its first invalid byte is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUtf8 {
    /// The path as given.
    pub path: PathBuf,
    /// Byte offset of the first byte that is not UTF-8.
    pub offset: usize,
    /// That byte.
    pub byte: u8,
    /// 1-based line and column (in characters) of that byte, as [`crate::diagnostics::line_col`].
    pub line: usize,
    /// See `line`.
    pub column: usize,
    /// The file starts with a UTF-16 byte-order mark (`FF FE` or `FE FF`).
    pub utf16_bom: bool,
}

impl NotUtf8 {
    /// `bytes` is the file, valid UTF-8 up to `offset`.
    fn new(path: PathBuf, bytes: &[u8], offset: usize) -> Self {
        let prefix = std::str::from_utf8(&bytes[..offset]).unwrap_or_default();
        let (line, column) = crate::diagnostics::line_col(prefix, prefix.len());
        let utf16_bom = bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]);
        NotUtf8 {
            path,
            offset,
            byte: bytes[offset],
            line,
            column,
            utf16_bom,
        }
    }

    /// A fix: re-save the file as UTF-8 (it looks like UTF-16 when it starts with that BOM).
    pub fn help(&self) -> String {
        if self.utf16_bom {
            "the file starts with a UTF-16 byte-order mark; spec files are read as UTF-8: save it as UTF-8".to_string()
        } else {
            "spec files are read as UTF-8: save it as UTF-8".to_string()
        }
    }
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "file is not valid UTF-8: byte 0x{:02x} at byte offset {} (line {}, column {})",
            self.byte, self.offset, self.line, self.column
        )
    }
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
        self.diagnostics
            .iter()
            .flatten()
            .filter(|d| d.is_error())
            .count()
    }
    /// Number of warnings over all files.
    pub fn warning_count(&self) -> usize {
        self.diagnostics
            .iter()
            .flatten()
            .filter(|d| !d.is_error())
            .count()
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
    // Per file with errors: its kind and API key, when lowering read them.
    let mut failed = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let parsed = crate::syntax::parse(&f.text);
        let mut diags = parsed.diagnostics;
        if let Some(root) = &parsed.value {
            let lowered = crate::lower::lower(&f.file_name(), root);
            diags.extend(lowered.diagnostics);
            if let Some(spec) = &lowered.spec {
                let index = crate::diagnostics::LineIndex::new(&f.text);
                let lc = |o: usize| index.line_col(o);
                diags.extend(crate::validate::validate_spec(spec, &lc));
            }
            if !diags.iter().any(|d| d.is_error()) {
                if let Some(spec) = lowered.spec {
                    specs.push(spec);
                    spec_file.push(i);
                }
            } else {
                let kind_and_key = lowered
                    .spec
                    .as_ref()
                    .and_then(|s| Some((s.kind, s.api_key.assigned()?)));
                failed.push((i, kind_and_key));
            }
        } else {
            failed.push((i, None));
        }
        diagnostics.push(diags);
    }
    if folder_rules {
        let refs: Vec<&Spec> = specs.iter().collect();
        let names: Vec<String> = failed.iter().map(|(i, _)| files[*i].file_name()).collect();
        let failed: Vec<crate::validate::FailedFile<'_>> = failed
            .iter()
            .zip(&names)
            .map(
                |((_, kind_and_key), file_name)| crate::validate::FailedFile {
                    file_name,
                    kind_and_key: *kind_and_key,
                },
            )
            .collect();
        for fd in crate::validate::validate_folder(&refs, &failed) {
            diagnostics[spec_file[fd.spec]].push(fd.diagnostic);
        }
    }
    for d in &mut diagnostics {
        d.sort_by_key(|d| (d.span.start, d.span.end));
        d.iter_mut().for_each(Diagnostic::shorten);
    }
    Checked {
        files,
        diagnostics,
        specs,
    }
}
