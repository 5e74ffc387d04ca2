//! One package's module graph: the module tree of each of its targets (found by following `mod`
//! declarations from the target's root file) and the edges between modules that its paths name.
//!
//! A module's *place* is where it sits in the source tree, relative to the workspace: its file
//! without `.rs` (and without `/mod` for a `mod.rs`), `protocol/src/coordinator` for
//! `protocol/src/coordinator/mod.rs`, `server/src/lib` for the library root; an inline module's
//! place is where the file of a module of its name would be (`server/src/config/tests` for the
//! `mod tests { … }` of `server/src/config.rs`). ARCHITECTURE.md's rules name modules by place.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Context, Result};

use super::manifest::{Kind, Package};
use super::source::{self, FileFacts, PathKind, PathUse};

/// One module.
#[derive(Debug)]
pub struct Module {
    /// The index of its target in the package's targets.
    pub target: usize,
    /// Its path inside its target (`[]` for the target's root).
    pub path: Vec<String>,
    /// Where it sits (see the module docs).
    pub place: String,
    /// The file that holds it (its parent's file for an inline module), workspace-relative.
    pub file: String,
    /// The module that declares it.
    pub parent: Option<usize>,
    /// Its child modules by name.
    pub children: BTreeMap<String, usize>,
    /// Compiled only for tests: declared under `#[cfg(test)]` (or inside such a module), a file
    /// starting with `#![cfg(test)]`, or a module of an integration-test target.
    pub test_only: bool,
    /// Not read (generated code): one module, whatever it holds.
    pub opaque: bool,
    /// The paths written in it.
    pub paths: Vec<PathUse>,
}

/// Where an edge was first seen.
#[derive(Debug, Clone)]
pub struct Site {
    /// Workspace-relative file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
}

/// A function with a body (see [`source::FnSpan`]).
#[derive(Debug)]
pub struct FnInfo {
    /// The module it is in.
    pub module: usize,
    /// `name` or `Type::name`.
    pub name: String,
    /// Workspace-relative file.
    pub file: String,
    /// Its `fn` line.
    pub start: usize,
    /// The line of its closing brace.
    pub end: usize,
    /// Test code (see the lengths rule in [`super`]).
    pub test: bool,
}

impl FnInfo {
    /// Lines from the `fn` line to the closing brace, both included.
    pub fn lines(&self) -> usize {
        self.end + 1 - self.start
    }
}

/// A source file read.
#[derive(Debug)]
pub struct FileInfo {
    /// Workspace-relative path.
    pub file: String,
    /// Its line count.
    pub lines: usize,
    /// How many of them are items under `#[cfg(test)]` or `#[test]`.
    pub test_lines: usize,
    /// A test file: its module is test-only, or it is under the package's `tests/` folder.
    pub test: bool,
}

/// A package's modules and edges.
#[derive(Debug)]
pub struct PackageGraph {
    /// The package.
    pub package: Package,
    /// Every module; a target's root comes before its modules.
    pub modules: Vec<Module>,
    /// `(from, to)` → the first use, for every module that names another of this package.
    pub edges: BTreeMap<(usize, usize), Site>,
    /// Package → (module, first use), for every other package of the workspace named.
    pub crate_edges: BTreeMap<String, (usize, Site)>,
    /// Every function read.
    pub fns: Vec<FnInfo>,
    /// Every file read.
    pub files: Vec<FileInfo>,
}

/// What a path names.
enum Named {
    Module(usize),
    Package(String),
}

