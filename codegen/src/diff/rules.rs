//! The rules: comparing two specs of one message into [`Finding`]s.
//!
//! Per version valid on both sides, the two [`layout::MessageAt`]s are compared field by field
//! (wire-level codes K5005–K5016, K5105, K5106); once per spec, the attributes that do not reach
//! the bytes and the versions only one side has (K5001–K5004, K5101–K5104, K5107–K5109). A
//! finding seen at several versions is gathered by [`Collector`] into one.

use super::layout::{self, field_span, FieldAt, Layout};
use super::finding::{kind_of, Finding, Impact, Located, Side};
use crate::diagnostics::Span;
use crate::ir::{ApiKeyValue, DefaultValue, Field, MessageKind, Versions};
use std::collections::{BTreeSet, HashMap};

/// Nested attribute walks stop here (validated specs have no struct cycles).
const MAX_DEPTH: usize = 64;

type SideKey = Option<(String, usize, usize)>;
type Key = (String, &'static str, String, String, SideKey, SideKey);

/// Gathers per-version findings: the same code, message, path, text and spans at several
/// versions become one finding listing them.
#[derive(Default)]
pub struct Collector {
    index: HashMap<Key, usize>,
    found: Vec<(Finding, BTreeSet<i16>)>,
    /// Renames seen in the layouts: (message, new field path) → old field name, so that the
    /// attributes of a renamed field are compared with its old self.
    renames: HashMap<(String, String), String>,
}

fn side_key(s: &Option<Side>) -> SideKey {
    s.as_ref().map(|s| (s.file.clone(), s.span.start, s.span.end))
}

impl Collector {
    /// Records finding `code` at `versions`.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        code: &'static str,
        message: &str,
        versions: impl IntoIterator<Item = i16>,
        path: &str,
        text: String,
        old: Option<Side>,
        new: Option<Side>,
    ) {
        let key = (message.to_string(), code, path.to_string(), text.clone(), side_key(&old), side_key(&new));
        let i = *self.index.entry(key).or_insert_with(|| {
            let f = Finding {
                code,
                impact: Impact::of_code(code),
                kind: kind_of(code),
                message: message.to_string(),
                versions: Vec::new(),
                path: path.to_string(),
                text,
                old,
                new,
            };
            self.found.push((f, BTreeSet::new()));
            self.found.len() - 1
        });
        self.found[i].1.extend(versions);
    }

    /// The findings, sorted by message, code, path and versions.
    pub fn finish(self) -> Vec<Finding> {
        let mut out: Vec<Finding> = self
            .found
            .into_iter()
            .map(|(mut f, v)| {
                f.versions = v.into_iter().collect();
                f
            })
            .collect();
        out.sort_by(|a, b| (&a.message, a.code, &a.path, &a.versions).cmp(&(&b.message, b.code, &b.path, &b.versions)));
        out
    }
}

/// The two sides of one message.
struct Cx<'a, 'b> {
    a: &'b Located<'a>,
    b: &'b Located<'a>,
    message: &'b str,
}

