//! Emits borrowed, allocation-free views (`…Ref<'a>`) of each message and struct.

use super::message::Ctx;
use crate::ir::Struct;
use proc_macro2::TokenStream;
use quote::quote;

/// The view of one struct (`top`: the message itself).
pub(crate) fn emit_view(_cx: &Ctx, _st: &Struct, _top: bool) -> TokenStream {
    quote!()
}
