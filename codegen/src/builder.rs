//! [`Builder`]: compile a folder of specs from a build script, in the manner of prost-build.
//!
//! In `build.rs` (with `kwire-codegen` as a build-dependency):
//!
//! ```no_run
//! kwire_codegen::Builder::new().compile_dir("specs").unwrap();
//! ```
//!
//! and in the crate (with `kwire-protocol` as a dependency):
//!
//! ```ignore
//! include!(concat!(env!("OUT_DIR"), "/kwire.rs"));
//! ```
//!
//! The generated code needs only the runtime, `kwire-protocol` (its `wire` module; the
//! `coordinator` feature can be off).

use crate::render;
use crate::rust::{self, Options};
use crate::source::{self, check_files};
use std::path::{Path, PathBuf};

/// What can stop a build.
///
/// `Debug` prints the same text as `Display`, so that `.unwrap()` in a build script shows the
/// rendered diagnostics as they are (rustc-style, one line each, with the caret lines) rather
/// than as one escaped string.
#[derive(thiserror::Error)]
pub enum Error {
    /// Reading specs or writing output failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The specs have errors; the text is the rendered diagnostics.
    #[error("kwire: the specs have errors:\n{0}")]
    Specs(String),
    /// No output folder: neither `out_dir` nor `OUT_DIR` is set.
    #[error("no output folder: call Builder::out_dir or run from a build script (OUT_DIR)")]
    NoOutDir,
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Configures and runs one compilation of a spec folder into one Rust source file.
#[derive(Debug, Clone)]
pub struct Builder {
    out_dir: Option<PathBuf>,
    file_name: String,
    samples: bool,
    views: bool,
    json: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder { out_dir: None, file_name: "kwire.rs".into(), samples: false, views: false, json: false }
    }
}

impl Builder {
    /// A builder writing `kwire.rs` into `OUT_DIR`.
    pub fn new() -> Self {
        Self::default()
    }
    /// Writes into `dir` instead of `OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }
    /// Names the output file (default `kwire.rs`).
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = name.into();
        self
    }
    /// Also emits `Sample` impls (needs `kwire-protocol`'s `sample` feature).
    pub fn samples(mut self, on: bool) -> Self {
        self.samples = on;
        self
    }

    /// Also emits borrowed views (`…Ref<'a>`), allocation-free readers over encoded bytes.
    pub fn views(mut self, on: bool) -> Self {
        self.views = on;
        self
    }

    /// Also emits Kafka's JSON form (`JsonForm` impls, and `to_json`/`from_json` on the
    /// `Request`/`Response` enums and frames; needs `kwire-protocol`'s `json` feature).
    pub fn json(mut self, on: bool) -> Self {
        self.json = on;
        self
    }

    /// Compiles the `*.json` specs directly in `dir` (one folder = one unit, as in Kafka) and
    /// writes the output file. Returns its path. Under cargo, prints `rerun-if-changed` for `dir`.
    ///
    /// # Errors
    /// [`Error::Specs`] with rendered diagnostics when any file has an error; I/O errors.
    pub fn compile_dir(&self, dir: impl AsRef<Path>) -> Result<PathBuf, Error> {
        let dir = dir.as_ref();
        if std::env::var_os("CARGO").is_some() && std::env::var_os("OUT_DIR").is_some() {
            println!("cargo:rerun-if-changed={}", dir.display());
        }
        self.compile_files(source::read_dir(dir)?)
    }

    /// Compiles the given spec files as one unit and writes the output file.
    ///
    /// # Errors
    /// As [`Builder::compile_dir`].
    pub fn compile_files(&self, files: Vec<source::SourceFile>) -> Result<PathBuf, Error> {
        let code = self.generate(files)?;
        let out = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(Error::NoOutDir)?),
        };
        std::fs::create_dir_all(&out)?;
        let path = out.join(&self.file_name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(code.as_str()) {
            std::fs::write(&path, code)?;
        }
        Ok(path)
    }

    /// Compiles the given spec files as one unit into source text.
    ///
    /// # Errors
    /// [`Error::Specs`] when any file has an error.
    pub fn generate(&self, files: Vec<source::SourceFile>) -> Result<String, Error> {
        let checked = check_files(files);
        if checked.error_count() > 0 {
            return Err(Error::Specs(render::render_all(&checked, false)));
        }
        let opts = Options { samples: self.samples, views: self.views, json: self.json, source_prefix: String::new(), ..Options::default() };
        Ok(rust::single_file(&checked.specs, &opts))
    }
}
