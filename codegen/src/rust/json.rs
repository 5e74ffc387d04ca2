//! Emits Kafka's JSON form of each message and struct (kafka-spec-reference.md section 6).

use super::message::Ctx;
use crate::ir::Struct;
use proc_macro2::TokenStream;
use quote::quote;

/// The JSON impls of one struct (`top`: the message itself).
pub(crate) fn emit_json(_cx: &Ctx, _st: &Struct, _top: bool) -> TokenStream {
    quote!()
}
