//! Kind inference: what kind of value (ZWCArray, NumPy array, Python value, number) an
//! expression gives, from the kinds of what it is computed from and the zwc function it
//! calls, and what the test cases pass to the entry function. Rules on kinds and syntax
//! only: the walk applies them, the findings read their results.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use super::dep_graph::ValueKind;
use super::numpy_functions::{
    ALWAYS_1D, ALWAYS_ARRAY, CONSTRUCTORS, REDUCTIONS, SHAPE_DEPENDENT, SHAPE_KEEPING,
    TUPLE_RESULTS, UFUNCS, dims_from_first,
};
use crate::analysis::assemble::rewrite_input;
use crate::analysis::pyast::{self, ast};
use crate::analysis::static_check::{PerTextCache, remembered};
use crate::model::TestCase;
use crate::model::bounded::Bounded;

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

/// The kinds of the arguments the test cases pass to the entry function.
#[derive(Debug, Clone, Default)]
pub struct EntryArgs {
    keyword: HashMap<String, (ValueKind, u8)>,
    positional: Vec<(ValueKind, u8)>,
    /// Parameters some case passes a number to (by name, by position).
    numbers: (
        std::collections::HashSet<String>,
        std::collections::HashSet<usize>,
    ),
}

impl EntryArgs {
    /// [`EntryArgs::from_inputs`] of the cases' inputs (as the harness rewrites them),
    /// remembered per distinct set of inputs: every rollout of a task shares them.
    pub fn of_cases(cases: &[TestCase]) -> EntryArgs {
        static CACHE: PerTextCache<u64, EntryArgs> =
            LazyLock::new(|| std::sync::Mutex::new(Bounded::new(20_000)));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for c in cases {
            c.input.hash(&mut hasher);
        }
        remembered(&CACHE, hasher.finish(), || {
            let rewritten: Vec<String> = cases.iter().map(|c| rewrite_input(&c.input)).collect();
            EntryArgs::from_inputs(rewritten.iter().map(String::as_str))
        })
    }

    /// Reads each case's input (`a=[1, 2], k=3`, as the harness passes it) as call
    /// arguments; a parameter gets a kind only when every case passes the same kind.
    pub fn from_inputs<'i>(inputs: impl IntoIterator<Item = &'i str>) -> EntryArgs {
        let mut out: Option<EntryArgs> = None;
        for input in inputs {
            let Ok(suite) = pyast::parse_suite(&format!("_({input})\n")) else {
                return EntryArgs::default();
            };
            let [ast::Stmt::Expr(e)] = suite.as_slice() else {
                return EntryArgs::default();
            };
            let ast::Expr::Call(call) = e.value.as_ref() else {
                return EntryArgs::default();
            };
            let mut this = EntryArgs {
                positional: call.args.iter().map(literal_kind).collect(),
                ..EntryArgs::default()
            };
            for (i, kd) in this.positional.iter().enumerate() {
                if kd.0 == ValueKind::Scalar {
                    this.numbers.1.insert(i);
                }
            }
            for k in &call.keywords {
                if let Some(name) = &k.arg {
                    let kd = literal_kind(&k.value);
                    if kd.0 == ValueKind::Scalar {
                        this.numbers.0.insert(name.to_string());
                    }
                    this.keyword.insert(name.to_string(), kd);
                }
            }
            out = Some(match out {
                None => this,
                Some(mut acc) => {
                    acc.numbers.0.extend(this.numbers.0.iter().cloned());
                    acc.numbers.1.extend(this.numbers.1.iter().copied());
                    // Same kind in every case; the depth only where every case agrees,
                    // or "two or more" where every case passes two or more.
                    let meet = |a: &mut (ValueKind, u8), b: (ValueKind, u8)| {
                        let two_or_more = |d: u8| d == MIN_2D || (2..MIN_2D).contains(&d);
                        if a.1 != b.1 {
                            a.1 = if two_or_more(a.1) && two_or_more(b.1) {
                                MIN_2D
                            } else {
                                0
                            };
                        }
                        a.0 == b.0
                    };
                    acc.keyword.retain(|name, kd| {
                        this.keyword.get(name).is_some_and(|other| meet(kd, *other))
                    });
                    let mut agree = 0;
                    for (a, b) in acc.positional.iter_mut().zip(&this.positional) {
                        if !meet(a, *b) {
                            break;
                        }
                        agree += 1;
                    }
                    acc.positional.truncate(agree);
                    acc
                }
            });
        }
        out.unwrap_or_default()
    }

    /// Whether some case passes a number to this parameter.
    pub(super) fn may_be_number(&self, name: &str, position: Option<usize>) -> bool {
        self.numbers.0.contains(name) || position.is_some_and(|p| self.numbers.1.contains(&p))
    }

    pub(super) fn kind_of(&self, name: &str, position: Option<usize>) -> Option<(ValueKind, u8)> {
        self.keyword
            .get(name)
            .or_else(|| self.positional.get(position?))
            .copied()
            .filter(|(k, _)| *k != ValueKind::Unknown)
    }
}

