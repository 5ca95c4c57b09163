//! Conditions whose outcome the kinds decide: `hasattr` and `isinstance` of a value that is
//! surely a ZWCArray, combined with `not`, `and`, `or`. The walk skips what cannot run.

use super::dep_graph::ValueKind;
use super::kinds::{Env, ZWC_ATTRIBUTES};
use crate::analysis::pyast::{self, ast};

/// Whether condition `test` is known to hold (`Some(true)`) or not, from the kinds of the
/// names it tests: `hasattr` of a name that is surely a ZWCArray is true only for the
/// attributes a ZWCArray has (so the `else` of `hasattr(r, "tolist")` runs for certain),
/// and `isinstance` of one is true for `zwc.ZWCArray` and false for builtin types; `not`,
/// `and` and `or` combine them. `None` when the kinds do not tell.
pub(super) fn condition_truth(test: &ast::Expr, env: &Env) -> Option<bool> {
    let surely_zwc = |e: &ast::Expr| match e {
        ast::Expr::Name(n) => env
            .get(n.id.as_str())
            .is_some_and(|v| v.sure && v.kind == ValueKind::ZwcArray),
        _ => false,
    };
    match test {
        ast::Expr::UnaryOp(u) if matches!(u.op, ast::UnaryOp::Not) => {
            condition_truth(&u.operand, env).map(|t| !t)
        }
        ast::Expr::BoolOp(b) => {
            let decisive = matches!(b.op, ast::BoolOp::Or);
            let mut all_known = true;
            for v in &b.values {
                match condition_truth(v, env) {
                    Some(t) if t == decisive => return Some(decisive),
                    Some(_) => {}
                    None => all_known = false,
                }
            }
            all_known.then_some(!decisive)
        }
        ast::Expr::Call(c) if c.keywords.is_empty() && c.args.len() == 2 => {
            let callee = pyast::dotted_name(&c.func)?;
            if !surely_zwc(&c.args[0]) {
                return None;
            }
            match callee.as_str() {
                "hasattr" => match &c.args[1] {
                    ast::Expr::Constant(k) => match &k.value {
                        ast::Constant::Str(s) if !s.starts_with("__") => {
                            Some(ZWC_ATTRIBUTES.contains(&s.as_str()) || s.as_str() == "_data")
                        }
                        _ => None,
                    },
                    _ => None,
                },
                "isinstance" => isinstance_of_zwc(&c.args[1]),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `isinstance(a, types)` for a ZWCArray `a`: true for `zwc.ZWCArray`, false for builtin
/// types (a ZWCArray is none of them), unknown for anything else.
fn isinstance_of_zwc(types: &ast::Expr) -> Option<bool> {
    const BUILTIN_TYPES: &[&str] = &[
        "list",
        "tuple",
        "int",
        "float",
        "complex",
        "str",
        "dict",
        "set",
        "frozenset",
        "bool",
        "bytes",
    ];
    match types {
        ast::Expr::Tuple(t) => {
            let mut all_false = true;
            for e in &t.elts {
                match isinstance_of_zwc(e) {
                    Some(true) => return Some(true),
                    Some(false) => {}
                    None => all_false = false,
                }
            }
            all_false.then_some(false)
        }
        other => {
            let name = pyast::dotted_name(other)?;
            if name == "ZWCArray" || name.ends_with(".ZWCArray") {
                Some(true)
            } else if BUILTIN_TYPES.contains(&name.as_str()) {
                Some(false)
            } else {
                None
            }
        }
    }
}
