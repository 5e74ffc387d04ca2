//! Lowering: syntax tree → [`Spec`], applying Kafka's reader leniencies and reporting every
//! problem it meets as a [`Diagnostic`] (it never stops at the first).
//!
//! Coercions accepted silently, as Kafka's Jackson reader does: a number or boolean where text is
//! expected becomes its text (`"default": -1`); a string where an integer or boolean is expected
//! is parsed (`"tag": "0"`, `"ignorable": "false"`); a float where an integer is expected is
//! truncated (reported as a warning); a single value where a list is expected is a one-element
//! list; `null` is the same as an absent key; when a key repeats, the last one wins.
//!
//! | code | meaning |
//! |---|---|
//! | K2001 | a required key is missing (`name`, `type`, `validVersions`, `flexibleVersions`, field `versions`) |
//! | K2002 | unknown key |
//! | K2003 | a value of the wrong kind (e.g. an object where a string is expected) |
//! | K2004 | invalid version range |
//! | K2005 | unknown `type` value |
//! | K2006 | a bare word other than `TBD`, or `TBD` anywhere but `apiKey` |
//! | K2007 | unknown field type |
//! | K2008 | a number out of range or not a number (`apiKey`, `tag`) |
//! | K2009 | a boolean that is neither `true` nor `false` |
//! | K2010 | invalid `default` for the field's type |
//! | K2011 | unknown `listeners` value |
//! | K2012 | unknown `entityType` |
//! | K2013 | invalid `headerVersions` |
//! | K2014 | a float where an integer is expected (warning; truncated as Kafka does) |
//! | K2015 | a key given twice (warning; the last one wins, as in Kafka) |
//! | K2016 | `apiKey` is `TBD` (warning; the message is left out of API-key dispatch) |
//! | K3001 | reference to a struct that is defined nowhere |

use crate::diagnostics::{Diagnostic, Span};
use crate::ir::{ApiKeyValue, DefaultValue, Field, MessageKind, Spec, Struct, Type, Versions};
use crate::syntax::{Member, Value, ValueKind};

const TOP_KEYS: &[&str] = &[
    "apiKey",
    "type",
    "listeners",
    "name",
    "validVersions",
    "deprecatedVersions",
    "flexibleVersions",
    "latestVersionUnstable",
    "headerVersions",
    "fields",
    "commonStructs",
];
const FIELD_KEYS: &[&str] = &[
    "name",
    "type",
    "versions",
    "nullableVersions",
    "default",
    "ignorable",
    "mapKey",
    "entityType",
    "about",
    "tag",
    "taggedVersions",
    "flexibleVersions",
    "zeroCopy",
    "fields",
];
const STRUCT_KEYS: &[&str] = &["name", "versions", "fields", "deprecatedVersions"];
const ENTITY_TYPES: &[&str] =
    &["unknown", "transactionalId", "producerId", "groupId", "topicName", "brokerId"];
const LISTENERS: &[&str] = &["zkBroker", "broker", "controller"];
const TYPES: &[&str] = &[
    "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes",
    "uuid", "records",
];

/// What lowering found: the spec (absent when the file is too broken to describe a message) and
/// the diagnostics, in the order found.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// The spec, when `name`, `type`, `validVersions` and `flexibleVersions` could be read.
    pub spec: Option<Spec>,
    /// Every problem found.
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers the syntax tree of the file `file` (a file name used in the [`Spec`]).
pub fn lower(file: &str, root: &Value) -> Lowered {
    let mut cx = Cx { diags: Vec::new() };
    let spec = cx.spec(file, root);
    Lowered { spec, diagnostics: cx.diags }
}

struct Cx {
    diags: Vec<Diagnostic>,
}

/// Levenshtein distance, for "did you mean" hints.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(!ca.eq_ignore_ascii_case(cb));
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest of `options` to `word`, if it is close enough to be a plausible typo.
pub(crate) fn suggest<'a>(word: &str, options: &[&'a str]) -> Option<&'a str> {
    options
        .iter()
        .map(|o| (edit_distance(word, o), *o))
        .filter(|(d, o)| *d <= (o.len() / 3).max(1) || o.eq_ignore_ascii_case(word))
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
}

/// A key-indexed view of an object: last occurrence wins, repeats reported.
struct Obj<'a> {
    members: Vec<&'a Member>,
    span: Span,
}