/// The kind and depth of a test input's literal: a list or tuple is a Python value (its
/// depth: 1 for numbers, 2 for rows of numbers…), a number (maybe negative) a scalar,
/// `zwc.yitaf(...)` (the harness's `np.array`) a ZWCArray, a string a Python value.
fn literal_kind(e: &ast::Expr) -> (ValueKind, u8) {
    match e {
        // `[]` is as deep as a list of numbers: `np.array([])` has one dimension.
        ast::Expr::List(ast::ExprList { elts, .. })
        | ast::Expr::Tuple(ast::ExprTuple { elts, .. })
            if elts.is_empty() =>
        {
            (ValueKind::Python, 1)
        }
        ast::Expr::List(ast::ExprList { elts, .. })
        | ast::Expr::Tuple(ast::ExprTuple { elts, .. }) => (
            ValueKind::Python,
            nested_depth(elts.iter().map(literal_kind)),
        ),
        ast::Expr::Constant(c) => match c.value {
            ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Complex { .. } => {
                (ValueKind::Scalar, 0)
            }
            ast::Constant::Bool(_) | ast::Constant::None | ast::Constant::Ellipsis => {
                (ValueKind::Unknown, 0)
            }
            _ => (ValueKind::Python, 0),
        },
        ast::Expr::UnaryOp(u) => match literal_kind(&u.operand) {
            (ValueKind::Scalar, _) => (ValueKind::Scalar, 0),
            _ => (ValueKind::Unknown, 0),
        },
        // `float('nan')`, `complex(1, 2)`: numbers too.
        ast::Expr::Call(c)
            if matches!(
                pyast::dotted_name(&c.func).as_deref(),
                Some("float" | "int" | "complex")
            ) =>
        {
            (ValueKind::Scalar, 0)
        }
        // `1+2j`.
        ast::Expr::BinOp(b)
            if literal_kind(&b.left).0 == ValueKind::Scalar
                && literal_kind(&b.right).0 == ValueKind::Scalar =>
        {
            (ValueKind::Scalar, 0)
        }
        ast::Expr::Call(c) if pyast::dotted_name(&c.func).as_deref() == Some("zwc.yitaf") => {
            let dims = c.args.first().map_or(0, |a| literal_kind(a).1);
            (ValueKind::ZwcArray, dims)
        }
        _ => (ValueKind::Unknown, 0),
    }
}

/// The depth of a list whose elements have these kinds and depths: 1 when all are
/// numbers, one more than theirs when all are lists or arrays of one depth, else unknown (0).
fn nested_depth(elements: impl IntoIterator<Item = (ValueKind, u8)>) -> u8 {
    let mut depth = None;
    for (kind, dims) in elements {
        let d = match kind {
            ValueKind::Scalar => 1,
            ValueKind::Python | ValueKind::ZwcArray | ValueKind::NumpyArray
                if known_dims(dims) > 0 =>
            {
                dims.saturating_add(1)
            }
            _ => return 0,
        };
        if depth.is_some_and(|x| x != d) {
            return 0;
        }
        depth = Some(d);
    }
    depth.unwrap_or(0)
}

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

