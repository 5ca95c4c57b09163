//! Kind inference: what kind of value (ZWCArray, NumPy array, Python value, number) an
//! expression gives, from the kinds of what it is computed from and the zwc function it
//! calls, and what the test cases pass to the entry function. Rules on kinds and syntax
//! only: the walk applies them, the findings read their results.
//!
//! Parts: this file holds the value model (`Val`, what lists hold, dimensions) and the
//! rules for syntax (displays, subscripts, operators, attributes, builtins, methods);
//! `entry_args` reads the test cases' inputs into the kinds the entry function is passed;
//! `calls` gives what a call of a zwc function returns, from NumPy's rules for it.

use std::collections::HashMap;

use super::dep_graph::ValueKind;
use crate::analysis::pyast::{self, ast};

mod calls;
mod entry_args;

pub(super) use calls::zwc_call;
pub use entry_args::EntryArgs;
use entry_args::nested_depth;

impl ValueKind {
    pub(super) fn join(a: ValueKind, b: ValueKind) -> ValueKind {
        if a == b { a } else { ValueKind::Unknown }
    }

    /// Kind of one element when unpacking or indexing a value of this kind.
    pub(super) fn element(self) -> ValueKind {
        match self {
            ValueKind::ZwcTuple => ValueKind::ZwcArray,
            ValueKind::NumpyTuple => ValueKind::NumpyArray,
            _ => ValueKind::Unknown,
        }
    }

    fn is_array(self) -> bool {
        matches!(self, ValueKind::ZwcArray | ValueKind::NumpyArray)
    }

    pub(super) fn join_all(kinds: impl IntoIterator<Item = ValueKind>) -> ValueKind {
        kinds
            .into_iter()
            .reduce(ValueKind::join)
            .unwrap_or(ValueKind::Unknown)
    }
}

/// A value during the walk: the nodes it depends on and its kind.
#[derive(Debug, Clone)]
pub(super) struct Val {
    pub(super) deps: Vec<usize>,
    pub(super) kind: ValueKind,
    /// The kind is known, not guessed: an array-method finding on it is an error, not
    /// just possible (a zwc call on arguments that may be numbers may return a scalar).
    pub(super) sure: bool,
    /// Known nesting depth of a list, or dimensions of an array (0: not known).
    pub(super) dims: u8,
    /// What a list or tuple built in the code holds (`None`: not known).
    pub(super) items: Option<Items>,
}

/// What a list or tuple holds: its elements' kind, as far as the code that builds it
/// (a display, `append`s, a comprehension) tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Items {
    /// No element (`[]`): what is added later is all it holds.
    Empty,
    /// Every element is of this kind (surely, for `sure`), with these dimensions.
    All(ValueKind, bool, u8),
    /// A display whose elements differ in kind, some maybe arrays; the first is of this one.
    Mixed(ValueKind, bool, u8),
}

impl Items {
    /// The items of one value like `v`.
    pub(super) fn of(v: &Val) -> Items {
        Items::All(v.kind, v.sure, v.dims)
    }

    /// What a list holding the elements of both holds; `None` when nothing useful is
    /// known. Elements of which some are ZWCArrays may be ones (unsure).
    pub(super) fn join(a: Option<Items>, b: Option<Items>) -> Option<Items> {
        let unmixed = |i: Items| match i {
            Items::Mixed(..) => Items::All(ValueKind::ZwcArray, false, 0),
            i => i,
        };
        match (unmixed(a?), unmixed(b?)) {
            (Items::Empty, x) | (x, Items::Empty) => Some(x),
            (Items::All(k1, s1, d1), Items::All(k2, s2, d2)) if k1 == k2 => {
                Some(Items::All(k1, s1 && s2, if d1 == d2 { d1 } else { 0 }))
            }
            (Items::All(k1, ..), Items::All(k2, ..))
                if k1 == ValueKind::ZwcArray || k2 == ValueKind::ZwcArray =>
            {
                Some(Items::All(ValueKind::ZwcArray, false, 0))
            }
            _ => None,
        }
    }

