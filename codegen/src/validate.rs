//! Validation of lowered specs: the struct rules (K3xxx) of one file and the folder-wide rules
//! (K4xxx) of a set of files. The per-message and per-field rules (K2xxx) run in
//! [`crate::lower`], where the raw JSON values are still at hand.
//!
//! The rule column numbers the checks that Kafka's generator (`org.apache.kafka.message.MessageGenerator`,
//! `StructRegistry`, `MessageSpec`, `FieldSpec`) makes on a spec, in the order [`crate::lower`]'s
//! table continues; `(kwire)` marks a check Kafka does not make, `4.x` one that Kafka 4.x's
//! `CoordinatorRecordTypeGenerator` makes on its `coordinator-key` and `coordinator-value` specs.
//!
//! | code | rule | what |
//! |---|---|---|
//! | K3001 | (kwire) | a struct referenced but defined nowhere (Kafka makes it an empty struct) |
//! | K3002 | 30 | a tag used twice in one struct |
//! | K3003 | 31 | the tags of a struct are not 0, 1, …, n-1 |
//! | K3004 | 32 | two fields of one struct with the same name |
//! | K3005 | 33 | a common struct name that does not start with an upper-case letter (in lowering) |
//! | K3006 | 34 | two common structs with the same name |
//! | K3007 | 35 | a field refers to a common struct but also has inline `fields` |
//! | K3008 | 36 | the same inline struct type defined twice in one file |
//! | K3009 | 37 | an inline struct inside a common struct (in lowering) |
//! | K3010 | 38 | a struct field whose versions do not overlap its parent's |
//! | K3011 | 39 | `mapKey` on a top-level field |
//! | K3012 | (kwire) | two fields whose Rust names collide (`FooBar` and `fooBar`) |
//! | K3050 | warning | a common struct nothing uses |
//! | K3051 | warning | `mapKey` in a struct that is never an array element |
//! | K4001 | 40 | two requests or two responses with the same API key |
//! | K4002 | 41 | a request without a response, or the reverse |
//! | K4003 | 42 | a request or response name without its `Request`/`Response` suffix |
//! | K4004 | 43 | two metadata records with the same API key |
//! | K4005 | (kwire) | two specs with the same `name` |
//! | K4006 | (kwire) | a request and response whose names do not match (`FooRequest` with `BarResponse`) |
//! | K4007 | 4.x | two coordinator keys with the same record type (`apiKey`) |
//! | K4008 | 4.x | two coordinator values with the same record type |
//! | K4009 | 4.x | a coordinator key without a value of its record type, or the reverse |
//! | K4010 | (kwire) | a coordinator key and value not named `XKey` and `XValue`, or paired by name but with different record types |
//! | K4050 | warning | request and response of one API with different validVersions |
//! | K4051 | warning | request and response of one API with different flexibleVersions |

use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{Field, MessageKind, Spec, Struct, Type};
use crate::names::snake;
use crate::suggest::suggest;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// A diagnostic for a file of a folder, by index into the folder's specs.
#[derive(Debug, Clone)]
pub struct FolderDiagnostic {
    /// Index of the spec (in the slice given to [`validate_folder`]).
    pub spec: usize,
    /// The diagnostic, spanning text of that spec's file.
    pub diagnostic: Diagnostic,
}

/// The struct rules of one spec. `line_col` turns a byte offset into (line, column) for help
/// texts that point at another place ("tag 3 is already used by `Foo` at 12:9").
pub fn validate_spec(spec: &Spec, line_col: &dyn Fn(usize) -> (usize, usize)) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    undefined_structs(spec, &mut out);
    let top = Scope {
        name: &spec.name,
        fields: &spec.fields,
        versions: spec.valid,
    };
    for st in std::iter::once(top).chain(spec.structs.iter().map(Scope::of)) {
        tags(st, line_col, &mut out);
        names(st, line_col, &mut out);
        struct_versions(spec, st, &mut out);
    }
    for f in &spec.fields {
        if f.map_key {
            out.push(
                Diagnostic::error(
                    "K3011",
                    f.spans.or("mapKey", f.span),
                    format!("field `{}`: cannot set mapKey on top-level fields", f.name),
                )
                .with_help(
                    "mapKey marks the key of a struct that is an array element; remove it here",
                ),
            );
        }
    }
    struct_definitions(spec, line_col, &mut out);
    usage(spec, &mut out);
    out
}

