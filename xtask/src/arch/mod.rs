//! `cargo xtask arch`: the module structure ARCHITECTURE.md declares, checked against the code.
//!
//! # What it reads
//!
//! Every package ([`manifest`]): the workspace members and the harness crates outside the
//! workspace (the root manifest's `exclude` list), each with all its targets (library,
//! binaries, integration tests, benches, examples, build script) as Cargo finds them. Each
//! target's modules are found by following `mod x;` from its root file (`#[path = "…"]`
//! honoured) and `mod x { … }` blocks (inline modules, `#[cfg(test)] mod tests { … }`
//! included); an inline module is a module of its own, a child of the module of its file. The
//! rules' `opaque` places (generated code) are one module each and are not read.
//!
//! # What counts as naming a module
//!
//! Every path in code, parsed with `syn` ([`source`]): `use` trees (braces, globs, `self`,
//! renames), paths in expressions, types, patterns and bounds (`crate::a::b::f(`,
//! `super::x::Y`, `child::Z` where `child` is a child module or a name a `use` bound to a
//! module), and paths in the tokens of macro calls and `macro_rules!` bodies (`$crate::…`
//! aside). Not counted: comments, strings, attributes, visibilities (`pub(in …)`), `mod`
//! declarations themselves, and the bodies of `quote!`-family macros (code generated for
//! another crate). A path names the deepest module it walks through: `super::group::Group`
//! names the sibling `group`, `super::Thing` the parent. A re-export is not followed:
//! `super::Thing` names the parent even when the parent only re-exports `Thing`. A name that is
//! both a child module and an item resolves to the module. A path into another package of the
//! workspace (`kwire_protocol::coordinator::…` from the server) is a crate-level edge; from a
//! package's binaries, tests, benches and examples, paths into its own library
//! (`kwire_server::config::…`) reach the library's modules.
//!
//! # What it reports
//!
//! * **Cycles** of any length ([`cycles`]): each strongly connected component of two modules or
//!   more of a package's graph, once, with one shortest cycle through it. Every edge counts,
//!   parent and child included (a child using `super::X` while the parent uses `child::Y` is a
//!   cycle); the one allowance is a `#[cfg(test)]` module and its parent.
//! * **Upward edges** and **rule breaks** ([`checks`]) against ARCHITECTURE.md's `crates`,
//!   `layers`, `independent` and `forbid` rules ([`rules`] has the grammar), and modules or
//!   packages that a `layers` or `crates` rule leaves out.
//! * **Long functions** and **long files** ([`lengths`]) over ARCHITECTURE.md's
//!   `max-fn-lines` and `max-file-lines` limits. A function counts the lines from its `fn`
//!   line to its closing brace, both included (attributes and doc comments excluded, closures
//!   counted in their function, a nested `fn` also counted on its own); test code is exempt:
//!   anything under a `#[cfg(test)]` module or item, `#[test]` / `#[tokio::test]` functions,
//!   files whose module is compiled only under `cfg(test)`, and files under a package's `tests/`
//!   folder. A file counts all its lines (`wc -l`).
//!
//! A rule naming a package, folder or module that does not exist is an error (exit 2), as is a
//! line of an ```` ```arch ```` block that does not parse.

pub mod checks;
pub mod cycles;
pub mod graph;
pub mod lengths;
pub mod manifest;
pub mod rules;
pub mod source;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{bail, Context, Result};

use graph::PackageGraph;
use rules::{Rule, RuleKind};

/// What [`check`] found: each entry is one line of the report.
#[derive(Debug, Default)]
pub struct Report {
    /// Packages read.
    pub packages: usize,
    /// Targets (crates) read.
    pub crates: usize,
    /// Modules read, over all targets.
    pub modules: usize,
    /// Every edge, module-level (`pkg: a -> b (file:line)`) then crate-level
    /// (`pkg -> pkg (file:line)`), sorted (for `--edges`).
    pub edges: Vec<String>,
    /// `cycle pkg (N modules: …): a -> b (file:line) -> … -> a (file:line)`.
    pub cycles: Vec<String>,
    /// Edges from a lower layer to a higher one.
    pub upward: Vec<String>,
    /// Broken `independent` / `forbid` rules, modules in no layer.
    pub breaks: Vec<String>,
    /// Production functions over their folder's limit.
    pub long_fns: Vec<String>,
    /// Non-test files over their folder's limit.
    pub long_files: Vec<String>,
    /// The workspace-wide length figures (`--lengths`; information).
    pub figures: Vec<String>,
}

impl Report {
    /// True when there is nothing to report.
    pub fn is_clean(&self) -> bool {
        self.violations().next().is_none()
    }

    /// Every violation line, cycles first.
    pub fn violations(&self) -> impl Iterator<Item = &String> {
        self.cycles
            .iter()
            .chain(&self.upward)
            .chain(&self.breaks)
            .chain(&self.long_fns)
            .chain(&self.long_files)
    }

