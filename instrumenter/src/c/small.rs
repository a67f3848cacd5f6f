//! The shape of a C function body for the small-function rule
//! (`crate::small_functions`, which decides).

use std::collections::HashSet;

use tree_sitter::Node;

use super::calls::control_macro;
use super::syntax::{is_loop, preorder, text, KindName};
use crate::small_functions::Shape;

/// What `body` (a function definition's compound statement) holds. `name`
/// is the function's own name, for direct recursion; `macros` the
/// function-like macros known, for those that expand to a loop or switch.
pub(super) fn shape(name: &str, body: Node<'_>, src: &str, macros: &HashSet<String>) -> Shape {
    let mut s = Shape {
        program: name == "main",
        // `#pragma omp`/`#pragma regio` lines (also those a second reading
        // hid from the parser) and `_Pragma`: a text test, conservative.
        directives: text(body, src).contains("pragma"),
        ..Shape::default()
    };
    preorder(body, |n, ancestors| {
        let kind = n.kind_name();
        if n.is_error() || n.is_missing() || kind == "function_definition" {
            // Not read as written: assume the worst.
            s.loops = true;
            return false;
        }
        if is_loop(kind) {
            s.loops = true;
        }
        match kind {
            "goto_statement" | "labeled_statement" => s.jumps = true,
            // A bare block may be the body of a macro that loops
            // (`FOREACH(x) { ... }`).
            "compound_statement"
                if ancestors
                    .last()
                    .is_some_and(|p| p.kind_name() == "compound_statement") =>
            {
                s.loops = true
            }
            "compound_statement" => {}
            "declaration" => s.statements += 1,
            k if k.ends_with("_statement") => s.statements += 1,
            "call_expression" => {
                if let Some(f) = n
                    .child_by_field_name("function")
                    .filter(|f| f.kind_name() == "identifier")
                {
                    let callee = text(f, src);
                    if callee == name {
                        s.recursive = true;
                    }
                    if callee.starts_with("MPI_")
                        || (callee.starts_with("omp_") && callee.contains("lock"))
                    {
                        s.directives = true;
                    }
                    if control_macro(macros, callee).is_some() {
                        s.loops = true;
                    }
                }
            }
            _ => {}
        }
        true
    });
    s
}