/// What call `c` of the real zwc function meaning NumPy's `m` gives (`rfx`: one of
/// `zwc.rfx`, which return plain ndarrays), given the values of its arguments (positional,
/// then keyword): the kind, whether it is sure, and the dimensions where known (0: not).
pub(super) fn zwc_call(
    m: &str,
    rfx: bool,
    c: &ast::ExprCall,
    args: &[Val],
) -> (ValueKind, bool, u8) {
    let has_axis = c.keywords.iter().any(|k| {
        k.arg
            .as_ref()
            .is_some_and(|a| matches!(a.as_str(), "axis" | "keepdims" | "axis1" | "axis2"))
    });
    // Whether some argument is surely an array or a container of numbers: the
    // result is then an array (unless the function reduces), not a scalar.
    let array_arg = c
        .args
        .iter()
        .chain(c.keywords.iter().map(|k| &k.value))
        .zip(args)
        .any(|(a, v)| array_like(a, v));
    let returns_counts = c.keywords.iter().any(|k| {
        k.arg
            .as_ref()
            .is_some_and(|a| a.as_str().starts_with("return_"))
    });
    // `np.unique(a, True)`: a later positional argument is `return_index`.
    let unique_tuple = m == "unique" && (returns_counts || c.args.len() > 1);
    if TUPLE_RESULTS.contains(&m) || unique_tuple {
        let kind = if rfx {
            ValueKind::NumpyTuple
        } else {
            ValueKind::ZwcTuple
        };
        // `np.frexp` (a ufunc) of a 0-d array is a tuple of numbers.
        let maybe_scalars =
            matches!(m, "divmod" | "modf" | "frexp") && args.iter().any(|v| v.dims >= MAYBE_0D);
        // A `return_index` given by position may be false: then it is one array.
        let maybe_array = m == "unique" && !returns_counts;
        return (kind, !maybe_scalars && !maybe_array, 0);
    }
    if REDUCTIONS.contains(&m) && !has_axis {
        return (ValueKind::Scalar, true, 0);
    }
    if REDUCTIONS.contains(&m)
        && !rfx
        && !matches!(
            m,
            "size" | "ndim" | "shape" | "trace" | "vdot" | "isreal" | "isclose" | "allclose"
        )
        && !m.starts_with("array_")
        && let Some(d) = reduced_dims(c, args)
    {
        return (ValueKind::ZwcArray, true, d);
    }
    if rfx {
        return (ValueKind::NumpyArray, true, 0);
    }
    // `np.real`/`np.imag` of an ndarray, a 0-d one included, are ndarrays (of a number,
    // numbers): of a sure ZWCArray, a ZWCArray of its dimensions.
    if matches!(m, "real" | "imag")
        && c.args.len() == 1
        && c.keywords.is_empty()
        && let Some(first) = args.first()
        && first.sure
        && first.kind == ValueKind::ZwcArray
    {
        let dims = if first.dims == 0 { SOME_D } else { first.dims };
        return (ValueKind::ZwcArray, true, dims);
    }
    // A 0-d array given to a function that is not a ufunc (nor a reduction, above): a 0-d
    // array (`np.cov`), which zwc wraps, or a scalar (`np.kron`), as the function goes.
    let always_array = CONSTRUCTORS.contains(&m) || ALWAYS_ARRAY.contains(&m);
    if !always_array
        && !UFUNCS.contains(&m)
        && c.args
            .iter()
            .zip(args)
            .any(|(_, v)| v.sure && v.dims == ZERO_D)
    {
        return (ValueKind::ZwcArray, false, 0);
    }
    // `np.cumsum(5)` is `array([5])`: these flatten whatever they are given.
    if ALWAYS_1D.contains(&m) && !has_axis {
        return (ValueKind::ZwcArray, true, 1);
    }
    if !always_array
        && !c.args.is_empty()
        && c.args.iter().zip(args).all(|(a, v)| {
            scalarish(a, v.kind) || (v.sure && v.dims == ZERO_D && UFUNCS.contains(&m))
        })
    {
        // A ufunc on scalars returns a NumPy scalar, which zwc leaves unwrapped.
        return (ValueKind::Scalar, true, 0);
    }
    // Constructors always give an array (a 0-d one for a number);
    // other functions only when an argument surely is one.
    let sure = always_array
        || (array_arg && (!SHAPE_DEPENDENT.contains(&m) || shape_gives_array(m, c, args)));
    let mut dims = 0;
    if matches!(m, "array" | "asarray" | "asanyarray" | "copy")
        && let Some(first) = args.first()
        && first.sure
    {
        dims = first.dims;
        // An array of one number has no dimensions.
        if first.kind == ValueKind::Scalar
            && c.args.first().is_some_and(|a| scalarish(a, first.kind))
        {
            dims = ZERO_D;
        }
    }
    // Built from a parameter some case passes a number to: maybe 0-d.
    if dims == 0
        && matches!(m, "array" | "asarray" | "asanyarray" | "copy")
        && args.first().is_some_and(|v| v.dims == MAYBE_0D)
    {
        dims = MAYBE_0D;
    }
    let keeps_shape = UFUNCS.contains(&m)
        || (SHAPE_KEEPING.contains(&m)
            && !c
                .keywords
                .iter()
                .any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "axis")));
    if sure && dims == 0 && keeps_shape {
        dims = common_dims(args.iter());
    }
    // `np.gradient(a, dx, axis=k)`: the derivative along one axis has `a`'s shape (without
    // an axis, a 2-d `a` gives a list of arrays).
    if m == "gradient"
        && dims == 0
        && c.keywords.len() == 1
        && c.keywords[0]
            .arg
            .as_ref()
            .is_some_and(|a| a.as_str() == "axis")
        && literal_int(&c.keywords[0].value)
        && let Some(first) = args.first().filter(|v| v.sure && !c.args.is_empty())
        && known_dims(first.dims) >= 1
    {
        return (ValueKind::ZwcArray, true, first.dims);
    }
    if sure && dims == 0 {
        dims = product_or_reshape_dims(m, c, args);
    }
    if always_array && dims == 0 {
        dims = first_arg_dims(m, c, args);
    }
    // Surely an ndarray, so a ZWCArray (not a scalar), whatever its dimensions.
    if always_array && dims == 0 {
        dims = SOME_D;
    }
    (ValueKind::ZwcArray, sure, dims)
}

