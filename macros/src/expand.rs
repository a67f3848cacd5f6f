//! The code `#[traced]` puts around a function body.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};

use crate::args::TracedArgs;
use crate::item::Function;

pub fn traced(f: Box<Function>, args: &TracedArgs) -> TokenStream {
    let Function {
        attrs,
        vis,
        defaultness,
        sig,
        body,
    } = *f;
    let name = args
        .name
        .as_ref()
        .map_or_else(|| sig.ident.to_string(), |n| n.value());
    let kind = if sig.ident == "main" && sig.inputs.is_empty() && sig.asyncness.is_none() {
        quote!(Program)
    } else {
        quote!(Function)
    };
    let (line, column) = position(sig.ident.span());
    // `mixed_site`: the static and the guard are invisible to the body, so
    // they cannot clash with the user's names.
    let region = syn::Ident::new("__REGIO_REGION", Span::mixed_site());
    let guard = syn::Ident::new("__regio_guard", Span::mixed_site());
    let descriptor = quote! {
        static #region: ::regio::Region = ::regio::Region::new(
            #name,
            ::regio::Kind::#kind,
            ::core::file!(),
            #line,
            #column,
            ::core::module_path!(),
        );
    };
    let (inner_attrs, rest) = split_inner_attrs(body.stream());
    let new_body = if sig.asyncness.is_some() {
        let hint = return_type_hint(&sig.output);
        quote! {
            #(#inner_attrs)*
            #descriptor
            ::regio::Instrumented::new(&#region, async move { #hint #rest }).await
        }
    } else {
        quote! {
            #(#inner_attrs)*
            #descriptor
            let #guard = ::regio::Guard::region(&#region);
            #rest
        }
    };
    let body_span = body.span();
    quote_spanned! {body_span=>
        #(#attrs)* #vis #defaultness #sig { #new_body }
    }
}

/// Line and column of the function's name, so the report points at the
/// function rather than at the attribute.
fn position(span: Span) -> (u32, u32) {
    let s = span.unwrap();
    (s.line() as u32, s.column() as u32)
}

/// Leading `#![...]` attributes must stay first in the body.
fn split_inner_attrs(body: TokenStream) -> (Vec<TokenStream>, TokenStream) {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut attrs = Vec::new();
    let mut i = 0;
    loop {
        match (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2)) {
            (Some(TokenTree::Punct(h)), Some(TokenTree::Punct(b)), Some(TokenTree::Group(g)))
                if h.as_char() == '#'
                    && b.as_char() == '!'
                    && g.delimiter() == Delimiter::Bracket =>
            {
                attrs.push(tokens[i..i + 3].iter().cloned().collect());
                i += 3;
            }
            _ => break,
        }
    }
    (attrs, tokens[i..].iter().cloned().collect())
}

/// `?` inside the wrapped `async move` block needs the block's output type
/// to pick an error conversion; a `return` of the declared type (never
/// executed) fixes it. Types with `impl` cannot be written in a `let`, and
/// `()` needs no help.
fn return_type_hint(output: &syn::ReturnType) -> TokenStream {
    let syn::ReturnType::Type(_, ty) = output else {
        return TokenStream::new();
    };
    if mentions_impl(quote!(#ty)) {
        return TokenStream::new();
    }
    let never = syn::Ident::new("__regio_never", Span::mixed_site());
    quote! {
        #[allow(unreachable_code, clippy::diverging_sub_expression, clippy::empty_loop, clippy::needless_return)]
        let () = if false {
            let #never: #ty = loop {};
            return #never;
        };
    }
}

fn mentions_impl(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "impl",
        TokenTree::Group(g) => mentions_impl(g.stream()),
        _ => false,
    })
}