    /// The elements' kind, sureness and dimensions, when they are arrays (what misuse
    /// findings are about).
    fn array_element(items: Option<Items>) -> Option<(ValueKind, bool, u8)> {
        match items? {
            Items::Mixed(..) => Some((ValueKind::ZwcArray, false, 0)),
            Items::All(k, sure, dims) if k.is_array() || k == ValueKind::ZwcTuple => {
                Some((k, sure, dims))
            }
            _ => None,
        }
    }
}

impl Val {
    /// A value nothing is known of.
    pub(super) fn unknown(deps: Vec<usize>) -> Val {
        Val {
            deps,
            kind: ValueKind::Unknown,
            sure: false,
            dims: 0,
            items: None,
        }
    }

    pub(super) fn of(kind: ValueKind) -> Val {
        Val {
            deps: Vec::new(),
            kind,
            sure: true,
            dims: 0,
            items: None,
        }
    }

    /// Surely a plain Python value (not an array), computed from `deps`.
    pub(super) fn python(deps: Vec<usize>) -> Val {
        Val {
            deps,
            ..Val::of(ValueKind::Python)
        }
    }
}

/// `Val::dims` of an array known to have no dimensions (`zwc.yitaf(5)`, arithmetic on
/// one): NumPy functions given one return scalars, which zwc leaves unwrapped.
pub(super) const ZERO_D: u8 = u8::MAX;

/// `Val::dims` of an array built from a value that may be a number (`zwc.yitaf(x)` for a
/// parameter the cases do not agree on): maybe 0-d, so NumPy may answer it with scalars.
pub(super) const MAYBE_0D: u8 = u8::MAX - 1;

/// `Val::dims` of an array whose dimensions are not known but which is surely an array
/// (`np.cov`'s result, a slice, arithmetic on a ZWCArray): never a NumPy scalar.
pub(super) const SOME_D: u8 = u8::MAX - 2;

/// `Val::dims` of an array of two dimensions or more, how many not known (`np.block` of a
/// list three deep, whose leaves may be numbers or rows): its elements are arrays.
pub(super) const MIN_2D: u8 = u8::MAX - 3;

/// Dimensions as far as known: 0 for "not known", [`ZERO_D`], [`MAYBE_0D`], [`SOME_D`] and
/// [`MIN_2D`] included.
fn known_dims(dims: u8) -> u8 {
    if dims >= MIN_2D { 0 } else { dims }
}

/// Whether `v` is surely a ZWCArray and never a NumPy scalar: something is known of its
/// dimensions (a zwc call's result that is only guessed to be an array has none), so a
/// dimension test (`v.ndim == 0`) cannot mean it is a scalar, where `float()` works.
pub(super) fn never_scalar(v: &Val) -> bool {
    v.sure && v.kind == ValueKind::ZwcArray && v.dims != 0
}

/// What each name holds.
pub(super) type Env = HashMap<String, Val>;

/// Attributes a ZWCArray has.
pub(super) const ZWC_ATTRIBUTES: &[&str] = &["shape", "dtype", "size", "ndim", "T"];

/// Builtins whose result is a plain Python value.
const PYTHON_BUILTINS: &[&str] = &[
    "len",
    "list",
    "tuple",
    "dict",
    "set",
    "sorted",
    "sum",
    "max",
    "min",
    "str",
    "range",
    "enumerate",
    "zip",
    "bool",
    "repr",
    "any",
    "all",
    "map",
    "filter",
    "reversed",
    "frozenset",
    "isinstance",
    "print",
    "complex",
];