/// The dimensions of what [`ALWAYS_ARRAY`] function `m` gives, from those of its first
/// argument where they follow from them ([`dims_from_first`]); 0 when not known.
fn first_arg_dims(m: &str, c: &ast::ExprCall, args: &[Val]) -> u8 {
    let axis_none = c.keywords.iter().any(|k| {
        k.arg.as_ref().is_some_and(|a| a.as_str() == "axis")
            && matches!(&k.value, ast::Expr::Constant(x) if matches!(x.value, ast::Constant::None))
    });
    // `np.full_like(a, v, shape=...)` takes the shape given.
    if c.keywords
        .iter()
        .any(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "shape"))
    {
        return 0;
    }
    let first = args.first().filter(|v| v.sure && !c.args.is_empty());
    let depth = first.map_or(0, |v| known_dims(v.dims));
    // `np.block` of a list three deep or more: its leaves are numbers or arrays, and
    // either way the result has two dimensions or more.
    if m == "block" && depth >= 3 {
        return MIN_2D;
    }
    // Two dimensions or more, how many not known: so is what keeps or adds dimensions.
    if first.is_some_and(|v| v.dims == MIN_2D)
        && matches!(
            m,
            "stack"
                | "vstack"
                | "expand_dims"
                | "zeros_like"
                | "ones_like"
                | "empty_like"
                | "full_like"
                | "transpose"
                | "moveaxis"
                | "swapaxes"
                | "roll"
        )
    {
        return MIN_2D;
    }
    // `np.expand_dims(a, axis)`: one more dimension per axis given.
    if m == "expand_dims" && depth >= 1 {
        let axis = c.args.get(1).or_else(|| {
            c.keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "axis"))
                .map(|k| &k.value)
        });
        let added = match axis {
            Some(a) if literal_int(a) => 1,
            Some(ast::Expr::Tuple(t)) if !t.elts.is_empty() && t.elts.iter().all(literal_int) => {
                t.elts.len()
            }
            _ => return 0,
        };
        return u8::try_from(usize::from(depth) + added)
            .ok()
            .filter(|d| *d < MIN_2D)
            .unwrap_or(0);
    }
    dims_from_first(m, depth, axis_none)
}

/// An integer literal, maybe negative (`1`, `-1`).
fn literal_int(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Constant(x) => matches!(x.value, ast::Constant::Int(_)),
        ast::Expr::UnaryOp(u) if matches!(u.op, ast::UnaryOp::USub) => {
            matches!(&*u.operand, ast::Expr::Constant(x) if matches!(x.value, ast::Constant::Int(_)))
        }
        _ => false,
    }
}