impl PackageGraph {
    /// Reads `package` (under the workspace root `ws`), not reading the modules whose place is
    /// in `opaque`.
    ///
    /// # Errors
    /// A file that cannot be read or parsed, a `mod x;` without a file.
    pub fn load(ws: &Path, package: Package, opaque: &BTreeSet<String>) -> Result<PackageGraph> {
        let mut g = PackageGraph {
            package,
            modules: Vec::new(),
            edges: BTreeMap::new(),
            crate_edges: BTreeMap::new(),
            fns: Vec::new(),
            files: Vec::new(),
        };
        let loader = Loader { ws, opaque };
        for (t, target) in g.package.targets.clone().iter().enumerate() {
            let id = g.add(
                t,
                Vec::new(),
                place_of(&target.root),
                &target.root,
                None,
                false,
            );
            loader.read(&mut g, &target.root, id, true)?;
        }
        g.resolve();
        Ok(g)
    }

    fn add(
        &mut self,
        target: usize,
        path: Vec<String>,
        place: String,
        file: &str,
        parent: Option<usize>,
        test_only: bool,
    ) -> usize {
        let id = self.modules.len();
        if let (Some(p), Some(name)) = (parent, path.last()) {
            self.modules[p].children.insert(name.clone(), id);
        }
        self.modules.push(Module {
            target,
            path,
            place,
            file: file.to_owned(),
            parent,
            children: BTreeMap::new(),
            test_only,
            opaque: false,
            paths: Vec::new(),
        });
        id
    }

    /// How reports show a module: `handlers::admin` in the library (`crate` for its root),
    /// `main` / `main::x` in the binary rooted at `src/main.rs`, `bin:NAME`, `test:NAME`,
    /// `bench:NAME`, `example:NAME`, `build` for the other targets' roots.
    pub fn show(&self, m: usize) -> String {
        let module = &self.modules[m];
        let target = &self.package.targets[module.target];
        let root = match target.kind {
            Kind::Lib => None,
            Kind::Bin if target.root.ends_with("src/main.rs") => Some("main".to_owned()),
            Kind::Bin => Some(format!("bin:{}", target.name)),
            Kind::Test => Some(format!("test:{}", target.name)),
            Kind::Bench => Some(format!("bench:{}", target.name)),
            Kind::Example => Some(format!("example:{}", target.name)),
            Kind::Build => Some("build".to_owned()),
        };
        let path = module.path.join("::");
        match (root, path.is_empty()) {
            (None, true) => "crate".to_owned(),
            (None, false) => path,
            (Some(r), true) => r,
            (Some(r), false) => format!("{r}::{path}"),
        }
    }

    /// Is `child` declared by `parent`?
    pub fn is_child(&self, child: usize, parent: usize) -> bool {
        self.modules[child].parent == Some(parent)
    }

    /// Records every edge the modules' paths name.
    fn resolve(&mut self) {
        let aliases: Vec<BTreeMap<String, usize>> =
            (0..self.modules.len()).map(|m| self.aliases(m)).collect();
        let mut edges = BTreeMap::new();
        let mut crate_edges = BTreeMap::new();
        for (m, module) in self.modules.iter().enumerate() {
            for p in &module.paths {
                let site = || Site {
                    file: module.file.clone(),
                    line: p.line,
                };
                match self.named(m, p, &aliases[m]) {
                    Some(Named::Module(to)) if to != m => {
                        edges.entry((m, to)).or_insert_with(site);
                    }
                    Some(Named::Package(to)) => {
                        crate_edges.entry(to).or_insert_with(|| (m, site()));
                    }
                    _ => {}
                }
            }
        }
        self.edges = edges;
        self.crate_edges = crate_edges;
    }

