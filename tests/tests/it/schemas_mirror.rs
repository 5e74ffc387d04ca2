//! `schemas/` mirrors Kafka 4.4.0 on the wire, file for file.
//!
//! Every spec of Kafka 4.4.0's `clients` message folder (95 requests, 95 responses, 2 headers,
//! 11 data messages) must have a namesake in `schemas/`, and the two must agree on type, api key,
//! valid and flexible versions and `latestVersionUnstable`. For every version, both specs are
//! flattened into a wire layout (fields in wire order, structs expanded, names ignored) and
//! compared entry by entry. kwire's own record specs (`Kwire*`) have no Kafka counterpart and are
//! listed as skipped with the reason.
//!
//! A second test checks that our `about` texts are our own: none shares a run of six words with
//! any `about` of Kafka's specs (4.4.0 and 3.9.0, every module), none is empty, and no schema
//! carries the Apache license header.

use kwire_codegen::ir::{ApiKeyValue, DefaultValue, Field, MessageKind, Spec, Type};
use kwire_codegen::source::{read_dir, read_file};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Schemas that have no Kafka 4.4.0 counterpart, with the reason. Any schema not listed here
/// must be compared.
const NO_COUNTERPART: &[(&str, &str)] = &[
    ("KwireConsumerGroupMetadataKey.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupMetadataValue.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupMemberMetadataKey.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupMemberMetadataValue.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupRegularExpressionKey.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupRegularExpressionValue.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupTargetAssignmentMemberKey.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupTargetAssignmentMemberValue.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupTargetAssignmentMetadataKey.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupTargetAssignmentMetadataValue.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupCurrentMemberAssignmentKey.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireConsumerGroupCurrentMemberAssignmentValue.json", "kwire's own consumer-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupMetadataKey.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupMetadataValue.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTopologyKey.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTopologyValue.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupMemberMetadataKey.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupMemberMetadataValue.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTargetAssignmentMemberKey.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTargetAssignmentMemberValue.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTargetAssignmentMetadataKey.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTargetAssignmentMetadataValue.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupCurrentMemberAssignmentKey.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupCurrentMemberAssignmentValue.json", "kwire's own streams-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets records); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTopologyDescriptionKey.json", "kwire's own streams-group record (the topology description KIP-1331 pushes, which Kafka 4.4 hands to a broker plugin instead); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireStreamsGroupTopologyDescriptionValue.json", "kwire's own streams-group record (the topology description KIP-1331 pushes, which Kafka 4.4 hands to a broker plugin instead); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireClassicGroupMetadataKey.json", "kwire's own classic-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets GroupMetadata record); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireClassicGroupMetadataValue.json", "kwire's own classic-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets GroupMetadata record); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireClassicGroupMemberKey.json", "kwire's own classic-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets GroupMetadata record); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireClassicGroupMemberValue.json", "kwire's own classic-group record (the coordinator's replayable log, in place of Kafka's __consumer_offsets GroupMetadata record); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireCommittedOffsetKey.json", "kwire's own committed-offset record (record type 30, kwire-server durability); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireCommittedOffsetValue.json", "kwire's own committed-offset record (record type 30, kwire-server durability); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireTopicKey.json", "kwire's own topic record (record type 31, kwire-server durability); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwireTopicValue.json", "kwire's own topic record (record type 31, kwire-server durability); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwirePartitionEndKey.json", "kwire's own partition end-offset record (record type 32, kwire-server durability); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
    ("KwirePartitionEndValue.json", "kwire's own partition end-offset record (record type 32, kwire-server durability); not a Kafka client message, so Kafka 4.4.0 has no such spec"),
];

const LICENSE_TEXT: &str = "Licensed to the Apache Software Foundation";

fn schemas_dir() -> PathBuf {
    kwire_tests::workspace_root().join("schemas")
}

fn upstream_dir(shared: &Path) -> PathBuf {
    shared.join("kafka-specs").join("4.4.0").join("clients")
}

/// Lowers one file, failing the test (with the diagnostics) if it does not lower cleanly.
fn lower_one(path: &Path) -> Spec {
    let file =
        read_file(path.to_path_buf()).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let checked = kwire_codegen::check_files_alone(vec![file]);
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .flatten()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    assert!(
        errors.is_empty(),
        "{} does not lower: {errors:#?}",
        path.display()
    );
    assert_eq!(
        checked.specs.len(),
        1,
        "{} lowered to {} specs",
        path.display(),
        checked.specs.len()
    );
    checked.specs.into_iter().next().unwrap()
}

/// Every schema file name in `schemas/`, sorted.
fn schema_files() -> Vec<String> {
    let files = read_dir(&schemas_dir()).expect("reading schemas/");
    assert!(!files.is_empty(), "schemas/ holds no *.json");
    files.iter().map(|f| f.file_name()).collect()
}

// ---------------------------------------------------------------------------------------------
// The flattened wire layout.

/// A type with struct names replaced by their flattened content.
#[derive(Debug, Clone, PartialEq)]
enum FlatType {
    Prim(String),
    Array(Box<FlatType>),
    Struct(Vec<Entry>),
}

impl FlatType {
    /// The type without the struct content (that content follows as entries of its own).
    fn shallow(&self) -> String {
        match self {
            FlatType::Prim(p) => p.clone(),
            FlatType::Array(e) => format!("[]{}", e.shallow()),
            FlatType::Struct(c) => format!("struct{{{} entries}}", c.len()),
        }
    }
}

/// Where a field sits: untagged position among the fields present at the version, or tagged.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Pos(usize),
    Tagged(usize),
}