/// The fields of the message itself or of one of its structs, with its name and versions (the
/// message's without copying its fields, as [`Spec::top`] would).
#[derive(Clone, Copy)]
struct Scope<'a> {
    name: &'a str,
    fields: &'a [Field],
    versions: crate::ir::Versions,
}

impl<'a> Scope<'a> {
    fn of(st: &'a Struct) -> Scope<'a> {
        Scope {
            name: &st.name,
            fields: &st.fields,
            versions: st.versions,
        }
    }
}

fn all_fields(spec: &Spec) -> impl Iterator<Item = &Field> {
    spec.fields
        .iter()
        .chain(spec.structs.iter().flat_map(|s| s.fields.iter()))
}

fn undefined_structs(spec: &Spec, out: &mut Vec<Diagnostic>) {
    let defined: HashSet<&str> = spec.structs.iter().map(|s| s.name.as_str()).collect();
    let mut names: Option<Vec<&str>> = None;
    for f in all_fields(spec) {
        if let Some(n) = f.ty.struct_name() {
            if !defined.contains(n) {
                let names = names
                    .get_or_insert_with(|| spec.structs.iter().map(|s| s.name.as_str()).collect());
                let help = match suggest(n, names) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => {
                        "define it in `commonStructs`, or give the field inline `fields`".into()
                    }
                };
                out.push(
                    Diagnostic::error(
                        "K3001",
                        f.spans.or("type", f.span),
                        format!("field `{}` refers to struct `{n}`, which is defined nowhere in this file", f.name),
                    )
                    .with_help(help),
                );
            }
        }
    }
}

fn at(line_col: &dyn Fn(usize) -> (usize, usize), span: Span) -> String {
    let (l, c) = line_col(span.start);
    format!("{l}:{c}")
}

/// Rules 30 and 31: each tag once, and the tags 0..n. Linear in the fields (hash lookups, one
/// sort).
fn tags(st: Scope, line_col: &dyn Fn(usize) -> (usize, usize), out: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(u32, &Field)> = Vec::new();
    let mut first_with: HashMap<u32, &Field> = HashMap::new();
    // The lowest tag not seen yet: it only grows as tags are seen.
    let mut lowest_free = 0u32;
    for f in st.fields {
        let Some((t, _)) = f.tag else { continue };
        if let Some(first) = first_with.get(&t) {
            while first_with.contains_key(&lowest_free) {
                lowest_free += 1;
            }
            out.push(
                Diagnostic::error(
                    "K3002",
                    f.spans.or("tag", f.span),
                    format!("`{}` has a duplicate tag ID {t}", st.name),
                )
                .with_help(format!(
                    "tag {t} is already used by `{}` at {}; the next free tag is {lowest_free}",
                    first.name,
                    at(line_col, first.spans.or("tag", first.span))
                )),
            );
            continue;
        }
        first_with.insert(t, f);
        seen.push((t, f));
    }
    let mut ids: Vec<u32> = seen.iter().map(|(t, _)| *t).collect();
    ids.sort_unstable();
    // The tags are distinct: the first missing one is where the sorted list leaves 0, 1, 2, ….
    let missing = ids
        .iter()
        .enumerate()
        .find(|(i, t)| **t as usize != *i)
        .map(|(i, _)| i as u32);
    if let Some(missing) = missing {
        let (_, culprit) = seen
            .iter()
            .filter(|(t, _)| *t > missing)
            .min_by_key(|(t, _)| *t)
            .copied()
            .unwrap_or(seen[0]);
        out.push(
            Diagnostic::error(
                "K3003",
                culprit.spans.or("tag", culprit.span),
                format!("the tag IDs of `{}` are not contiguous: tag {} is used, but tag {missing} is not", st.name, culprit.tag.map_or(0, |t| t.0)),
            )
            .with_help(format!("make use of tag {missing} before using any higher tag IDs")),
        );
    }
}