    /// `arch: P packages, C crates, M modules, E edges, …`.
    pub fn summary(&self) -> String {
        format!(
            "arch: {} packages, {} crates, {} modules, {} edges, {} cycles, {} upward edges, \
             {} rule breaks, {} long functions, {} long files",
            self.packages,
            self.crates,
            self.modules,
            self.edges.len(),
            self.cycles.len(),
            self.upward.len(),
            self.breaks.len(),
            self.long_fns.len(),
            self.long_files.len()
        )
    }
}

/// `cargo xtask arch [--edges] [--lengths] [WORKSPACE]`: prints every edge (`--edges`), the
/// violations, the length figures (`--lengths`) and the summary line for this workspace or the
/// one at `WORKSPACE`; `Ok(false)` (exit 1) when anything is reported.
///
/// # Errors
/// As [`check`].
pub fn run(show_edges: bool, show_lengths: bool, workspace: Option<&Path>) -> Result<bool> {
    let root = crate::codegen::root();
    let report = check(workspace.unwrap_or(&root))?;
    let lines = report
        .edges
        .iter()
        .filter(|_| show_edges)
        .chain(report.violations())
        .chain(report.figures.iter().filter(|_| show_lengths));
    for line in lines {
        println!("{line}");
    }
    println!("{}", report.summary());
    Ok(report.is_clean())
}

/// Reads the workspace at `workspace` and its ARCHITECTURE.md, and checks one against the other.
///
/// # Errors
/// A file that cannot be read or parsed (Cargo.toml, Rust source, ARCHITECTURE.md), a rule that
/// does not parse or names something that does not exist.
pub fn check(workspace: &Path) -> Result<Report> {
    let doc = workspace.join("ARCHITECTURE.md");
    let text =
        std::fs::read_to_string(&doc).with_context(|| format!("reading {}", doc.display()))?;
    let rules = rules::parse(&text)?;
    let opaque: BTreeSet<String> = rules
        .iter()
        .filter_map(|r| match &r.kind {
            RuleKind::Opaque(places) => {
                Some(places.iter().map(|p| p.trim_end_matches('/').to_owned()))
            }
            _ => None,
        })
        .flatten()
        .collect();
    // One thread per package: reading is parsing, and the packages are independent.
    let graphs: Vec<PackageGraph> = std::thread::scope(|s| {
        let loads: Vec<_> = manifest::packages(workspace)?
            .into_iter()
            .map(|package| {
                let opaque = &opaque;
                s.spawn(move || {
                    let name = package.name.clone();
                    PackageGraph::load(workspace, package, opaque)
                        .with_context(|| format!("reading package {name}"))
                })
            })
            .collect();
        loads
            .into_iter()
            .map(|l| {
                l.join()
                    .unwrap_or_else(|_| bail!("a package reader panicked"))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    for place in &opaque {
        let found = graphs
            .iter()
            .any(|g| g.modules.iter().any(|m| m.opaque && &m.place == place));
        if !found {
            bail!("ARCHITECTURE.md: opaque `{place}` is no module");
        }
    }
    report(&graphs, &rules)
}

fn report(graphs: &[PackageGraph], rules: &[Rule]) -> Result<Report> {
    let found = checks::check(graphs, rules)?;
    let lengths = lengths::check(graphs, rules)?;
    let mut report = Report {
        packages: graphs.len(),
        upward: found.upward,
        breaks: found.breaks,
        long_fns: lengths.long_fns,
        long_files: lengths.long_files,
        figures: lengths.figures,
        ..Report::default()
    };
    let mut crate_edges = Vec::new();
    for g in graphs {
        report.crates += g.package.targets.len();
        report.modules += g.modules.len();
        let name = &g.package.name;
        for (&(a, b), s) in &g.edges {
            let (a, b) = (g.show(a), g.show(b));
            report
                .edges
                .push(format!("{name}: {a} -> {b} ({}:{})", s.file, s.line));
        }
        for (to, (_, s)) in &g.crate_edges {
            crate_edges.push(format!("{name} -> {to} ({}:{})", s.file, s.line));
        }
        for c in cycles::find(g) {
            report.cycles.push(show_cycle(g, &c));
        }
    }
    report.edges.sort();
    crate_edges.sort();
    report.edges.extend(crate_edges);
    Ok(report)
}

fn show_cycle(g: &PackageGraph, c: &cycles::Cycle) -> String {
    let names: Vec<String> = c.members.iter().map(|&m| g.show(m)).collect();
    let mut chain = g.show(c.chain[0]);
    for (i, &from) in c.chain.iter().enumerate() {
        let to = c.chain[(i + 1) % c.chain.len()];
        if let Some(s) = g.edges.get(&(from, to)) {
            chain.push_str(&format!(" -> {} ({}:{})", g.show(to), s.file, s.line));
        }
    }
    format!(
        "cycle {} ({} modules: {}): {chain}",
        g.package.name,
        names.len(),
        names.join(", ")
    )
}