/// The dimensions of a reduction along one literal `axis` (`np.mean(a, axis=1)`) of an
/// array or list of known dimensions, when it keeps one or more: one fewer (with
/// `keepdims=True`, as many), an array, never a scalar; `None` when not known.
fn reduced_dims(c: &ast::ExprCall, args: &[Val]) -> Option<u8> {
    let mut axis = false;
    let mut keepdims = false;
    for (i, k) in c.keywords.iter().enumerate() {
        // `axis=axis` where every case passes a number: one axis, as a literal.
        if k.arg.as_deref() == Some("axis")
            && args
                .get(c.args.len() + i)
                .is_some_and(|v| v.sure && v.kind == ValueKind::Scalar)
        {
            axis = true;
        }
        match (k.arg.as_deref(), &k.value) {
            (Some("axis"), ast::Expr::Constant(x)) if matches!(x.value, ast::Constant::Int(_)) => {
                axis = true
            }
            (Some("axis"), ast::Expr::UnaryOp(u)) if matches!(&*u.operand, ast::Expr::Constant(x) if matches!(x.value, ast::Constant::Int(_))) => {
                axis = true
            }
            (Some("keepdims"), ast::Expr::Constant(x))
                if matches!(x.value, ast::Constant::Bool(true)) =>
            {
                keepdims = true
            }
            (Some("keepdims"), _) => return None,
            _ => {}
        }
    }
    let first = args.first().filter(|v| v.sure && c.args.len() == 1)?;
    let d = known_dims(first.dims);
    // `axis=(1, 2)`: as many axes go as the tuple names.
    let axes = c
        .keywords
        .iter()
        .find_map(|k| match (k.arg.as_deref(), &k.value) {
            (Some("axis"), ast::Expr::Tuple(t))
                if !t.elts.is_empty() && t.elts.iter().all(literal_int) =>
            {
                Some(t.elts.len())
            }
            _ => None,
        });
    if let Some(n) = axes {
        let n = u8::try_from(n).ok()?;
        return match keepdims {
            false if d > n => Some(d - n),
            true if d >= n => Some(d),
            _ => None,
        };
    }
    match (axis, keepdims) {
        (true, false) if d >= 2 => Some(d - 1),
        (true, true) if d >= 1 => Some(d),
        _ => None,
    }
}

/// The dimensions of a matrix product of arrays of known, equal dimensions (two 2-d
/// operands give a 2-d result; `matmul` keeps any common number ≥ 2), or of `reshape` to a
/// literal shape; 0 when not known.
fn product_or_reshape_dims(m: &str, c: &ast::ExprCall, args: &[Val]) -> u8 {
    match m {
        "reshape" => match c.args.get(1) {
            Some(ast::Expr::Tuple(t))
                if !t.elts.iter().any(|e| matches!(e, ast::Expr::Starred(_))) =>
            {
                u8::try_from(t.elts.len()).unwrap_or(0)
            }
            _ => 0,
        },
        // `np.take(a, idx, axis=k)`: the axis taken is replaced by the index's dimensions.
        "take"
            if c.args.len() == 2
                && c.keywords.len() == 1
                && c.keywords[0]
                    .arg
                    .as_ref()
                    .is_some_and(|a| a.as_str() == "axis")
                && literal_int(&c.keywords[0].value) =>
        {
            let (Some(a), Some(idx)) = (args.first(), args.get(1)) else {
                return 0;
            };
            let d = known_dims(a.dims);
            let e = match idx.kind {
                ValueKind::Scalar if idx.sure && scalarish(&c.args[1], idx.kind) => 0,
                ValueKind::ZwcArray | ValueKind::Python if idx.sure && known_dims(idx.dims) > 0 => {
                    known_dims(idx.dims)
                }
                _ => return 0,
            };
            if !a.sure || d == 0 || d - 1 + e == 0 {
                0
            } else {
                (d - 1 + e).min(MIN_2D - 1)
            }
        }
        "matmul" | "dot" | "inner" if c.args.len() == 2 && c.keywords.is_empty() => {
            let d = common_dims(args.iter());
            match (m, d) {
                ("matmul", d) if d >= 2 => d,
                (_, 2) => 2,
                _ => 0,
            }
        }
        _ => 0,
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

/// Whether a [`SHAPE_DEPENDENT`] function surely gives an array here: `interp` and
/// `polyval` at array points, the products when an operand has two dimensions or more.
fn shape_gives_array(m: &str, c: &ast::ExprCall, args: &[Val]) -> bool {
    let at = |i: usize| {
        c.args
            .get(i)
            .zip(args.get(i))
            .is_some_and(|(a, v)| array_like(a, v))
    };
    match m {
        "interp" => at(0),
        "polyval" => at(1),
        _ => args.iter().any(|v| v.sure && known_dims(v.dims) >= 2),
    }
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