/// Rule 32 and K3012: each field name once, and each Rust name once. Linear in the fields: one
/// `snake()` per field, hash lookups.
fn names(st: Scope, line_col: &dyn Fn(usize) -> (usize, usize), out: &mut Vec<Diagnostic>) {
    let mut by_name: HashMap<&str, &Field> = HashMap::with_capacity(st.fields.len());
    let mut by_rust_name: HashMap<String, &Field> = HashMap::with_capacity(st.fields.len());
    for f in st.fields {
        if let Some(first) = by_name.get(f.name.as_str()) {
            out.push(
                Diagnostic::error(
                    "K3004",
                    f.spans.or("name", f.span),
                    format!(
                        "`{}` has a duplicate name `{}`: all field names must be unique",
                        st.name, f.name
                    ),
                )
                .with_help(format!(
                    "`{}` is already declared at {}",
                    first.name,
                    at(line_col, first.spans.or("name", first.span))
                )),
            );
            continue;
        }
        by_name.insert(&f.name, f);
        match by_rust_name.entry(snake(&f.name)) {
            Entry::Vacant(e) => {
                e.insert(f);
            }
            Entry::Occupied(e) => {
                let first = *e.get();
                out.push(
                    Diagnostic::error(
                        "K3012",
                        f.spans.or("name", f.span),
                        format!(
                            "fields `{}` and `{}` of `{}` have the same Rust name `{}`",
                            first.name,
                            f.name,
                            st.name,
                            e.key()
                        ),
                    )
                    .with_help(format!(
                        "rename one of them (the other is at {})",
                        at(line_col, first.spans.or("name", first.span))
                    )),
                );
            }
        }
    }
}

/// Rule 38: a struct field must overlap the versions of the struct that holds it.
fn struct_versions(spec: &Spec, st: Scope, out: &mut Vec<Diagnostic>) {
    for f in st.fields {
        if f.ty.struct_name().is_none() || f.versions.is_empty() || st.versions.is_empty() {
            continue;
        }
        if f.versions.intersect(&st.versions).is_empty() {
            out.push(
                Diagnostic::error(
                    "K3010",
                    f.spans.or("versions", f.span),
                    format!(
                        "field `{}` of `{}`: version ranges {} and {} have no versions in common",
                        f.name, st.name, st.versions, f.versions
                    ),
                )
                .with_help(format!(
                    "a struct field must exist in some version of its parent (`{}` in {})",
                    st.versions, spec.name
                )),
            );
        }
    }
}

fn struct_definitions(
    spec: &Spec,
    line_col: &dyn Fn(usize) -> (usize, usize),
    out: &mut Vec<Diagnostic>,
) {
    let mut first_named: HashMap<&str, &Struct> = HashMap::with_capacity(spec.structs.len());
    for st in &spec.structs {
        let first = match first_named.entry(st.name.as_str()) {
            Entry::Vacant(e) => {
                e.insert(st);
                continue;
            }
            Entry::Occupied(e) => *e.get(),
        };
        let (code, msg, help) = match (first.common, st.common) {
            (true, true) => ("K3006", format!("common struct `{}` was specified twice", st.name), "remove or rename one of them".to_string()),
            (false, false) => (
                "K3008",
                format!("struct `{}` was specified twice", st.name),
                "inline struct names are file-scoped: rename one, or move it to `commonStructs` and refer to it by name".to_string(),
            ),
            _ => (
                "K3007",
                format!("can't re-specify the common struct `{}` as an inline struct", st.name),
                "refer to the common struct by name without inline `fields`, or rename the inline struct".to_string(),
            ),
        };
        let span = if st.common && !first.common {
            first.name_span
        } else {
            st.name_span
        };
        out.push(Diagnostic::error(code, span, msg).with_help(format!(
            "{help} (the other definition is at {})",
            at(
                line_col,
                if span == st.name_span {
                    first.name_span
                } else {
                    st.name_span
                }
            )
        )));
    }
}

