//! What the test cases pass to the entry function: each argument's kind and depth, read
//! from the cases' inputs as the harness rewrites them (literals only; nothing runs).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use super::{MIN_2D, known_dims};
use crate::analysis::assemble::rewrite_input;
use crate::analysis::graph::dep_graph::ValueKind;
use crate::analysis::pyast::{self, ast};
use crate::analysis::static_check::{PerTextCache, remembered};
use crate::model::TestCase;
use crate::model::bounded::Bounded;

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
    pub(in crate::analysis::graph) fn may_be_number(
        &self,
        name: &str,
        position: Option<usize>,
    ) -> bool {
        self.numbers.0.contains(name) || position.is_some_and(|p| self.numbers.1.contains(&p))
    }

    pub(in crate::analysis::graph) fn kind_of(
        &self,
        name: &str,
        position: Option<usize>,
    ) -> Option<(ValueKind, u8)> {
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
pub(super) fn nested_depth(elements: impl IntoIterator<Item = (ValueKind, u8)>) -> u8 {
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
