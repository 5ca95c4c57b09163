//! How deep the official checkers recurse (GRADER.md, "Recursion limits"): Python's limits,
//! the depth of a parsed tree as CPython builds it, and the frames an `ast.NodeVisitor`
//! walk needs ([`visitor_frames`]).
//!
//! CPython builds the `ast` objects recursively (one level per node, checked against three
//! times the recursion limit less three times the caller's depth), and the official checks
//! walk them with `ast.NodeVisitor`, which costs two Python frames per node (`visit`, then
//! `generic_visit`) and three where the visitor defines `visit_X` and recurses from it.
//! Operator and context objects (`ast.Add`, `ast.Load`) are nodes to a visitor too.
//! These walks use explicit stacks: a tree deep enough to matter is too deep to recurse on.

use super::ast;
use super::walk::{Node, push_children};

/// Python's default recursion limit.
pub const PY_RECURSION_LIMIT: usize = 1000;

/// The deepest a stack of plain Python calls may be under the default limit before
/// RecursionError (measured on CPython 3.11: a `NodeVisitor` walk that makes the stack
/// 999 frames deep completes, 1000 raises; `tests/grade_recursion.rs` checks it). Calls
/// made through C (a builtin calling back into Python) count as frames too.
pub const PY_FRAME_BUDGET: usize = 999;

/// Whether a node carries operator or context objects (leaf nodes to a visitor).
fn has_leaf_objects(node: Node<'_>) -> bool {
    use ast::Expr as E;
    matches!(
        node,
        Node::Expr(
            E::Name(_)
                | E::Attribute(_)
                | E::Subscript(_)
                | E::Starred(_)
                | E::List(_)
                | E::Tuple(_)
                | E::BinOp(_)
                | E::UnaryOp(_)
                | E::BoolOp(_)
                | E::Compare(_)
        ) | Node::Stmt(ast::Stmt::AugAssign(_))
    )
}

/// [`Suite::depth`](super::Suite::depth) of a module whose body is `stmts`.
pub(super) fn depth_of(stmts: &[ast::Stmt]) -> usize {
    let mut deepest = 1;
    let mut stack: Vec<(Node<'_>, usize)> = stmts.iter().map(|s| (Node::Stmt(s), 2)).collect();
    let mut scratch = Vec::new();
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        push_children(node, &mut scratch);
        stack.extend(scratch.drain(..).map(|c| (c, depth + 1)));
    }
    deepest
}

/// The Python frames a recursive `ast.NodeVisitor` needs to walk everything under `roots`
/// (frames on the stack at the deepest point, counted from the first `visit`), where
/// `cost(node)` is 2 for a node the visitor handles generically and 3 for one it handles
/// in a `visit_X` method that calls `generic_visit`. `start` is added for the nodes
/// above the roots (2 for a `Module` the roots are the body of).
pub fn visitor_frames<'a>(
    roots: impl IntoIterator<Item = Node<'a>>,
    start: usize,
    cost: impl Fn(Node<'a>) -> usize,
) -> usize {
    let mut deepest = start;
    let mut stack: Vec<(Node<'a>, usize)> = roots.into_iter().map(|r| (r, start)).collect();
    let mut scratch = Vec::new();
    while let Some((node, above)) = stack.pop() {
        let here = above + cost(node);
        // An operator or context object below this node: visit + generic_visit.
        let leaf = if has_leaf_objects(node) { 2 } else { 0 };
        deepest = deepest.max(here + leaf);
        push_children(node, &mut scratch);
        stack.extend(scratch.drain(..).map(|c| (c, here)));
    }
    deepest
}

/// Frame cost of a node to the official checkers' visitors: `visit_Call` recurses from
/// its own method, every other node goes through `generic_visit` alone.
pub fn official_visitor_cost(node: Node<'_>) -> usize {
    match node {
        Node::Expr(ast::Expr::Call(_)) => 3,
        _ => 2,
    }
}