/// Warnings: unused common structs; mapKey in a struct that is never an array element.
fn usage(spec: &Spec, out: &mut Vec<Diagnostic>) {
    // The structs some field refers to, and those some field holds an array of.
    let (mut used, mut in_array): (HashSet<&str>, HashSet<&str>) = (HashSet::new(), HashSet::new());
    for f in all_fields(spec) {
        if let Some(n) = f.ty.struct_name() {
            used.insert(n);
        }
        if let Type::Array(e) = &f.ty {
            if let Some(n) = e.struct_name() {
                in_array.insert(n);
            }
        }
    }
    // A lower-case common struct is already K3005 (and cannot be referred to at all).
    for st in spec
        .structs
        .iter()
        .filter(|s| s.common && s.name.starts_with(|c: char| c.is_ascii_uppercase()))
    {
        if !used.contains(st.name.as_str()) {
            out.push(
                Diagnostic::warning(
                    "K3050",
                    st.name_span,
                    format!("common struct `{}` is never used", st.name),
                )
                .with_help("remove it, or refer to it from a field"),
            );
        }
    }
    for st in &spec.structs {
        if used.contains(st.name.as_str()) && !in_array.contains(st.name.as_str()) {
            for f in st.fields.iter().filter(|f| f.map_key) {
                out.push(
                    Diagnostic::warning(
                        "K3051",
                        f.spans.or("mapKey", f.span),
                        format!(
                            "field `{}` is a map key, but `{}` is never an array element",
                            f.name, st.name
                        ),
                    )
                    .with_help("mapKey only matters for arrays of structs; remove it"),
                );
            }
        }
    }
}

/// A file of the folder that has errors, so it has no spec and the folder rules do not check it.
/// It still exists: for the request/response pairing (K4002) it counts as present, so an error
/// in one spec of a pair does not also report its partner as missing.
#[derive(Debug, Clone, Copy)]
pub struct FailedFile<'a> {
    /// Its file name (`FooRequest.json`).
    pub file_name: &'a str,
    /// Its kind and assigned API key, when lowering got that far despite the errors.
    pub kind_and_key: Option<(MessageKind, i16)>,
}

/// The folder-wide rules over the specs of one folder (Kafka's unit). `failed` are the folder's
/// other files, those with errors: a request or response whose partner is among them (by its
/// file name, `FooResponse.json` for `FooRequest`, or by kind and API key) gets no K4002.
pub fn validate_folder(specs: &[&Spec], failed: &[FailedFile<'_>]) -> Vec<FolderDiagnostic> {
    let mut out = Vec::new();
    let ix = FolderIndex::new(specs, failed);
    for (i, s) in specs.iter().enumerate() {
        names_and_keys(&ix, i, s, &mut out);
        pairing(&ix, i, s, &mut out);
    }
    coordinator_records(specs, &ix, &mut out);
    out
}

/// What the folder rules look up, indexed once so that the rules are linear in the specs.
struct FolderIndex<'s, 'a> {
    specs: &'s [&'a Spec],
    /// The first spec of each name.
    first_named: HashMap<&'a str, usize>,
    /// The first spec of each kind and assigned key.
    first_keyed: HashMap<(MessageKind, i16), usize>,
    /// Every assigned key of each kind, sorted.
    keys_of_kind: HashMap<MessageKind, Vec<i16>>,
    /// The file names, and the kinds and keys, of the files with errors.
    failed_names: HashSet<&'s str>,
    failed_keys: HashSet<(MessageKind, i16)>,
}