impl fmt::Display for Seg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seg::Pos(i) => write!(f, "{i}"),
            Seg::Tagged(i) => write!(f, "t{i}"),
        }
    }
}

/// One field of the layout at one version. Equality ignores `name`.
#[derive(Debug, Clone)]
struct Entry {
    path: Vec<Seg>,
    ty: FlatType,
    nullable: bool,
    tag: Option<u32>,
    default: DefaultValue,
    ignorable: bool,
    map_key: bool,
    /// The field's `flexibleVersions` override at the version: `Some(compact)`, `None` without one.
    flexible_override: Option<bool>,
    /// The field's name: shown in messages, never compared.
    name: String,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Entry) -> bool {
        self.shallow_eq(o) && self.ty == o.ty
    }
}

impl Entry {
    /// Equality without the name and without nested struct content (which the following
    /// entries carry).
    fn shallow_eq(&self, o: &Entry) -> bool {
        self.path == o.path
            && self.ty.shallow() == o.ty.shallow()
            && self.nullable == o.nullable
            && self.tag == o.tag
            && self.default == o.default
            && self.ignorable == o.ignorable
            && self.map_key == o.map_key
            && self.flexible_override == o.flexible_override
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path: Vec<String> = self.path.iter().map(|s| s.to_string()).collect();
        write!(
            f,
            "[{}] `{}`: type {}, nullable {}, tag {:?}, default {:?}, ignorable {}, mapKey {}, flexible override {:?}",
            path.join("."),
            self.name,
            self.ty.shallow(),
            self.nullable,
            self.tag,
            self.default,
            self.ignorable,
            self.map_key,
            self.flexible_override
        )
    }
}

/// Names are never compared.
#[derive(Debug, Clone, PartialEq)]
struct Layout {
    flexible: bool,
    header_version: Option<i16>,
    entries: Vec<Entry>,
}

fn header_version(spec: &Spec, v: i16) -> Option<i16> {
    if let Some(h) = spec.header_version_override(v) {
        return Some(h);
    }
    let flexible = spec.flexible.contains(v);
    match spec.kind {
        MessageKind::Request => {
            if spec.api_key == ApiKeyValue::Assigned(7) && v == 0 {
                Some(0)
            } else {
                Some(if flexible { 2 } else { 1 })
            }
        }
        MessageKind::Response => {
            if spec.api_key == ApiKeyValue::Assigned(18) {
                Some(0)
            } else {
                Some(if flexible { 1 } else { 0 })
            }
        }
        _ => None,
    }
}

fn flat_type(spec: &Spec, ty: &Type, v: i16, path: &[Seg], depth: usize) -> FlatType {
    assert!(
        depth < 64,
        "{}: struct nesting too deep (a cycle?) at {path:?}",
        spec.file
    );
    match ty {
        Type::Array(e) => FlatType::Array(Box::new(flat_type(spec, e, v, path, depth + 1))),
        Type::Struct(name) => {
            let s = spec
                .find_struct(name)
                .unwrap_or_else(|| panic!("{}: struct `{name}` does not resolve", spec.file));
            FlatType::Struct(flatten_fields(spec, &s.fields, v, path, depth + 1))
        }
        other => FlatType::Prim(other.to_string()),
    }
}

fn entry(spec: &Spec, f: &Field, v: i16, path: Vec<Seg>, tag: Option<u32>, depth: usize) -> Entry {
    Entry {
        ty: flat_type(spec, &f.ty, v, &path, depth),
        path,
        nullable: f.nullable.contains(v),
        tag,
        default: f.default.clone(),
        ignorable: f.ignorable,
        map_key: f.map_key,
        flexible_override: f.flexible_override.map(|o| o.contains(v)),
        name: f.name.clone(),
    }
}