/// An argument that is surely an array or a container (of numbers, as zwc takes them).
fn array_like(e: &ast::Expr, v: &Val) -> bool {
    if v.sure
        && v.dims < MAYBE_0D
        && matches!(
            v.kind,
            ValueKind::ZwcArray
                | ValueKind::NumpyArray
                | ValueKind::ZwcTuple
                | ValueKind::NumpyTuple
        )
    {
        return true;
    }
    match e {
        ast::Expr::List(_) | ast::Expr::Tuple(_) | ast::Expr::ListComp(_) => true,
        ast::Expr::Call(c) => matches!(
            pyast::dotted_name(&c.func).as_deref(),
            Some("list" | "tuple" | "sorted" | "range")
        ),
        // A name bound to a list display or comprehension (strings are Python values
        // too, but no zwc function takes one).
        ast::Expr::Name(_) => v.sure && v.kind == ValueKind::Python,
        // A list of known depth (`xs[::-1]`, a row of a nested list).
        _ => v.sure && v.kind == ValueKind::Python && known_dims(v.dims) >= 1,
    }
}

/// An argument that is most likely a single number: a number literal, arithmetic on
/// values not known to be arrays, an indexed element, or a numeric builtin's result.
fn scalarish(e: &ast::Expr, kind: ValueKind) -> bool {
    if kind.is_array() || matches!(kind, ValueKind::ZwcTuple | ValueKind::NumpyTuple) {
        return false;
    }
    if kind == ValueKind::Scalar {
        return true;
    }
    match e {
        ast::Expr::Constant(c) => !matches!(
            c.value,
            ast::Constant::Str(_) | ast::Constant::Bytes(_) | ast::Constant::Tuple(_)
        ),
        ast::Expr::BinOp(_) | ast::Expr::UnaryOp(_) => true,
        ast::Expr::Subscript(s) => !matches!(s.slice.as_ref(), ast::Expr::Slice(_)),
        ast::Expr::Call(c) => matches!(
            pyast::dotted_name(&c.func).as_deref(),
            Some("float" | "int" | "len" | "abs" | "round" | "sum" | "max" | "min")
        ),
        _ => false,
    }
}

/// One element when iterating over `it`, the value of `iter`: a number from a 1-D list or
/// array (a ZWCArray yields Python scalars) or from `range`, a row from a deeper one, an
/// array from a tuple of arrays; unknown when the depth is not known.
pub(super) fn element_of(it: Val, iter: &ast::Expr) -> Val {
    let known = known_dims(it.dims);
    let listed = Items::array_element(it.items).filter(|_| it.kind == ValueKind::Python);
    let (kind, sure, dims) = match (it.kind, known) {
        // A list or tuple the code built of arrays: its elements are those arrays.
        _ if listed.is_some() => listed.unwrap_or((ValueKind::Unknown, false, 0)),
        (ValueKind::ZwcTuple | ValueKind::NumpyTuple, _) => (it.kind.element(), it.sure, 0),
        (ValueKind::Python | ValueKind::ZwcArray | ValueKind::NumpyArray, 1) => {
            (ValueKind::Scalar, it.sure, 0)
        }
        (k @ (ValueKind::Python | ValueKind::ZwcArray | ValueKind::NumpyArray), d) if d > 1 => {
            (k, it.sure, d - 1)
        }
        // Rows of an array of two dimensions or more are arrays.
        (ValueKind::ZwcArray, _) if it.dims == MIN_2D => (ValueKind::ZwcArray, it.sure, SOME_D),
        // Iterating a ZWCArray whose dimensions are not known: rows (ZWCArrays) or numbers.
        (ValueKind::ZwcArray, _) if matches!(it.dims, 0 | SOME_D) => {
            (ValueKind::ZwcArray, false, 0)
        }
        _ if matches!(iter, ast::Expr::Call(c) if pyast::dotted_name(&c.func).as_deref() == Some("range")) => {
            (ValueKind::Scalar, true, 0)
        }
        _ => (ValueKind::Unknown, false, 0),
    };
    Val {
        deps: it.deps,
        kind,
        sure,
        dims,
        items: None,
    }
}

/// The first element of a list display whose first element surely is a ZWCArray while
/// the others may not be (see [`Items::Mixed`]).
pub(super) fn first_array(v: &Val) -> Option<Val> {
    match v.items {
        Some(Items::Mixed(kind, true, dims)) if v.kind == ValueKind::Python => Some(Val {
            deps: v.deps.clone(),
            kind,
            sure: true,
            dims,
            items: None,
        }),
        _ => None,
    }
}