impl<'s, 'a> FolderIndex<'s, 'a> {
    fn new(specs: &'s [&'a Spec], failed: &'s [FailedFile<'s>]) -> Self {
        let mut ix = FolderIndex {
            specs,
            first_named: HashMap::new(),
            first_keyed: HashMap::new(),
            keys_of_kind: HashMap::new(),
            failed_names: failed.iter().map(|f| f.file_name).collect(),
            failed_keys: failed.iter().filter_map(|f| f.kind_and_key).collect(),
        };
        for (i, s) in specs.iter().enumerate() {
            ix.first_named.entry(s.name.as_str()).or_insert(i);
            if let Some(k) = s.api_key.assigned() {
                ix.first_keyed.entry((s.kind, k)).or_insert(i);
                ix.keys_of_kind.entry(s.kind).or_default().push(k);
            }
        }
        for keys in ix.keys_of_kind.values_mut() {
            keys.sort_unstable();
            keys.dedup();
        }
        ix
    }
    /// The lowest key no spec of `kind` has.
    fn lowest_free(&self, kind: MessageKind) -> i16 {
        let taken = self
            .keys_of_kind
            .get(&kind)
            .map_or(&[][..], |v| v.as_slice());
        // Sorted and distinct: the first gap in 0, 1, 2, … (negative keys sort first).
        let start = taken.partition_point(|k| *k < 0);
        let gap = taken[start..]
            .iter()
            .enumerate()
            .find(|(i, k)| **k as usize != *i)
            .map_or(taken.len() - start, |(i, _)| i);
        // Every key taken: 0, as before.
        i16::try_from(gap).unwrap_or(0)
    }
    /// Whether a file with errors is `file_name`, or is of `kind` with key `key`.
    fn failed(&self, file_name: &str, kind: MessageKind, key: i16) -> bool {
        self.failed_names.contains(file_name) || self.failed_keys.contains(&(kind, key))
    }
}

fn key_span(s: &Spec) -> Span {
    s.spans.or("apiKey", s.spans.or("name", s.span))
}

fn name_span(s: &Spec) -> Span {
    s.spans.or("name", s.span)
}

/// K4005 (a name twice), K4003 (a request or response suffix), K4001 and K4004 (a key twice).
fn names_and_keys(ix: &FolderIndex, i: usize, s: &Spec, out: &mut Vec<FolderDiagnostic>) {
    let mut push = |d: Diagnostic| {
        out.push(FolderDiagnostic {
            spec: i,
            diagnostic: d,
        })
    };
    if let Some(&j) = ix.first_named.get(s.name.as_str()).filter(|&&j| j < i) {
        push(
            Diagnostic::error(
                "K4005",
                name_span(s),
                format!("`{}` is also the name of {}", s.name, ix.specs[j].file),
            )
            .with_help("every spec of a folder needs its own name"),
        );
    }
    let suffix = suffix_of(s.kind);
    if !suffix.is_empty() && !s.name.ends_with(suffix) {
        push(
            Diagnostic::error(
                "K4003",
                name_span(s),
                format!(
                    "{} name `{}` does not end with the expected suffix `{suffix}`",
                    s.kind.as_str(),
                    s.name
                ),
            )
            .with_help(format!(
                "rename it `{}{suffix}`",
                s.name
                    .trim_end_matches("Request")
                    .trim_end_matches("Response")
            )),
        );
    }
    let Some(key) = s.api_key.assigned() else {
        return;
    };
    if !matches!(
        s.kind,
        MessageKind::Request | MessageKind::Response | MessageKind::Metadata
    ) {
        return;
    }
    let Some(&j) = ix.first_keyed.get(&(s.kind, key)).filter(|&&j| j < i) else {
        return;
    };
    let first = ix.specs[j];
    let (code, msg) = if s.kind == MessageKind::Metadata {
        (
            "K4004",
            format!(
                "duplicate metadata record entry for type {key}: `{}` and `{}`",
                first.name, s.name
            ),
        )
    } else {
        (
            "K4001",
            format!(
                "found more than one {} with API key {key}: `{}` and `{}`",
                s.kind.as_str(),
                first.name,
                s.name
            ),
        )
    };
    let free = ix.lowest_free(s.kind);
    push(Diagnostic::error(code, key_span(s), msg).with_help(format!(
        "{} already uses {key}; the lowest free key is {free}",
        first.file
    )));
}

