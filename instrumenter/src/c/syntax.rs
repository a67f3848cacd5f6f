//! Small queries over tree-sitter-c nodes that several passes share.

use tree_sitter::{Node, TreeCursor};

use regio_idf::Pos;

/// `node.kind_name()` from a table: tree-sitter's `kind` finds the symbol's C
/// string, measures it and checks it as UTF-8 on every call (about 170
/// instructions, 7 % of instrumenting a small file), while the walks that
/// visit every node only want to compare it. The table holds the same
/// names (`Language::node_kind_for_id`, aliases included, as `kind`
/// gives them), indexed by `kind_id`.
pub(crate) trait KindName {
    fn kind_name(&self) -> &'static str;
}

impl KindName for Node<'_> {
    fn kind_name(&self) -> &'static str {
        kind(*self)
    }
}

fn kind(node: Node<'_>) -> &'static str {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_c::LANGUAGE.into();
        (0..language.node_kind_count() as u16)
            .map(|id| language.node_kind_for_id(id).unwrap_or(""))
            .collect()
    });
    match names.get(usize::from(node.kind_id())) {
        Some(name) if !name.is_empty() => name,
        _ => node.kind(),
    }
}

/// Sorted byte offsets of what a walk looks for (a word, a brace), found
/// by a text scan first: a walk that needs a node holding one of them
/// enters only nodes that do, instead of the whole tree.
pub(crate) struct Marks(Vec<usize>);

impl Marks {
    /// `offsets` in increasing order.
    pub(crate) fn new(offsets: impl Iterator<Item = usize>) -> Self {
        Marks(offsets.collect())
    }

    /// Whether a mark lies in the node's text.
    pub(crate) fn within(&self, n: Node<'_>) -> bool {
        let first = self.0.partition_point(|&k| k < n.start_byte());
        self.0.get(first).is_some_and(|&k| k < n.end_byte())
    }
}

pub(crate) fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    &src[node.byte_range()]
}

/// Text with every run of whitespace collapsed to one blank, so names taken
/// from code (callees) fit on one line.
pub(crate) fn squashed(node: Node<'_>, src: &str) -> String {
    text(node, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Line starts of a text, so offsets turn into positions in O(log n)
/// (`diag::line_col` scans from the start, which is quadratic over a file).
pub(crate) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(src: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { starts }
    }

    /// 1-based line and byte column, as `diag::line_col` gives them.
    pub(crate) fn pos(&self, offset: usize) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let col = offset - self.starts[line - 1] + 1;
        Pos::new(line as u32, col as u32)
    }

    /// 0-based row and byte column, as tree-sitter's edits take them.
    pub(crate) fn point(&self, offset: usize) -> tree_sitter::Point {
        let row = self.starts.partition_point(|&s| s <= offset).max(1) - 1;
        tree_sitter::Point {
            row,
            column: offset - self.starts[row],
        }
    }

    pub(crate) fn start(&self, node: Node<'_>) -> Pos {
        self.pos(node.start_byte())
    }

    /// Position of the last byte of a node (IDF ends are inclusive).
    pub(crate) fn last(&self, node: Node<'_>) -> Pos {
        self.pos(node.end_byte().saturating_sub(1).max(node.start_byte()))
    }
}

pub(crate) fn is_loop(kind: &str) -> bool {
    matches!(kind, "for_statement" | "while_statement" | "do_statement")
}

/// Pre-order walk without recursion (generated or machine-written C can
/// nest expressions thousands deep). `visit` gets each node with its
/// ancestors below `root` (outermost first) and returns whether to
/// descend. Ancestors come from the cursor, not `Node::parent`, which
/// searches down from the root each time and makes big files quadratic.
pub(crate) fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool) {
    let mut cursor: TreeCursor<'t> = root.walk();
    let mut path: Vec<Node<'t>> = Vec::new();
    let mut descend = visit(root, &path);
    loop {
        let here = cursor.node();
        if descend && cursor.goto_first_child() {
            path.push(here);
            descend = visit(cursor.node(), &path);
            continue;
        }
        loop {
            if path.is_empty() {
                return;
            }
            if cursor.goto_next_sibling() {
                descend = visit(cursor.node(), &path);
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            path.pop();
        }
    }
}

/// The outermost function definition among `ancestors` (outermost first):
/// the real one when the parser misread a block inside it as a nested
/// definition.
pub(crate) fn outermost_function<'t>(ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    ancestors
        .iter()
        .find(|a| a.kind_name() == "function_definition")
        .copied()
}

/// The innermost function definition among `ancestors` (outermost first).
pub(crate) fn innermost_function<'t>(ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    ancestors
        .iter()
        .rev()
        .find(|a| a.kind_name() == "function_definition")
        .copied()
}