/// `env` becomes the union of itself and `other` (both branches may have run).
pub(super) fn merge_into(env: &mut Env, other: &Env) {
    for (name, o) in other {
        match env.get_mut(name) {
            Some(v) => {
                for x in &o.deps {
                    if !v.deps.contains(x) {
                        v.deps.push(*x);
                    }
                }
                v.kind = ValueKind::join(v.kind, o.kind);
                v.sure = v.sure && o.sure;
                v.items = Items::join(v.items, o.items);
                if v.dims != o.dims {
                    v.dims = 0;
                }
            }
            None => {
                env.insert(name.clone(), Val::unknown(o.deps.clone()));
            }
        }
    }
}

/// The nodes any of `vals` depends on.
pub(super) fn union(vals: &[Val]) -> Vec<usize> {
    vals.iter().flat_map(|v| v.deps.iter().copied()).collect()
}

/// The kind of a constant: numbers are scalars, the rest (strings, `None`…) Python values.
pub(super) fn constant(value: &ast::Constant) -> ValueKind {
    match value {
        ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Complex { .. } => {
            ValueKind::Scalar
        }
        _ => ValueKind::Python,
    }
}

/// A list, tuple or set display of these elements: a Python value, with the nesting depth
/// of a list or tuple where its elements tell it.
pub(super) fn display(vals: &[Val], set: bool, starred: bool) -> Val {
    let dims = if set {
        0
    } else {
        nested_depth(
            vals.iter()
                .map(|v| (v.kind, if v.sure { v.dims } else { 0 })),
        )
    };
    let items = if set || starred {
        None
    } else {
        let all = vals.iter().try_fold(Items::Empty, |acc, v| {
            Items::join(Some(acc), Some(Items::of(v)))
        });
        match (all, vals.first()) {
            // Mixed kinds, the first a sure array: remember it (a loop meets it first).
            (Some(Items::All(ValueKind::ZwcArray, false, _)), Some(first))
                if first.sure && first.kind == ValueKind::ZwcArray =>
            {
                Some(Items::Mixed(first.kind, first.sure, first.dims))
            }
            (all, _) => all,
        }
    };
    Val {
        deps: union(vals),
        kind: ValueKind::Python,
        sure: true,
        dims,
        items,
    }
}