impl<'a> Obj<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.members
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &m.value)
            .filter(|v| v.kind != ValueKind::Null)
    }
    fn key_span(&self, key: &str) -> Option<Span> {
        self.members.iter().rev().find(|m| m.key == key).map(|m| m.key_span)
    }
}

impl Cx {
    fn err(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(code, span, msg));
        self.diags.last_mut().expect("just pushed")
    }
    fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> &mut Diagnostic {
        self.diags.push(Diagnostic::warning(code, span, msg));
        self.diags.last_mut().expect("just pushed")
    }

    fn object<'a>(&mut self, v: &'a Value, what: &str, allowed: &[&str]) -> Option<Obj<'a>> {
        let ValueKind::Object(members) = &v.kind else {
            self.err("K2003", v.span, format!("expected {what} to be an object, found {}", v.kind_name()));
            return None;
        };
        let mut seen: Vec<&str> = Vec::new();
        for m in members {
            if !allowed.contains(&m.key.as_str()) {
                let d = self.err("K2002", m.key_span, format!("unknown key `{}` in {what}", m.key));
                if let Some(s) = suggest(&m.key, allowed) {
                    d.help = Some(format!("did you mean `{s}`?"));
                } else {
                    d.help = Some(format!("the keys of {what} are: {}", allowed.join(", ")));
                }
            } else if seen.contains(&m.key.as_str()) {
                self.warn("K2015", m.key_span, format!("key `{}` is given more than once; the last one wins", m.key))
                    .help = Some("remove the earlier one".into());
            }
            seen.push(&m.key);
        }
        Some(Obj { members: members.iter().collect(), span: v.span })
    }

    fn text(&mut self, v: &Value, key: &str) -> Option<String> {
        match &v.kind {
            ValueKind::String(s) => Some(s.clone()),
            ValueKind::Number(n) => Some(n.clone()),
            ValueKind::Bool(b) => Some(b.to_string()),
            ValueKind::Word(w) => {
                self.bare_word(v, w, key);
                None
            }
            _ => {
                self.err("K2003", v.span, format!("expected `{key}` to be a string, found {}", v.kind_name()));
                None
            }
        }
    }

    fn bare_word(&mut self, v: &Value, w: &str, key: &str) {
        let d = self.err("K2006", v.span, format!("bare word `{w}` is not a JSON value"));
        d.help = Some(if w == "TBD" {
            format!("`TBD` is only allowed as the value of `apiKey`; quote it for `{key}`")
        } else {
            format!("quote it: \"{w}\"")
        });
    }

    fn int(&mut self, v: &Value, key: &str, min: i64, max: i64) -> Option<i64> {
        let n = match &v.kind {
            ValueKind::Number(t) => {
                if let Ok(n) = t.parse::<i64>() {
                    Some(n)
                } else if let Ok(f) = t.parse::<f64>() {
                    self.warn("K2014", v.span, format!("`{key}` should be an integer; Kafka truncates `{t}` to {}", f.trunc()))
                        .help = Some(format!("write {}", f.trunc()));
                    Some(f.trunc() as i64)
                } else {
                    None
                }
            }
            ValueKind::String(s) => s.trim().strip_prefix('+').unwrap_or(s.trim()).parse::<i64>().ok(),
            ValueKind::Word(w) => {
                self.bare_word(v, w, key);
                return None;
            }
            _ => {
                self.err("K2003", v.span, format!("expected `{key}` to be an integer, found {}", v.kind_name()));
                return None;
            }
        };
        match n {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(n) => {
                self.err("K2008", v.span, format!("`{key}` is {n}, outside {min}..={max}"));
                None
            }
            None => {
                self.err("K2008", v.span, format!("`{key}` is not an integer"));
                None
            }
        }
    }

    fn bool(&mut self, v: &Value, key: &str) -> Option<bool> {
        match &v.kind {
            ValueKind::Bool(b) => Some(*b),
            ValueKind::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
            ValueKind::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
            ValueKind::String(s) => {
                self.err("K2009", v.span, format!("`{key}` must be true or false, not \"{s}\""));
                None
            }
            ValueKind::Word(w) => {
                self.bare_word(v, w, key);
                None
            }
            _ => {
                self.err("K2003", v.span, format!("expected `{key}` to be a boolean, found {}", v.kind_name()));
                None
            }
        }
    }

    fn versions(&mut self, v: &Value, key: &str) -> Option<Versions> {
        let t = self.text(v, key)?;
        match Versions::parse(&t) {
            Ok(r) => Some(r),
            Err(e) => {
                let help = if t.contains(' ') {
                    "versions are written `N`, `N+`, `N-M` or `none`, without inner spaces"
                } else {
                    "versions are written `N`, `N+`, `N-M` or `none`"
                };
                self.err("K2004", v.span, format!("{e} in `{key}`")).help = Some(help.into());
                None
            }
        }
    }

    /// A list value, accepting a single value as a one-element list.
    fn list<'a>(&self, v: &'a Value) -> Vec<&'a Value> {
        match &v.kind {
            ValueKind::Array(items) => items.iter().collect(),
            _ => vec![v],
        }
    }

    fn spec(&mut self, file: &str, root: &Value) -> Option<Spec> {
        let obj = self.object(root, "the message", TOP_KEYS)?;
        let name = match obj.get("name") {
            Some(v) => self.text(v, "name"),
            None => {
                self.err("K2001", obj.span.to(Span::new(obj.span.start, obj.span.start + 1)), "the message has no `name`")
                    .help = Some("add `\"name\": \"FooRequest\"`".into());
                None
            }
        };
        let kind = match obj.get("type") {
            Some(v) => {
                let t = self.text(v, "type");
                match t.as_deref() {
                    Some("request") => Some(MessageKind::Request),
                    Some("response") => Some(MessageKind::Response),
                    Some("header") => Some(MessageKind::Header),
                    Some("data") => Some(MessageKind::Data),
                    Some("metadata") => Some(MessageKind::Metadata),
                    Some(other) => {
                        let d = self.err("K2005", v.span, format!("unknown message type `{other}`"));
                        d.help = Some(match suggest(other, &["request", "response", "header", "data", "metadata"]) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "the types are request, response, header, data and metadata".into(),
                        });
                        None
                    }
                    None => None,
                }
            }
            None => {
                self.err("K2001", Span::new(obj.span.start, obj.span.start + 1), "the message has no `type`")
                    .help = Some("add `\"type\": \"request\"` (or response, header, data, metadata)".into());
                None
            }
        };
        let api_key = match obj.get("apiKey") {
            None => ApiKeyValue::Absent,
            Some(v) => match &v.kind {
                ValueKind::Word(w) if w == "TBD" => {
                    self.warn("K2016", v.span, "`apiKey` is TBD: the message is left out of API-key dispatch")
                        .help = Some("assign a key before the KIP is implemented".into());
                    ApiKeyValue::Tbd
                }
                _ => match self.int(v, "apiKey", i16::MIN as i64, i16::MAX as i64) {
                    Some(k) => ApiKeyValue::Assigned(k as i16),
                    None => ApiKeyValue::Absent,
                },
            },
        };
        let valid = match obj.get("validVersions") {
            Some(v) => self.versions(v, "validVersions"),
            None => {
                self.err("K2001", Span::new(obj.span.start, obj.span.start + 1), "the message has no `validVersions`")
                    .help = Some("add `\"validVersions\": \"0\"`".into());
                None
            }
        };
        let flexible = match obj.get("flexibleVersions") {
            Some(v) => self.versions(v, "flexibleVersions"),
            None => {
                self.err("K2001", Span::new(obj.span.start, obj.span.start + 1), "the message has no `flexibleVersions`")
                    .help = Some("add `\"flexibleVersions\": \"none\"` or `\"0+\"`".into());
                None
            }
        };
        let deprecated = obj.get("deprecatedVersions").and_then(|v| self.versions(v, "deprecatedVersions"));
        let mut listeners = Vec::new();
        if let Some(v) = obj.get("listeners") {
            for item in self.list(v) {
                if let Some(t) = self.text(item, "listeners") {
                    if LISTENERS.contains(&t.as_str()) {
                        listeners.push(t);
                    } else {
                        let d = self.err("K2011", item.span, format!("unknown listener `{t}`"));
                        d.help = Some(match suggest(&t, LISTENERS) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "the listeners are zkBroker, broker and controller".into(),
                        });
                    }
                }
            }
        }
        let latest_version_unstable =
            obj.get("latestVersionUnstable").and_then(|v| self.bool(v, "latestVersionUnstable")).unwrap_or(false);
        let header_versions = match obj.get("headerVersions") {
            Some(v) => self.header_versions(v),
            None => Vec::new(),
        };
        let mut structs = Vec::new();
        let top_versions = valid.unwrap_or(Versions::ALL);
        let fields = match obj.get("fields") {
            Some(v) => self.fields(v, &mut structs, top_versions),
            None => Vec::new(),
        };
        if let Some(v) = obj.get("commonStructs") {
            for item in self.list(v) {
                if let Some(s) = self.common_struct(item, &mut structs) {
                    structs.push(s);
                }
            }
        }
        let spec = Spec {
            file: file.to_string(),
            name: name?,
            kind: kind?,
            api_key,
            valid: valid?,
            flexible: flexible?,
            deprecated: deprecated.unwrap_or(Versions::NONE),
            listeners,
            latest_version_unstable,
            header_versions,
            fields,
            structs,
        };
        self.resolve_structs(&spec);
        Some(spec)
    }

    fn header_versions(&mut self, v: &Value) -> Vec<(Versions, i16)> {
        let ValueKind::Object(members) = &v.kind else {
            self.err("K2013", v.span, format!("`headerVersions` must be an object, found {}", v.kind_name()))
                .help = Some("e.g. `\"headerVersions\": { \"0+\": \"2\" }`".into());
            return Vec::new();
        };
        let mut out = Vec::new();
        for m in members {
            let r = match Versions::parse(&m.key) {
                Ok(r) => r,
                Err(e) => {
                    self.err("K2013", m.key_span, format!("{e} in `headerVersions`"));
                    continue;
                }
            };
            if let Some(h) = self.int(&m.value, "headerVersions", 0, 2) {
                out.push((r, h as i16));
            }
        }
        out
    }

    fn fields(&mut self, v: &Value, structs: &mut Vec<Struct>, parent: Versions) -> Vec<Field> {
        self.list(v).into_iter().filter_map(|f| self.field(f, structs, parent)).collect()
    }

    fn common_struct(&mut self, v: &Value, structs: &mut Vec<Struct>) -> Option<Struct> {
        let obj = self.object(v, "a common struct", STRUCT_KEYS)?;
        let name = match obj.get("name") {
            Some(n) => self.text(n, "name"),
            None => {
                self.err("K2001", obj.span, "the common struct has no `name`");
                None
            }
        };
        let versions = match obj.get("versions") {
            Some(n) => self.versions(n, "versions"),
            None => {
                self.err("K2001", obj.span, "the common struct has no `versions`")
                    .help = Some("add `\"versions\": \"0+\"`".into());
                None
            }
        };
        if let Some(d) = obj.get("deprecatedVersions") {
            self.versions(d, "deprecatedVersions");
        }
        let fields = match obj.get("fields") {
            Some(f) => self.fields(f, structs, versions.unwrap_or(Versions::ALL)),
            None => Vec::new(),
        };
        Some(Struct { name: name?, fields, versions: versions?, common: true, span: obj.span })
    }

    fn field(&mut self, v: &Value, structs: &mut Vec<Struct>, parent: Versions) -> Option<Field> {
        let obj = self.object(v, "a field", FIELD_KEYS)?;
        let name = match obj.get("name") {
            Some(n) => self.text(n, "name"),
            None => {
                self.err("K2001", obj.span, "the field has no `name`");
                None
            }
        };
        let label = name.clone().unwrap_or_else(|| "?".into());
        let ty = match obj.get("type") {
            Some(t) => {
                let text = self.text(t, "type");
                text.and_then(|text| match Type::parse(&text) {
                    Ok(ty) => Some(ty),
                    Err(e) => {
                        let base = text.trim().trim_start_matches("[]");
                        let d = self.err("K2007", t.span, format!("field `{label}`: {e}"));
                        if let Some(s) = suggest(base, TYPES) {
                            d.help = Some(format!("did you mean `{}{s}`?", if text.trim().starts_with("[]") { "[]" } else { "" }));
                        } else if base == "boolean" {
                            d.help = Some("did you mean `bool`?".into());
                        }
                        None
                    }
                })
            }
            None => {
                self.err("K2001", obj.span, format!("field `{label}` has no `type`"));
                None
            }
        };
        let tagged = obj.get("taggedVersions").and_then(|t| self.versions(t, "taggedVersions"));
        let versions = match obj.get("versions") {
            Some(x) => match self.text(x, "versions") {
                Some(t) if t.trim().is_empty() => tagged,
                Some(_) => self.versions(x, "versions"),
                None => None,
            },
            None if tagged.is_some() => tagged,
            None => {
                self.err("K2001", obj.key_span("name").unwrap_or(obj.span), format!("field `{label}` has no `versions`"))
                    .help = Some("add `\"versions\": \"0+\"`".into());
                None
            }
        };
        let nullable = obj.get("nullableVersions").and_then(|x| self.versions(x, "nullableVersions")).unwrap_or(Versions::NONE);
        let tag = match obj.get("tag") {
            Some(t) => self.int(t, "tag", i32::MIN as i64, i32::MAX as i64),
            None => None,
        };
        let ignorable = obj.get("ignorable").and_then(|x| self.bool(x, "ignorable")).unwrap_or(false);
        let map_key = obj.get("mapKey").and_then(|x| self.bool(x, "mapKey")).unwrap_or(false);
        let zero_copy = obj.get("zeroCopy").and_then(|x| self.bool(x, "zeroCopy")).unwrap_or(false);
        let entity_type = match obj.get("entityType") {
            Some(e) => match self.text(e, "entityType") {
                Some(t) if ENTITY_TYPES.contains(&t.as_str()) => t,
                Some(t) => {
                    let d = self.err("K2012", e.span, format!("unknown entity type `{t}`"));
                    d.help = Some(match suggest(&t, ENTITY_TYPES) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("the entity types are: {}", ENTITY_TYPES.join(", ")),
                    });
                    "unknown".into()
                }
                None => "unknown".into(),
            },
            None => "unknown".into(),
        };
        let about = obj.get("about").and_then(|x| self.text(x, "about")).unwrap_or_default();
        let flexible_override = obj.get("flexibleVersions").and_then(|x| self.versions(x, "flexibleVersions"));
        let field_versions = versions.unwrap_or(Versions::NONE).intersect(&parent);
        if let (Some(inner), Some(ty)) = (obj.get("fields"), ty.as_ref()) {
            let inner_fields = self.fields(inner, structs, field_versions);
            if let Some(sname) = ty.struct_name() {
                structs.push(Struct {
                    name: sname.to_string(),
                    fields: inner_fields,
                    versions: field_versions,
                    common: false,
                    span: obj.span,
                });
            }
        }
        let ty = ty?;
        let default = match obj.get("default") {
            None => DefaultValue::Implicit,
            Some(d) => {
                let text = self.text(d, "default")?;
                let all_nullable = versions.is_some_and(|v| v.is_subset_of(&nullable));
                match resolve_default(&ty, &text, !nullable.is_empty() && ty.can_be_nullable(), all_nullable) {
                    Ok(dv) => dv,
                    Err((msg, help)) => {
                        let e = self.err("K2010", d.span, format!("invalid default for {ty} field `{label}`: {msg}"));
                        e.help = help;
                        DefaultValue::Implicit
                    }
                }
            }
        };
        Some(Field {
            name: name?,
            ty,
            versions: versions?,
            nullable,
            tag: match (tag, tagged) {
                (Some(t), Some(tv)) if t >= 0 => Some((t as u32, tv)),
                _ => None,
            },
            default,
            ignorable,
            map_key,
            entity_type,
            zero_copy,
            flexible_override,
            about,
            span: obj.span,
        })
    }

    /// Every struct reference must resolve (Kafka silently makes an empty struct; kwire refuses).
    fn resolve_structs(&mut self, spec: &Spec) {
        let check = |fields: &[Field], diags: &mut Vec<Diagnostic>| {
            for f in fields {
                if let Some(n) = f.ty.struct_name() {
                    if spec.find_struct(n).is_none() {
                        let names: Vec<&str> = spec.structs.iter().map(|s| s.name.as_str()).collect();
                        let mut d = Diagnostic::error(
                            "K3001",
                            f.span,
                            format!("field `{}` refers to struct `{n}`, which is defined nowhere in this file", f.name),
                        );
                        d.help = Some(match suggest(n, &names) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => "define it in `commonStructs`, or give the field inline `fields`".into(),
                        });
                        diags.push(d);
                    }
                }
            }
        };
        check(&spec.fields, &mut self.diags);
        for s in &spec.structs {
            check(&s.fields, &mut self.diags);
        }
    }
}