/// Follows a declarator down to the identifier it declares (through
/// pointers, parentheses, attributes, arrays and function declarators).
fn declared_identifier<'t>(mut decl: Node<'t>) -> Option<Node<'t>> {
    loop {
        match decl.kind_name() {
            "identifier" | "field_identifier" | "type_identifier" => return Some(decl),
            "pointer_declarator"
            | "function_declarator"
            | "array_declarator"
            | "init_declarator" => decl = decl.child_by_field_name("declarator")?,
            "parenthesized_declarator" | "attributed_declarator" => decl = decl.named_child(0)?,
            _ => return None,
        }
    }
}

/// Name of the function a definition defines; the declarator text when
/// the declarator is something tree-sitter cannot take apart.
pub(crate) fn function_name(def: Node<'_>, src: &str) -> String {
    match def.child_by_field_name("declarator") {
        Some(decl) => match declared_identifier(decl) {
            Some(id) => text(id, src).to_string(),
            None => squashed(decl, src),
        },
        None => String::from("<anonymous>"),
    }
}

/// Whether a definition's return type is exactly `void` (not a pointer, not
/// a function pointer), so `return f();` there discards f's value.
pub(crate) fn returns_void(def: Node<'_>, src: &str) -> bool {
    let is_void = def
        .child_by_field_name("type")
        .is_some_and(|t| t.kind_name() == "primitive_type" && text(t, src) == "void");
    if !is_void {
        return false;
    }
    let mut decl = def.child_by_field_name("declarator");
    while let Some(d) = decl {
        match d.kind_name() {
            "function_declarator" => {
                // `void (*f(void))(int)` nests a function declarator inside.
                return d
                    .child_by_field_name("declarator")
                    .is_some_and(|inner| inner.kind_name() == "identifier");
            }
            "parenthesized_declarator" | "attributed_declarator" => decl = d.named_child(0),
            _ => return false,
        }
    }
    false
}

/// The loop variable when it is plain to see: `for (i = 0; ...)`,
/// `for (int i = 0; ...)`, or else the variable the update steps.
pub(crate) fn loop_variable(for_stmt: Node<'_>, src: &str) -> Option<String> {
    let from_init = for_stmt
        .child_by_field_name("initializer")
        .and_then(|init| match init.kind_name() {
            "declaration" => {
                let mut c = init.walk();
                let decls: Vec<Node> = init.children_by_field_name("declarator", &mut c).collect();
                match decls.as_slice() {
                    [one] => declared_identifier(*one),
                    _ => None,
                }
            }
            "assignment_expression" => init
                .child_by_field_name("left")
                .filter(|l| l.kind_name() == "identifier"),
            _ => None,
        });
    let from_update = || {
        for_stmt
            .child_by_field_name("update")
            .and_then(|u| match u.kind_name() {
                "update_expression" => u.child_by_field_name("argument"),
                "assignment_expression" => u.child_by_field_name("left"),
                _ => None,
            })
            .filter(|v| v.kind_name() == "identifier")
    };
    from_init
        .or_else(from_update)
        .map(|n| text(n, src).to_string())
}

/// The `kind` a loop statement has in the IDF `aux.loop` and its name.
pub(crate) fn loop_keyword(kind: &str) -> &'static str {
    match kind {
        "for_statement" => "for",
        "while_statement" => "while",
        _ => "do",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::line_col;

    #[test]
    fn the_kind_table_names_every_node_as_tree_sitter_does() {
        // Aliased nodes (`field_identifier`, `statement_identifier`, ...),
        // ERROR and MISSING nodes and anonymous tokens included.
        let src = "struct s { int f; };\n#define M(x) x\nint g(int n) {\n\
                   lbl: for (;;) { if (n) goto lbl; M(n) { } }\n\
                   switch (n) { case 1: break; }\n return (struct s){ .f = n }.f + sizeof(int) +\n}\n";
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .expect("tree-sitter-c");
        let tree = parser.parse(src, None).expect("parse");
        assert!(tree.root_node().has_error(), "the text must hold an error");
        let mut seen = 0;
        preorder(tree.root_node(), |n, _| {
            assert_eq!(n.kind_name(), n.kind(), "node at {}", n.start_byte());
            seen += 1;
            true
        });
        assert!(seen > 100, "only {seen} nodes");
    }

    #[test]
    fn lines_agree_with_line_col() {
        let src = "ab\n\ncd\r\nx";
        let lines = Lines::new(src);
        for off in 0..=src.len() {
            let (l, c) = line_col(src, off);
            assert_eq!(lines.pos(off), Pos::new(l, c), "offset {off}");
        }
    }
}
