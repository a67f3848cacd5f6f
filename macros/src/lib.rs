//! Procedural macros of Regio, re-exported by the `regio` crate:
//!
//! * `#[regio::traced]` measures a function, method or `async fn` as a
//!   region (options: `name = "..."`, `skip`);
//! * `#[regio::skip]` marks an item `instrument` must leave alone.
//!
//! Expansion keeps the user's body as opaque tokens: only the signature is
//! parsed, and a region guard is put in front of the body (an `async fn`'s
//! body is wrapped in `regio::Instrumented`). So `return`, `?` and
//! unwinding panics leave the region through the guard's `Drop`, and a body
//! with syntax errors reaches rustc unchanged, which reports the user's own
//! error. Items we cannot measure (`const fn`, bodiless trait methods,
//! non-functions) get a compile error pointing at the item.

use proc_macro::TokenStream;

mod args;
mod expand;
mod item;

/// Measures the function as a Regio region. See the `regio` crate docs.
#[proc_macro_attribute]
pub fn traced(attr: TokenStream, item: TokenStream) -> TokenStream {
    if cfg!(feature = "off") {
        return item;
    }
    let args = match syn::parse::<args::TracedArgs>(attr) {
        Ok(a) => a,
        Err(e) => return with_error(item, e),
    };
    if args.skip {
        return item;
    }
    match item::parse(item.clone().into()) {
        item::Parsed::Function(f) => expand::traced(f, &args).into(),
        item::Parsed::Unsupported(e) => with_error(item, e),
        item::Parsed::Unparsable => item,
    }
}

/// Leaves the item as it is; `instrument` does not add regions to it.
#[proc_macro_attribute]
pub fn skip(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let e = syn::Error::new(
            proc_macro2::TokenStream::from(attr)
                .into_iter()
                .next()
                .map_or_else(proc_macro2::Span::call_site, |t| t.span()),
            "`#[regio::skip]` takes no arguments",
        );
        return with_error(item, e);
    }
    item
}

/// The item unchanged plus the error, so only our error is reported and not
/// a cascade of "cannot find function" errors from code that uses the item.
fn with_error(item: TokenStream, e: syn::Error) -> TokenStream {
    let mut out: TokenStream = e.to_compile_error().into();
    out.extend(item);
    out
}
