//! `cargo xtask modgraph`: no two modules of kwire's crates import each other.
//!
//! The project's rule is that data flows one way through a crate: if module `a` uses anything of
//! module `b`, then `b` uses nothing of `a`. This checker reads the source of `codegen/src` (the
//! library and the `kwire` binary) and `protocol/src` (`protocol/src/generated` excluded: it is
//! produced by `cargo xtask codegen` and checked by `--check`), builds the graph of which module
//! names which, and reports every *pair*: `a` names `b` and `b` names `a`.
//!
//! # How it decides
//!
//! * **Modules.** A crate's modules are found by following `mod x;` from the crate root (file
//!   modules, `#[path = "…"]` honoured) and `mod x { … }` blocks (inline modules, `#[cfg(test)]
//!   mod tests { … }` included). An inline module is a module of its own, a child of the module
//!   of its file; so a `tests` block that uses `super::*` names its parent, as any child may.
//! * **What counts as naming a module.** Every path in code, outside comments, string literals
//!   and `quote!`-family macro bodies (those are code *generated* for another crate): `use`
//!   trees (braces, globs, `self`, renames) and inline paths such as `crate::a::b::f(`,
//!   `super::x::Y` or `child::Z` (a first segment that is a child module of the current module,
//!   as Rust 2018 resolves it). A path names the deepest known module it walks through:
//!   `super::group::Group` names the sibling `group`, `super::Thing` names the parent. A
//!   re-export is not followed: `super::Thing` names the parent even when the parent only
//!   re-exports `Thing` (import it from the module that defines it instead). A name that is
//!   both a child module and an item of the same module (`streams::replay`, the module and the
//!   re-exported function) resolves to the module. `generated` is one opaque module.
//! * **Pairs.** Every edge counts, parent and child included: a child that imports its parent's
//!   items while the parent imports the child's items is a pair, the same as two siblings. A
//!   child naming its parent alone (the usual `use super::…`) is not a pair, nor is a parent
//!   declaring or re-exporting its child alone. The one allowance: a `#[cfg(test)]` module and
//!   its parent (a `tests` module using `super::*` while the parent calls one of its helpers):
//!   tests are not part of the data flow. Test modules are otherwise held to the rule like any
//!   other module.
//! * **The coordinator's group types.** `coordinator/consumer/` and `coordinator/streams/` are
//!   sibling group types under the `GroupCoordinator` facade: no module under them names
//!   `GroupCoordinator` or imports an item of `coordinator/mod.rs` (the facade); shared state
//!   lives in `coordinator::context` and friends. These are reported as violations too.
//!
//! The parser is token-level, not a full Rust parser: it knows comments, strings (raw and byte
//! strings included), char literals versus lifetimes, attributes, braces and paths, which is all
//! these rules need. Macro-generated paths (`macro_rules!` bodies are scanned as written;
//! `$crate` is ignored) are out of its reach.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// One crate to check: a label for the report, its root file, and folders to skip.
struct CrateRoot {
    label: &'static str,
    root: &'static str,
    skip: &'static [&'static str],
}

const CRATES: &[CrateRoot] = &[
    CrateRoot {
        label: "kwire-codegen",
        root: "codegen/src/lib.rs",
        skip: &[],
    },
    CrateRoot {
        label: "kwire (bin)",
        root: "codegen/src/main.rs",
        skip: &[],
    },
    CrateRoot {
        label: "kwire-protocol",
        root: "protocol/src/lib.rs",
        skip: &["protocol/src/generated"],
    },
];

/// Module subtrees that hold one group type each: they must not reach up to the facade.
const GROUP_TYPES: &[&str] = &["coordinator::consumer", "coordinator::streams"];
const FACADE: &str = "coordinator";
const FACADE_TYPE: &str = "GroupCoordinator";

