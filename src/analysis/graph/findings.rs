//! The `array_method` findings: NumPy methods and attributes, operators and builtins used
//! on a ZWCArray, which refuses them. The walk reports each use on the kinds it inferred;
//! this part decides the severity: an error only when the kind is sure and nothing catches
//! the failure (a `try` with a matching handler, a `hasattr` or `isinstance` guard, an
//! `ndim`/`shape`/`size` test on the branch where the value may be a 0-d result), and
//! never in a branch that cannot run (`truth::condition_truth`).

use super::dep_graph::ValueKind;
use super::kinds::{Val, never_scalar, zwc_supports};
use crate::analysis::names::{FindingKind, RawFinding, Severity};
use crate::analysis::pyast::{self, ast};
use crate::model::ApiMap;

/// Marks a guard fact "`hasattr(name, attr)` is false here" (`!attr`).
const LACKS: &str = "!";

/// Marks a dimension test's guard: it puts in doubt a value that may be a 0-d scalar, not
/// one known to be a 0-d ZWCArray.
const DIMENSIONS: &str = "#dims";

/// Marks a dimension test's fact "the value has dimensions here" (`x.ndim > 0` held,
/// `x.size == 1` failed…): a NumPy scalar has none, so a value the walk found may be a
/// ZWCArray surely is one where it holds.
const HAS_DIMENSIONS: &str = "#array";

/// The findings of one walk and what is in force where it is.
#[derive(Clone)]
pub(super) struct Findings<'a> {
    api: &'a ApiMap,
    found: Vec<RawFinding>,
    /// `try` bodies being walked whose handlers catch what a misuse raises: an
    /// AttributeError (a missing attribute), a TypeError (an operator or builtin).
    catching_attribute: usize,
    catching_type: usize,
    /// Guards in force: `hasattr(name, "attr")` (name, Some(attr)), `isinstance(name, …)`
    /// (name, None). A guarded misuse cannot be called certain.
    guards: Vec<(String, Option<String>)>,
    /// Branches being walked that cannot run: what they hold is never certain.
    dead: usize,
}

impl<'a> Findings<'a> {
    pub(super) fn new(api: &'a ApiMap) -> Findings<'a> {
        Findings {
            api,
            found: Vec::new(),
            catching_attribute: 0,
            catching_type: 0,
            guards: Vec::new(),
            dead: 0,
        }
    }

    pub(super) fn into_found(self) -> Vec<RawFinding> {
        self.found
    }

    /// How many findings there are so far (a mark for [`Findings::errors_since`]).
    pub(super) fn count(&self) -> usize {
        self.found.len()
    }

    /// The error-level findings reported after `mark`.
    pub(super) fn errors_since(&self, mark: usize) -> Vec<RawFinding> {
        self.found[mark.min(self.found.len())..]
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .cloned()
            .collect()
    }

    /// Makes these error-level findings errors where the walk found them possible (or
    /// adds them where it found nothing).
    pub(super) fn upgrade(&mut self, errors: Vec<RawFinding>) {
        for e in errors {
            match self
                .found
                .iter_mut()
                .find(|f| f.kind == e.kind && f.offset == e.offset && f.name == e.name)
            {
                Some(f) => f.severity = Severity::Error,
                None => self.found.push(e),
            }
        }
    }

    /// Enters the body of a `try` with these handlers; gives whether they catch an
    /// AttributeError and a TypeError, for [`Findings::leave_try`].
    pub(super) fn enter_try(&mut self, handlers: &[ast::ExceptHandler]) -> (bool, bool) {
        let catches = |exception: &str| {
            handlers.iter().any(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                h.type_
                    .as_deref()
                    .is_none_or(|t| catches_misuse(t, exception))
            })
        };
        let caught = (catches("AttributeError"), catches("TypeError"));
        self.catching_attribute += usize::from(caught.0);
        self.catching_type += usize::from(caught.1);
        caught
    }

    pub(super) fn leave_try(&mut self, caught: (bool, bool)) {
        self.catching_attribute -= usize::from(caught.0);
        self.catching_type -= usize::from(caught.1);
    }

    /// Enters (`true`) or leaves a branch that cannot run.
    pub(super) fn dead_branch(&mut self, enter: bool) {
        if enter {
            self.dead += 1;
        } else {
            self.dead = self.dead.saturating_sub(1);
        }
    }

