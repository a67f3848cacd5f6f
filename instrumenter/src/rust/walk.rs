//! Functions and loops: where `#[::regio::traced]` and loop guards go.

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

use super::Offsets;
use crate::diag::Diagnostic;
use crate::edit::Edit;
use crate::frontend::SourceInput;

struct Walker<'a> {
    input: &'a SourceInput<'a>,
    offsets: &'a Offsets,
    edits: &'a mut Vec<Edit>,
    warnings: &'a mut Vec<Diagnostic>,
    /// Inside an `async fn` or block: loops there are left alone.
    in_async: u32,
    /// Inside a const context (const fn, const/static item, array length).
    in_const: u32,
}

pub(crate) fn walk(
    file: &syn::File,
    input: &SourceInput<'_>,
    offsets: &Offsets,
    edits: &mut Vec<Edit>,
    warnings: &mut Vec<Diagnostic>,
) {
    let mut w = Walker {
        input,
        offsets,
        edits,
        warnings,
        in_async: 0,
        in_const: 0,
    };
    w.visit_file(file);
}

/// `#[traced]`, `#[regio::traced(...)]`, `#[skip]`, `#[regio::skip]`.
fn marked(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "traced" || s.ident == "skip")
    })
}

impl Walker<'_> {
    fn offset(&self, span: proc_macro2::Span) -> usize {
        self.offsets.of(self.input.text, span.start())
    }

    fn end_offset(&self, span: proc_macro2::Span) -> usize {
        self.offsets.of(self.input.text, span.end())
    }

    /// Adds the attribute before `first` (the function's first token after
    /// its attributes).
    fn function(
        &mut self,
        attrs: &[syn::Attribute],
        first: proc_macro2::Span,
        sig: &syn::Signature,
    ) {
        if !self.input.selection.functions
            || sig.constness.is_some()
            || marked(attrs)
            || self.in_const > 0
        {
            return;
        }
        let name = sig.ident.to_string();
        if !self.input.filter.allows_region(&name) {
            return;
        }
        let at = self.offset(first);
        self.edits.push(Edit::insert(at, "#[::regio::traced] "));
    }

    fn with_fn<F: FnOnce(&mut Self)>(&mut self, sig: &syn::Signature, f: F) {
        let a = u32::from(sig.asyncness.is_some());
        let c = u32::from(sig.constness.is_some());
        self.in_async += a;
        self.in_const += c;
        f(self);
        self.in_async -= a;
        self.in_const -= c;
    }

    fn a_loop(
        &mut self,
        keyword: &str,
        label: Option<&syn::Label>,
        kw_span: proc_macro2::Span,
        whole: proc_macro2::Span,
    ) {
        if !self.input.selection.loops {
            return;
        }
        let line = kw_span.start().line;
        let name = format!("{keyword}@{line}");
        if !self.input.filter.allows_region(&name) {
            return;
        }
        let why = if self.in_const > 0 {
            Some("it is in a const context")
        } else if self.in_async > 0 {
            Some("it is in async code, where a region open across `.await` would time the waiting")
        } else {
            None
        };
        if let Some(why) = why {
            let col = kw_span.start().column + 1;
            self.warnings.push(Diagnostic::warning(
                self.input.display_path,
                line as u32,
                col as u32,
                format!("loop `{name}` not instrumented: {why}"),
            ));
            return;
        }
        let start = match label {
            Some(l) => self.offset(l.name.span()),
            None => self.offset(kw_span),
        };
        let end = self.end_offset(whole);
        self.edits.push(Edit::insert(
            start,
            format!("{{ let __regio_loop = ::regio::guard!(Loop, \"{name}\"); "),
        ));
        // Inner loops close first: later (shorter) insertions at the same
        // offset come before outer ones.
        self.edits
            .push(Edit::insert(end, " }").with_order(-(start as i64)));
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let first = match &f.vis {
            syn::Visibility::Inherited => f.sig.span(),
            v => v.span(),
        };
        self.function(&f.attrs, first, &f.sig);
        self.with_fn(&f.sig, |w| visit::visit_item_fn(w, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let first = match (&f.vis, &f.defaultness) {
            (syn::Visibility::Inherited, None) => f.sig.span(),
            (syn::Visibility::Inherited, Some(d)) => d.span(),
            (v, _) => v.span(),
        };
        self.function(&f.attrs, first, &f.sig);
        self.with_fn(&f.sig, |w| visit::visit_impl_item_fn(w, f));
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if f.default.is_some() {
            self.function(&f.attrs, f.sig.span(), &f.sig);
        }
        self.with_fn(&f.sig, |w| visit::visit_trait_item_fn(w, f));
    }

    fn visit_item_const(&mut self, i: &'ast syn::ItemConst) {
        self.in_const += 1;
        visit::visit_item_const(self, i);
        self.in_const -= 1;
    }

    fn visit_item_static(&mut self, i: &'ast syn::ItemStatic) {
        self.in_const += 1;
        visit::visit_item_static(self, i);
        self.in_const -= 1;
    }

    fn visit_type_array(&mut self, t: &'ast syn::TypeArray) {
        self.in_const += 1;
        visit::visit_type_array(self, t);
        self.in_const -= 1;
    }

    fn visit_expr_repeat(&mut self, e: &'ast syn::ExprRepeat) {
        self.visit_expr(&e.expr);
        self.in_const += 1;
        self.visit_expr(&e.len);
        self.in_const -= 1;
    }

    fn visit_expr_const(&mut self, e: &'ast syn::ExprConst) {
        self.in_const += 1;
        visit::visit_expr_const(self, e);
        self.in_const -= 1;
    }

    fn visit_expr_async(&mut self, e: &'ast syn::ExprAsync) {
        self.in_async += 1;
        visit::visit_expr_async(self, e);
        self.in_async -= 1;
    }

    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        let a = u32::from(e.asyncness.is_some());
        self.in_async += a;
        visit::visit_expr_closure(self, e);
        self.in_async -= a;
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.a_loop("for", e.label.as_ref(), e.for_token.span, e.span());
        visit::visit_expr_for_loop(self, e);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.a_loop("while", e.label.as_ref(), e.while_token.span, e.span());
        visit::visit_expr_while(self, e);
    }

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        self.a_loop("loop", e.label.as_ref(), e.loop_token.span, e.span());
        visit::visit_expr_loop(self, e);
    }

    fn visit_item_foreign_mod(&mut self, _: &'ast syn::ItemForeignMod) {
        // Declarations only: nothing to measure.
    }
}
