//! The packages `cargo xtask arch` reads and their targets, from the Cargo.toml files.
//!
//! The packages are the root manifest's `[workspace] members` (a trailing `/*` is expanded) and
//! the folders of its `exclude` list that hold a Cargo.toml (the harness crates kept out of the
//! workspace: `fuzz/`, `benches/`, `tests/confluent-rust/`). A package's targets are its
//! `[lib]`, `[[bin]]`, `[[test]]`, `[[bench]]` and `[[example]]` sections and its build script,
//! plus the ones Cargo discovers by default (`src/lib.rs`, `src/main.rs`, `src/bin/*.rs`,
//! `tests/*.rs`, `benches/*.rs`, `examples/*.rs`, each also as `*/main.rs`, and `build.rs`),
//! unless `autobins` & co. say otherwise.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};
use toml_edit::{DocumentMut, Item};

/// One package.
#[derive(Debug, Clone)]
pub struct Package {
    /// `[package] name`.
    pub name: String,
    /// Its folder, relative to the workspace root, `/`-separated (`""` for the root).
    pub dir: String,
    /// The extern crate name of its library target, if it has one (`kwire_protocol`).
    pub lib_name: Option<String>,
    /// The packages of this workspace it depends on by path (any dependency table): extern
    /// crate name → package name.
    pub path_deps: BTreeMap<String, String>,
    /// Its targets, the library first.
    pub targets: Vec<Target>,
}

/// What a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The library.
    Lib,
    /// A binary.
    Bin,
    /// An integration test.
    Test,
    /// A benchmark.
    Bench,
    /// An example.
    Example,
    /// The build script.
    Build,
}

/// One target: a crate root.
#[derive(Debug, Clone)]
pub struct Target {
    /// What it is.
    pub kind: Kind,
    /// Its name (the package's for the build script).
    pub name: String,
    /// Its root file, relative to the workspace root, `/`-separated.
    pub root: String,
}

/// Reads the packages of the workspace at `ws`.
///
/// # Errors
/// A Cargo.toml that cannot be read or parsed, a package without a name, a target whose
/// declared root file is missing.
pub fn packages(ws: &Path) -> Result<Vec<Package>> {
    let root = read_manifest(&ws.join("Cargo.toml"))?;
    let mut dirs = Vec::new();
    if root.get("package").is_some() {
        dirs.push(String::new());
    }
    let workspace = root.get("workspace");
    for key in ["members", "exclude"] {
        for member in strings(workspace.and_then(|w| w.get(key))) {
            match member.strip_suffix("/*") {
                Some(parent) => dirs.extend(subfolders_with_manifest(ws, parent)?),
                None if ws.join(&member).join("Cargo.toml").is_file() => dirs.push(member),
                None if key == "exclude" => {}
                None => bail!("workspace member {member} has no Cargo.toml"),
            }
        }
    }
    let mut packages = Vec::new();
    let mut raw_deps = Vec::new();
    for dir in dirs {
        let (package, deps) = read_package(ws, &dir)?;
        packages.push(package);
        raw_deps.push(deps);
    }
    let names: BTreeMap<String, String> = packages
        .iter()
        .map(|p| (p.dir.clone(), p.name.clone()))
        .collect();
    for (package, deps) in packages.iter_mut().zip(raw_deps) {
        for (extern_name, dir) in deps {
            if let Some(name) = names.get(&dir) {
                package.path_deps.insert(extern_name, name.clone());
            }
        }
    }
    Ok(packages)
}

fn read_manifest(path: &Path) -> Result<DocumentMut> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.parse::<DocumentMut>()
        .with_context(|| format!("parsing {}", path.display()))
}