impl Cx<'_, '_> {
    fn at_old(&self, span: Span) -> Option<Side> {
        Some(Side { file: self.a.file.clone(), span })
    }
    fn at_new(&self, span: Span) -> Option<Side> {
        Some(Side { file: self.b.file.clone(), span })
    }
    fn old_key(&self, key: &str) -> Option<Side> {
        self.at_old(self.a.spec.spans.or(key, self.a.spec.span))
    }
    fn new_key(&self, key: &str) -> Option<Side> {
        self.at_new(self.b.spec.spans.or(key, self.b.spec.span))
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn list(vs: &[i16]) -> String {
    vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

/// An `apiKey` as findings show it: `none`, `TBD` or the number.
fn key_text(k: ApiKeyValue) -> String {
    match k {
        ApiKeyValue::Absent => "none".to_string(),
        ApiKeyValue::Tbd => "TBD".to_string(),
        ApiKeyValue::Assigned(n) => n.to_string(),
    }
}

/// K5001: `a` has no counterpart on the new side.
pub(crate) fn message_removed(c: &mut Collector, a: &Located) {
    let s = a.spec;
    c.add(
        "K5001",
        &s.name,
        s.valid.iter(),
        "",
        format!("message `{}` was removed (it had versions {})", s.name, s.valid),
        Some(Side { file: a.file.clone(), span: s.spans.or("name", s.span) }),
        None,
    );
}

/// K5101: `b` is new.
pub(crate) fn message_added(c: &mut Collector, b: &Located) {
    let s = b.spec;
    c.add(
        "K5101",
        &s.name,
        s.valid.iter(),
        "",
        format!("message `{}` was added (versions {})", s.name, s.valid),
        None,
        Some(Side { file: b.file.clone(), span: s.spans.or("name", s.span) }),
    );
}

/// Every rule for one message present on both sides.
pub(crate) fn compare_message(c: &mut Collector, a: &Located, b: &Located) {
    let cx = Cx { a, b, message: &b.spec.name };
    let (sa, sb) = (a.spec, b.spec);
    let common = sa.valid.intersect(&sb.valid);
    let common_or_new: Vec<i16> = if common.is_empty() { sb.valid.iter().collect() } else { common.iter().collect() };
    // A `data` spec that becomes a coordinator record keeps its bytes: the record type (its new
    // `apiKey`) travels beside the struct, not inside it (K5110).
    let became_record = sa.kind == MessageKind::Data && sb.kind.is_coordinator_record() && sa.api_key == ApiKeyValue::Absent;
    if became_record {
        let text = format!("`data` spec became a `{}` of record type {}; the struct's bytes are unchanged", sb.kind.as_str(), key_text(sb.api_key));
        c.add("K5110", cx.message, common_or_new.clone(), "", text, cx.old_key("type"), cx.new_key("type"));
    } else if sa.kind != sb.kind {
        let text = format!("message type changed from `{}` to `{}`", sa.kind.as_str(), sb.kind.as_str());
        c.add("K5004", cx.message, common_or_new.clone(), "", text, cx.old_key("type"), cx.new_key("type"));
    }
    if sa.api_key != sb.api_key && !became_record {
        let code = if sa.api_key == ApiKeyValue::Tbd && matches!(sb.api_key, ApiKeyValue::Assigned(_)) {
            "K5103"
        } else {
            "K5003"
        };
        let text = format!("apiKey changed from {} to {}", key_text(sa.api_key), key_text(sb.api_key));
        c.add(code, cx.message, common_or_new.clone(), "", text, cx.old_key("apiKey"), cx.new_key("apiKey"));
    }
    let removed: Vec<i16> = sa.valid.iter().filter(|v| !sb.valid.contains(*v)).collect();
    if !removed.is_empty() {
        let text = format!("versions {} removed (validVersions {} → {})", list(&removed), sa.valid, sb.valid);
        c.add("K5002", cx.message, removed, "", text, cx.old_key("validVersions"), cx.new_key("validVersions"));
    }
    let added: Vec<i16> = sb.valid.iter().filter(|v| !sa.valid.contains(*v)).collect();
    if !added.is_empty() {
        let text = format!("versions {} added (validVersions {} → {})", list(&added), sa.valid, sb.valid);
        c.add("K5102", cx.message, added, "", text, cx.old_key("validVersions"), cx.new_key("validVersions"));
    }
    // Message-level flags that do not reach the bytes.
    let mut flag = |key: &str, was: String, now: String| {
        if was != now {
            let text = format!("`{key}` changed from {was} to {now}");
            c.add("K5108", cx.message, common_or_new.clone(), "", text, cx.old_key(key), cx.new_key(key));
        }
    };
    flag("deprecatedVersions", sa.deprecated.to_string(), sb.deprecated.to_string());
    flag("latestVersionUnstable", sa.latest_version_unstable.to_string(), sb.latest_version_unstable.to_string());
    flag("listeners", format!("{:?}", sa.listeners), format!("{:?}", sb.listeners));
    for v in common.iter() {
        let (ma, mb) = (layout::message_at(sa, v), layout::message_at(sb, v));
        let flex_same = ma.flexible == mb.flexible;
        if !flex_same {
            let text = format!(
                "flexibleVersions {} → {} makes this version {} (compact lengths, tagged fields, header version)",
                sa.flexible,
                sb.flexible,
                if mb.flexible { "flexible" } else { "not flexible" }
            );
            c.add("K5005", cx.message, [v], "", text, cx.old_key("flexibleVersions"), cx.new_key("flexibleVersions"));
        } else if ma.header_version != mb.header_version {
            let hv = |h: Option<i16>| h.map(|h| h.to_string()).unwrap_or_else(|| "none".into());
            let text = format!("header version changed from {} to {}", hv(ma.header_version), hv(mb.header_version));
            c.add("K5014", cx.message, [v], "", text, cx.old_key("headerVersions"), cx.new_key("headerVersions"));
        }
        let (pa, pb) = (sa.spans.or("fields", sa.span), sb.spans.or("fields", sb.span));
        compare_layout(c, &cx, &ma.body, &mb.body, "", v, flex_same, (pa, pb));
    }
    compare_attrs(c, &cx, &sa.fields, &sb.fields, "", 0);
}

/// Compares two layouts of one struct at version `v`. `parents`: the spans to point at on a
/// side that lacks a field (the struct's field, or the message's `fields`).
#[allow(clippy::too_many_arguments)]
fn compare_layout(
    c: &mut Collector,
    cx: &Cx,
    la: &Layout,
    lb: &Layout,
    path: &str,
    v: i16,
    flex_same: bool,
    parents: (Span, Span),
) {
    let a_names: HashMap<&str, &FieldAt> = la.fields.iter().map(|f| (f.field.name.as_str(), f)).collect();
    let b_names: HashMap<&str, &FieldAt> = lb.fields.iter().map(|f| (f.field.name.as_str(), f)).collect();
    let a_tagged: HashMap<&str, u32> = la.tagged.iter().map(|(t, f)| (f.field.name.as_str(), *t)).collect();
    let b_tagged: HashMap<&str, u32> = lb.tagged.iter().map(|(t, f)| (f.field.name.as_str(), *t)).collect();
    // Renames: the same slot, a name only one side has, the same bytes.
    let mut renamed_from: HashMap<&str, &str> = HashMap::new();
    for (fa, fb) in la.fields.iter().zip(&lb.fields) {
        let (na, nb) = (fa.field.name.as_str(), fb.field.name.as_str());
        if na != nb
            && !b_names.contains_key(na)
            && !a_names.contains_key(nb)
            && !b_tagged.contains_key(na)
            && !a_tagged.contains_key(nb)
            && fa.shape == fb.shape
            && fa.nullable == fb.nullable
            && fa.compact == fb.compact
        {
            renamed_from.insert(nb, na);
            c.renames.insert((cx.message.to_string(), join(path, nb)), na.to_string());
            let text = format!("field `{na}` renamed to `{nb}` (same position and type)");
            let (so, sn) = (field_span(fa.field, "name"), field_span(fb.field, "name"));
            c.add("K5106", cx.message, [v], &join(path, nb), text, cx.at_old(so), cx.at_new(sn));
        }
    }
    let renamed_to: HashMap<&str, &str> = renamed_from.iter().map(|(n, o)| (*o, *n)).collect();
    for fa in &la.fields {
        let name = fa.field.name.as_str();
        if b_names.contains_key(name) || renamed_to.contains_key(name) {
            continue;
        }
        let p = join(path, name);
        if let Some(t) = b_tagged.get(name) {
            let fb = &lb.tagged[t];
            let text = format!("field `{name}` moved from the fields into the tagged fields (tag {t})");
            c.add(
                "K5015",
                cx.message,
                [v],
                &p,
                text,
                cx.at_old(field_span(fa.field, "name")),
                cx.at_new(field_span(fb.field, "tag")),
            );
        } else {
            let text = format!("non-tagged field `{name}` ({}) removed from this version", fa.field.ty);
            c.add("K5007", cx.message, [v], &p, text, cx.at_old(field_span(fa.field, "name")), cx.at_new(parents.1));
        }
    }
    for fb in &lb.fields {
        let name = fb.field.name.as_str();
        if a_names.contains_key(name) || renamed_from.contains_key(name) {
            continue;
        }
        let p = join(path, name);
        if let Some(t) = a_tagged.get(name) {
            let fa = &la.tagged[t];
            let text = format!("field `{name}` moved from the tagged fields (tag {t}) into the fields");
            c.add(
                "K5015",
                cx.message,
                [v],
                &p,
                text,
                cx.at_old(field_span(fa.field, "tag")),
                cx.at_new(field_span(fb.field, "name")),
            );
        } else {
            let text = format!("non-tagged field `{name}` ({}) added to an existing version", fb.field.ty);
            c.add(
                "K5006",
                cx.message,
                [v],
                &p,
                text,
                cx.at_old(parents.0),
                cx.at_new(field_span(fb.field, "versions")),
            );
        }
    }
    // The fields both have (renamed ones by their new name), in each side's order.
    let seq_a: Vec<&str> = la
        .fields
        .iter()
        .filter_map(|f| {
            let n = f.field.name.as_str();
            if let Some(to) = renamed_to.get(n) {
                Some(*to)
            } else {
                b_names.contains_key(n).then_some(n)
            }
        })
        .collect();
    let seq_b: Vec<&str> = lb
        .fields
        .iter()
        .map(|f| f.field.name.as_str())
        .filter(|n| a_names.contains_key(n) || renamed_from.contains_key(n))
        .collect();
    if let Some(i) = (0..seq_a.len().min(seq_b.len())).find(|i| seq_a[*i] != seq_b[*i]) {
        let (moved, was) = (seq_b[i], seq_a[i]);
        let fb = b_names[moved];
        let old_name = renamed_from.get(was).copied().unwrap_or(was);
        let fa = a_names[old_name];
        let text = format!("fields reordered: `{moved}` now comes where `{was}` was");
        c.add(
            "K5009",
            cx.message,
            [v],
            &join(path, moved),
            text,
            cx.at_old(field_span(fa.field, "name")),
            cx.at_new(field_span(fb.field, "name")),
        );
    }
    for fb in &lb.fields {
        let nb = fb.field.name.as_str();
        let na = renamed_from.get(nb).copied().unwrap_or(nb);
        if let Some(fa) = a_names.get(na) {
            compare_field(c, cx, fa, fb, &join(path, nb), v, flex_same, false);
        }
    }
    // Tagged fields, by tag.
    for (t, fa) in &la.tagged {
        let name = fa.field.name.as_str();
        match lb.tagged.get(t) {
            Some(fb) if fb.field.name == name => compare_field(c, cx, fa, fb, &join(path, name), v, flex_same, true),
            Some(fb) => {
                let text = format!("tag {t} now holds `{}` (it was `{name}`)", fb.field.name);
                let p = join(path, &fb.field.name);
                c.add(
                    "K5011",
                    cx.message,
                    [v],
                    &p,
                    text,
                    cx.at_old(field_span(fa.field, "tag")),
                    cx.at_new(field_span(fb.field, "tag")),
                );
            }
            None => {
                if let Some(t2) = b_tagged.get(name) {
                    let fb = &lb.tagged[t2];
                    let text = format!("tag of `{name}` changed from {t} to {t2}");
                    let p = join(path, name);
                    c.add(
                        "K5011",
                        cx.message,
                        [v],
                        &p,
                        text,
                        cx.at_old(field_span(fa.field, "tag")),
                        cx.at_new(field_span(fb.field, "tag")),
                    );
                } else if !b_names.contains_key(name) {
                    let text = format!("tagged field `{name}` (tag {t}) removed from this version");
                    c.add(
                        "K5013",
                        cx.message,
                        [v],
                        &join(path, name),
                        text,
                        cx.at_old(field_span(fa.field, "tag")),
                        cx.at_new(parents.1),
                    );
                }
            }
        }
    }
    for (t, fb) in &lb.tagged {
        let name = fb.field.name.as_str();
        if la.tagged.contains_key(t) || a_tagged.contains_key(name) || a_names.contains_key(name) {
            continue;
        }
        let text = format!("tagged field `{name}` (tag {t}) added");
        c.add(
            "K5105",
            cx.message,
            [v],
            &join(path, name),
            text,
            cx.at_old(parents.0),
            cx.at_new(field_span(fb.field, "tag")),
        );
    }
}

/// Compares one field present on both sides at `v` (`tagged`: in the tagged section).
#[allow(clippy::too_many_arguments)]
fn compare_field(
    c: &mut Collector,
    cx: &Cx,
    fa: &FieldAt,
    fb: &FieldAt,
    p: &str,
    v: i16,
    flex_same: bool,
    tagged: bool,
) {
    let (a, b) = (fa.field, fb.field);
    if fa.shape != fb.shape {
        let text = format!("type changed from `{}` to `{}`", a.ty, b.ty);
        c.add("K5008", cx.message, [v], p, text, cx.at_old(field_span(a, "type")), cx.at_new(field_span(b, "type")));
        return;
    }
    if fa.nullable != fb.nullable {
        let text = if fb.nullable {
            let marker = if b.ty.struct_name().is_some() && !matches!(b.ty, crate::ir::Type::Array(_)) {
                " (a struct gains a one-byte null marker)"
            } else {
                ""
            };
            format!("`{}` became nullable at this version{marker}", b.name)
        } else {
            format!("`{}` is no longer nullable at this version", b.name)
        };
        c.add(
            "K5010",
            cx.message,
            [v],
            p,
            text,
            cx.at_old(field_span(a, "nullableVersions")),
            cx.at_new(field_span(b, "nullableVersions")),
        );
    }
    if fa.compact != fb.compact && flex_same {
        let text = format!(
            "`{}` is now {} at this version (its own flexibleVersions changed)",
            b.name,
            if fb.compact { "compact" } else { "not compact" }
        );
        c.add(
            "K5016",
            cx.message,
            [v],
            p,
            text,
            cx.at_old(field_span(a, "flexibleVersions")),
            cx.at_new(field_span(b, "flexibleVersions")),
        );
    }
    if tagged && a.default != b.default {
        let text = format!(
            "default of tagged field `{}` changed from {} to {} (a reader assumes it when the tag is absent)",
            b.name,
            show_default(&a.default),
            show_default(&b.default)
        );
        c.add(
            "K5012",
            cx.message,
            [v],
            p,
            text,
            cx.at_old(field_span(a, "default")),
            cx.at_new(field_span(b, "default")),
        );
    }
    if let (Some(na), Some(nb)) = (&fa.nested, &fb.nested) {
        compare_layout(c, cx, na, nb, p, v, flex_same, (field_span(a, "name"), field_span(b, "name")));
    }
}

fn show_default(d: &DefaultValue) -> String {
    match d {
        DefaultValue::Implicit => "the type's default".to_string(),
        DefaultValue::Null => "null".to_string(),
        DefaultValue::Bool(b) => b.to_string(),
        DefaultValue::Int(i) => i.to_string(),
        DefaultValue::Float(f) => f.to_string(),
        DefaultValue::Str(s) => format!("\"{s}\""),
        DefaultValue::Uuid(u) => format!("{u:02x?}"),
    }
}

/// The attributes that do not reach the bytes, and field versions extended past the old valid
/// versions, for the fields matched by name (recursing into structs both sides have).
fn compare_attrs(c: &mut Collector, cx: &Cx, fa_list: &[Field], fb_list: &[Field], path: &str, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let (sa, sb) = (cx.a.spec, cx.b.spec);
    for b in fb_list {
        let p = join(path, &b.name);
        let in_new: Vec<i16> = b.versions.intersect(&sb.valid).iter().collect();
        let renamed = c.renames.get(&(cx.message.to_string(), p.clone())).cloned();
        let a = fa_list.iter().find(|a| a.name == b.name || renamed.as_deref() == Some(a.name.as_str()));
        let old_versions = a.map(|a| a.versions).unwrap_or(Versions::NONE);
        let extra: Vec<i16> =
            in_new.iter().copied().filter(|v| !old_versions.contains(*v) && !sa.valid.contains(*v)).collect();
        let Some(a) = a else {
            if !extra.is_empty() && extra.len() == in_new.len() {
                let text = format!("field `{}` added in new versions only ({})", b.name, list(&extra));
                c.add("K5104", cx.message, extra, &p, text, None, cx.at_new(field_span(b, "versions")));
            }
            continue;
        };
        if !extra.is_empty() {
            let text =
                format!("versions of `{}` extended from {} to {} (new versions only)", b.name, a.versions, b.versions);
            c.add(
                "K5109",
                cx.message,
                extra,
                &p,
                text,
                cx.at_old(field_span(a, "versions")),
                cx.at_new(field_span(b, "versions")),
            );
        }
        let vs = in_new.clone();
        if a.about != b.about {
            let text = format!("`about` of `{}` changed", b.name);
            c.add(
                "K5107",
                cx.message,
                vs.clone(),
                &p,
                text,
                cx.at_old(field_span(a, "about")),
                cx.at_new(field_span(b, "about")),
            );
        }
        let mut flag = |key: &str, was: String, now: String| {
            if was != now {
                let text = format!("`{key}` of `{}` changed from {was} to {now}", b.name);
                c.add(
                    "K5108",
                    cx.message,
                    vs.clone(),
                    &p,
                    text,
                    cx.at_old(field_span(a, key)),
                    cx.at_new(field_span(b, key)),
                );
            }
        };
        flag("mapKey", a.map_key.to_string(), b.map_key.to_string());
        flag("entityType", a.entity_type.clone(), b.entity_type.clone());
        flag("ignorable", a.ignorable.to_string(), b.ignorable.to_string());
        flag("zeroCopy", a.zero_copy.to_string(), b.zero_copy.to_string());
        if a.tag.is_none() && b.tag.is_none() {
            flag("default", show_default(&a.default), show_default(&b.default));
        }
        if let (Some(na), Some(nb)) = (a.ty.struct_name(), b.ty.struct_name()) {
            if let (Some(xa), Some(xb)) = (sa.find_struct(na), sb.find_struct(nb)) {
                compare_attrs(c, cx, &xa.fields, &xb.fields, &p, depth + 1);
            }
        }
    }
}
