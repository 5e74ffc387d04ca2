//! The rules of ARCHITECTURE.md: the lines of its ```` ```arch ```` fenced blocks.
//!
//! One rule per line; `#` starts a comment; blank lines are skipped. A *folder* is a module
//! place (see [`super::graph`]): `protocol/src/coordinator`. Its *members* are the names of the
//! modules directly under it (`context` for `coordinator/context.rs` and everything under
//! `coordinator/context/`), `self` for the folder's own module (`coordinator/mod.rs`), `lib`
//! and `main` for the crate roots `src/lib.rs` and `src/main.rs`.
//!
//! ```text
//! opaque: PLACE...                   modules not read (generated code), one module each
//! crates: PKG PKG < PKG < ...        package layers, lowest first
//! layers FOLDER: M M < M < ...       the folder's members in layers, lowest first
//! independent FOLDER: M M M ...      none of these members imports another
//! forbid FOLDER: M M ... -> M NAME...   these members import neither that member nor an item
//!                                    of these names
//! max-fn-lines N: FOLDER...          no production function under these folders is longer
//! max-file-lines N: FOLDER...        no non-test file under these folders is longer
//! ```

use anyhow::{anyhow, bail, Result};

/// One rule and the line of ARCHITECTURE.md it is written on.
#[derive(Debug, Clone)]
pub struct Rule {
    /// 1-based line in ARCHITECTURE.md.
    pub line: usize,
    /// What it says.
    pub kind: RuleKind,
}

/// What a rule says.
#[derive(Debug, Clone)]
pub enum RuleKind {
    /// `opaque: PLACE...`
    Opaque(Vec<String>),
    /// `crates: A B < C`: package names by layer, lowest first.
    Crates(Vec<Vec<String>>),
    /// `layers FOLDER: a b < c`: member names by layer, lowest first.
    Layers {
        /// The folder.
        folder: String,
        /// Its members, by layer.
        levels: Vec<Vec<String>>,
    },
    /// `independent FOLDER: a b c`.
    Independent {
        /// The folder.
        folder: String,
        /// Members that never import each other.
        members: Vec<String>,
    },
    /// `forbid FOLDER: a b -> t Name`.
    Forbid {
        /// The folder.
        folder: String,
        /// The members bound by the rule.
        from: Vec<String>,
        /// The member they never import (`self`: the folder's own module only).
        to: String,
        /// Item names they never write.
        names: Vec<String>,
    },
    /// `max-fn-lines N: FOLDER...`
    MaxFnLines(usize, Vec<String>),
    /// `max-file-lines N: FOLDER...`
    MaxFileLines(usize, Vec<String>),
}

/// The rules of every ```` ```arch ```` block of `markdown`.
///
/// # Errors
/// A line that is none of the forms above (with its line number), an unclosed block, no
/// block at all.
pub fn parse(markdown: &str) -> Result<Vec<Rule>> {
    let mut rules = Vec::new();
    let mut in_block = false;
    let mut blocks = 0;
    for (i, raw) in markdown.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.starts_with("```") {
            if in_block {
                in_block = false;
            } else if trimmed.trim_start_matches('`').trim() == "arch" {
                in_block = true;
                blocks += 1;
            }
            continue;
        }
        if !in_block {
            continue;
        }
        let text = trimmed.split('#').next().unwrap_or_default().trim();
        if text.is_empty() {
            continue;
        }
        let kind = parse_rule(text)
            .map_err(|e| anyhow!("ARCHITECTURE.md:{line}: cannot parse `{text}`: {e}"))?;
        rules.push(Rule { line, kind });
    }
    if in_block {
        bail!("ARCHITECTURE.md: an ```arch block is not closed");
    }
    if blocks == 0 {
        bail!("ARCHITECTURE.md: no ```arch block");
    }
    Ok(rules)
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

/// `a b < c < d` → `[[a, b], [c], [d]]`; no layer may be empty.
fn levels(s: &str) -> Result<Vec<Vec<String>>> {
    let levels: Vec<Vec<String>> = s.split('<').map(words).collect();
    if levels.len() < 2 || levels.iter().any(Vec::is_empty) {
        bail!("expected layers `a b < c < …`");
    }
    Ok(levels)
}

fn parse_rule(text: &str) -> Result<RuleKind> {
    let Some((head, body)) = text.split_once(':') else {
        bail!("expected `KIND [FOLDER]: …`");
    };
    let head = words(head);
    let folder = || match head.as_slice() {
        [_, folder] => Ok(folder.trim_end_matches('/').to_owned()),
        _ => Err(anyhow!("expected one folder after `{}`", head[0])),
    };
    let one = |kind: &str| {
        if head.len() == 1 {
            Ok(())
        } else {
            Err(anyhow!("`{kind}` takes no folder"))
        }
    };
    let kind = head.first().map(String::as_str).unwrap_or_default();
    Ok(match kind {
        "opaque" => {
            one(kind)?;
            RuleKind::Opaque(nonempty(words(body))?)
        }
        "crates" => {
            one(kind)?;
            RuleKind::Crates(levels(body)?)
        }
        "layers" => RuleKind::Layers {
            folder: folder()?,
            levels: levels(body)?,
        },
        "independent" => {
            let members = words(body);
            if members.len() < 2 {
                bail!("expected two members or more");
            }
            RuleKind::Independent {
                folder: folder()?,
                members,
            }
        }
        "forbid" => {
            let Some((from, to)) = body.split_once("->") else {
                bail!("expected `forbid FOLDER: a b -> t [Name…]`");
            };
            let (from, mut to) = (nonempty(words(from))?, nonempty(words(to))?);
            let target = to.remove(0);
            RuleKind::Forbid {
                folder: folder()?,
                from,
                to: target,
                names: to,
            }
        }
        "max-fn-lines" | "max-file-lines" => {
            let [_, n] = head.as_slice() else {
                bail!("expected `{kind} N: FOLDER…`");
            };
            let n: usize = n
                .parse()
                .map_err(|_| anyhow!("`{n}` is not a line count"))?;
            let folders = nonempty(words(body))?
                .into_iter()
                .map(|f| f.trim_end_matches('/').to_owned())
                .collect();
            if kind == "max-fn-lines" {
                RuleKind::MaxFnLines(n, folders)
            } else {
                RuleKind::MaxFileLines(n, folders)
            }
        }
        other => bail!("unknown rule `{other}`"),
    })
}

fn nonempty(words: Vec<String>) -> Result<Vec<String>> {
    if words.is_empty() {
        bail!("expected at least one name");
    }
    Ok(words)
}