/// `v[slice]`, where indexing `v` with `slice` gave `idx`.
pub(super) fn subscript(slice: &ast::Expr, v: Val, idx: Val) -> Val {
    use ast::Expr as E;
    let has_slice = matches!(slice, E::Slice(_))
        || matches!(slice, E::Tuple(t) if t.elts.iter().any(|x| matches!(x, E::Slice(_))));
    // Indexing with an array (a mask, `zwc.argsort(...)`) or a list selects
    // elements: the result keeps its dimensions, so it is a ZWCArray too.
    let fancy = idx.kind == ValueKind::ZwcArray || matches!(slice, E::List(_));
    // How many axes a plain index takes away (`a[i]`: one, `a[i, j]`: two).
    let taken = match slice {
        E::Tuple(t) if t.elts.iter().all(|x| scalarish(x, ValueKind::Unknown)) => t.elts.len(),
        E::Tuple(_) => 0,
        x if !has_slice && !fancy && scalarish(x, idx.kind) => 1,
        // Only integers index a list.
        _ if !has_slice && !fancy && v.kind == ValueKind::Python => 1,
        _ => 0,
    };
    let listed = Items::array_element(v.items).filter(|_| v.kind == ValueKind::Python);
    let (kind, sure, dims) = match v.kind {
        // An element of a list or tuple the code built of arrays: one of those arrays.
        ValueKind::Python if taken == 1 && !has_slice && !fancy && listed.is_some() => {
            listed.unwrap_or((ValueKind::Unknown, false, 0))
        }
        // A slice of a ZWCArray is one (a 0-d array cannot be sliced).
        ValueKind::ZwcArray if matches!(slice, E::Slice(_)) && v.dims == 0 => {
            (v.kind, v.sure, SOME_D)
        }
        ValueKind::ZwcArray | ValueKind::Python if matches!(slice, E::Slice(_)) => {
            (v.kind, v.sure, v.dims)
        }
        ValueKind::ZwcArray if has_slice => (ValueKind::ZwcArray, v.sure, SOME_D),
        ValueKind::ZwcArray if fancy => (ValueKind::ZwcArray, v.sure && idx.sure, 0),
        ValueKind::ZwcTuple | ValueKind::NumpyTuple if !has_slice => (v.kind.element(), v.sure, 0),
        // An element of a list or array whose depth is known.
        ValueKind::ZwcArray | ValueKind::Python | ValueKind::NumpyArray
            if taken > 0 && usize::from(known_dims(v.dims)) >= taken =>
        {
            match usize::from(v.dims) - taken {
                0 => (ValueKind::Scalar, v.sure, 0),
                d => (v.kind, v.sure, d as u8),
            }
        }
        // A row of an array of two dimensions or more is an array.
        ValueKind::ZwcArray if taken == 1 && v.dims == MIN_2D => {
            (ValueKind::ZwcArray, v.sure, SOME_D)
        }
        // An element of a ZWCArray whose dimensions are not known: a row or a number.
        ValueKind::ZwcArray if taken > 0 && matches!(v.dims, 0 | SOME_D) => {
            (ValueKind::ZwcArray, false, 0)
        }
        _ => (ValueKind::Unknown, false, 0),
    };
    // A slice of a list holds some of its elements.
    let items = if v.kind == ValueKind::Python && matches!(slice, E::Slice(_)) {
        v.items
    } else {
        None
    };
    Val {
        deps: v.deps.into_iter().chain(idx.deps).collect(),
        kind,
        sure,
        dims,
        items,
    }
}

/// A comparison chain of `vals` (the left operand first): a ZWCArray of booleans when a
/// ZWCArray is compared by value, else not known.
pub(super) fn compare(vals: &[Val], ops: &[ast::CmpOp]) -> Val {
    let kind = if vals[0].kind == ValueKind::ZwcArray
        && ops.iter().all(|o| {
            !matches!(
                o,
                ast::CmpOp::In | ast::CmpOp::NotIn | ast::CmpOp::Is | ast::CmpOp::IsNot
            )
        }) {
        ValueKind::ZwcArray
    } else {
        ValueKind::Unknown
    };
    Val {
        deps: union(vals),
        kind,
        sure: vals[0].sure,
        dims: 0,
        items: None,
    }
}

/// The binary operators a ZWCArray supports.
pub(super) fn zwc_supports(op: &ast::Operator) -> bool {
    use ast::Operator as O;
    matches!(op, O::Add | O::Sub | O::Mult | O::Div | O::Pow)
}

/// The kind of `l op r` and whether it is sure, for an operator the operands support.
pub(super) fn binop(op: &ast::Operator, l: &Val, r: &Val) -> (ValueKind, bool) {
    let supported = zwc_supports(op);
    let zwc_left = l.kind == ValueKind::ZwcArray;
    // Inputs are Python values or ZWCArrays, never ndarrays, so an unknown operand
    // next to a ZWCArray is not one either.
    if supported && zwc_left && r.kind != ValueKind::NumpyArray {
        return (ValueKind::ZwcArray, l.sure);
    }
    if supported && r.kind == ValueKind::ZwcArray && l.kind != ValueKind::NumpyArray {
        return (ValueKind::ZwcArray, r.sure);
    }
    let kind = match (l.kind, r.kind) {
        (ValueKind::NumpyArray, _) | (_, ValueKind::NumpyArray) => ValueKind::NumpyArray,
        (ValueKind::Python, ValueKind::Python) => ValueKind::Python,
        // Arithmetic on values not known to be arrays or containers: most likely numbers.
        (ValueKind::Scalar | ValueKind::Unknown, ValueKind::Scalar | ValueKind::Unknown) => {
            ValueKind::Scalar
        }
        _ => ValueKind::Unknown,
    };
    (kind, l.sure && r.sure)
}

