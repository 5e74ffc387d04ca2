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
    let top = spec.top();
    undefined_structs(spec, &mut out);
    for st in std::iter::once(&top).chain(&spec.structs) {
        tags(st, line_col, &mut out);
        names(st, line_col, &mut out);
        struct_versions(spec, st, &mut out);
    }
    for f in &spec.fields {
        if f.map_key {
            out.push(
                Diagnostic::error("K3011", f.spans.or("mapKey", f.span), format!("field `{}`: cannot set mapKey on top-level fields", f.name))
                    .with_help("mapKey marks the key of a struct that is an array element; remove it here"),
            );
        }
    }
    struct_definitions(spec, line_col, &mut out);
    usage(spec, &mut out);
    out
}

fn all_fields(spec: &Spec) -> impl Iterator<Item = &Field> {
    spec.fields.iter().chain(spec.structs.iter().flat_map(|s| s.fields.iter()))
}

fn undefined_structs(spec: &Spec, out: &mut Vec<Diagnostic>) {
    let names: Vec<&str> = spec.structs.iter().map(|s| s.name.as_str()).collect();
    for f in all_fields(spec) {
        if let Some(n) = f.ty.struct_name() {
            if spec.find_struct(n).is_none() {
                let help = match suggest(n, &names) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "define it in `commonStructs`, or give the field inline `fields`".into(),
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

fn tags(st: &Struct, line_col: &dyn Fn(usize) -> (usize, usize), out: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(u32, &Field)> = Vec::new();
    for f in &st.fields {
        let Some((t, _)) = f.tag else { continue };
        if let Some((_, first)) = seen.iter().find(|(s, _)| *s == t) {
            let next = (0..).find(|n| !seen.iter().any(|(s, _)| s == n)).unwrap_or(0);
            out.push(
                Diagnostic::error("K3002", f.spans.or("tag", f.span), format!("`{}` has a duplicate tag ID {t}", st.name))
                    .with_help(format!(
                        "tag {t} is already used by `{}` at {}; the next free tag is {next}",
                        first.name,
                        at(line_col, first.spans.or("tag", first.span))
                    )),
            );
            continue;
        }
        seen.push((t, f));
    }
    let mut ids: Vec<u32> = seen.iter().map(|(t, _)| *t).collect();
    ids.sort_unstable();
    if let Some(missing) = (0..ids.len() as u32).find(|k| !ids.contains(k)) {
        let (_, culprit) = seen.iter().filter(|(t, _)| *t > missing).min_by_key(|(t, _)| *t).copied().unwrap_or(seen[0]);
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

fn names(st: &Struct, line_col: &dyn Fn(usize) -> (usize, usize), out: &mut Vec<Diagnostic>) {
    for (i, f) in st.fields.iter().enumerate() {
        let earlier = &st.fields[..i];
        if let Some(first) = earlier.iter().find(|g| g.name == f.name) {
            out.push(
                Diagnostic::error("K3004", f.spans.or("name", f.span), format!("`{}` has a duplicate name `{}`: all field names must be unique", st.name, f.name))
                    .with_help(format!("`{}` is already declared at {}", first.name, at(line_col, first.spans.or("name", first.span)))),
            );
        } else if let Some(first) = earlier.iter().find(|g| snake(&g.name) == snake(&f.name)) {
            out.push(
                Diagnostic::error(
                    "K3012",
                    f.spans.or("name", f.span),
                    format!("fields `{}` and `{}` of `{}` have the same Rust name `{}`", first.name, f.name, st.name, snake(&f.name)),
                )
                .with_help(format!("rename one of them (the other is at {})", at(line_col, first.spans.or("name", first.span)))),
            );
        }
    }
}

/// Rule 38: a struct field must overlap the versions of the struct that holds it.
fn struct_versions(spec: &Spec, st: &Struct, out: &mut Vec<Diagnostic>) {
    for f in &st.fields {
        if f.ty.struct_name().is_none() || f.versions.is_empty() || st.versions.is_empty() {
            continue;
        }
        if f.versions.intersect(&st.versions).is_empty() {
            out.push(
                Diagnostic::error(
                    "K3010",
                    f.spans.or("versions", f.span),
                    format!("field `{}` of `{}`: version ranges {} and {} have no versions in common", f.name, st.name, st.versions, f.versions),
                )
                .with_help(format!("a struct field must exist in some version of its parent (`{}` in {})", st.versions, spec.name)),
            );
        }
    }
}

fn struct_definitions(spec: &Spec, line_col: &dyn Fn(usize) -> (usize, usize), out: &mut Vec<Diagnostic>) {
    for (i, st) in spec.structs.iter().enumerate() {
        let Some(first) = spec.structs[..i].iter().find(|s| s.name == st.name) else { continue };
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
        let span = if st.common && !first.common { first.name_span } else { st.name_span };
        out.push(
            Diagnostic::error(code, span, msg)
                .with_help(format!("{help} (the other definition is at {})", at(line_col, if span == st.name_span { first.name_span } else { st.name_span }))),
        );
    }
}

/// Warnings: unused common structs; mapKey in a struct that is never an array element.
fn usage(spec: &Spec, out: &mut Vec<Diagnostic>) {
    // A lower-case common struct is already K3005 (and cannot be referred to at all).
    for st in spec.structs.iter().filter(|s| s.common && s.name.starts_with(|c: char| c.is_ascii_uppercase())) {
        if !all_fields(spec).any(|f| f.ty.struct_name() == Some(st.name.as_str())) {
            out.push(
                Diagnostic::warning("K3050", st.name_span, format!("common struct `{}` is never used", st.name))
                    .with_help("remove it, or refer to it from a field"),
            );
        }
    }
    for st in &spec.structs {
        let in_array = all_fields(spec).any(|f| matches!(&f.ty, Type::Array(e) if e.struct_name() == Some(st.name.as_str())));
        let used = all_fields(spec).any(|f| f.ty.struct_name() == Some(st.name.as_str()));
        if used && !in_array {
            for f in st.fields.iter().filter(|f| f.map_key) {
                out.push(
                    Diagnostic::warning("K3051", f.spans.or("mapKey", f.span), format!("field `{}` is a map key, but `{}` is never an array element", f.name, st.name))
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
    let mut push = |spec: usize, d: Diagnostic| out.push(FolderDiagnostic { spec, diagnostic: d });
    let key_span = |s: &Spec| s.spans.or("apiKey", s.spans.or("name", s.span));
    let name_span = |s: &Spec| s.spans.or("name", s.span);
    for (i, s) in specs.iter().enumerate() {
        if let Some(j) = specs[..i].iter().position(|o| o.name == s.name) {
            push(i, Diagnostic::error("K4005", name_span(s), format!("`{}` is also the name of {}", s.name, specs[j].file))
                .with_help("every spec of a folder needs its own name"));
        }
        let suffix = match s.kind {
            MessageKind::Request => "Request",
            MessageKind::Response => "Response",
            _ => "",
        };
        if !suffix.is_empty() && !s.name.ends_with(suffix) {
            push(i, Diagnostic::error("K4003", name_span(s), format!("{} name `{}` does not end with the expected suffix `{suffix}`", s.kind.as_str(), s.name))
                .with_help(format!("rename it `{}{suffix}`", s.name.trim_end_matches("Request").trim_end_matches("Response"))));
        }
        let Some(key) = s.api_key.assigned() else { continue };
        let same = |kind: MessageKind| specs.iter().enumerate().filter(move |(_, o)| o.kind == kind && o.api_key.assigned() == Some(key));
        match s.kind {
            MessageKind::Request | MessageKind::Response | MessageKind::Metadata => {
                if let Some((j, first)) = same(s.kind).find(|(j, _)| *j < i) {
                    let code = if s.kind == MessageKind::Metadata { "K4004" } else { "K4001" };
                    let msg = if s.kind == MessageKind::Metadata {
                        format!("duplicate metadata record entry for type {key}: `{}` and `{}`", first.name, s.name)
                    } else {
                        format!("found more than one {} with API key {key}: `{}` and `{}`", s.kind.as_str(), first.name, s.name)
                    };
                    let taken: Vec<i16> = specs.iter().filter(|o| o.kind == s.kind).filter_map(|o| o.api_key.assigned()).collect();
                    let free = (0..=i16::MAX).find(|k| !taken.contains(k)).unwrap_or(0);
                    push(i, Diagnostic::error(code, key_span(s), msg).with_help(format!("{} already uses {key}; the lowest free key is {free}", specs[j].file)));
                }
            }
            _ => {}
        }
        let other_kind = match s.kind {
            MessageKind::Request => MessageKind::Response,
            MessageKind::Response => MessageKind::Request,
            _ => continue,
        };
        let mut partners = same(other_kind);
        let partner_file = format!("{}{}.json", s.name.trim_end_matches(suffix), if other_kind == MessageKind::Request { "Request" } else { "Response" });
        let partner_failed = failed.iter().any(|f| f.file_name == partner_file || f.kind_and_key == Some((other_kind, key)));
        match partners.next() {
            None if partner_failed => {}
            None => push(
                i,
                Diagnostic::error("K4002", key_span(s), format!("{} `{}` (API key {key}) has no {} with the same key in this folder", s.kind.as_str(), s.name, other_kind.as_str()))
                    .with_help(format!("add `{partner_file}`")),
            ),
            Some((_, p)) if s.kind == MessageKind::Request => {
                let stem = s.name.trim_end_matches("Request");
                if p.name.ends_with("Response") && p.name.trim_end_matches("Response") != stem {
                    push(i, Diagnostic::error("K4006", name_span(s), format!("request `{}` and response `{}` of API key {key} have different names", s.name, p.name))
                        .with_help(format!("name the response `{stem}Response`")));
                }
                if p.valid != s.valid {
                    push(i, Diagnostic::warning("K4050", s.spans.or("validVersions", s.span), format!("request validVersions `{}` differ from response `{}`'s `{}`", s.valid, p.name, p.valid))
                        .with_help("a request and its response share their versions; make them equal"));
                }
                if p.flexible != s.flexible {
                    push(i, Diagnostic::warning("K4051", s.spans.or("flexibleVersions", s.span), format!("request flexibleVersions `{}` differ from response `{}`'s `{}`", s.flexible, p.name, p.flexible))
                        .with_help("a request and its response become flexible together; make them equal"));
                }
            }
            Some(_) => {}
        }
    }
    coordinator_records(specs, failed, &mut out);
    out
}

/// K4007-K4010: the coordinator records of a folder, a `coordinator-key` and a
/// `coordinator-value` per record type (their `apiKey`), named `XKey` and `XValue`. Kafka 4.x's
/// `CoordinatorRecordTypeGenerator` pairs them by `apiKey` and fails on a second key or value of
/// one type, or a type with a key and no value (or the reverse).
fn coordinator_records(specs: &[&Spec], failed: &[FailedFile<'_>], out: &mut Vec<FolderDiagnostic>) {
    use crate::records::{stem, value_name_for};
    use std::collections::hash_map::Entry;
    use std::collections::HashMap;
    let key_span = |s: &Spec| s.spans.or("apiKey", s.spans.or("name", s.span));
    let name_span = |s: &Spec| s.spans.or("name", s.span);
    // The first key and value of each record type, and every coordinator record by name.
    let (mut keys, mut values): (HashMap<i16, usize>, HashMap<i16, usize>) = (HashMap::new(), HashMap::new());
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    // Record types with two keys or two values: their pairing is not checked (K4007/K4008 say
    // enough).
    let mut duplicated = std::collections::HashSet::new();
    for (i, s) in specs.iter().enumerate() {
        if !s.kind.is_coordinator_record() {
            continue;
        }
        by_name.entry(s.name.as_str()).or_insert(i);
        let Some(id) = s.api_key.assigned() else { continue };
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
                let mut taken: Vec<i16> = map.keys().copied().collect();
                taken.sort_unstable();
                let free = (0..=i16::MAX).find(|k| taken.binary_search(k).is_err()).unwrap_or(0);
                let d = Diagnostic::error(code, key_span(s), format!("duplicate coordinator record {what} for type {id}: `{}` and `{}`", first.name, s.name))
                    .with_help(format!("{} already uses record type {id}; the lowest free one is {free}", first.file));
                out.push(FolderDiagnostic { spec: i, diagnostic: d });
            }
        }
    }
    let partner_failed = |file: &str, kind: MessageKind, id: i16| failed.iter().any(|f| f.file_name == file || f.kind_and_key == Some((kind, id)));
    let mut keys_in_order: Vec<(i16, usize)> = keys.iter().map(|(id, i)| (*id, *i)).collect();
    keys_in_order.sort_unstable_by_key(|(_, i)| *i);
    for (id, k) in keys_in_order.into_iter().filter(|(id, _)| !duplicated.contains(id)) {
        let key = specs[k];
        if !key.name.ends_with("Key") || stem(&key.name) == key.name {
            let d = Diagnostic::error("K4010", name_span(key), format!("coordinator-key `{}` is not named after its record: a key is named `XKey`", key.name))
                .with_help(format!("rename it `{}Key` (and its value `{}Value`)", key.name, key.name));
            out.push(FolderDiagnostic { spec: k, diagnostic: d });
        }
        let want = value_name_for(&key.name);
        match values.get(&id) {
            Some(&v) if specs[v].name != want => {
                let d = Diagnostic::error("K4010", name_span(specs[v]), format!("the key and value of record type {id} are `{}` and `{}`: a value is named after its key", key.name, specs[v].name))
                    .with_help(format!("rename it `{want}`"));
                out.push(FolderDiagnostic { spec: v, diagnostic: d });
            }
            Some(_) => {}
            None => match by_name.get(want.as_str()).map(|&v| (v, specs[v])) {
                Some((v, value)) if value.kind == MessageKind::CoordinatorValue => {
                    let theirs = value.api_key.assigned().map_or("none".to_string(), |m| m.to_string());
                    let d = Diagnostic::error("K4010", key_span(value), format!("`{want}` is the value of `{}` by name, but its apiKey is {theirs}, not the key's {id}", key.name))
                        .with_help(format!("a key and its value have the same record type: set `apiKey` to {id}"));
                    out.push(FolderDiagnostic { spec: v, diagnostic: d });
                }
                _ if partner_failed(&format!("{want}.json"), MessageKind::CoordinatorValue, id) => {}
                _ => {
                    let d = Diagnostic::error("K4009", key_span(key), format!("coordinator-key `{}` (record type {id}) has no coordinator-value with the same apiKey in this folder", key.name))
                        .with_help(format!("add `{want}.json` with `\"type\": \"coordinator-value\"` and `\"apiKey\": {id}`"));
                    out.push(FolderDiagnostic { spec: k, diagnostic: d });
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
        let named_key = by_name.get(want.as_str()).is_some_and(|&k| specs[k].kind == MessageKind::CoordinatorKey);
        if named_key || partner_failed(&format!("{want}.json"), MessageKind::CoordinatorKey, id) {
            continue;
        }
        let d = Diagnostic::error("K4009", key_span(value), format!("coordinator-value `{}` (record type {id}) has no coordinator-key with the same apiKey in this folder", value.name))
            .with_help(format!("add `{want}.json` with `\"type\": \"coordinator-key\"` and `\"apiKey\": {id}`"));
        out.push(FolderDiagnostic { spec: v, diagnostic: d });
    }
}