    /// The names module `m`'s `use` items bind to modules of this package: `use crate::a::b;`
    /// binds `b`, `use super::*;` binds the parent's children.
    fn aliases(&self, m: usize) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        let mut globbed = Vec::new();
        for p in self.modules[m]
            .paths
            .iter()
            .filter(|p| p.kind == PathKind::Use)
        {
            let glob = p.segments.last().is_some_and(|s| s == "*");
            let segments = &p.segments[..p.segments.len() - usize::from(glob)];
            let Some((to, exact)) = self.walk(m, segments, p.leading_colon, &BTreeMap::new())
            else {
                continue;
            };
            match (&p.alias, glob) {
                (Some(alias), false) if exact => {
                    out.insert(alias.clone(), to);
                }
                (_, true) if exact => globbed.push(to),
                _ => {}
            }
        }
        for to in globbed {
            for (name, &child) in &self.modules[to].children {
                out.entry(name.clone()).or_insert(child);
            }
        }
        out
    }

    /// What path `p`, written in module `m`, names: the deepest module of this package it
    /// walks through, or another package of the workspace.
    fn named(&self, m: usize, p: &PathUse, aliases: &BTreeMap<String, usize>) -> Option<Named> {
        if let Some((to, _)) = self.walk(m, &p.segments, p.leading_colon, aliases) {
            return Some(Named::Module(to));
        }
        let first = p.segments.first()?;
        let local = self.modules[m].children.contains_key(first) || aliases.contains_key(first);
        if local {
            return None;
        }
        self.package
            .path_deps
            .get(first)
            .cloned()
            .map(Named::Package)
    }

    /// Walks `segments` from module `m` through this package's modules: the module reached and
    /// whether every segment was a module.
    fn walk(
        &self,
        m: usize,
        segments: &[String],
        leading_colon: bool,
        aliases: &BTreeMap<String, usize>,
    ) -> Option<(usize, bool)> {
        let (first, rest) = segments.split_first()?;
        let module = &self.modules[m];
        // The package's own library by its extern name: from its other targets, or from the
        // library itself behind `extern crate self as name;` (it compiles only then).
        let own_lib = self.package.lib_name.as_deref() == Some(first.as_str());
        let mut at = match first.as_str() {
            _ if leading_colon && own_lib => self.lib_root()?,
            _ if leading_colon => return None,
            "crate" => self.root_of(module.target),
            "self" => m,
            "super" => module.parent?,
            name => match (module.children.get(name), aliases.get(name)) {
                (Some(&child), _) => child,
                (None, Some(&alias)) => alias,
                (None, None) if own_lib => self.lib_root()?,
                (None, None) => return None,
            },
        };
        let mut exact = true;
        for seg in rest {
            match seg.as_str() {
                "super" => at = self.modules[at].parent?,
                "self" => {}
                name => match self.modules[at].children.get(name) {
                    Some(&child) => at = child,
                    None => {
                        exact = false;
                        break;
                    }
                },
            }
        }
        Some((at, exact))
    }

    fn root_of(&self, target: usize) -> usize {
        self.modules
            .iter()
            .position(|m| m.target == target)
            .unwrap_or_default()
    }

    fn lib_root(&self) -> Option<usize> {
        let t = self
            .package
            .targets
            .iter()
            .position(|t| t.kind == Kind::Lib)?;
        Some(self.root_of(t))
    }
}

/// `a/b.rs` → `a/b`, `a/b/mod.rs` → `a/b`.
pub fn place_of(file: &str) -> String {
    let stem = file.strip_suffix(".rs").unwrap_or(file);
    stem.strip_suffix("/mod").unwrap_or(stem).to_owned()
}

/// `dir` joined with `parts`, `/`-separated.
fn join(dir: &str, parts: &[&str]) -> String {
    let mut out = dir.to_owned();
    for p in parts {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(p);
    }
    out
}

struct Loader<'a> {
    ws: &'a Path,
    opaque: &'a BTreeSet<String>,
}

