//! The `array_method` findings: NumPy methods and attributes, operators and builtins used
//! on a ZWCArray, which refuses them. The walk reports each use on the kinds it inferred;
//! this part decides the severity: an error only when the kind is sure and nothing catches
//! the failure (a `try` with a matching handler, a `hasattr` or `isinstance` guard).

use super::dep_graph::ValueKind;
use super::kinds::{Val, zwc_supports};
use crate::analysis::names::{FindingKind, RawFinding, Severity};
use crate::analysis::pyast::{self, ast};
use crate::model::ApiMap;

/// The findings of one walk and what is in force where it is.
pub(super) struct Findings<'a> {
    api: &'a ApiMap,
    found: Vec<RawFinding>,
    /// `try` bodies being walked whose handlers catch what a misuse raises.
    catching: usize,
    /// Guards in force: `hasattr(name, "attr")` (name, Some(attr)), `isinstance(name, …)`
    /// (name, None). A guarded misuse cannot be called certain.
    guards: Vec<(String, Option<String>)>,
}

impl<'a> Findings<'a> {
    pub(super) fn new(api: &'a ApiMap) -> Findings<'a> {
        Findings {
            api,
            found: Vec::new(),
            catching: 0,
            guards: Vec::new(),
        }
    }

    pub(super) fn into_found(self) -> Vec<RawFinding> {
        self.found
    }

    /// Enters the body of a `try` with these handlers; gives whether they catch a misuse,
    /// for [`Findings::leave_try`].
    pub(super) fn enter_try(&mut self, handlers: &[ast::ExceptHandler]) -> bool {
        let catches = handlers.iter().any(|h| {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            h.type_.as_deref().is_none_or(catches_misuse)
        });
        self.catching += usize::from(catches);
        catches
    }

    pub(super) fn leave_try(&mut self, catches: bool) {
        self.catching -= usize::from(catches);
    }

    /// Puts the guards condition `test` sets up in force; gives how many, for
    /// [`Findings::drop_guards`].
    pub(super) fn add_guards(&mut self, test: &ast::Expr) -> usize {
        let guards = guards_in(test);
        let n = guards.len();
        self.guards.extend(guards);
        n
    }

    /// Ends the last `n` guards put in force.
    pub(super) fn drop_guards(&mut self, n: usize) {
        self.guards.truncate(self.guards.len() - n);
    }

    /// `op v` for a unary arithmetic operator: a ZWCArray has none.
    pub(super) fn unary(&mut self, op: ast::UnaryOp, v: &Val, offset: usize) {
        if v.kind != ValueKind::ZwcArray {
            return;
        }
        let sym = match op {
            ast::UnaryOp::USub => "-",
            ast::UnaryOp::UAdd => "+",
            _ => "~",
        };
        let sugg = match op {
            ast::UnaryOp::USub => self.zwc_for("negative"),
            ast::UnaryOp::Invert => self.zwc_for("invert"),
            _ => self.zwc_for("positive"),
        };
        self.report(
            v.sure,
            format!("unary {sym}"),
            offset,
            sugg,
            format!("ZWCArray has no unary {sym} (TypeError)"),
        );
    }

    /// `l op r` with an operator a ZWCArray operand does not support; gives whether it was
    /// one (its value is then not known).
    pub(super) fn binop(&mut self, op: &ast::Operator, l: &Val, r: &Val, offset: usize) -> bool {
        use ast::Operator as O;
        let zwc_left = l.kind == ValueKind::ZwcArray;
        let zwc_right = r.kind == ValueKind::ZwcArray && l.kind == ValueKind::Python;
        if zwc_supports(op) || !(zwc_left || zwc_right) {
            return false;
        }
        let (sym, np) = match op {
            O::Mod => ("%", "mod"),
            O::FloorDiv => ("//", "floor_divide"),
            O::MatMult => ("@", "matmul"),
            O::BitAnd => ("&", "bitwise_and"),
            O::BitOr => ("|", "bitwise_or"),
            O::BitXor => ("^", "bitwise_xor"),
            O::LShift => ("<<", "left_shift"),
            O::RShift => (">>", "right_shift"),
            _ => ("?", ""),
        };
        let suggestion = self.zwc_for(np);
        let sure = if zwc_left { l.sure } else { r.sure };
        self.report(
            sure,
            sym.to_string(),
            offset,
            suggestion,
            format!("ZWCArray does not support `{sym}` (TypeError)"),
        );
        true
    }

    /// `recv.attr` (an expression ending at `end`) where `recv` is a ZWCArray (sure:
    /// `recv_sure`) that has no attribute `attr`, unless `hasattr(recv, "attr")` guards it.
    pub(super) fn missing_attribute(
        &mut self,
        recv: &ast::Expr,
        attr: &str,
        recv_sure: bool,
        end: usize,
    ) {
        if self.guarded(recv, attr) {
            return;
        }
        let sure = recv_sure && !self.type_guarded(recv);
        let suggestion = self.method_suggestion(attr);
        let message = match &suggestion {
            Some(z) => format!("ZWCArray has no attribute '{attr}': use {z}"),
            None if attr == "tolist" => "ZWCArray has no attribute 'tolist': return the ZWCArray itself (it prints like a list), or use list(...)".to_string(),
            None => format!("ZWCArray has no attribute '{attr}'"),
        };
        // At the attribute's name (the end of the expression), where it is written.
        let at = end.saturating_sub(attr.len());
        self.report(sure, attr.to_string(), at, suggestion, message);
    }

    /// A call of the builtin `name` whose first argument (value `first`, written
    /// `first_arg` when positional) may be a ZWCArray, which `abs`, `round`, `float` and
    /// `int` refuse.
    pub(super) fn builtin_call(
        &mut self,
        name: &str,
        first: Option<&Val>,
        first_arg: Option<&ast::Expr>,
        offset: usize,
    ) {
        let first_kind = first.map(|a| a.kind);
        let first_sure =
            first.is_some_and(|a| a.sure) && first_arg.is_some_and(|a| !self.type_guarded(a));
        if matches!(name, "abs" | "round" | "float" | "int")
            && first_kind == Some(ValueKind::ZwcArray)
        {
            let np = match name {
                "abs" => "abs",
                "round" => "round",
                _ => "astype",
            };
            let suggestion = self.zwc_for(np);
            self.report(
                first_sure,
                format!("{name}()"),
                offset,
                suggestion,
                format!("{name}() does not work on a ZWCArray (TypeError)"),
            );
        }
    }

    /// An `array_method` finding: an error when the value is surely a ZWCArray and nothing
    /// catches the failure (a `try` with a matching handler, a `hasattr` guard), else possible.
    fn report(
        &mut self,
        sure: bool,
        name: String,
        offset: usize,
        suggestion: Option<String>,
        message: String,
    ) {
        let severity = if sure && self.catching == 0 {
            Severity::Error
        } else {
            Severity::Possible
        };
        self.found.push(RawFinding {
            kind: FindingKind::ArrayMethod,
            severity,
            name,
            offset,
            suggestion,
            message,
        });
    }

    /// Whether `recv.attr` sits under `hasattr(recv, "attr")`.
    fn guarded(&self, recv: &ast::Expr, attr: &str) -> bool {
        let ast::Expr::Name(n) = recv else {
            return false;
        };
        self.guards
            .iter()
            .any(|(name, a)| name == n.id.as_str() && a.as_deref() == Some(attr))
    }

    /// Whether `e` is a name whose type the code tests (`isinstance`, `hasattr`) around here.
    fn type_guarded(&self, e: &ast::Expr) -> bool {
        let ast::Expr::Name(n) = e else {
            return false;
        };
        self.guards.iter().any(|(name, _)| name == n.id.as_str())
    }

    /// The zwc function that does what NumPy method `m` does, where one exists.
    fn method_suggestion(&self, m: &str) -> Option<String> {
        let np = match m {
            "flatten" => "ravel",
            "tolist" | "item" | "fill" => return None,
            other => other,
        };
        self.zwc_for(np)
    }

    fn zwc_for(&self, numpy_short: &str) -> Option<String> {
        self.api
            .zwc_name(&format!("np.{numpy_short}"))
            .map(str::to_string)
    }
}

/// Whether an `except` clause's type catches what a ZWCArray misuse raises
/// (`AttributeError`, `TypeError`, or anything broader).
fn catches_misuse(ty: &ast::Expr) -> bool {
    match ty {
        ast::Expr::Tuple(t) => t.elts.iter().any(catches_misuse),
        other => matches!(
            pyast::dotted_name(other).as_deref(),
            Some("AttributeError" | "TypeError" | "Exception" | "BaseException")
        ),
    }
}

/// The guards a condition sets up: `hasattr(x, "a")` → (x, Some(a)), `isinstance(x, …)`
/// → (x, None), wherever they appear in it (under `not`, `and`, `or`).
fn guards_in(test: &ast::Expr) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![test];
    while let Some(e) = stack.pop() {
        match e {
            ast::Expr::BoolOp(b) => stack.extend(b.values.iter()),
            ast::Expr::UnaryOp(u) => stack.push(&u.operand),
            ast::Expr::Call(c) => {
                let callee = pyast::dotted_name(&c.func);
                let Some(ast::Expr::Name(n)) = c.args.first() else {
                    continue;
                };
                match callee.as_deref() {
                    Some("hasattr") => {
                        let attr = match c.args.get(1) {
                            Some(ast::Expr::Constant(k)) => match &k.value {
                                ast::Constant::Str(s) => Some(s.to_string()),
                                _ => None,
                            },
                            _ => None,
                        };
                        out.push((n.id.to_string(), attr));
                    }
                    Some("isinstance") => out.push((n.id.to_string(), None)),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}
