//! `grader_eval`: the entry returns text built to be an expression (`f"{a}/{b}"`,
//! `"+".join(...)`, `f"np.mean({x})"`) where the task's outputs are values. The official
//! comparison `eval`s printed text, so the judge computes the answer. The template is the
//! text with a placeholder per formatted value, parsed as Python: it must compute (an
//! operator, a call) out of names the judge's `eval` knows, and every expected output must
//! read as a value (else the text is the answer's form: a date, a word).

use std::collections::HashMap;

use super::super::names::{FindingKind, RawFinding, Severity};
use super::super::pyast::{self, Node, ast};
use super::{finding, str_constant};
use crate::model::TestCase;

/// Where a placeholder stands for a formatted value in a text template.
const HOLE: char = '\u{1}';

/// The text an expression builds, with [`HOLE`] for each value formatted into it: string
/// constants, f-strings, `"...".format(...)`, `"..." % ...`, `sep.join(...)`, and `+` of
/// these with `str(...)`/`repr(...)`. `None` when it is not (only) such text.
fn text_template(e: &ast::Expr) -> Option<String> {
    let hole = || HOLE.to_string();
    match e {
        ast::Expr::Constant(_) => str_constant(e).map(str::to_owned),
        ast::Expr::JoinedStr(j) => {
            let mut out = String::new();
            for v in &j.values {
                match v {
                    ast::Expr::FormattedValue(_) => out.push(HOLE),
                    other => out.push_str(str_constant(other)?),
                }
            }
            Some(out)
        }
        ast::Expr::BinOp(b) => match b.op {
            ast::Operator::Add => {
                let part = |e: &ast::Expr| {
                    text_template(e).or_else(|| match e {
                        ast::Expr::Call(c)
                            if matches!(
                                pyast::dotted_name(&c.func).as_deref(),
                                Some("str" | "repr" | "format")
                            ) =>
                        {
                            Some(hole())
                        }
                        _ => None,
                    })
                };
                let (l, r) = (part(&b.left)?, part(&b.right)?);
                // At least one side is written text, not only converted values.
                (l != hole() || r != hole()).then(|| l + &r)
            }
            ast::Operator::Mod => Some(percent_holes(str_constant(&b.left)?)),
            _ => None,
        },
        ast::Expr::Call(c) => {
            let ast::Expr::Attribute(a) = c.func.as_ref() else {
                return None;
            };
            let text = str_constant(&a.value)?;
            match a.attr.as_str() {
                "format" => Some(brace_holes(text)),
                "join" if c.args.len() == 1 => Some(format!("{HOLE}{text}{HOLE}")),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `"{} + {:.2f}"` with a [`HOLE`] for each replacement field.
fn brace_holes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                out.push(HOLE);
            }
            c => out.push(c),
        }
    }
    out
}

/// `"%s / %.2f"` with a [`HOLE`] for each conversion.
fn percent_holes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        for c in chars.by_ref() {
            if c.is_ascii_alphabetic() {
                break;
            }
        }
        out.push(HOLE);
    }
    out
}

/// Names the official judge's `eval` knows (its module imported `numpy as np`; the
/// builtins): an expression whose every name is one of these computes there.
const EVAL_NAMES: &[&str] = &[
    "np", "math", "abs", "round", "sum", "len", "max", "min", "pow", "float", "int", "sorted",
    "list", "tuple", "divmod", "range", "complex", "bool", "set", "True", "False", "None",
];

/// Whether an expression parsed from printed text only spells a value (a literal, a
/// container of literals, a negative or complex number, a NumPy scalar's repr).
fn spells_value(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Constant(_) => true,
        ast::Expr::Name(n) => matches!(n.id.as_str(), "inf" | "nan" | "True" | "False" | "None"),
        ast::Expr::UnaryOp(u) => {
            matches!(u.op, ast::UnaryOp::USub | ast::UnaryOp::UAdd) && spells_value(&u.operand)
        }
        // `1+2j`
        ast::Expr::BinOp(b) => {
            matches!(b.op, ast::Operator::Add | ast::Operator::Sub)
                && spells_value(&b.left)
                && matches!(b.right.as_ref(), ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Complex { .. }))
        }
        ast::Expr::List(l) => l.elts.iter().all(spells_value),
        ast::Expr::Tuple(t) => t.elts.iter().all(spells_value),
        ast::Expr::Set(t) => t.elts.iter().all(spells_value),
        ast::Expr::Dict(d) => {
            d.keys.iter().flatten().all(spells_value) && d.values.iter().all(spells_value)
        }
        // `np.float64(3.5)`, `float(1.5)`
        ast::Expr::Call(c) => {
            c.args.iter().all(spells_value)
                && c.keywords.is_empty()
                && pyast::dotted_name(&c.func).is_some_and(|n| {
                    n == "float"
                        || n == "int"
                        || n.strip_prefix("np.").is_some_and(|t| {
                            [
                                "float",
                                "int",
                                "uint",
                                "complex",
                                "bool",
                                "str_",
                                "longdouble",
                                "clongdouble",
                            ]
                            .iter()
                            .any(|p| t.starts_with(p))
                        })
                })
        }
        _ => false,
    }
}

/// Whether the official judge's `eval` of this expression computes something (an
/// operator, a call, a comparison) out of names it knows.
fn computes(e: &ast::Expr) -> bool {
    let mut names_known = true;
    let mut operates = false;
    let nodes = pyast::walk_bfs([Node::Expr(e)]);
    for n in &nodes {
        match n {
            Node::Expr(ast::Expr::Name(x)) => {
                names_known &= EVAL_NAMES.contains(&x.id.as_str());
            }
            Node::Expr(
                ast::Expr::Call(_)
                | ast::Expr::Compare(_)
                | ast::Expr::BoolOp(_)
                | ast::Expr::Subscript(_)
                | ast::Expr::IfExp(_),
            ) => operates = true,
            Node::Expr(ast::Expr::BinOp(_)) => operates = true,
            _ => {}
        }
    }
    names_known && operates && !spells_value(e)
}

