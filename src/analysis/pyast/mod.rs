//! The one place that knows the Python parser (rustpython-parser 0.4): parsing,
//! positions, and a complete walk over every node in CPython's `ast.walk` order.
//! Other analysis modules use the AST types re-exported here, so swapping the
//! parser means changing this module and the type paths only.
//!
//! Its parts, each depending only on those listed after it:
//! - `parse`: [`parse_suite`], the source parsed as CPython 3.11 parses it (tokenizer
//!   refusals, 3.12-only syntax and trees too deep to build fail too), and the
//!   [`ParseFailure`] it reports;
//! - `recursion`: how deep the official checkers recurse ([`PY_FRAME_BUDGET`],
//!   [`visitor_frames`]), and the depth of a parsed tree;
//! - `walk`: [`Node`] and the walk over every node ([`children`], [`walk_bfs`],
//!   [`walk_suite`]), and names of attribute chains ([`dotted_name`], [`chain_root`]);
//! - `suite`: [`Suite`], a parsed module, dropped without recursion when its tree is deep;
//! - `tokens`: [`scan_tokens`], what CPython's tokenizer objects to;
//! - `positions`: byte offsets of nodes and their lines and columns ([`LineIndex`]).

mod parse;
mod positions;
mod recursion;
mod suite;
mod tokens;
mod walk;

pub use parse::{AST_DEPTH_CEILING, ParseFailure, RECURSION_IN_AST_CONSTRUCTION, parse_suite};
pub use positions::{LineIndex, end_of, start_of};
pub use recursion::{PY_FRAME_BUDGET, PY_RECURSION_LIMIT, official_visitor_cost, visitor_frames};
pub use rustpython_parser::ast;
pub use suite::Suite;
pub use tokens::{MAX_BRACKET_NESTING, TokenizerScan, scan_tokens};
pub use walk::{Node, chain_root, children, dotted_name, push_children, walk_bfs, walk_suite};

// The walk checked on parsed code: its tests live here, `walk` coming before `parse`.
#[cfg(test)]
mod tests {
    use super::*;

    fn call_names(src: &str) -> Vec<String> {
        let suite = parse_suite(src).expect("parses");
        walk_suite(&suite)
            .into_iter()
            .filter_map(|n| match n {
                Node::Expr(ast::Expr::Call(c)) => dotted_name(&c.func),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn walk_reaches_calls_in_every_nested_position() {
        let src = r#"
@deco(a0())
def f(x=a1(), *, y=a2()) -> a3():
    g(key=a4())
    [a5() for i in a6() if a7()]
    {k: a8() for k in z}
    with a9() as w, a10():
        pass
    match x:
        case [1, 2] if a11():
            a12()
        case {"k": v}:
            a13()
    lam = lambda q=a14(): a15()
    class C(a16(), metaclass=a17()):
        pass
    try:
        pass
    except a18() as e:
        a19()
    s = f"{a20()}"
    t: a21() = a22()
    del d[a23()]
    assert a24(), a25()
    raise a26() from a27()
    try:
        a28()
    except* a29() as g:
        a30()
    else:
        a31()
    finally:
        a32()
    try:
        a33()
    except E:
        pass
    else:
        a34()
    finally:
        a35()
"#;
        let names = call_names(src);
        for i in 0..=35 {
            let want = format!("a{i}");
            assert!(names.contains(&want), "missing {want} in {names:?}");
        }
    }

    #[test]
    fn bfs_order_matches_ast_walk() {
        // ast.walk order: the module-level def `b` comes before the nested `a`.
        let src = "def outer():\n    def a():\n        pass\ndef b():\n    pass\n";
        let suite = parse_suite(src).expect("parses");
        let defs: Vec<&str> = walk_suite(&suite)
            .into_iter()
            .filter_map(|n| match n {
                Node::Stmt(ast::Stmt::FunctionDef(f)) => Some(f.name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(defs, vec!["outer", "b", "a"]);
    }
}