/// What [`check`] found: each entry is one line of the report.
#[derive(Debug, Default)]
pub struct Report {
    /// `crate: a <-> b (a → b at file:line; b → a at file:line)`, one per pair, sorted.
    pub pairs: Vec<String>,
    /// Group-type modules that name the facade, with where.
    pub facade: Vec<String>,
    /// How many modules were read, over all crates.
    pub modules: usize,
    /// Every edge, `crate: a -> b (file:line of the first use)`, sorted (for `--edges`).
    pub edges: Vec<String>,
}

impl Report {
    /// True when there is nothing to report.
    pub fn is_clean(&self) -> bool {
        self.pairs.is_empty() && self.facade.is_empty()
    }
}

/// `cargo xtask modgraph [--edges] [WORKSPACE]`: prints the report (with `--edges`, every edge
/// first) for this workspace or the one at `WORKSPACE`; `Ok(false)` (exit 1) when it is not
/// clean.
pub fn run(show_edges: bool, workspace: Option<&Path>) -> Result<bool> {
    let root = crate::codegen::root();
    let report = check(workspace.unwrap_or(&root))?;
    if show_edges {
        for line in &report.edges {
            println!("{line}");
        }
    }
    for line in report.pairs.iter().chain(&report.facade) {
        println!("{line}");
    }
    println!(
        "modgraph: {} modules, {} edges, {} import pairs, {} facade uses",
        report.modules,
        report.edges.len(),
        report.pairs.len(),
        report.facade.len()
    );
    Ok(report.is_clean())
}

/// Reads every crate of `CRATES` (the workspace crates) under `workspace` and reports pairs and facade uses.
pub fn check(workspace: &Path) -> Result<Report> {
    let mut report = Report::default();
    for krate in CRATES {
        let skip: Vec<PathBuf> = krate.skip.iter().map(|s| workspace.join(s)).collect();
        let graph = Graph::load(&workspace.join(krate.root), &skip)?;
        report.modules += graph.modules.len();
        graph.report(krate.label, workspace, &mut report);
    }
    report.pairs.sort();
    report.facade.sort();
    report.edges.sort();
    Ok(report)
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Str(String),
    Punct(char),
}