impl Loader<'_> {
    /// Reads `file` as the file of module `id` (a crate root or a `mod.rs` when `mod_rs`), and
    /// the files of the modules it declares.
    fn read(&self, g: &mut PackageGraph, file: &str, id: usize, mod_rs: bool) -> Result<()> {
        if self.opaque.contains(&g.modules[id].place) {
            g.modules[id].opaque = true;
            return Ok(());
        }
        // `#[path]` can make a file its own descendant: refuse rather than recurse forever.
        let mut up = g.modules[id].parent;
        while let Some(m) = up {
            if g.modules[m].file == file {
                bail!("{file} is its own descendant module (a #[path] loop)");
            }
            up = g.modules[m].parent;
        }
        let src = std::fs::read_to_string(self.ws.join(file))
            .with_context(|| format!("reading {file}"))?;
        let facts = source::read(&src).with_context(|| format!("parsing {file}"))?;
        if facts.test_only {
            g.modules[id].test_only = true;
        }
        let tests_folder = join(&g.package.dir, &["tests/"]);
        let test_file = g.modules[id].test_only || file.starts_with(&tests_folder);
        g.files.push(FileInfo {
            file: file.to_owned(),
            lines: facts.lines,
            test_lines: facts.test_lines,
            test: test_file,
        });
        let ids = self.declare(g, file, id, mod_rs, &facts)?;
        self.attach(g, file, test_file, &ids, facts);
        Ok(())
    }

    /// Creates the modules `facts` declares (reading the files of `mod x;`): the module of each
    /// of the file's scopes.
    fn declare(
        &self,
        g: &mut PackageGraph,
        file: &str,
        id: usize,
        mod_rs: bool,
        facts: &FileFacts,
    ) -> Result<Vec<usize>> {
        let mut ids = vec![id; facts.scopes.len()];
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        let stem = place_of(file);
        let stem = stem.rsplit('/').next().unwrap_or_default();
        // A non-mod-rs file `a/b.rs` keeps its children in `a/b/`.
        let base = if mod_rs {
            dir.to_owned()
        } else {
            join(dir, &[stem])
        };
        for decl in &facts.mods {
            let parent = ids[decl.scope];
            let p = &g.modules[parent];
            let (target, test) = (p.target, p.test_only || decl.test);
            let mut path = p.path.clone();
            path.push(decl.name.clone());
            let nested: Vec<&str> = facts.scopes[decl.scope]
                .iter()
                .map(String::as_str)
                .collect();
            if let Some(inner) = decl.inline {
                // Where a file of that name would be: `a/b.rs`'s `mod c {}` is at `a/b/c`.
                let place = join(&join(&base, &nested), &[&decl.name]);
                ids[inner] = g.add(target, path, place, file, Some(parent), test);
                continue;
            }
            let (child_file, child_mod_rs) = match &decl.path_attr {
                Some(attr) if decl.scope == 0 => (join(dir, &[attr]), true),
                Some(attr) => (join(&join(&base, &nested), &[attr]), true),
                None => {
                    let d = join(&base, &nested);
                    let flat = join(&d, &[&format!("{}.rs", decl.name)]);
                    if self.ws.join(&flat).is_file() {
                        (flat, false)
                    } else {
                        (join(&d, &[&decl.name, "mod.rs"]), true)
                    }
                }
            };
            let child_file = normalize(&child_file);
            let place = place_of(&child_file);
            let child = g.add(target, path, place, &child_file, Some(parent), test);
            if !self.opaque.contains(&g.modules[child].place)
                && !self.ws.join(&child_file).is_file()
            {
                bail!(
                    "{file}:{}: mod {} has no file {child_file}",
                    decl.line,
                    decl.name
                );
            }
            self.read(g, &child_file, child, child_mod_rs)?;
        }
        Ok(ids)
    }

    /// Hands the paths and functions of a file to the modules they are written in.
    fn attach(
        &self,
        g: &mut PackageGraph,
        file: &str,
        test_file: bool,
        ids: &[usize],
        facts: FileFacts,
    ) {
        for p in facts.paths {
            g.modules[ids[p.scope]].paths.push(p);
        }
        for f in facts.fns {
            let m = ids[f.scope];
            g.fns.push(FnInfo {
                module: m,
                name: f.name,
                file: file.to_owned(),
                start: f.start,
                end: f.end,
                test: f.test || test_file || g.modules[m].test_only,
            });
        }
    }
}

/// `a/./b/../c` → `a/c`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}
