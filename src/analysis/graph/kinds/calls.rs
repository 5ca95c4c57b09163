//! What a call of a real zwc function returns: its kind, whether that is sure, and its
//! dimensions where they follow, by NumPy's rules for the function it stands for (the
//! tables in `numpy_functions`) and the values of its arguments.

use super::{
    MAYBE_0D, MIN_2D, SOME_D, Val, ZERO_D, array_like, common_dims, known_dims, scalarish,
};
use crate::analysis::graph::dep_graph::ValueKind;
use crate::analysis::graph::numpy_functions::{
    ALWAYS_1D, ALWAYS_ARRAY, CONSTRUCTORS, REDUCTIONS, SHAPE_DEPENDENT, SHAPE_KEEPING,
    TUPLE_RESULTS, UFUNCS, dims_from_first,
};
use crate::analysis::pyast::ast;

/// What call `c` of the real zwc function meaning NumPy's `m` gives (`rfx`: one of
/// `zwc.rfx`, which return plain ndarrays), given the values of its arguments (positional,
/// then keyword): the kind, whether it is sure, and the dimensions where known (0: not).
pub(in crate::analysis::graph) fn zwc_call(
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