/// Splits Rust source into tokens with their 1-based line, dropping comments and whitespace.
fn lex(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let n = c.len();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    while i < n {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < n && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < n {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if ch == '"' || ((ch == 'r' || ch == 'b') && raw_or_byte_string_start(&c, i)) {
            // Plain, byte, raw and raw byte strings.
            let start_line = line;
            let mut j = i;
            if c[j] == 'b' {
                j += 1;
            }
            let raw = c[j] == 'r';
            if raw {
                j += 1;
            }
            let mut hashes = 0;
            while c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1; // opening quote
            let mut text = String::new();
            while j < n {
                if !raw && c[j] == '\\' {
                    text.push(c[j]);
                    if j + 1 < n {
                        text.push(c[j + 1]);
                    }
                    j += 2;
                    continue;
                }
                if c[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                if c[j] == '\n' {
                    line += 1;
                }
                text.push(c[j]);
                j += 1;
            }
            out.push((Tok::Str(text), start_line));
            i = j;
        } else if ch == '\'' {
            // A char literal ('a', '\n', '\u{1F}') or a lifetime ('a): skip literals whole.
            if at(i + 1) == '\\' {
                let mut j = i + 2;
                while j < n && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                out.push((Tok::Punct('\''), line));
                i += 1;
            }
        } else if ch == '_' || ch.is_alphanumeric() {
            let mut j = i;
            while j < n && (c[j] == '_' || c[j].is_alphanumeric()) {
                j += 1;
            }
            let word: String = c[i..j].iter().collect();
            // `r#ident` raw identifiers.
            let word = word.strip_prefix("r#").map(str::to_owned).unwrap_or(word);
            out.push((Tok::Ident(word), line));
            i = j;
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// `r"…"`, `r#"…"#`, `b"…"`, `br"…"`, `br#"…"#` (but not the identifiers `r`, `b`, `br#x`).
fn raw_or_byte_string_start(c: &[char], i: usize) -> bool {
    if i > 0 && (c[i - 1] == '_' || c[i - 1].is_alphanumeric()) {
        return false;
    }
    let mut j = i;
    if c[j] == 'b' {
        j += 1;
        if c.get(j) == Some(&'"') {
            return true;
        }
    }
    if c.get(j) != Some(&'r') {
        return false;
    }
    j += 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    c.get(j) == Some(&'"')
}

// ---------------------------------------------------------------------------------------------
// Modules

/// A module path inside one crate: `[]` is the crate root, `["wire", "prim"]` is `wire::prim`.
type ModPath = Vec<String>;

#[derive(Debug, Default)]
struct Module {
    /// Declared `#[cfg(test)]` (or inside such a module).
    test_only: bool,
    children: BTreeSet<String>,
}

/// One use of a module: the tokens of one file scanned with the module they sit in.
struct FileScan {
    file: PathBuf,
    tokens: Vec<(Tok, usize)>,
    /// The module the file's top level belongs to.
    module: ModPath,
}

#[derive(Default)]
struct Graph {
    modules: BTreeMap<ModPath, Module>,
    files: Vec<FileScan>,
    /// `from → to → first (file, line)`.
    edges: BTreeMap<ModPath, BTreeMap<ModPath, (PathBuf, usize)>>,
    /// Uses of the facade type by name: `(module, file, line)`.
    facade_type_uses: Vec<(ModPath, PathBuf, usize)>,
}

impl Graph {
    fn load(root: &Path, skip: &[PathBuf]) -> Result<Graph> {
        let mut graph = Graph::default();
        graph.modules.insert(Vec::new(), Module::default());
        graph.read_file(root, Vec::new(), false, true, skip)?;
        let files = std::mem::take(&mut graph.files);
        for f in &files {
            graph.scan_uses(f);
        }
        graph.files = files;
        Ok(graph)
    }

    /// Reads the file of module `module` and, recursively, the files of its `mod x;` children.
    fn read_file(
        &mut self,
        file: &Path,
        module: ModPath,
        test_only: bool,
        is_root: bool,
        skip: &[PathBuf],
    ) -> Result<()> {
        if skip.iter().any(|s| file.starts_with(s)) {
            return Ok(());
        }
        let src =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let tokens = lex(&src);
        // A file `a/b.rs` (not mod.rs/lib.rs/main.rs) keeps its children in `a/b/`.
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        let child_dir = if is_root || stem == "mod" {
            dir.clone()
        } else {
            dir.join(stem)
        };

        // Pass 1: `mod` declarations, with the inline module each sits in.
        let mut stack: Vec<(ModPath, usize, bool)> = vec![(module.clone(), 0, test_only)];
        let mut depth = 0usize;
        let mut attr_test = false;
        let mut attr_path: Option<String> = None;
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i].0 {
                Tok::Punct('#') => {
                    // An outer attribute `#[...]`: note cfg(test) and path = "...".
                    if let Some(end) = attribute_end(&tokens, i) {
                        let body = &tokens[i + 2..end];
                        if is_cfg_test(body) {
                            attr_test = true;
                        }
                        if let [(Tok::Ident(p), _), (Tok::Punct('='), _), (Tok::Str(s), _)] = body {
                            if p == "path" {
                                attr_path = Some(s.clone());
                            }
                        }
                        i = end + 1;
                        continue;
                    }
                }
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if stack.len() > 1 && stack.last().is_some_and(|s| s.1 == depth) {
                        stack.pop();
                    }
                }
                Tok::Ident(kw) if kw == "mod" => {
                    if let (Some((Tok::Ident(name), _)), Some((next, _))) =
                        (tokens.get(i + 1), tokens.get(i + 2))
                    {
                        let (parent, _, parent_test) = stack.last().cloned().unwrap_or_default();
                        let mut child = parent.clone();
                        child.push(name.clone());
                        let child_test = parent_test || attr_test;
                        self.modules
                            .entry(parent.clone())
                            .or_default()
                            .children
                            .insert(name.clone());
                        self.modules.entry(child.clone()).or_default().test_only = child_test;
                        match next {
                            Tok::Punct(';') => {
                                // Children of an inline module live in a folder named after it.
                                let mut base = child_dir.clone();
                                for seg in &parent[module.len()..] {
                                    base.push(seg);
                                }
                                let path = match attr_path.take() {
                                    Some(p) => dir.join(p),
                                    None => {
                                        let flat = base.join(format!("{name}.rs"));
                                        if flat.exists() {
                                            flat
                                        } else {
                                            base.join(name).join("mod.rs")
                                        }
                                    }
                                };
                                self.read_file(&path, child, child_test, false, skip)?;
                            }
                            Tok::Punct('{') => {
                                depth += 1;
                                stack.push((child, depth - 1, child_test));
                                i += 3;
                                attr_test = false;
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                Tok::Ident(kw) if is_item_keyword(kw) => {}
                _ => {}
            }
            if !matches!(&tokens[i].0, Tok::Ident(kw) if kw == "pub" || kw == "crate" || kw == "super" || kw == "in")
                && !matches!(&tokens[i].0, Tok::Punct('(' | ')'))
            {
                attr_test = false;
                attr_path = None;
            }
            i += 1;
        }
        self.files.push(FileScan {
            file: file.to_path_buf(),
            tokens,
            module,
        });
        Ok(())
    }

    /// Pass 2: every path in code, attributed to the (possibly inline) module it sits in.
    fn scan_uses(&mut self, f: &FileScan) {
        let t = &f.tokens;
        let mut stack: Vec<(ModPath, usize)> = vec![(f.module.clone(), 0)];
        let mut depth = 0usize;
        let mut i = 0;
        while i < t.len() {
            let current = stack.last().map(|s| s.0.clone()).unwrap_or_default();
            match &t[i].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if stack.len() > 1 && stack.last().is_some_and(|s| s.1 == depth) {
                        stack.pop();
                    }
                }
                Tok::Punct('#') => {
                    // Attributes name no modules (`#[cfg(...)]`, `#[path = ...]`, derives).
                    if let Some(end) = attribute_end(t, i) {
                        i = end + 1;
                        continue;
                    }
                }
                Tok::Ident(kw) if kw == "mod" => {
                    if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) =
                        (t.get(i + 1), t.get(i + 2))
                    {
                        let mut child = current.clone();
                        child.push(name.clone());
                        depth += 1;
                        stack.push((child, depth - 1));
                        i += 3;
                        continue;
                    }
                }
                Tok::Ident(kw)
                    if is_quote_macro(kw)
                        && t.get(i + 1).is_some_and(|x| x.0 == Tok::Punct('!')) =>
                {
                    // Code generated for another crate: skip the macro's delimited body.
                    i = skip_group(t, i + 2);
                    continue;
                }
                Tok::Ident(kw)
                    if kw == "pub" && t.get(i + 1).is_some_and(|x| x.0 == Tok::Punct('(')) =>
                {
                    // `pub(crate)`, `pub(super)`, `pub(in path)`: visibility names no import.
                    i = skip_group(t, i + 1);
                    continue;
                }
                Tok::Ident(kw) if kw == "use" => {
                    let end = (i..t.len())
                        .find(|&j| t[j].0 == Tok::Punct(';'))
                        .unwrap_or(t.len());
                    let tree = &t[i + 1..end];
                    self.note_facade_type(&current, tree, &f.file);
                    if tree.iter().any(|x| x.0 == Tok::Punct('$')) {
                        // `use $crate::…` in a macro body: it names a module where it expands.
                        i = end + 1;
                        continue;
                    }
                    for path in expand_use_tree(tree) {
                        self.add_path(&current, &path, &f.file, t[i].1);
                    }
                    i = end + 1;
                    continue;
                }
                Tok::Ident(word) => {
                    let after_path = i > 0 && t[i - 1].0 == Tok::Path;
                    let after_dollar = i > 0 && t[i - 1].0 == Tok::Punct('$');
                    if word == FACADE_TYPE {
                        self.facade_type_uses
                            .push((current.clone(), f.file.clone(), t[i].1));
                    }
                    if !after_path
                        && !after_dollar
                        && t.get(i + 1).is_some_and(|x| x.0 == Tok::Path)
                    {
                        let mut path = vec![word.clone()];
                        let mut j = i + 1;
                        while let (Some((Tok::Path, _)), Some((Tok::Ident(seg), _))) =
                            (t.get(j), t.get(j + 1))
                        {
                            path.push(seg.clone());
                            j += 2;
                        }
                        self.note_facade_type(&current, &t[i + 1..j], &f.file);
                        self.add_path(&current, &path, &f.file, t[i].1);
                        i = j;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// Notes every `GroupCoordinator` among `tokens` (the tail of a path or a `use` tree).
    fn note_facade_type(&mut self, module: &ModPath, tokens: &[(Tok, usize)], file: &Path) {
        for (tok, line) in tokens {
            if matches!(tok, Tok::Ident(w) if w == FACADE_TYPE) {
                self.facade_type_uses
                    .push((module.clone(), file.to_path_buf(), *line));
            }
        }
    }

    /// Records the edge `from → module named by path`, if the path names one of this crate's.
    fn add_path(&mut self, from: &ModPath, path: &[String], file: &Path, line: usize) {
        let Some(target) = self.resolve(from, path) else {
            return;
        };
        if &target == from {
            return;
        }
        self.edges
            .entry(from.clone())
            .or_default()
            .entry(target)
            .or_insert_with(|| (file.to_path_buf(), line));
    }

    /// The deepest module of this crate that `path`, written in module `from`, walks through.
    fn resolve(&self, from: &ModPath, path: &[String]) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        let mut at: ModPath = match first.as_str() {
            "crate" => Vec::new(),
            "self" => from.clone(),
            "super" => from[..from.len().checked_sub(1)?].to_vec(),
            name if self
                .modules
                .get(from)
                .is_some_and(|m| m.children.contains(name)) =>
            {
                let mut p = from.clone();
                p.push(name.to_owned());
                p
            }
            _ => return None,
        };
        for seg in rest {
            if seg == "super" {
                at.pop();
                continue;
            }
            if seg == "self" || seg == "*" {
                continue;
            }
            if self
                .modules
                .get(&at)
                .is_some_and(|m| m.children.contains(seg))
            {
                at.push(seg.clone());
            } else {
                break;
            }
        }
        Some(at)
    }

    fn report(&self, label: &str, workspace: &Path, report: &mut Report) {
        let show = |p: &ModPath| {
            if p.is_empty() {
                "crate".to_owned()
            } else {
                p.join("::")
            }
        };
        let rel = |f: &Path| f.strip_prefix(workspace).unwrap_or(f).display().to_string();
        let test_only = |p: &ModPath| self.modules.get(p).is_some_and(|m| m.test_only);
        for (a, outs) in &self.edges {
            for (b, (f, l)) in outs {
                report.edges.push(format!(
                    "{label}: {} -> {} ({}:{l})",
                    show(a),
                    show(b),
                    rel(f)
                ));
            }
        }
        for (a, outs) in &self.edges {
            for (b, (fa, la)) in outs {
                let parent_of =
                    |c: &ModPath, p: &ModPath| c.len() == p.len() + 1 && c.starts_with(p);
                if a >= b || (test_only(a) && parent_of(a, b)) || (test_only(b) && parent_of(b, a))
                {
                    continue;
                }
                if let Some((fb, lb)) = self.edges.get(b).and_then(|o| o.get(a)) {
                    report.pairs.push(format!(
                        "{label}: {} <-> {} ({} at {}:{la}; {} at {}:{lb})",
                        show(a),
                        show(b),
                        show(b),
                        rel(fa),
                        show(a),
                        rel(fb)
                    ));
                }
            }
        }
        if label != "kwire-protocol" {
            return;
        }
        let facade: ModPath = vec![FACADE.to_owned()];
        let in_group_type = |p: &ModPath| GROUP_TYPES.iter().any(|g| p.join("::").starts_with(g));
        for (from, outs) in &self.edges {
            if in_group_type(from) {
                if let Some((f, l)) = outs.get(&facade) {
                    report.facade.push(format!(
                        "{label}: {} imports from the facade {} at {}:{l}",
                        show(from),
                        FACADE,
                        rel(f)
                    ));
                }
            }
        }
        for (m, f, l) in &self.facade_type_uses {
            if in_group_type(m) {
                report.facade.push(format!(
                    "{label}: {} names {FACADE_TYPE} at {}:{l}",
                    show(m),
                    rel(f)
                ));
            }
        }
    }
}

fn is_item_keyword(word: &str) -> bool {
    matches!(
        word,
        "fn" | "struct" | "enum" | "impl" | "trait" | "const" | "static" | "type" | "use"
    )
}

fn is_quote_macro(word: &str) -> bool {
    matches!(word, "quote" | "quote_spanned" | "parse_quote")
}

/// For `#` at `i` followed by `[`, the index of the matching `]`.
fn attribute_end(t: &[(Tok, usize)], i: usize) -> Option<usize> {
    let mut j = i + 1;
    if t.get(j).is_some_and(|x| x.0 == Tok::Punct('!')) {
        j += 1;
    }
    if t.get(j)?.0 != Tok::Punct('[') {
        return None;
    }
    let end = skip_group(t, j);
    Some(end - 1)
}

/// `#[cfg(test)]` (a bare `test`, not `cfg(not(test))` or `cfg(any(test, …))`).
fn is_cfg_test(body: &[(Tok, usize)]) -> bool {
    let words: Vec<&Tok> = body.iter().map(|x| &x.0).collect();
    matches!(
        words.as_slice(),
        [Tok::Ident(c), Tok::Punct('('), Tok::Ident(t), Tok::Punct(')')] if c == "cfg" && t == "test"
    )
}

/// For an opening delimiter at `open` (or the token before one), the index after its match.
fn skip_group(t: &[(Tok, usize)], open: usize) -> usize {
    let mut depth = 0i32;
    let mut j = open;
    while j < t.len() {
        match t[j].0 {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    t.len()
}

/// The paths of a `use` tree (tokens between `use` and `;`): `a::{b, c::{self, d as e}, f::*}`
/// gives `a::b`, `a::c`, `a::c::d`, `a::f::*`.
fn expand_use_tree(t: &[(Tok, usize)]) -> Vec<Vec<String>> {
    fn tree(t: &[(Tok, usize)], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        while *i < t.len() {
            match &t[*i].0 {
                Tok::Ident(w) if w == "as" => {
                    *i += 2; // `as name`
                }
                Tok::Ident(w) => {
                    if w == "self" && !path.is_empty() && path.len() == prefix.len() {
                        // `{self, …}`: the prefix itself.
                    } else {
                        path.push(w.clone());
                    }
                    *i += 1;
                }
                Tok::Punct('*') => {
                    path.push("*".to_owned());
                    *i += 1;
                }
                Tok::Path => *i += 1,
                Tok::Punct('{') => {
                    *i += 1;
                    loop {
                        tree(t, i, &path, out);
                        match t.get(*i).map(|x| &x.0) {
                            Some(Tok::Punct(',')) => *i += 1,
                            Some(Tok::Punct('}')) => {
                                *i += 1;
                                break;
                            }
                            _ => break,
                        }
                    }
                    return;
                }
                Tok::Punct(',' | '}') => break,
                _ => *i += 1,
            }
        }
        if path.len() > prefix.len() || (!path.is_empty() && path.len() == prefix.len()) {
            out.push(path);
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    // Leading `::` (extern paths) names no module of this crate.
    if t.first().is_some_and(|x| x.0 == Tok::Path) {
        return out;
    }
    tree(t, &mut i, &[], &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<(Tok, usize)> {
        lex(src)
    }

    fn paths(src: &str) -> Vec<String> {
        expand_use_tree(&toks(src))
            .into_iter()
            .map(|p| p.join("::"))
            .collect()
    }

    #[test]
    fn use_trees_expand() {
        assert_eq!(
            paths("crate::a::{b, c::{self, d as e}, f::*}"),
            [
                "crate::a::b",
                "crate::a::c",
                "crate::a::c::d",
                "crate::a::f::*"
            ]
        );
        assert_eq!(paths("super::x"), ["super::x"]);
        assert_eq!(paths("std::io"), ["std::io"]);
    }

    #[test]
    fn comments_strings_and_chars_are_not_code() {
        let t = toks("// crate::a\n/* super::b /* nested */ */ let s = \"crate::c\"; let r = r#\"super::d\"#; let c = '\\''; fn f<'a>() {}");
        let idents: Vec<&str> = t
            .iter()
            .filter_map(|x| {
                if let Tok::Ident(w) = &x.0 {
                    Some(w.as_str())
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(idents, ["let", "s", "let", "r", "let", "c", "fn", "f", "a"]);
    }

    fn graph_of(files: &[(&str, &str)]) -> Graph {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("kwire-modgraph-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, src) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, src).unwrap();
        }
        let g = Graph::load(&dir.join("lib.rs"), &[]).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        g
    }

    fn pairs(g: &Graph) -> Vec<String> {
        let mut r = Report::default();
        g.report("t", Path::new("/"), &mut r);
        r.pairs
            .into_iter()
            .map(|p| p.split(" (").next().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn finds_sibling_and_parent_child_pairs() {
        let g = graph_of(&[
            ("lib.rs", "mod a; mod b; mod p;"),
            ("a.rs", "use crate::b::X; pub struct Y;"),
            ("b.rs", "pub struct X; fn f() { let _ = super::a::Y; }"),
            ("p/mod.rs", "mod c; pub use c::Z; pub struct W;"),
            (
                "p/c.rs",
                "pub struct Z(super::W);\n#[cfg(test)]\nmod tests { use super::*; }",
            ),
        ]);
        assert_eq!(pairs(&g), ["t: a <-> b", "t: p <-> p::c"]);
    }

    #[test]
    fn one_way_imports_and_tests_are_clean() {
        let g = graph_of(&[
            ("lib.rs", "mod a;\nmod b;\n#[cfg(test)]\nmod tests;"),
            ("a.rs", "// crate::b\npub fn f() -> &'static str { \"crate::b\" }"),
            ("b.rs", "use crate::a;\npub fn g() { a::f(); }\n#[cfg(test)]\nfn h() { tests::t(); }\n#[cfg(test)]\nmod tests { use super::*; #[test] pub fn t() { g(); } }"),
            ("tests.rs", "use crate::{a, b};"),
        ]);
        assert_eq!(pairs(&g), Vec::<String>::new());
    }

    #[test]
    fn group_types_must_not_reach_the_facade() {
        let g = graph_of(&[
            ("lib.rs", "pub mod coordinator;"),
            ("coordinator/mod.rs", "pub mod consumer; mod context; pub struct GroupCoordinator; pub use context::Ctx;"),
            ("coordinator/context.rs", "pub struct Ctx;"),
            ("coordinator/consumer/mod.rs", "use super::context::Ctx;\nuse super::Ctx as Again;\nfn f(_: &crate::coordinator::GroupCoordinator) {}"),
        ]);
        let mut r = Report::default();
        g.report("kwire-protocol", Path::new("/"), &mut r);
        let lines: Vec<&str> = r
            .facade
            .iter()
            .map(|l| l.split(" at ").next().unwrap())
            .collect();
        assert_eq!(
            lines,
            [
                "kwire-protocol: coordinator::consumer imports from the facade coordinator",
                "kwire-protocol: coordinator::consumer names GroupCoordinator"
            ]
        );
        assert!(r.pairs.is_empty());
    }
}