/// `Request` or `Response` for those kinds, else empty.
fn suffix_of(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::Request => "Request",
        MessageKind::Response => "Response",
        _ => "",
    }
}

/// K4002 (a request without response, or the reverse), K4006 (their names differ), K4050 and
/// K4051 (their versions differ).
fn pairing(ix: &FolderIndex, i: usize, s: &Spec, out: &mut Vec<FolderDiagnostic>) {
    let mut push = |d: Diagnostic| {
        out.push(FolderDiagnostic {
            spec: i,
            diagnostic: d,
        })
    };
    let Some(key) = s.api_key.assigned() else {
        return;
    };
    let other_kind = match s.kind {
        MessageKind::Request => MessageKind::Response,
        MessageKind::Response => MessageKind::Request,
        _ => return,
    };
    let suffix = suffix_of(s.kind);
    let partner_file = format!(
        "{}{}.json",
        s.name.trim_end_matches(suffix),
        suffix_of(other_kind)
    );
    match ix.first_keyed.get(&(other_kind, key)).map(|&j| ix.specs[j]) {
        None if ix.failed(&partner_file, other_kind, key) => {}
        None => push(
            Diagnostic::error(
                "K4002",
                key_span(s),
                format!(
                    "{} `{}` (API key {key}) has no {} with the same key in this folder",
                    s.kind.as_str(),
                    s.name,
                    other_kind.as_str()
                ),
            )
            .with_help(format!("add `{partner_file}`")),
        ),
        Some(p) if s.kind == MessageKind::Request => {
            let stem = s.name.trim_end_matches("Request");
            if p.name.ends_with("Response") && p.name.trim_end_matches("Response") != stem {
                push(
                    Diagnostic::error(
                        "K4006",
                        name_span(s),
                        format!(
                            "request `{}` and response `{}` of API key {key} have different names",
                            s.name, p.name
                        ),
                    )
                    .with_help(format!("name the response `{stem}Response`")),
                );
            }
            if p.valid != s.valid {
                push(
                    Diagnostic::warning(
                        "K4050",
                        s.spans.or("validVersions", s.span),
                        format!(
                            "request validVersions `{}` differ from response `{}`'s `{}`",
                            s.valid, p.name, p.valid
                        ),
                    )
                    .with_help("a request and its response share their versions; make them equal"),
                );
            }
            if p.flexible != s.flexible {
                push(
                    Diagnostic::warning(
                        "K4051",
                        s.spans.or("flexibleVersions", s.span),
                        format!(
                            "request flexibleVersions `{}` differ from response `{}`'s `{}`",
                            s.flexible, p.name, p.flexible
                        ),
                    )
                    .with_help(
                        "a request and its response become flexible together; make them equal",
                    ),
                );
            }
        }
        Some(_) => {}
    }
}

