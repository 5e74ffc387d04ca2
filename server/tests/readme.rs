//! The README's "What kwire-server serves" section against the route table: its served table
//! lists exactly the APIs of [`kwire_server::served_apis`] with their versions and notes, and its
//! "Not served" list names every other API key of Kafka 4.4 ([`ApiKey::ALL`]), so a reader can
//! tell a refused API from a broker-version problem.

use kwire_protocol::generated::ApiKey;
use kwire_server::served_apis;
use std::collections::BTreeSet;

/// The README's section on what the server serves (up to the next `## ` heading).
fn section() -> String {
    let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"));
    let start = readme
        .find("## What kwire-server serves")
        .expect("README has a \"What kwire-server serves\" section");
    let rest = &readme[start + 3..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The rows of the served table as (API, "min–max", note).
fn served_rows(section: &str) -> Vec<(String, String, String)> {
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| API "))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 3, "a served row has three cells: {l}");
            (cells[0].into(), cells[1].into(), cells[2].into())
        })
        .collect()
}

/// Every backticked name in the "Not served" list.
fn not_served(section: &str) -> BTreeSet<String> {
    let list = &section[section.find("**Not served**").expect("a Not served list")..];
    let list = &list[..list.find("\n\n").unwrap_or(list.len())];
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_served_table_is_the_route_table() {
    let expected: Vec<(String, String, String)> = served_apis()
        .iter()
        .map(|s| {
            let versions = format!("{}–{}", s.min_version, s.max_version);
            (s.api.name().to_string(), versions, s.note.to_string())
        })
        .collect();
    assert_eq!(served_rows(&section()), expected);
}

#[test]
fn every_other_api_is_listed_as_not_served() {
    let served: BTreeSet<&str> = served_apis().iter().map(|s| s.api.name()).collect();
    let others: BTreeSet<String> = ApiKey::ALL
        .iter()
        .map(|k| k.name())
        .filter(|n| !served.contains(n))
        .map(str::to_string)
        .collect();
    assert_eq!(not_served(&section()), others);
}