/// The strings of an array item (empty when absent).
fn strings(item: Option<&Item>) -> Vec<String> {
    item.and_then(Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn subfolders_with_manifest(ws: &Path, parent: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(ws.join(parent))? {
        let path = entry?.path();
        if path.join("Cargo.toml").is_file() {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            out.push(format!("{parent}/{name}"));
        }
    }
    out.sort();
    Ok(out)
}

/// `a/./b/../c` → `a/c`, `/`-separated.
fn normalize(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// `dir/rel` relative to the workspace, `/`-separated.
fn join(dir: &str, rel: &str) -> String {
    normalize(&PathBuf::from(dir).join(rel))
}

/// One package, and its path dependencies as (extern name, folder).
fn read_package(ws: &Path, dir: &str) -> Result<(Package, Vec<(String, String)>)> {
    let doc = read_manifest(&ws.join(dir).join("Cargo.toml"))?;
    let Some(name) = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(Item::as_str)
    else {
        bail!("{dir}/Cargo.toml has no [package] name");
    };
    let targets = targets(ws, dir, name, &doc)?;
    let lib_name = targets
        .iter()
        .find(|t| t.kind == Kind::Lib)
        .map(|t| t.name.clone());
    let package = Package {
        name: name.to_owned(),
        dir: dir.to_owned(),
        lib_name,
        path_deps: BTreeMap::new(),
        targets,
    };
    Ok((package, path_deps(dir, &doc)))
}

/// The `path` dependencies of every dependency table, `[target.'…'.dependencies]` included.
fn path_deps(dir: &str, doc: &DocumentMut) -> Vec<(String, String)> {
    let mut tables: Vec<&Item> = Vec::new();
    let kinds = ["dependencies", "dev-dependencies", "build-dependencies"];
    tables.extend(kinds.iter().filter_map(|k| doc.get(k)));
    if let Some(per_target) = doc.get("target").and_then(Item::as_table_like) {
        for (_, t) in per_target.iter() {
            tables.extend(kinds.iter().filter_map(|k| t.get(k)));
        }
    }
    let mut out = Vec::new();
    for table in tables.into_iter().filter_map(Item::as_table_like) {
        for (key, dep) in table.iter() {
            if let Some(path) = dep.get("path").and_then(Item::as_str) {
                out.push((key.replace('-', "_"), join(dir, path)));
            }
        }
    }
    out
}

/// Is the `auto*` flag of the package on (Cargo's default)?
fn auto(doc: &DocumentMut, flag: &str) -> bool {
    doc.get("package")
        .and_then(|p| p.get(flag))
        .and_then(Item::as_bool)
        .unwrap_or(true)
}

fn targets(ws: &Path, dir: &str, package: &str, doc: &DocumentMut) -> Result<Vec<Target>> {
    let exists = |rel: &str| ws.join(join(dir, rel)).is_file();
    let mut out = Vec::new();
    let lib = doc.get("lib");
    let lib_path = lib
        .and_then(|l| l.get("path"))
        .and_then(Item::as_str)
        .unwrap_or("src/lib.rs");
    if lib.is_some() || exists(lib_path) {
        let name = lib.and_then(|l| l.get("name")).and_then(Item::as_str);
        out.push(Target {
            kind: Kind::Lib,
            name: name.map_or_else(|| package.replace('-', "_"), str::to_owned),
            root: join(dir, lib_path),
        });
    }
    let sections = [
        (Kind::Bin, "bin", "autobins", "src/bin"),
        (Kind::Test, "test", "autotests", "tests"),
        (Kind::Bench, "bench", "autobenches", "benches"),
        (Kind::Example, "example", "autoexamples", "examples"),
    ];
    for (kind, section, flag, folder) in sections {
        let declared = declared_targets(ws, dir, doc, kind, section, folder)?;
        let mut found = declared.clone();
        if auto(doc, flag) {
            let mut discovered = discover(ws, dir, folder);
            if kind == Kind::Bin && exists("src/main.rs") {
                discovered.insert(0, (package.to_owned(), join(dir, "src/main.rs")));
            }
            for (name, root) in discovered {
                if !declared.iter().any(|t| t.root == root || t.name == name) {
                    found.push(Target { kind, name, root });
                }
            }
        }
        out.extend(found);
    }
    let build = doc.get("package").and_then(|p| p.get("build"));
    let build_path = match build {
        Some(b) if b.as_bool() == Some(false) => None,
        Some(b) => b.as_str().map(str::to_owned),
        None => exists("build.rs").then(|| "build.rs".to_owned()),
    };
    if let Some(path) = build_path {
        out.push(Target {
            kind: Kind::Build,
            name: package.to_owned(),
            root: join(dir, &path),
        });
    }
    Ok(out)
}

/// The `[[section]]` entries of one kind, their default paths filled in.
fn declared_targets(
    ws: &Path,
    dir: &str,
    doc: &DocumentMut,
    kind: Kind,
    section: &str,
    folder: &str,
) -> Result<Vec<Target>> {
    let mut out = Vec::new();
    let Some(entries) = doc.get(section).and_then(Item::as_array_of_tables) else {
        return Ok(out);
    };
    for entry in entries.iter() {
        let Some(name) = entry.get("name").and_then(Item::as_str) else {
            bail!("{dir}/Cargo.toml: a [[{section}]] without a name");
        };
        let root = match entry.get("path").and_then(Item::as_str) {
            Some(p) => join(dir, p),
            None => {
                let flat = join(dir, &format!("{folder}/{name}.rs"));
                if ws.join(&flat).is_file() {
                    flat
                } else {
                    join(dir, &format!("{folder}/{name}/main.rs"))
                }
            }
        };
        if !ws.join(&root).is_file() {
            bail!("{dir}/Cargo.toml: [[{section}]] {name}: no file {root}");
        }
        out.push(Target {
            kind,
            name: name.to_owned(),
            root,
        });
    }
    Ok(out)
}

/// `folder/*.rs` and `folder/*/main.rs`, as (name, root), sorted by name.
fn discover(ws: &Path, dir: &str, folder: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(ws.join(join(dir, folder))) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if let Some(stem) = file_name.strip_suffix(".rs").filter(|_| path.is_file()) {
            out.push((stem.to_owned(), join(dir, &format!("{folder}/{file_name}"))));
        } else if path.join("main.rs").is_file() {
            let root = join(dir, &format!("{folder}/{file_name}/main.rs"));
            out.push((file_name.to_owned(), root));
        }
    }
    out.sort();
    out
}
