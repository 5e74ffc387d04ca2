//! Emits what Kafka's `CoordinatorRecordTypeGenerator` gives Java for a folder with coordinator
//! records: the `CoordinatorRecordType` enum (one variant per key/value pair, numbered by the
//! record type), and a `RECORD_TYPE` constant on every key and value struct.

use super::tokens::{doc_lines, W};
use crate::ir::{MessageKind, Spec};
use crate::names;
use crate::records::{self, RecordPair};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The name of the module that holds the enum (one per spec set, beside `api`).
pub(crate) const MODULE: &str = "coordinator_record_type";

/// `impl X { pub const RECORD_TYPE: i16 = N; }` for a `coordinator-key` or `coordinator-value`
/// with an assigned `apiKey`; nothing for other specs.
pub(crate) fn record_type_const(spec: &Spec) -> TokenStream {
    let Some(id) = spec
        .api_key
        .assigned()
        .filter(|_| spec.kind.is_coordinator_record())
    else {
        return TokenStream::new();
    };
    let ty = names::type_ident(&spec.name);
    let lit = Literal::i16_unsuffixed(id);
    let (what, other, record) = match spec.kind {
        MessageKind::CoordinatorKey => ("key", "value", records::stem(&spec.name)),
        _ => (
            "value",
            "key",
            spec.name.strip_suffix("Value").unwrap_or(&spec.name),
        ),
    };
    let doc = doc_lines(&format!(
        "The record type of this coordinator record {what} (the spec's `apiKey`, shared with its {other}): `CoordinatorRecordType::{record}`."
    ));
    quote!(
        impl #ty {
            #(#doc)*
            pub const RECORD_TYPE: i16 = #lit;
        }
    )
}

/// The `CoordinatorRecordType` enum of `pairs` (sorted by record type): `ALL`, `id`,
/// `from_id`, the record's name and its key's and value's, the value's versions, `Display` and
/// `TryFrom<i16>`.
pub(crate) fn emit(pairs: &[RecordPair]) -> TokenStream {
    let w = W();
    let variants: Vec<_> = pairs.iter().map(|p| names::type_ident(p.name())).collect();
    let ids: Vec<_> = pairs
        .iter()
        .map(|p| Literal::i16_unsuffixed(p.id))
        .collect();
    let names: Vec<&str> = pairs.iter().map(|p| p.name()).collect();
    let keys: Vec<&str> = pairs.iter().map(|p| p.key.name.as_str()).collect();
    let values: Vec<&str> = pairs.iter().map(|p| p.value.name.as_str()).collect();
    let docs: Vec<String> = pairs
        .iter()
        .map(|p| {
            format!(
                " `{}` and `{}`: record type {}, value versions {}.",
                p.key.name, p.value.name, p.id, p.value.valid
            )
        })
        .collect();
    let (lows, highs): (Vec<_>, Vec<_>) = pairs
        .iter()
        .map(|p| {
            (
                Literal::i16_suffixed(p.value.valid.lowest),
                Literal::i16_suffixed(p.value.valid.highest),
            )
        })
        .unzip();
    let n = Literal::usize_unsuffixed(pairs.len());
    quote!(
        /// The coordinator record types of this spec set, as Kafka's generated
        /// `CoordinatorRecordType`: one per `coordinator-key` and `coordinator-value` pair,
        /// numbered by their `apiKey` (the record type), in that order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i16)]
        pub enum CoordinatorRecordType {
            #( #[doc = #docs] #variants = #ids, )*
        }

        impl CoordinatorRecordType {
            /// Every record type, by number.
            pub const ALL: [CoordinatorRecordType; #n] = [#(CoordinatorRecordType::#variants),*];

            /// The record type's number (the `apiKey` of its key and value specs).
            pub const fn id(self) -> i16 {
                self as i16
            }
            /// The record type numbered `id`, if this spec set has it.
            pub const fn from_id(id: i16) -> ::core::option::Option<CoordinatorRecordType> {
                match id {
                    #( #ids => ::core::option::Option::Some(CoordinatorRecordType::#variants), )*
                    _ => ::core::option::Option::None,
                }
            }
            /// The record's name: its key's without `Key` (e.g. `"OffsetCommit"`).
            pub const fn name(self) -> &'static str {
                match self { #( CoordinatorRecordType::#variants => #names, )* }
            }
            /// The key spec's name (e.g. `"OffsetCommitKey"`).
            pub const fn key_name(self) -> &'static str {
                match self { #( CoordinatorRecordType::#variants => #keys, )* }
            }
            /// The value spec's name (e.g. `"OffsetCommitValue"`).
            pub const fn value_name(self) -> &'static str {
                match self { #( CoordinatorRecordType::#variants => #values, )* }
            }
            /// The value's `validVersions` (Kafka's `lowestSupportedVersion()` to
            /// `highestSupportedVersion()`); the key has version 0 only.
            pub const fn value_versions(self) -> #w::VersionRange {
                match self { #( CoordinatorRecordType::#variants => #w::VersionRange::new(#lows, #highs), )* }
            }
        }

        impl ::core::fmt::Display for CoordinatorRecordType {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::core::convert::TryFrom<i16> for CoordinatorRecordType {
            type Error = i16;
            /// The record type numbered `id`; the number itself when this spec set has none.
            fn try_from(id: i16) -> ::core::result::Result<CoordinatorRecordType, i16> {
                CoordinatorRecordType::from_id(id).ok_or(id)
            }
        }
    )
}
