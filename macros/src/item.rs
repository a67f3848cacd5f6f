//! What `#[traced]` was put on: a function with a body (parsed down to its
//! signature only), something we refuse with a clear error, or tokens that
//! do not parse at all (left for rustc to report).

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Signature, Visibility};

/// A function whose body is kept as opaque tokens.
pub struct Function {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    /// `default` of specialising impls, kept verbatim.
    pub defaultness: Option<syn::token::Default>,
    pub sig: Signature,
    pub body: Group,
}

impl Parse for Function {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let defaultness = input.parse()?;
        let sig: Signature = input.parse()?;
        let body: Group = input.parse()?;
        if body.delimiter() != Delimiter::Brace {
            return Err(syn::Error::new(body.span(), "expected a function body"));
        }
        Ok(Function {
            attrs,
            vis,
            defaultness,
            sig,
            body,
        })
    }
}

pub enum Parsed {
    Function(Box<Function>),
    Unsupported(syn::Error),
    Unparsable,
}

pub fn parse(tokens: TokenStream) -> Parsed {
    if let Ok(f) = syn::parse2::<Function>(tokens.clone()) {
        if let Some(c) = &f.sig.constness {
            return Parsed::Unsupported(syn::Error::new(
                c.span(),
                "`#[regio::traced]` cannot measure a `const fn`: it may run at compile time, \
                 where there is no clock; remove `const` or the attribute",
            ));
        }
        return Parsed::Function(Box::new(f));
    }
    if let Ok(f) = syn::parse2::<syn::TraitItemFn>(tokens.clone()) {
        if f.default.is_none() {
            return Parsed::Unsupported(syn::Error::new(
                f.sig.ident.span(),
                "`#[regio::traced]` needs a function body: put it on the implementations of \
                 this trait method, or give the method a default body",
            ));
        }
    }
    if let Ok(item) = syn::parse2::<syn::Item>(tokens.clone()) {
        if let Some(what) = describe(&item) {
            return Parsed::Unsupported(syn::Error::new(
                item_span(&item, &tokens),
                format!("`#[regio::traced]` applies to functions and methods, not to {what}"),
            ));
        }
    }
    Parsed::Unparsable
}

/// "a struct", "an impl block", ...; None for functions (which only fail
/// to parse above when their body has a syntax error).
fn describe(item: &syn::Item) -> Option<&'static str> {
    Some(match item {
        syn::Item::Fn(_) => return None,
        syn::Item::Const(_) => "a const item",
        syn::Item::Static(_) => "a static",
        syn::Item::Struct(_) => "a struct",
        syn::Item::Enum(_) => "an enum",
        syn::Item::Union(_) => "a union",
        syn::Item::Trait(_) => "a trait (put it on the methods)",
        syn::Item::Impl(_) => "an impl block (put it on the methods)",
        syn::Item::Mod(_) => "a module",
        syn::Item::Type(_) => "a type alias",
        syn::Item::Use(_) => "a use declaration",
        syn::Item::ExternCrate(_) => "an extern crate",
        syn::Item::ForeignMod(_) => "an extern block",
        syn::Item::Macro(_) => "a macro",
        _ => "this item",
    })
}

/// Points at the item's keyword rather than its attributes.
fn item_span(item: &syn::Item, tokens: &TokenStream) -> proc_macro2::Span {
    let skip_attrs = tokens.clone().into_iter().skip_while(|t| match t {
        TokenTree::Punct(p) => p.as_char() == '#',
        TokenTree::Group(g) => g.delimiter() == Delimiter::Bracket,
        _ => false,
    });
    for t in skip_attrs {
        if let TokenTree::Ident(i) = &t {
            if i != "pub" {
                return i.span();
            }
        }
    }
    item.span()
}