/// Pushes `e` and then, depth first, the entries of its struct content.
fn push_with_content(out: &mut Vec<Entry>, e: Entry) {
    let mut inner = &e.ty;
    while let FlatType::Array(x) = inner {
        inner = x;
    }
    let content = match inner {
        FlatType::Struct(c) => c.clone(),
        _ => Vec::new(),
    };
    out.push(e);
    out.extend(content);
}

/// The fields present at `v`: untagged ones in declaration order, then tagged ones by tag;
/// each followed by its struct content.
fn flatten_fields(
    spec: &Spec,
    fields: &[Field],
    v: i16,
    prefix: &[Seg],
    depth: usize,
) -> Vec<Entry> {
    let mut out = Vec::new();
    let present: Vec<&Field> = fields.iter().filter(|f| f.versions.contains(v)).collect();
    let mut tagged: Vec<(u32, &Field)> = Vec::new();
    let mut pos = 0;
    for f in present {
        match &f.tag {
            Some((tag, tv)) if tv.contains(v) => tagged.push((*tag, f)),
            _ => {
                let mut path = prefix.to_vec();
                path.push(Seg::Pos(pos));
                pos += 1;
                push_with_content(&mut out, entry(spec, f, v, path, None, depth));
            }
        }
    }
    tagged.sort_by_key(|(t, _)| *t);
    for (i, (tag, f)) in tagged.into_iter().enumerate() {
        let mut path = prefix.to_vec();
        path.push(Seg::Tagged(i));
        push_with_content(&mut out, entry(spec, f, v, path, Some(tag), depth));
    }
    out
}

fn layout(spec: &Spec, v: i16) -> Layout {
    Layout {
        flexible: spec.flexible.contains(v),
        header_version: header_version(spec, v),
        entries: flatten_fields(spec, &spec.fields, v, &[], 0),
    }
}

/// Why two layouts differ, naming the first differing entry on both sides.
fn explain(file: &str, v: i16, ours: &Layout, theirs: &Layout) -> Option<String> {
    if ours.flexible != theirs.flexible {
        return Some(format!(
            "{file} v{v}: flexible: schemas/ {} vs 4.4.0 {}",
            ours.flexible, theirs.flexible
        ));
    }
    if ours.header_version != theirs.header_version {
        return Some(format!(
            "{file} v{v}: header version: schemas/ {:?} vs 4.4.0 {:?}",
            ours.header_version, theirs.header_version
        ));
    }
    if ours.entries == theirs.entries {
        return None;
    }
    let n = ours.entries.len().max(theirs.entries.len());
    let show = |e: Option<&Entry>| e.map_or_else(|| "<no entry>".to_string(), |e| e.to_string());
    // Shallow comparison first: it points at the innermost field that differs.
    let first = (0..n)
        .find(|&i| match (ours.entries.get(i), theirs.entries.get(i)) {
            (Some(a), Some(b)) => !a.shallow_eq(b),
            _ => true,
        })
        .or_else(|| (0..n).find(|&i| ours.entries.get(i) != theirs.entries.get(i)))
        .unwrap_or(0);
    Some(format!(
        "{file} v{v}: first differing entry (#{first} of {} vs {}):\n  schemas/: {}\n  4.4.0:    {}",
        ours.entries.len(),
        theirs.entries.len(),
        show(ours.entries.get(first)),
        show(theirs.entries.get(first)),
    ))
}