/// The kind of a ZWCArray's attribute `attr`; `None` when a ZWCArray has no such attribute.
pub(super) fn zwc_attribute(attr: &str) -> Option<ValueKind> {
    if !ZWC_ATTRIBUTES.contains(&attr) {
        return None;
    }
    Some(if attr == "T" {
        ValueKind::NumpyArray
    } else {
        ValueKind::Python
    })
}

/// The kind of a call of the builtin (or unknown function) `name`.
pub(super) fn builtin_call(name: &str) -> ValueKind {
    if matches!(name, "float" | "int" | "abs" | "round" | "len" | "sum") {
        ValueKind::Scalar
    } else if PYTHON_BUILTINS.contains(&name) {
        ValueKind::Python
    } else {
        ValueKind::Unknown
    }
}

/// The kind of `recv.method()` and whether it is sure, where `recv` is a name holding a
/// value of `recv_kind` (sure: `recv_sure`), or `None` when it is not a known name.
pub(super) fn method_call(
    recv_kind: Option<ValueKind>,
    recv_sure: bool,
    method: &str,
) -> (ValueKind, bool) {
    match (recv_kind, method) {
        (Some(ValueKind::NumpyArray), "tolist") => (ValueKind::Python, true),
        (_, "copy") => (recv_kind.unwrap_or(ValueKind::Unknown), recv_sure),
        (_, "join" | "split" | "keys" | "values" | "items" | "count" | "index") => {
            (ValueKind::Python, true)
        }
        _ => (ValueKind::Unknown, true),
    }
}

/// The dimensions of `l op r` with a ZWCArray result of `kind`: none when neither operand
/// has any (a 0-d array and numbers), else not known.
pub(super) fn binop_dims(kind: ValueKind, l: &Val, r: &Val) -> u8 {
    let zero = |v: &Val| {
        (v.kind == ValueKind::ZwcArray && v.dims == ZERO_D) || v.kind == ValueKind::Scalar
    };
    // A maybe-0-d array and numbers (or values not known): maybe 0-d still.
    let small = |v: &Val| {
        zero(v)
            || v.kind == ValueKind::Unknown
            || (v.kind == ValueKind::ZwcArray && v.dims == MAYBE_0D)
    };
    if kind == ValueKind::ZwcArray && zero(l) && zero(r) {
        ZERO_D
    } else if kind == ValueKind::ZwcArray && small(l) && small(r) {
        MAYBE_0D
    } else if kind == ValueKind::ZwcArray {
        let two_or_more = |v: &Val| {
            v.sure && v.kind == ValueKind::ZwcArray && (v.dims == MIN_2D || known_dims(v.dims) >= 2)
        };
        match common_dims([l, r].into_iter()) {
            // Broadcasting keeps the most dimensions: two or more stay two or more.
            0 if two_or_more(l) || two_or_more(r) => MIN_2D,
            // Arithmetic on a ZWCArray gives one (on a NumPy scalar, a scalar).
            0 if never_scalar(l) || never_scalar(r) => SOME_D,
            d => d,
        }
    } else {
        0
    }
}

/// The dimensions arrays and lists of known, equal dimensions broadcast to, numbers
/// aside; 0 when any other value takes part or they differ.
fn common_dims<'v>(vals: impl Iterator<Item = &'v Val>) -> u8 {
    let mut dims = 0;
    for v in vals {
        match v.kind {
            ValueKind::Scalar if v.sure => {}
            ValueKind::ZwcArray | ValueKind::Python | ValueKind::NumpyArray
                if v.sure && known_dims(v.dims) > 0 =>
            {
                if dims != 0 && dims != v.dims {
                    return 0;
                }
                dims = v.dims;
            }
            _ => return 0,
        }
    }
    dims
}
