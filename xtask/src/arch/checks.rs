//! ARCHITECTURE.md's structure rules (`crates`, `layers`, `independent`, `forbid`) applied to
//! the module graphs.
//!
//! `layers` and `independent` bind production code: an edge from or to a test-only module is
//! not checked, and test-only modules need no layer. `forbid` binds every module under its
//! members, test modules included.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Result};

use super::graph::{PackageGraph, Site};
use super::rules::{Rule, RuleKind};

/// What the rules found: one report line each.
#[derive(Debug, Default)]
pub struct Findings {
    /// Edges from a lower layer to a higher one.
    pub upward: Vec<String>,
    /// Broken `independent` and `forbid` rules, and modules or packages in no layer.
    pub breaks: Vec<String>,
}

/// The member of `folder` that `place` is in: `self` for the folder itself, else the first
/// name under it.
pub fn member<'a>(place: &'a str, folder: &str) -> Option<&'a str> {
    if place == folder {
        return Some("self");
    }
    let rest = place.strip_prefix(folder)?.strip_prefix('/')?;
    rest.split('/').next()
}

fn at(site: &Site) -> String {
    format!("{}:{}", site.file, site.line)
}

/// Applies `rules` to `graphs`.
///
/// # Errors
/// A rule naming a package, folder or member that does not exist.
pub fn check(graphs: &[PackageGraph], rules: &[Rule]) -> Result<Findings> {
    validate(graphs, rules)?;
    let mut out = Findings::default();
    for rule in rules {
        let source = format!("ARCHITECTURE.md:{}", rule.line);
        match &rule.kind {
            RuleKind::Crates(levels) => crates(graphs, levels, &source, &mut out),
            RuleKind::Layers { folder, levels } => {
                for g in graphs {
                    layers(g, folder, levels, &source, &mut out);
                }
            }
            RuleKind::Independent { folder, members } => {
                for g in graphs {
                    independent(g, folder, members, &source, &mut out);
                }
            }
            RuleKind::Forbid {
                folder,
                from,
                to,
                names,
            } => {
                for g in graphs {
                    forbid(
                        g,
                        folder,
                        (from.as_slice(), to, names.as_slice()),
                        &source,
                        &mut out,
                    );
                }
            }
            RuleKind::Opaque(_) | RuleKind::MaxFnLines(..) | RuleKind::MaxFileLines(..) => {}
        }
    }
    Ok(out)
}

/// Every name a rule uses must exist: packages, folders, members.
fn validate(graphs: &[PackageGraph], rules: &[Rule]) -> Result<()> {
    let places: BTreeSet<&str> = graphs
        .iter()
        .flat_map(|g| g.modules.iter().map(|m| m.place.as_str()))
        .collect();
    let packages: BTreeSet<&str> = graphs.iter().map(|g| g.package.name.as_str()).collect();
    for rule in rules {
        let line = rule.line;
        let (folder, members): (&str, Vec<&String>) = match &rule.kind {
            RuleKind::Crates(levels) => {
                for name in levels.iter().flatten() {
                    if !packages.contains(name.as_str()) {
                        bail!("ARCHITECTURE.md:{line}: no package `{name}`");
                    }
                }
                continue;
            }
            RuleKind::Layers { folder, levels } => (folder, levels.iter().flatten().collect()),
            RuleKind::Independent { folder, members } => (folder, members.iter().collect()),
            RuleKind::Forbid {
                folder, from, to, ..
            } => (folder, from.iter().chain([to]).collect()),
            RuleKind::Opaque(_) | RuleKind::MaxFnLines(..) | RuleKind::MaxFileLines(..) => continue,
        };
        let found: BTreeSet<&str> = places.iter().filter_map(|p| member(p, folder)).collect();
        if found.is_empty() {
            bail!("ARCHITECTURE.md:{line}: no module under `{folder}`");
        }
        for m in members {
            if !found.contains(m.as_str()) {
                bail!(
                    "ARCHITECTURE.md:{line}: no module `{m}` in `{folder}` (there are: {})",
                    found.iter().copied().collect::<Vec<_>>().join(" ")
                );
            }
        }
    }
    Ok(())
}