// ---------------------------------------------------------------------------------------------

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka 4.4.0 specs): put it at ../shared or set KWIRE_SHARED"
)]
fn schemas_are_wire_identical_to_kafka_4_4_0() {
    let upstream = upstream_dir(&kwire_tests::shared());
    assert!(upstream.is_dir(), "{} is missing", upstream.display());

    let files = schema_files();
    let skip: BTreeMap<&str, &str> = NO_COUNTERPART.iter().copied().collect();
    let mut should_compare = BTreeSet::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for file in &files {
        let has_counterpart = upstream.join(file).is_file();
        match (has_counterpart, skip.get(file.as_str())) {
            (true, Some(_)) => failures.push(format!("{file}: listed as without counterpart, but 4.4.0 has it")),
            (true, None) => {
                should_compare.insert(file.clone());
            }
            (false, Some(reason)) => skipped.push((file.clone(), *reason)),
            (false, None) => failures.push(format!(
                "{file}: no 4.4.0 counterpart and not listed in NO_COUNTERPART (add it with a reason)"
            )),
        }
    }
    // Completeness: every Kafka 4.4.0 spec has its namesake here.
    let upstream_files: Vec<String> = read_dir(&upstream)
        .expect("reading 4.4.0 specs")
        .iter()
        .map(|f| f.file_name())
        .collect();
    let missing: Vec<&String> = upstream_files
        .iter()
        .filter(|f| !files.contains(f))
        .collect();
    if !missing.is_empty() {
        failures.push(format!(
            "Kafka 4.4.0 specs without a namesake in schemas/: {missing:?}"
        ));
    }
    for (name, _) in NO_COUNTERPART {
        if !files.iter().any(|f| f == name) {
            failures.push(format!(
                "{name}: listed in NO_COUNTERPART but not in schemas/"
            ));
        }
    }

    let mut compared = BTreeSet::new();
    let mut versions_compared = 0usize;
    let mut per_file = Vec::new();
    for file in &should_compare {
        let ours = lower_one(&schemas_dir().join(file));
        let theirs = lower_one(&upstream.join(file));
        let mut problems = Vec::new();
        if ours.kind != theirs.kind {
            problems.push(format!(
                "{file}: type {:?} vs 4.4.0 {:?}",
                ours.kind, theirs.kind
            ));
        }
        if ours.api_key != theirs.api_key {
            problems.push(format!(
                "{file}: apiKey {:?} vs 4.4.0 {:?}",
                ours.api_key, theirs.api_key
            ));
        }
        if ours.flexible != theirs.flexible {
            problems.push(format!(
                "{file}: flexibleVersions {} vs 4.4.0 {}",
                ours.flexible, theirs.flexible
            ));
        }
        if ours.valid != theirs.valid {
            problems.push(format!(
                "{file}: validVersions {} vs 4.4.0 {}",
                ours.valid, theirs.valid
            ));
        }
        if ours.latest_version_unstable != theirs.latest_version_unstable {
            problems.push(format!(
                "{file}: latestVersionUnstable {} vs 4.4.0 {}",
                ours.latest_version_unstable, theirs.latest_version_unstable
            ));
        }
        let mut n = 0;
        for v in theirs.valid.iter() {
            let (a, b) = (layout(&ours, v), layout(&theirs, v));
            if let Some(why) = explain(file, v, &a, &b) {
                problems.push(why);
            }
            n += 1;
        }
        versions_compared += n;
        per_file.push(format!(
            "{file}: v{} ({n} versions; ours {})",
            theirs.valid, ours.valid
        ));
        if problems.is_empty() {
            compared.insert(file.clone());
        }
        failures.extend(problems);
    }

    eprintln!(
        "schemas_mirror: compared against Kafka 4.4.0 ({}):",
        upstream.display()
    );
    for line in &per_file {
        eprintln!("  {line}");
    }
    for (file, reason) in &skipped {
        eprintln!("  skipped {file}: {reason}");
    }
    eprintln!(
        "schemas_mirror: {} files compared ({} identical), {} versions compared, {} skipped",
        per_file.len(),
        compared.len(),
        versions_compared,
        skipped.len()
    );

    assert!(
        failures.is_empty(),
        "schemas/ differs from Kafka 4.4.0:\n{}",
        failures.join("\n")
    );
    assert_eq!(
        compared, should_compare,
        "every schema with a 4.4.0 counterpart must be compared"
    );
    assert_eq!(
        compared.len(),
        upstream_files.len(),
        "every 4.4.0 spec must be compared"
    );
    assert!(!compared.is_empty(), "nothing was compared");
}

/// Every `about` text of a spec, at any depth, with the field's name.
fn abouts(spec: &Spec) -> Vec<(String, String)> {
    spec.fields
        .iter()
        .chain(spec.structs.iter().flat_map(|s| s.fields.iter()))
        .map(|f| (f.name.clone(), f.about.clone()))
        .collect()
}

/// How many words in a row two texts may share before one counts as copied.
const COPIED_RUN: usize = 6;

/// The lowercase alphanumeric words of a text.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Every run of [`COPIED_RUN`] words of a text.
fn runs(text: &str) -> Vec<String> {
    words(text)
        .windows(COPIED_RUN)
        .map(|w| w.join(" "))
        .collect()
}