/// Resolves a `default` text against a type (Kafka's rules, kafka-spec-reference.md section 2).
///
/// `optional`: the field is nullable in some version; `all_nullable`: in all its versions.
///
/// # Errors
/// A message and, where a fix is known, a help line.
pub fn resolve_default(
    ty: &Type,
    text: &str,
    optional: bool,
    all_nullable: bool,
) -> Result<DefaultValue, (String, Option<String>)> {
    let null_check = || {
        if all_nullable {
            Ok(DefaultValue::Null)
        } else {
            Err((
                "null cannot be the default because not all versions of this field are nullable".to_string(),
                Some("make `nullableVersions` cover `versions`, or give a non-null default".to_string()),
            ))
        }
    };
    let _ = optional;
    match ty {
        Type::Records => Ok(DefaultValue::Implicit),
        _ if text.is_empty() => Ok(DefaultValue::Implicit),
        Type::Bool => match text.to_ascii_lowercase().as_str() {
            "true" => Ok(DefaultValue::Bool(true)),
            "false" => Ok(DefaultValue::Bool(false)),
            _ => Err((format!("`{text}` is not true or false"), None)),
        },
        Type::Int8 | Type::Int16 | Type::Uint16 | Type::Int32 | Type::Uint32 | Type::Int64 => {
            let (lo, hi): (i128, i128) = match ty {
                Type::Int8 => (i8::MIN as i128, i8::MAX as i128),
                Type::Int16 => (i16::MIN as i128, i16::MAX as i128),
                Type::Uint16 => (0, u16::MAX as i128),
                Type::Int32 => (i32::MIN as i128, i32::MAX as i128),
                Type::Uint32 => (0, u32::MAX as i128),
                _ => (i64::MIN as i128, i64::MAX as i128),
            };
            let parsed = if let Some(hex) = text.strip_prefix("0x") {
                i128::from_str_radix(hex, 16).ok().filter(|_| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            } else {
                let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    text.parse::<i128>().ok()
                } else {
                    None
                }
            };
            match parsed {
                Some(n) if (lo..=hi).contains(&n) => Ok(DefaultValue::Int(n as i64)),
                Some(n) => Err((format!("{n} is out of range for {ty} ({lo}..={hi})"), None)),
                None if text == "null" => Err((format!("{ty} fields cannot be null"), None)),
                None => Err((
                    format!("`{text}` is not a decimal or `0x` hex integer"),
                    (text.starts_with("0X") || text.starts_with("-0x"))
                        .then(|| "hex defaults are written with a lower-case `0x` and no sign".to_string()),
                )),
            }
        }
        Type::Float64 => {
            let t = text.trim_end_matches(['d', 'D', 'f', 'F']);
            match t.parse::<f64>() {
                Ok(f) => Ok(DefaultValue::Float(f)),
                Err(_) => Err((format!("`{text}` is not a number"), None)),
            }
        }
        Type::String => {
            if text == "null" {
                null_check()
            } else {
                Ok(DefaultValue::Str(text.to_string()))
            }
        }
        Type::Uuid => {
            use base64::Engine;
            let t = text.trim_end_matches('=');
            match base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(t) {
                Ok(b) if b.len() == 16 => {
                    let mut a = [0u8; 16];
                    a.copy_from_slice(&b);
                    Ok(DefaultValue::Uuid(a))
                }
                Ok(b) => Err((format!("`{text}` decodes to {} bytes, a uuid has 16", b.len()), None)),
                Err(_) => Err((format!("`{text}` is not URL-safe base64"), Some("a uuid default is 22 characters of URL-safe base64".into()))),
            }
        }
        Type::Bytes | Type::Array(_) | Type::Struct(_) => {
            if text == "null" {
                null_check()
            } else {
                Err((
                    format!("the only defaults of a {} field are \"\" and \"null\"", match ty {
                        Type::Bytes => "bytes",
                        Type::Array(_) => "array",
                        _ => "struct",
                    }),
                    None,
                ))
            }
        }
    }
}