/// The edges between production modules that are both under `folder`: `(from, to, from's
/// member, to's member, first use)`.
fn member_edges<'g>(
    g: &'g PackageGraph,
    folder: &'g str,
) -> impl Iterator<Item = (usize, usize, &'g str, &'g str, &'g Site)> + 'g {
    g.edges.iter().filter_map(move |(&(a, b), site)| {
        let (ma, mb) = (&g.modules[a], &g.modules[b]);
        if ma.test_only || mb.test_only {
            return None;
        }
        Some((
            a,
            b,
            member(&ma.place, folder)?,
            member(&mb.place, folder)?,
            site,
        ))
    })
}

fn rank_of(levels: &[Vec<String>]) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for (rank, level) in levels.iter().enumerate() {
        for name in level {
            out.insert(name.as_str(), rank);
        }
    }
    out
}

fn crates(graphs: &[PackageGraph], levels: &[Vec<String>], source: &str, out: &mut Findings) {
    let rank = rank_of(levels);
    for g in graphs {
        let from = g.package.name.as_str();
        let Some(&low) = rank.get(from) else {
            out.breaks.push(format!(
                "rule {from}: the package is in no layer ({source})"
            ));
            continue;
        };
        for (to, (m, site)) in &g.crate_edges {
            if rank.get(to.as_str()).is_some_and(|&high| low < high) {
                out.upward.push(format!(
                    "upward {from} -> {to} ({}, in {}): {from} is below {to} (crates, {source})",
                    at(site),
                    g.show(*m)
                ));
            }
        }
    }
}

fn layers(
    g: &PackageGraph,
    folder: &str,
    levels: &[Vec<String>],
    source: &str,
    out: &mut Findings,
) {
    let rank = rank_of(levels);
    let name = &g.package.name;
    let mut unplaced = BTreeSet::new();
    for m in g.modules.iter().filter(|m| !m.test_only) {
        if let Some(member) = member(&m.place, folder) {
            if !rank.contains_key(member) && unplaced.insert(member) {
                out.breaks.push(format!(
                    "rule {name}: {folder}/{member} is in no layer (layers {folder}, {source})"
                ));
            }
        }
    }
    for (a, b, x, y, site) in member_edges(g, folder) {
        if let (Some(&rx), Some(&ry)) = (rank.get(x), rank.get(y)) {
            if rx < ry {
                out.upward.push(format!(
                    "upward {name}: {} -> {} ({}): {x} is below {y} (layers {folder}, {source})",
                    g.show(a),
                    g.show(b),
                    at(site)
                ));
            }
        }
    }
}

fn independent(
    g: &PackageGraph,
    folder: &str,
    members: &[String],
    source: &str,
    out: &mut Findings,
) {
    for (a, b, x, y, site) in member_edges(g, folder) {
        let listed = |n: &str| members.iter().any(|m| m == n);
        if x != y && listed(x) && listed(y) {
            out.breaks.push(format!(
                "rule {}: {} -> {} ({}): {x} and {y} never import each other (independent {folder}, {source})",
                g.package.name,
                g.show(a),
                g.show(b),
                at(site)
            ));
        }
    }
}

fn forbid(
    g: &PackageGraph,
    folder: &str,
    (from, to, names): (&[String], &String, &[String]),
    source: &str,
    out: &mut Findings,
) {
    let bound = |place: &str| member(place, folder).is_some_and(|m| from.iter().any(|f| f == m));
    let is_target = |place: &str| {
        if to == "self" {
            place == folder
        } else {
            member(place, folder) == Some(to.as_str())
        }
    };
    let name = &g.package.name;
    let rule = format!("forbid {folder}, {source}");
    for (&(a, b), site) in &g.edges {
        if bound(&g.modules[a].place) && is_target(&g.modules[b].place) {
            out.breaks.push(format!(
                "rule {name}: {} -> {} ({}): never imported from {} ({rule})",
                g.show(a),
                g.show(b),
                at(site),
                from.join(" ")
            ));
        }
    }
    for (i, m) in g.modules.iter().enumerate() {
        if !bound(&m.place) {
            continue;
        }
        let mut seen = BTreeSet::new();
        for p in &m.paths {
            for n in names.iter().filter(|n| p.segments.contains(n)) {
                if seen.insert(n) {
                    out.breaks.push(format!(
                        "rule {name}: {} names {n} ({}:{}) ({rule})",
                        g.show(i),
                        m.file,
                        p.line
                    ));
                }
            }
        }
    }
}