    /// Puts the guards condition `test` sets up in force on the branch where it is `held`
    /// (true) or not; gives how many, for [`Findings::drop_guards`].
    pub(super) fn add_guards(&mut self, test: &ast::Expr, held: bool) -> usize {
        let guards = guards_in(test, held);
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
            false,
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
            false,
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
        array: bool,
        end: usize,
    ) {
        if self.guarded(recv, attr) {
            return;
        }
        let array = array || self.has_dimensions(recv);
        let sure = self.lacks(recv, attr)
            || ((recv_sure || self.has_dimensions(recv)) && !self.type_guarded(recv, array));
        let suggestion = self.method_suggestion(attr);
        let message = match &suggestion {
            Some(z) => format!("ZWCArray has no attribute '{attr}': use {z}"),
            None if attr == "tolist" => "ZWCArray has no attribute 'tolist': return the ZWCArray itself (it prints like a list), or use list(...)".to_string(),
            None => format!("ZWCArray has no attribute '{attr}'"),
        };
        // At the attribute's name (the end of the expression), where it is written.
        let at = end.saturating_sub(attr.len());
        self.report(true, sure, attr.to_string(), at, suggestion, message);
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
        let proven = first_arg.is_some_and(|a| self.has_dimensions(a));
        let first_sure = (first.is_some_and(|a| a.sure) || proven)
            && first_arg
                .is_some_and(|a| !self.type_guarded(a, proven || first.is_some_and(never_scalar)));
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
                false,
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
    /// `attribute`: the misuse raises AttributeError (else TypeError).
    fn report(
        &mut self,
        attribute: bool,
        sure: bool,
        name: String,
        offset: usize,
        suggestion: Option<String>,
        message: String,
    ) {
        let catching = if attribute {
            self.catching_attribute
        } else {
            self.catching_type
        };
        let severity = if sure && catching == 0 && self.dead == 0 {
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
    /// Whether `recv.attr` sits where `hasattr(recv, "attr")` is known false (the `else` of
    /// that test, or after an `if` on it whose body returns): reading it surely fails.
    fn lacks(&self, recv: &ast::Expr, attr: &str) -> bool {
        let ast::Expr::Name(n) = recv else {
            return false;
        };
        self.guards.iter().any(|(name, a)| {
            name == n.id.as_str() && a.as_deref().and_then(|a| a.strip_prefix(LACKS)) == Some(attr)
        })
    }

    /// The guards in force (for [`Findings::truncate_guards`] at the end of a block).
    pub(super) fn guard_count(&self) -> usize {
        self.guards.len()
    }

    /// Ends every guard put in force after `count` of them.
    pub(super) fn truncate_guards(&mut self, count: usize) {
        self.guards.truncate(count);
    }

    /// `name` was bound again: what guards said of it no longer holds.
    pub(super) fn rebound(&mut self, name: &str) {
        for g in self.guards.iter_mut().filter(|g| g.0 == name) {
            g.0.clear();
        }
    }

    /// Whether `e` is a name a dimension test found has dimensions here
    /// ([`HAS_DIMENSIONS`]).
    fn has_dimensions(&self, e: &ast::Expr) -> bool {
        let ast::Expr::Name(n) = e else {
            return false;
        };
        self.guards
            .iter()
            .any(|(name, a)| name == n.id.as_str() && a.as_deref() == Some(HAS_DIMENSIONS))
    }

    fn guarded(&self, recv: &ast::Expr, attr: &str) -> bool {
        let ast::Expr::Name(n) = recv else {
            return false;
        };
        self.guards
            .iter()
            .any(|(name, a)| name == n.id.as_str() && a.as_deref() == Some(attr))
    }

    /// Whether `e` is a name whose type the code tests (`isinstance`, `hasattr`) around here.
    /// A dimension test does not put a value known never to be a NumPy scalar (`array`:
    /// [`never_scalar`], a 0-d ZWCArray included) in doubt.
    fn type_guarded(&self, e: &ast::Expr, array: bool) -> bool {
        let ast::Expr::Name(n) = e else {
            return false;
        };
        self.guards.iter().any(|(name, a)| {
            name == n.id.as_str()
                && match a.as_deref() {
                    Some(a) if a.starts_with(LACKS) || a == HAS_DIMENSIONS => false,
                    Some(DIMENSIONS) => !array,
                    _ => true,
                }
        })
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

/// Whether an `except` clause's type catches `exception` (`AttributeError` or
/// `TypeError`, what a ZWCArray misuse raises), itself or through a broader class.
fn catches_misuse(ty: &ast::Expr, exception: &str) -> bool {
    match ty {
        ast::Expr::Tuple(t) => t.elts.iter().any(|e| catches_misuse(e, exception)),
        other => match pyast::dotted_name(other).as_deref() {
            Some("Exception" | "BaseException") => true,
            Some(name) => name == exception,
            None => false,
        },
    }
}

/// The guards a condition sets up on the branch where it is `held` (or not):
/// `hasattr(x, "a")` → (x, Some(a)) and `isinstance(x, …)` → (x, None) on both branches,
/// wherever they appear in it (under `not`, `and`, `or`); a dimension test (`x.ndim == 0`,
/// `x.size == 1`, `x.shape == ()`, `len(x.shape) == 0`, `not x.shape`) → (x, None) on the
/// branch where `x` may be 0-d (a NumPy scalar, on which `float()` and `.item()` work).
fn guards_in(test: &ast::Expr, held: bool) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![(test, Some(held))];
    while let Some((e, held)) = stack.pop() {
        if let Some((name, zero_when)) = dimension_test(e) {
            if zero_when.is_none() || held.is_none() || zero_when == held {
                out.push((name, Some(DIMENSIONS.to_string())));
            } else {
                // Where a 0-d value would have failed the test: the value has dimensions.
                out.push((name, Some(HAS_DIMENSIONS.to_string())));
            }
            continue;
        }
        match e {
            // Which operand decided an `and`/`or` is not known: dimension tests in it guard
            // both branches.
            ast::Expr::BoolOp(b) => stack.extend(b.values.iter().map(|v| (v, None))),
            ast::Expr::UnaryOp(u) if matches!(u.op, ast::UnaryOp::Not) => {
                stack.push((&u.operand, held.map(|h| !h)))
            }
            ast::Expr::UnaryOp(u) => stack.push((&u.operand, None)),
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
                        // Where `hasattr` was false, reading the attribute fails whatever
                        // the value is: a fact (`!attr`), not a doubt.
                        let attr = match (held, attr) {
                            (Some(false), Some(a)) => Some(format!("{LACKS}{a}")),
                            (Some(false), None) => None,
                            (_, attr) => attr,
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

/// A test of a name's dimensions, and whether the name may be 0-d when the test holds
/// (`Some(true)`), when it does not (`Some(false)`), or either way (`None`).
fn dimension_test(e: &ast::Expr) -> Option<(String, Option<bool>)> {
    use ast::CmpOp as C;
    // `x.ndim` / `x.shape` / `x.size`, or `len(x.shape)` (read as `ndim`).
    let probe = |e: &ast::Expr| -> Option<(String, &'static str)> {
        let (recv, attr) = match e {
            ast::Expr::Attribute(a) => (a.value.as_ref(), a.attr.as_str()),
            ast::Expr::Call(c) if pyast::dotted_name(&c.func).as_deref() == Some("len") => {
                match c.args.first()? {
                    ast::Expr::Attribute(a) if a.attr.as_str() == "shape" => {
                        (a.value.as_ref(), "ndim")
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let ast::Expr::Name(n) = recv else {
            return None;
        };
        let attr = match attr {
            "ndim" => "ndim",
            "shape" => "shape",
            "size" => "size",
            _ => return None,
        };
        Some((n.id.to_string(), attr))
    };
    if let Some((name, attr)) = probe(e) {
        // Truthy `x.ndim` / `x.shape` / `x.size`: a 0-d value makes it false (size 1 is true).
        let zero_when = (attr != "size").then_some(false);
        return Some((name, zero_when));
    }
    let ast::Expr::Compare(c) = e else {
        return None;
    };
    let (name, attr) = probe(&c.left)?;
    let ([op], [right]) = (c.ops.as_slice(), c.comparators.as_slice()) else {
        return Some((name, None));
    };
    let number = match right {
        ast::Expr::Constant(k) => match &k.value {
            ast::Constant::Int(i) => i.to_string().parse::<i64>().ok(),
            _ => None,
        },
        _ => None,
    };
    let empty_tuple = matches!(right, ast::Expr::Tuple(t) if t.elts.is_empty());
    // Whether the value the test compares is a 0-d one's (ndim 0, shape (), size 1).
    let zero_value = match (attr, number) {
        ("ndim", Some(k)) => Some(k),
        ("size", Some(k)) => Some(k - 1),
        ("shape", _) if empty_tuple => Some(0),
        _ => None,
    };
    let Some(k) = zero_value else {
        return Some((name, None));
    };
    // The test on a 0-d value: `0 op k`.
    let zero_holds = match op {
        C::Eq => 0 == k,
        C::NotEq => 0 != k,
        C::Lt => 0 < k,
        C::LtE => 0 <= k,
        C::Gt => 0 > k,
        C::GtE => 0 >= k,
        _ => return Some((name, None)),
    };
    Some((name, Some(zero_holds)))
}
