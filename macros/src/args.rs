//! `#[traced(name = "solve")]`, `#[traced(skip)]`.

use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

#[derive(Default)]
pub struct TracedArgs {
    pub name: Option<LitStr>,
    pub skip: bool,
}

impl Parse for TracedArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut args = TracedArgs::default();
        while !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            if key == "name" {
                input.parse::<Token![=]>()?;
                if args.name.is_some() {
                    return Err(syn::Error::new(key.span(), "`name` given twice"));
                }
                args.name = Some(input.parse()?);
            } else if key == "skip" {
                args.skip = true;
            } else {
                return Err(syn::Error::new(
                    key.span(),
                    format!("unknown option `{key}`: `#[regio::traced]` takes `name = \"...\"` and `skip`"),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    }
}