#[test]
fn schema_texts_have_no_license_header() {
    let files = schema_files();
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(schemas_dir().join(file)).expect("reading a schema");
        if text.contains(LICENSE_TEXT) {
            failures.push(format!("{file}: contains the Apache license header"));
        }
    }
    eprintln!(
        "schemas_mirror: {} schema files free of the license header",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[cfg_attr(
    not(kwire_shared),
    ignore = "needs the shared material (Kafka's 4.4.0 and 3.9.0 specs): put it at ../shared or set KWIRE_SHARED"
)]
fn schema_texts_are_our_own() {
    let specs = kwire_tests::shared().join("kafka-specs");
    let mut kafka_runs = BTreeSet::new();
    let mut kafka_files = 0usize;
    let mut folders = vec![specs.join("4.4.0").join("clients")];
    for module in std::fs::read_dir(specs.join("3.9.0")).expect("reading 3.9.0 specs") {
        let module = module.expect("reading 3.9.0 specs").path();
        if module.is_dir() {
            folders.push(module);
        }
    }
    for folder in &folders {
        for file in read_dir(folder).unwrap_or_else(|e| panic!("reading {}: {e}", folder.display()))
        {
            kafka_files += 1;
            for (_, about) in abouts(&lower_one(&file.path)) {
                kafka_runs.extend(runs(&about));
            }
        }
    }
    let mut failures = Vec::new();
    let mut ours_total = 0usize;
    let files = schema_files();
    for file in &files {
        for (field, about) in abouts(&lower_one(&schemas_dir().join(file))) {
            ours_total += 1;
            if about.trim().is_empty() || about.trim() == "TODO" {
                failures.push(format!("{file}: `{field}` has no description"));
                continue;
            }
            if let Some(run) = runs(&about).into_iter().find(|r| kafka_runs.contains(r)) {
                failures.push(format!(
                    "{file}: `{field}` shares {COPIED_RUN} words with Kafka ({run:?}): {about:?}"
                ));
            }
        }
    }
    eprintln!(
        "schemas_mirror: {ours_total} about texts of {} schemas checked against {} runs of {COPIED_RUN} words from {kafka_files} Kafka specs",
        files.len(),
        kafka_runs.len()
    );
    assert!(
        kafka_files > 400 && !kafka_runs.is_empty(),
        "Kafka's specs were not read"
    );
    assert!(
        failures.is_empty(),
        "schema texts are not our own:\n{}",
        failures.join("\n")
    );
}

#[test]
fn layout_sees_differences() {
    // A self-check of the comparison: a changed default, a moved field and a nested change are
    // all reported, and names alone are not.
    fn spec(text: &str) -> Spec {
        let file = kwire_codegen::SourceFile {
            path: PathBuf::from("X.json"),
            text: text.to_string(),
        };
        let mut c = kwire_codegen::check_files_alone(vec![file]);
        assert_eq!(c.error_count(), 0, "{:#?}", c.diagnostics);
        c.specs.remove(0)
    }
    let base = r#"{ "apiKey": 1, "type": "request", "name": "XRequest", "validVersions": "0-1",
      "flexibleVersions": "1+", "fields": [
        { "name": "A", "type": "int32", "versions": "0+", "about": "a" },
        { "name": "B", "type": "[]S", "versions": "0+", "about": "b", "fields": [
          { "name": "C", "type": "string", "versions": "0+", "about": "c" } ] },
        { "name": "T", "type": "int8", "versions": "1+", "taggedVersions": "1+", "tag": 0, "about": "t" } ] }"#;
    let a = spec(base);
    let renamed = spec(&base.replace("\"A\"", "\"Z\"").replace("[]S", "[]R"));
    let defaulted = spec(&base.replace(
        r#""type": "int32", "versions": "0+","#,
        r#""type": "int32", "versions": "0+", "default": 5,"#,
    ));
    let nested = spec(&base.replace(
        r#""type": "string", "versions": "0+""#,
        r#""type": "string", "versions": "0+", "nullableVersions": "1+""#,
    ));
    for v in 0..=1 {
        assert_eq!(explain("X", v, &layout(&renamed, v), &layout(&a, v)), None);
        assert!(explain("X", v, &layout(&defaulted, v), &layout(&a, v)).is_some());
    }
    assert_eq!(explain("X", 0, &layout(&nested, 0), &layout(&a, 0)), None);
    let msg =
        explain("X", 1, &layout(&nested, 1), &layout(&a, 1)).expect("nested nullability differs");
    assert!(msg.contains("[1.0] `C`"), "{msg}");
    assert_eq!(layout(&a, 1).header_version, Some(2));
    assert_eq!(layout(&a, 0).header_version, Some(1));
    assert_eq!(layout(&a, 1).entries.last().unwrap().tag, Some(0));
}