/// Printed text parsed as a Python expression, the official cleaning's `array` words
/// dropped.
fn parse_printed(text: &str) -> Option<ast::Expr> {
    use rustpython_parser::Parse;
    let cleaned = text.replace("ZWCArray", "").replace("array", "");
    let cleaned = cleaned.trim();
    if cleaned.is_empty() || cleaned.len() > 2000 {
        return None;
    }
    ast::Expr::parse(cleaned, "<printed>").ok()
}

/// Words NumPy and Python print inside values (`array([1., nan])`, `dtype=float64`,
/// `1e-05`, `2j`).
const VALUE_WORDS: &[&str] = &[
    "array", "ZWCArray", "inf", "nan", "True", "False", "None", "e", "j", "dtype", "shape",
    "float", "int", "bool", "complex", "object", "np",
];

/// Whether an expected printed piece is a value (a number, a list, a NumPy array's print),
/// not text the task asks for (`2024-01-05`, `hello`): only then does text built as an
/// expression stand in for the answer.
fn reads_as_value(piece: &str) -> bool {
    let piece = piece.trim();
    if piece.is_empty() {
        return true;
    }
    match parse_printed(piece) {
        Some(e) => spells_value(&e),
        // NumPy's prints of arrays (`[1. 2.]`, over several lines) are not Python: brackets
        // and words decide (`2024-01-05` is not a print of numbers).
        None => {
            piece.contains('[')
                && !piece.contains(['\'', '"'])
                && piece
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .filter(|w| {
                        w.chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    })
                    .all(|w| {
                        VALUE_WORDS.contains(&w.trim_end_matches(|c: char| c.is_ascii_digit()))
                    })
        }
    }
}

/// The entry's returns of text built to be an expression, when the task's outputs are
/// values (else the text is the answer's form, not a loophole).
pub(super) fn grader_eval(
    nodes: &[Node<'_>],
    entry_offset: Option<usize>,
    cases: Option<&[TestCase]>,
) -> Vec<RawFinding> {
    let (Some(entry_offset), Some(cases)) = (entry_offset, cases) else {
        return Vec::new();
    };
    if cases.is_empty()
        || !cases
            .iter()
            .all(|c| c.output.split('#').all(reads_as_value))
    {
        return Vec::new();
    }
    let Some(body) = nodes.iter().find_map(|n| match n {
        Node::Stmt(s @ ast::Stmt::FunctionDef(d)) if pyast::start_of(*s) == entry_offset => {
            Some(&d.body)
        }
        _ => None,
    }) else {
        return Vec::new();
    };
    let mut returns = Vec::new();
    let mut assigned: HashMap<&str, Vec<&ast::Expr>> = Default::default();
    own_statements(body, &mut |s| match s {
        ast::Stmt::Return(r) => returns.extend(r.value.as_deref()),
        ast::Stmt::Assign(a) => {
            for t in &a.targets {
                if let ast::Expr::Name(n) = t {
                    assigned.entry(n.id.as_str()).or_default().push(&a.value);
                }
            }
        }
        _ => {}
    });
    let mut out = Vec::new();
    for value in returns {
        // `return text` where `text` is assigned once.
        let built = match value {
            ast::Expr::Name(n) => match assigned.get(n.id.as_str()).map(Vec::as_slice) {
                Some([only]) => *only,
                _ => continue,
            },
            other => other,
        };
        let Some(template) = text_template(built) else {
            continue;
        };
        if !template.contains(HOLE) {
            continue;
        }
        let Some(parsed) = parse_printed(&template.replace(HOLE, "1")) else {
            continue;
        };
        if computes(&parsed) {
            let shown = template.replace(HOLE, "…");
            out.push(finding(
                FindingKind::GraderEval,
                Severity::Warning,
                shown.trim().to_string(),
                pyast::start_of(value),
                format!(
                    "returns text built as an expression (`{}`) where the task's outputs are values: the official comparison `eval`s printed text, so the judge computes the answer, and both scorers pay it",
                    shown.trim()
                ),
            ));
        }
    }
    out
}

/// Calls `f` on each statement of `body` that runs in its function's own frame (nested
/// blocks included, nested functions and classes not).
fn own_statements<'a>(body: &'a [ast::Stmt], f: &mut impl FnMut(&'a ast::Stmt)) {
    for s in body {
        f(s);
        match s {
            ast::Stmt::If(x) => {
                own_statements(&x.body, f);
                own_statements(&x.orelse, f);
            }
            ast::Stmt::For(x) => {
                own_statements(&x.body, f);
                own_statements(&x.orelse, f);
            }
            ast::Stmt::While(x) => {
                own_statements(&x.body, f);
                own_statements(&x.orelse, f);
            }
            ast::Stmt::With(x) => own_statements(&x.body, f),
            ast::Stmt::Try(x) => {
                own_statements(&x.body, f);
                for ast::ExceptHandler::ExceptHandler(h) in &x.handlers {
                    own_statements(&h.body, f);
                }
                own_statements(&x.orelse, f);
                own_statements(&x.finalbody, f);
            }
            ast::Stmt::Match(m) => {
                for c in &m.cases {
                    own_statements(&c.body, f);
                }
            }
            _ => {}
        }
    }
}