/// K4007-K4010: the coordinator records of a folder, a `coordinator-key` and a
/// `coordinator-value` per record type (their `apiKey`), named `XKey` and `XValue`. Kafka 4.x's
/// `CoordinatorRecordTypeGenerator` pairs them by `apiKey` and fails on a second key or value of
/// one type, or a type with a key and no value (or the reverse).
fn coordinator_records(specs: &[&Spec], ix: &FolderIndex, out: &mut Vec<FolderDiagnostic>) {
    use crate::records::{stem, value_name_for};
    // The first key and value of each record type, and every coordinator record by name.
    let (mut keys, mut values): (HashMap<i16, usize>, HashMap<i16, usize>) =
        (HashMap::new(), HashMap::new());
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    // Record types with two keys or two values: their pairing is not checked (K4007/K4008 say
    // enough).
    let mut duplicated = HashSet::new();
    for (i, s) in specs.iter().enumerate() {
        if !s.kind.is_coordinator_record() {
            continue;
        }
        by_name.entry(s.name.as_str()).or_insert(i);
        let Some(id) = s.api_key.assigned() else {
            continue;
        };
        let (map, code, what) = match s.kind {
            MessageKind::CoordinatorKey => (&mut keys, "K4007", "key"),
            _ => (&mut values, "K4008", "value"),
        };
        match map.entry(id) {
            Entry::Vacant(e) => {
                e.insert(i);
            }
            Entry::Occupied(e) => {
                duplicated.insert(id);
                let first = specs[*e.get()];
                let free = ix.lowest_free(s.kind);
                let d = Diagnostic::error(
                    code,
                    key_span(s),
                    format!(
                        "duplicate coordinator record {what} for type {id}: `{}` and `{}`",
                        first.name, s.name
                    ),
                )
                .with_help(format!(
                    "{} already uses record type {id}; the lowest free one is {free}",
                    first.file
                ));
                out.push(FolderDiagnostic {
                    spec: i,
                    diagnostic: d,
                });
            }
        }
    }
    let partner_failed = |file: &str, kind: MessageKind, id: i16| ix.failed(file, kind, id);
    let mut keys_in_order: Vec<(i16, usize)> = keys.iter().map(|(id, i)| (*id, *i)).collect();
    keys_in_order.sort_unstable_by_key(|(_, i)| *i);
    for (id, k) in keys_in_order
        .into_iter()
        .filter(|(id, _)| !duplicated.contains(id))
    {
        let key = specs[k];
        if !key.name.ends_with("Key") || stem(&key.name) == key.name {
            let d = Diagnostic::error(
                "K4010",
                name_span(key),
                format!(
                    "coordinator-key `{}` is not named after its record: a key is named `XKey`",
                    key.name
                ),
            )
            .with_help(format!(
                "rename it `{}Key` (and its value `{}Value`)",
                key.name, key.name
            ));
            out.push(FolderDiagnostic {
                spec: k,
                diagnostic: d,
            });
        }
        let want = value_name_for(&key.name);
        match values.get(&id) {
            Some(&v) if specs[v].name != want => {
                let d = Diagnostic::error("K4010", name_span(specs[v]), format!("the key and value of record type {id} are `{}` and `{}`: a value is named after its key", key.name, specs[v].name))
                    .with_help(format!("rename it `{want}`"));
                out.push(FolderDiagnostic {
                    spec: v,
                    diagnostic: d,
                });
            }
            Some(_) => {}
            None => match by_name.get(want.as_str()).map(|&v| (v, specs[v])) {
                Some((v, value)) if value.kind == MessageKind::CoordinatorValue => {
                    let theirs = value
                        .api_key
                        .assigned()
                        .map_or("none".to_string(), |m| m.to_string());
                    let d = Diagnostic::error("K4010", key_span(value), format!("`{want}` is the value of `{}` by name, but its apiKey is {theirs}, not the key's {id}", key.name))
                        .with_help(format!("a key and its value have the same record type: set `apiKey` to {id}"));
                    out.push(FolderDiagnostic {
                        spec: v,
                        diagnostic: d,
                    });
                }
                _ if partner_failed(&format!("{want}.json"), MessageKind::CoordinatorValue, id) => {
                }
                _ => {
                    let d = Diagnostic::error("K4009", key_span(key), format!("coordinator-key `{}` (record type {id}) has no coordinator-value with the same apiKey in this folder", key.name))
                        .with_help(format!("add `{want}.json` with `\"type\": \"coordinator-value\"` and `\"apiKey\": {id}`"));
                    out.push(FolderDiagnostic {
                        spec: k,
                        diagnostic: d,
                    });
                }
            },
        }
    }
    let mut values_in_order: Vec<(i16, usize)> = values.iter().map(|(id, i)| (*id, *i)).collect();
    values_in_order.sort_unstable_by_key(|(_, i)| *i);
    for (id, v) in values_in_order {
        let value = specs[v];
        if keys.contains_key(&id) || duplicated.contains(&id) {
            continue;
        }
        let stem = value.name.strip_suffix("Value").unwrap_or(&value.name);
        let want = format!("{stem}Key");
        // A key of that name with another record type: reported above, on this value.
        let named_key = by_name
            .get(want.as_str())
            .is_some_and(|&k| specs[k].kind == MessageKind::CoordinatorKey);
        if named_key || partner_failed(&format!("{want}.json"), MessageKind::CoordinatorKey, id) {
            continue;
        }
        let d = Diagnostic::error("K4009", key_span(value), format!("coordinator-value `{}` (record type {id}) has no coordinator-key with the same apiKey in this folder", value.name))
            .with_help(format!("add `{want}.json` with `\"type\": \"coordinator-key\"` and `\"apiKey\": {id}`"));
        out.push(FolderDiagnostic {
            spec: v,
            diagnostic: d,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::names::SNAKE_CALLS;

    /// A spec whose top level has `n` int32 fields named `fields(i)`.
    fn spec_with(n: usize, name: impl Fn(usize) -> String) -> crate::ir::Spec {
        let fields: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{ "name": "{}", "type": "int32", "versions": "0+", "about": "x" }}"#,
                    name(i)
                )
            })
            .collect();
        let text = format!(
            r#"{{ "apiKey": 1000, "type": "request", "name": "FooRequest", "validVersions": "0", "flexibleVersions": "0+", "fields": [{}] }}"#,
            fields.join(",\n")
        );
        let parsed = crate::syntax::parse(&text);
        crate::lower::lower("FooRequest.json", parsed.value.as_ref().unwrap())
            .spec
            .unwrap()
    }

    /// The Rust-name check runs `snake()` once per field, not once per pair: 2,000 fields cost
    /// 2,000 calls (the quadratic check made 4 million), and collisions are still all found.
    #[test]
    fn the_name_check_is_linear_in_the_fields() {
        for n in [10, 2_000] {
            let spec = spec_with(n, |i| format!("Field{i}"));
            let before = SNAKE_CALLS.with(|c| c.get());
            let found = super::validate_spec(&spec, &|_| (1, 1));
            assert_eq!(SNAKE_CALLS.with(|c| c.get()) - before, n, "{n} fields");
            assert!(found.is_empty(), "{found:?}");
        }
        // Every second field collides with the one before it in Rust (`FooBar1` / `fooBar1`).
        let spec = spec_with(2_000, |i| {
            if i % 2 == 0 {
                format!("FooBar{}", i / 2)
            } else {
                format!("fooBar{}", i / 2)
            }
        });
        let before = SNAKE_CALLS.with(|c| c.get());
        let found = super::validate_spec(&spec, &|_| (1, 1));
        assert_eq!(SNAKE_CALLS.with(|c| c.get()) - before, 2_000);
        assert_eq!(found.iter().filter(|d| d.code == "K3012").count(), 1_000);
        assert!(
            found[0].message.contains("`FooBar0` and `fooBar0`"),
            "{}",
            found[0].message
        );
    }

    /// Duplicate tags and names: one diagnostic each, with the first occurrence and the next free
    /// tag in the help, on a struct large enough that a quadratic pass would show.
    #[test]
    fn duplicate_tags_and_names_at_scale() {
        let n = 4_000;
        let fields: Vec<String> = (0..n)
            .map(|i| format!(r#"{{ "name": "F{}", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": {}, "about": "x" }}"#, i % (n / 2), i % (n / 2)))
            .collect();
        let text = format!(
            r#"{{ "apiKey": 1000, "type": "request", "name": "FooRequest", "validVersions": "0", "flexibleVersions": "0+", "fields": [{}] }}"#,
            fields.join(",")
        );
        let parsed = crate::syntax::parse(&text);
        let spec = crate::lower::lower("FooRequest.json", parsed.value.as_ref().unwrap())
            .spec
            .unwrap();
        let found = super::validate_spec(&spec, &|o| (1, o + 1));
        let count = |code: &str| found.iter().filter(|d| d.code == code).count();
        assert_eq!(
            (count("K3002"), count("K3004"), found.len()),
            (n / 2, n / 2, n)
        );
        let first = found.iter().find(|d| d.code == "K3002").unwrap();
        assert!(
            first
                .help
                .as_deref()
                .unwrap()
                .ends_with(&format!("the next free tag is {}", n / 2)),
            "{first:?}"
        );
    }
}
