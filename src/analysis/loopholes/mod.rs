//! Loopholes: ways both official scorers can be paid without internalizing zwc (GRADER.md,
//! "More official behaviours"). Static findings of the `loophole` family, from the walk and
//! the dependency graph the analysis already made:
//! - `numpy_backdoor`: NumPy reached where the official NumPy check cannot see it (zwc's
//!   private `_np` module, `exec`/`eval` of an import, `sys.modules`, importers the check
//!   does not know; `__import__("numpy")` itself is found with the NumPy check's imports);
//! - `hollow_zwc`: the zwc calls that pay the official zwc check carry nothing the answer
//!   needs (their results are discarded or sit in an unused default argument, or the only
//!   calls are array constructors wrapping a plain-Python answer);
//! - `forged_output`: the program writes what the harness would print (the separator), takes
//!   over stdout, or leaves before the harness prints while printing itself;
//! - `grader_eval`: the entry returns text built to be an expression (`f"{a}/{b}"`,
//!   `"+".join(...)`, `f"np.mean({x})"`) where the task's outputs are values: the official
//!   comparison `eval`s printed text, so the judge computes the answer.
//!
//! Precision comes first (a loophole finding on a genuine answer is a false accusation): a
//! finding needs the mechanism in the code, not a resemblance; what the walk cannot be sure
//! of is `possible`, which no figure counts.

use std::collections::HashSet;

mod grader_eval;

use super::graph::{DepGraph, NodeKind};
use super::names::{Binding, Bindings, FindingKind, RawFinding, Severity};
use super::numpy_check::NumpyCheck;
use super::pyast::{self, Node, ast};
use super::static_check::StaticCheck;
use crate::model::TestCase;

/// The text the harness prints before the results (`"=" * 20`).
pub const SEPARATOR: &str = "====================";

/// NumPy functions that only build an array from their argument: a call of their zwc name
/// wraps a value, it computes nothing (unless the task selected the constructor itself).
const CONSTRUCTORS: &[&str] = &["array", "asarray", "asanyarray", "ascontiguousarray"];

/// The zwc names (relative to `zwc.`: `yitaf`, `rfx.x`) of the array constructors the task
/// did not select: what the counterfactual run that settles `hollow_zwc` keeps working
/// (`grade::trace::confirm`), since wrapping a value is not computing it.
pub fn wrapping_constructors(
    api: &crate::model::ApiMap,
    selected_functions: Option<&[String]>,
) -> Vec<String> {
    let selected: HashSet<&str> = selected_functions
        .unwrap_or_default()
        .iter()
        .map(|s| s.trim_start_matches("np.").trim_start_matches("numpy."))
        .collect();
    CONSTRUCTORS
        .iter()
        .filter(|c| !selected.contains(**c))
        .filter_map(|c| api.zwc_name(&format!("np.{c}")))
        .map(|z| z.strip_prefix("zwc.").unwrap_or(z).to_string())
        .collect()
}

/// Every loophole finding of a parsed solution.
pub fn loophole_findings(
    nodes: &[Node<'_>],
    bindings: &Bindings,
    graph: &DepGraph,
    checks: (Option<&StaticCheck>, &NumpyCheck),
    selected_functions: Option<&[String]>,
    entry: (Option<usize>, Option<&[TestCase]>),
) -> Vec<RawFinding> {
    let (static_check, numpy) = checks;
    let mut out = backdoors(nodes, bindings);
    out.extend(forged_output(nodes));
    out.extend(grader_eval::grader_eval(nodes, entry.0, entry.1));
    out.extend(hollow_zwc(
        nodes,
        graph,
        static_check,
        numpy,
        selected_functions,
    ));
    out
}

/// NumPy functions that work on an argument in place (their value is `None`): a call of
/// their zwc name as a statement does something.
const IN_PLACE: &[&str] = &[
    "copyto",
    "put",
    "place",
    "putmask",
    "fill_diagonal",
    "put_along_axis",
    "random.shuffle",
    "shuffle",
];

/// Whether every zwc call the entry's returns depend on (through helpers too) is the
/// returned value itself: `return zwc.yitaf(...)`, possibly nested.
fn constructors_only_wrap(nodes: &[Node<'_>], graph: &DepGraph) -> bool {
    let Some(entry) = graph.functions.iter().find(|f| f.is_entry) else {
        return false;
    };
    // `return` statement → the start of its value.
    let values: std::collections::HashMap<usize, usize> = nodes
        .iter()
        .filter_map(|n| match n {
            Node::Stmt(s @ ast::Stmt::Return(r)) => r
                .value
                .as_deref()
                .map(|v| (pyast::start_of(*s), pyast::start_of(v))),
            _ => None,
        })
        .collect();
    let mut preds: std::collections::HashMap<usize, Vec<usize>> = Default::default();
    for e in &graph.edges {
        preds.entry(e.to).or_default().push(e.from);
    }
    for ret in graph
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Return && n.function == entry.name)
    {
        let mut seen = HashSet::new();
        let mut stack = vec![ret.id];
        let mut reached = Vec::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(n) = graph.nodes.get(id)
                && n.kind == NodeKind::ZwcCall
            {
                reached.push(n);
            }
            stack.extend(preds.get(&id).into_iter().flatten().copied());
        }
        if reached.is_empty() {
            continue;
        }
        // The outermost reached call must be the returned value, and every other reached
        // call must sit inside it (`zwc.yitaf(zwc.yitaf(x))`).
        let Some(&value) = values.get(&ret.offset) else {
            return false;
        };
        let Some(outer) = reached.iter().find(|n| n.offset == value) else {
            return false;
        };
        let outer_end = nodes.iter().find_map(|n| match n {
            Node::Expr(e @ ast::Expr::Call(_)) if pyast::start_of(*e) == outer.offset => {
                Some(pyast::end_of(*e))
            }
            _ => None,
        });
        if !reached
            .iter()
            .all(|n| outer_end.is_some_and(|end| (outer.offset..end).contains(&n.offset)))
        {
            return false;
        }
    }
    true
}

/// Where the code throws a call's value away: the offsets of calls that are whole
/// statements (`zwc.kocito(x)` on its own line), and the spans of default arguments.
fn discarded_places(nodes: &[Node<'_>]) -> (HashSet<usize>, Vec<(usize, usize)>) {
    let mut statements = HashSet::new();
    let mut defaults = Vec::new();
    for n in nodes {
        match n {
            Node::Stmt(ast::Stmt::Expr(e)) => {
                if let ast::Expr::Call(c) = e.value.as_ref() {
                    // `f(x, out=y)` writes into `y`.
                    if !c.keywords.iter().any(|k| k.arg.as_deref() == Some("out")) {
                        statements.insert(pyast::start_of(e.value.as_ref()));
                    }
                }
            }
            Node::Arguments(a) => {
                for d in a
                    .posonlyargs
                    .iter()
                    .chain(&a.args)
                    .chain(&a.kwonlyargs)
                    .filter_map(|p| p.default.as_deref())
                {
                    defaults.push((pyast::start_of(d), pyast::end_of(d)));
                }
            }
            _ => {}
        }
    }
    (statements, defaults)
}

fn str_constant(e: &ast::Expr) -> Option<&str> {
    match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Str(s) => Some(s.as_str()),
            _ => None,
        },
        _ => None,
    }
}

/// The text of a string expression made of constants (`"num" + "py"`, `"nu" "mpy"`).
fn constant_text(e: &ast::Expr) -> Option<String> {
    match e {
        ast::Expr::BinOp(b) if matches!(b.op, ast::Operator::Add) => {
            Some(constant_text(&b.left)? + &constant_text(&b.right)?)
        }
        _ => str_constant(e).map(str::to_owned),
    }
}

/// Whether `text` names the numpy module (as a word: `numpy`, `numpy.linalg`, not
/// `numpy_like`).
fn mentions_numpy(text: &str) -> bool {
    text.match_indices("numpy").any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + 5..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn finding(
    kind: FindingKind,
    severity: Severity,
    name: String,
    offset: usize,
    message: String,
) -> RawFinding {
    RawFinding {
        kind,
        severity,
        name,
        offset,
        suggestion: None,
        message,
    }
}

/// Whether `name` is bound to zwc or one of its modules.
fn is_zwc(bindings: &Bindings, name: &str) -> bool {
    matches!(bindings.names.get(name), Some(Binding::Zwc(_)))
}

fn backdoors(nodes: &[Node<'_>], bindings: &Bindings) -> Vec<RawFinding> {
    let mut out = Vec::new();
    let backdoor = |name: String, offset: usize, how: &str| {
        finding(
            FindingKind::NumpyBackdoor,
            Severity::Warning,
            name,
            offset,
            format!(
                "reaches NumPy {how}, where the official NumPy check does not look: both scorers pay it as a zwc answer"
            ),
        )
    };
    for n in nodes {
        match n {
            // `zwc._np`: the wrapper's private NumPy module (the static check even counts
            // `zwc._np.mean(...)` as a zwc call).
            Node::Expr(e @ ast::Expr::Attribute(a))
                if a.attr.as_str() == "_np"
                    && pyast::chain_root(&a.value).is_some_and(|r| is_zwc(bindings, r)) =>
            {
                let name = pyast::dotted_name(e).unwrap_or_else(|| "zwc._np".to_string());
                out.push(backdoor(
                    name,
                    pyast::start_of(*e),
                    "through zwc's private `_np` module",
                ));
            }
            Node::Expr(e @ ast::Expr::Call(c)) => {
                let callee = pyast::dotted_name(&c.func).unwrap_or_default();
                let first_text = c.args.first().and_then(constant_text);
                let at = pyast::start_of(*e);
                match callee.as_str() {
                    // getattr(zwc, "_np")
                    "getattr"
                        if c.args.len() >= 2
                            && pyast::chain_root(&c.args[0])
                                .is_some_and(|r| is_zwc(bindings, r))
                            && str_constant(&c.args[1]) == Some("_np") =>
                    {
                        out.push(backdoor(
                            "getattr(zwc, \"_np\")".to_string(),
                            at,
                            "through zwc's private `_np` module",
                        ));
                    }
                    // exec("import numpy as np"), eval("__import__('numpy')"), compile(...)
                    "exec" | "eval" | "compile" | "builtins.exec" | "builtins.eval"
                        if first_text.as_deref().is_some_and(mentions_numpy) =>
                    {
                        out.push(backdoor(
                            format!("{callee}(…numpy…)"),
                            at,
                            &format!("through `{callee}` of code that names numpy"),
                        ));
                    }
                    // sys.modules.get("numpy")
                    "sys.modules.get" | "sys.modules.__getitem__"
                        if first_text.as_deref().is_some_and(mentions_numpy) =>
                    {
                        out.push(backdoor(
                            "sys.modules[\"numpy\"]".to_string(),
                            at,
                            "through `sys.modules`",
                        ));
                    }
                    // Importers the official check's own list of dynamic forms misses (the
                    // NumPy check's imports already hold `__import__("numpy")`,
                    // `importlib.import_module("numpy")` and `import_module("numpy")`).
                    "builtins.__import__"
                    | "importlib.__import__"
                    | "__builtins__.__import__"
                    | "importlib.util.find_spec"
                    | "pkgutil.resolve_name"
                        if first_text.as_deref().is_some_and(mentions_numpy) =>
                    {
                        out.push(backdoor(
                            format!("{callee}(\"numpy\")"),
                            at,
                            &format!("through `{callee}`"),
                        ));
                    }
                    // The name put together from pieces (`'num' + 'py'`): a plain string
                    // is already one of the NumPy check's imports.
                    "__import__" | "importlib.import_module" | "import_module"
                        if c.args.first().is_some_and(|a| str_constant(a).is_none())
                            && first_text.as_deref().is_some_and(mentions_numpy) =>
                    {
                        out.push(backdoor(
                            format!("{callee}(\"numpy\")"),
                            at,
                            &format!("through `{callee}` of a name put together from pieces"),
                        ));
                    }
                    // The module name computed, not written: it could be numpy.
                    "__import__" | "importlib.import_module" | "import_module"
                        if c.args.first().is_some_and(|a| constant_text(a).is_none()) =>
                    {
                        out.push(finding(
                            FindingKind::NumpyBackdoor,
                            Severity::Possible,
                            format!("{callee}(…)"),
                            at,
                            format!(
                                "imports a module whose name is computed (`{callee}`): if it is numpy, the official NumPy check does not see it"
                            ),
                        ));
                    }
                    _ => {}
                }
            }
            // sys.modules["numpy"]
            Node::Expr(e @ ast::Expr::Subscript(s))
                if pyast::dotted_name(&s.value).as_deref() == Some("sys.modules")
                    && constant_text(&s.slice)
                        .as_deref()
                        .is_some_and(mentions_numpy) =>
            {
                out.push(backdoor(
                    "sys.modules[\"numpy\"]".to_string(),
                    pyast::start_of(*e),
                    "through `sys.modules`",
                ));
            }
            _ => {}
        }
    }
    out
}

/// Calls that end the process before the harness runs or prints.
const EXITS: &[&str] = &[
    "sys.exit",
    "exit",
    "quit",
    "os._exit",
    "os.abort",
    "os.kill",
    "os.killpg",
    "builtins.exit",
];

/// Calls that write to stdout.
const PRINTS: &[&str] = &[
    "print",
    "sys.stdout.write",
    "sys.stdout.writelines",
    "sys.__stdout__.write",
    "os.write",
];

/// Targets whose assignment takes over what the harness prints.
const STDOUT_TARGETS: &[&str] = &[
    "sys.stdout",
    "sys.__stdout__",
    "sys.stdout.write",
    "builtins.print",
    "print",
];

/// Calls that take over stdout or run code after the harness.
const STDOUT_TAKERS: &[&str] = &[
    "contextlib.redirect_stdout",
    "redirect_stdout",
    "os.dup2",
    "atexit.register",
];

/// A `"=" * n` (either order) of at least the separator's length.
fn repeated_equals(b: &ast::ExprBinOp) -> bool {
    if !matches!(b.op, ast::Operator::Mult) {
        return false;
    }
    let count = |e: &ast::Expr| match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Int(i) => i.to_string().parse::<usize>().ok(),
            _ => None,
        },
        _ => None,
    };
    fn unit(e: &ast::Expr) -> Option<usize> {
        str_constant(e)
            .filter(|s| !s.is_empty() && s.chars().all(|c| c == '='))
            .map(str::len)
    }
    match (
        unit(&b.left),
        count(&b.right),
        unit(&b.right),
        count(&b.left),
    ) {
        (Some(len), Some(n), _, _) | (_, _, Some(len), Some(n)) => {
            len.saturating_mul(n) >= SEPARATOR.len()
        }
        _ => false,
    }
}

fn forged_output(nodes: &[Node<'_>]) -> Vec<RawFinding> {
    let mut out = Vec::new();
    let forged = |severity: Severity, name: String, offset: usize, message: &str| {
        finding(
            FindingKind::ForgedOutput,
            severity,
            name,
            offset,
            message.to_string(),
        )
    };
    // Ranges of code that runs only on some paths: an exit there may never be reached.
    let mut conditional: Vec<(usize, usize)> = Vec::new();
    let mut prints = false;
    let mut exits: Vec<(String, usize)> = Vec::new();
    for n in nodes {
        match n {
            Node::Stmt(
                s @ (ast::Stmt::If(_)
                | ast::Stmt::While(_)
                | ast::Stmt::For(_)
                | ast::Stmt::Try(_)
                | ast::Stmt::TryStar(_)
                | ast::Stmt::Match(_)),
            ) => conditional.push((pyast::start_of(*s), pyast::end_of(*s))),
            Node::Expr(e @ (ast::Expr::IfExp(_) | ast::Expr::BoolOp(_))) => {
                conditional.push((pyast::start_of(*e), pyast::end_of(*e)))
            }
            Node::ExceptHandler(h) => conditional.push((pyast::start_of(*h), pyast::end_of(*h))),
            _ => {}
        }
        match n {
            Node::Expr(e @ ast::Expr::Constant(_))
                if str_constant(e).is_some_and(|s| s.contains(SEPARATOR)) =>
            {
                out.push(forged(
                    Severity::Warning,
                    SEPARATOR.to_string(),
                    pyast::start_of(*e),
                    "writes the harness's separator: only what follows the last separator is compared, so text after it stands in for the harness's results",
                ));
            }
            Node::Expr(e @ ast::Expr::BinOp(b)) if repeated_equals(b) => {
                out.push(forged(
                    Severity::Warning,
                    SEPARATOR.to_string(),
                    pyast::start_of(*e),
                    "builds the harness's separator (`\"=\" * 20`): only what follows the last separator is compared, so text after it stands in for the harness's results",
                ));
            }
            Node::Expr(e @ ast::Expr::Call(c)) => {
                let callee = pyast::dotted_name(&c.func).unwrap_or_default();
                if PRINTS.contains(&callee.as_str()) {
                    prints = true;
                }
                if EXITS.contains(&callee.as_str()) {
                    exits.push((callee.clone(), pyast::start_of(*e)));
                }
                if STDOUT_TAKERS.contains(&callee.as_str()) {
                    out.push(forged(
                        Severity::Warning,
                        callee.clone(),
                        pyast::start_of(*e),
                        "takes over stdout or runs code after the harness: what the scorers read may not be what the harness printed",
                    ));
                }
            }
            Node::Stmt(s @ ast::Stmt::Raise(r))
                if r.exc.as_deref().is_some_and(|e| {
                    let target = match e {
                        ast::Expr::Call(c) => &c.func,
                        other => other,
                    };
                    pyast::dotted_name(target).as_deref() == Some("SystemExit")
                }) =>
            {
                exits.push(("raise SystemExit".to_string(), pyast::start_of(*s)));
            }
            Node::Stmt(
                s @ (ast::Stmt::Assign(_) | ast::Stmt::AugAssign(_) | ast::Stmt::AnnAssign(_)),
            ) => {
                let targets: Vec<&ast::Expr> = match s {
                    ast::Stmt::Assign(a) => a.targets.iter().collect(),
                    ast::Stmt::AugAssign(a) => vec![a.target.as_ref()],
                    ast::Stmt::AnnAssign(a) => vec![a.target.as_ref()],
                    _ => Vec::new(),
                };
                for t in targets {
                    if let Some(name) =
                        pyast::dotted_name(t).filter(|d| STDOUT_TARGETS.contains(&d.as_str()))
                    {
                        out.push(forged(
                            Severity::Warning,
                            name,
                            pyast::start_of(*s),
                            "replaces what the harness prints with: the scorers then read this program's text, not the harness's results",
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if prints {
        for (name, at) in exits {
            let reached_sometimes = conditional.iter().any(|&(a, b)| a <= at && at < b);
            out.push(forged(
                if reached_sometimes { Severity::Possible } else { Severity::Warning },
                name.clone(),
                at,
                &format!(
                    "prints and leaves before the harness prints (`{name}`): the scorers compare what the program printed itself, not what the entry function returned"
                ),
            ));
        }
    }
    out
}

/// The entry function's calls that pay the official zwc check, when none of them carries
/// what the answer needs.
fn hollow_zwc(
    nodes: &[Node<'_>],
    graph: &DepGraph,
    static_check: Option<&StaticCheck>,
    numpy: &NumpyCheck,
    selected_functions: Option<&[String]>,
) -> Vec<RawFinding> {
    // Only what both official checks pay for is a loophole (a NumPy import fails the
    // answer anyway): the NumPy check the analysis already made says.
    if numpy.uses_numpy() {
        return Vec::new();
    }
    let Some(sc) = static_check.filter(|sc| sc.passed) else {
        return Vec::new();
    };
    if sc.library_calls.is_empty() {
        return Vec::new();
    }
    let selected: HashSet<&str> = selected_functions
        .unwrap_or_default()
        .iter()
        .map(|s| s.trim_start_matches("np.").trim_start_matches("numpy."))
        .collect();
    let calls: Vec<_> = graph
        .nodes
        .iter()
        .filter(|n| n.kind == NodeKind::ZwcCall)
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    let constructor = |n: &&super::graph::GraphNode| {
        n.numpy
            .as_deref()
            .is_some_and(|np| CONSTRUCTORS.contains(&np) && !selected.contains(np))
    };
    let meaningful: Vec<_> = calls.iter().filter(|n| !constructor(n)).collect();
    // A meaningful call is carried nowhere only when the code itself throws its value away:
    // a call standing alone as a statement (not an in-place function, no `out=`), or a
    // default argument nothing reads. Any other use (a condition, a mutation through a
    // closure the graph does not follow) may reach the answer: not hollow, to be sure.
    let (statements, defaults) = discarded_places(nodes);
    let thrown_away = |n: &super::graph::GraphNode| {
        // A name zwc lacks has no known meaning: it may work in place.
        let in_place = n.numpy.as_deref().is_none_or(|np| IN_PLACE.contains(&np));
        (statements.contains(&n.offset) && !in_place)
            || (n.unused && defaults.iter().any(|&(a, b)| a <= n.offset && n.offset < b))
    };
    if !meaningful.iter().all(|n| thrown_away(n)) {
        return Vec::new();
    }
    // Constructors alone: hollow only when none carries into the answer, or each one that
    // does is the returned value itself (`return zwc.yitaf(answer)`), so it wraps a value
    // computed without zwc. Arrays built and then used (`p @ q`) are an attempt at zwc.
    if meaningful.is_empty() && !constructors_only_wrap(nodes, graph) {
        return Vec::new();
    }
    let (name, why) = if meaningful.is_empty() {
        (
            calls[0].label.clone(),
            "its only zwc calls are array constructors (`np.array`'s zwc name) wrapping a value computed without zwc",
        )
    } else {
        (
            meaningful[0].label.clone(),
            "every zwc call that computes something has its result thrown away (unused, or in an unused default argument)",
        )
    };
    let at = meaningful.first().map_or(calls[0].offset, |n| n.offset);
    vec![finding(
        FindingKind::HollowZwc,
        Severity::Warning,
        name,
        at,
        format!(
            "the returned value does not come from zwc: {why}; the official zwc check counts the calls and both scorers pay the answer"
        ),
    )]
}

#[cfg(test)]
mod tests {
    use crate::analysis::{FindingKind, Severity, analyze_code};
    use crate::model::{ApiMap, TestCase};

    fn api() -> ApiMap {
        ApiMap::from_mappings_json(&serde_json::json!({
            "main": { "array": "yitaf", "mean": "kocito", "isfinite": "zelah", "copyto": "ravujir" },
            "linalg": {}
        }))
        .expect("mapping")
    }

    /// The loophole findings of `code` as (kind, severity).
    fn loopholes(code: &str) -> Vec<(FindingKind, Severity)> {
        let cases = [TestCase {
            input: "values=[1.0, 2.0]".to_string(),
            output: "1.5".to_string(),
        }];
        analyze_code(code, &api(), Some(&["mean".to_string()]), Some(&cases), 1)
            .findings
            .iter()
            .filter(|f| f.kind.family() == crate::model::finding_kinds::Family::Loophole)
            .map(|f| (f.kind, f.severity))
            .collect()
    }

    use FindingKind::{ForgedOutput, HollowZwc, NumpyBackdoor};
    use Severity::{Possible, Warning};

    #[test]
    fn genuine_uses_are_not_accused() {
        for code in [
            // A condition uses the call's value.
            "import zwc\ndef f(values):\n    return [v for v in values if zwc.zelah(v)]\n",
            "import zwc\ndef f(values):\n    out = []\n    for v in values:\n        if zwc.zelah(v):\n            out.append(v)\n    return out\n",
            // An in-place function works as a statement.
            "import zwc\ndef f(values):\n    dst = zwc.yitaf([0.0, 0.0])\n    zwc.ravujir(dst, values)\n    return dst\n",
            // A mutation the graph may not follow.
            "import zwc\ndef f(values):\n    s = {}\n    def g():\n        s['m'] = zwc.kocito(values)\n    g()\n    return s['m']\n",
            // Short banners, exits without printing, aliases.
            "import zwc\ndef f(values):\n    print('=' * 10)\n    return zwc.kocito(values)\n",
            "import zwc\nimport sys\ndef f(values):\n    if not values:\n        sys.exit(1)\n    return zwc.kocito(values)\n",
            "import zwc as z\ndef f(values):\n    return z.kocito(values)\n",
            "import zwc\ndef f(values, m=None):\n    return zwc.kocito(values)\n",
            // Arrays built and then used: an attempt at zwc, not a wrapper.
            "import zwc\ndef f(p, q):\n    a = zwc.yitaf(p)\n    b = zwc.yitaf(q)\n    return a @ b\n",
            // `numpy` as a word inside other text is not an import.
            "import zwc\ndef f(values):\n    exec('numpy_like = 1')\n    return zwc.kocito(values)\n",
        ] {
            assert_eq!(loopholes(code), vec![], "{code}");
        }
    }

    #[test]
    fn each_mechanism_is_named() {
        let cases: [(&str, Vec<(FindingKind, Severity)>); 10] = [
            (
                "import zwc\ndef f(values):\n    return zwc.yitaf(zwc.yitaf(sum(values) / len(values)))\n",
                vec![(HollowZwc, Warning)],
            ),
            (
                "import zwc\ndef f(values):\n    a = zwc.yitaf([0])\n    b = zwc.yitaf([1])\n    return sum(values) / len(values)\n",
                vec![(HollowZwc, Warning)],
            ),
            (
                "import zwc\ndef f(values):\n    n = zwc._np\n    return n.mean(values)\n",
                vec![(NumpyBackdoor, Warning)],
            ),
            (
                "import zwc\ndef f(values):\n    n = getattr(zwc, '_np')\n    return zwc.kocito(values)\n",
                vec![(NumpyBackdoor, Warning)],
            ),
            (
                "import zwc\nimport sys\ndef f(values):\n    return sys.modules['numpy'].mean(values) + 0 * zwc.kocito(values)\n",
                vec![(NumpyBackdoor, Warning)],
            ),
            (
                "import zwc\ndef f(values):\n    m = __import__('num' + 'py').mean\n    return zwc.kocito(values)\n",
                vec![(NumpyBackdoor, Warning)],
            ),
            (
                "import zwc\ndef f(values, name='numpy'):\n    m = __import__(name)\n    return zwc.kocito(values)\n",
                vec![(NumpyBackdoor, Possible)],
            ),
            (
                "import zwc\ndef f(values):\n    zwc.kocito(values)\n    return sum(values) / len(values)\n",
                vec![(HollowZwc, Warning)],
            ),
            (
                "import zwc\nimport sys\ndef f(values):\n    return zwc.kocito(values)\nprint('=' * 20)\nprint(1.5)\nsys.exit(0)\n",
                vec![(ForgedOutput, Warning), (ForgedOutput, Warning)],
            ),
            (
                "import zwc\nimport sys\ndef f(values):\n    if len(values) > 1:\n        print(1.5)\n        sys.exit(0)\n    return zwc.kocito(values)\n",
                vec![(ForgedOutput, Possible)],
            ),
        ];
        for (code, want) in cases {
            assert_eq!(loopholes(code), want, "{code}");
        }
    }

    /// The grader-eval findings of `code` for a task whose expected outputs are `outputs`.
    fn grader_evals(code: &str, outputs: &[&str]) -> Vec<String> {
        let cases: Vec<TestCase> = outputs
            .iter()
            .map(|o| TestCase {
                input: "values=[1.0, 2.0]".to_string(),
                output: o.to_string(),
            })
            .collect();
        analyze_code(code, &api(), Some(&["mean".to_string()]), Some(&cases), 1)
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::GraderEval)
            .map(|f| f.name.clone())
            .collect()
    }

    #[test]
    fn text_built_as_an_expression_is_named() {
        let values = ["1.5", "[1. 2.]", "[[1 2]\n [3 4]]", "array([1.5, nan])"];
        for (code, want) in [
            (
                "import zwc\ndef f(values):\n    n = zwc.kocito([len(values)])\n    return f\"{sum(values)}/{n}\"\n",
                "…/…",
            ),
            (
                "import zwc\ndef f(values):\n    s = '+'.join(str(v) for v in values)\n    return s\n",
                "…+…",
            ),
            (
                "import zwc\ndef f(values):\n    return 'np.mean(%s)' % values\n",
                "np.mean(…)",
            ),
            (
                "import zwc\ndef f(values):\n    return str(sum(values)) + ' / ' + str(len(values))\n",
                "… / …",
            ),
            (
                "import zwc\ndef f(values):\n    if not values:\n        return 0\n    return 'sum({}) * 1'.format(values)\n",
                "sum(…) * 1",
            ),
        ] {
            for v in values {
                assert_eq!(grader_evals(code, &[v, v]), vec![want], "{code} for {v}");
            }
        }
    }

    #[test]
    fn text_that_reads_as_a_value_or_a_text_answer_is_not_accused() {
        for code in [
            "import zwc\ndef f(values):\n    return str(zwc.kocito(values))\n",
            "import zwc\ndef f(values):\n    return f\"{zwc.kocito(values):.2f}\"\n",
            "import zwc\ndef f(values):\n    return '{:.3f}'.format(zwc.kocito(values))\n",
            "import zwc\ndef f(values):\n    return f\"[{values[0]}, {values[1]}]\"\n",
            "import zwc\ndef f(values):\n    return ', '.join(str(v) for v in values)\n",
            "import zwc\ndef f(values):\n    return f\"{values[0]}+{values[1]}j\"\n",
            // Arithmetic inside the formatted value is the program's own.
            "import zwc\ndef f(values):\n    return f\"{sum(values) / len(values)}\"\n",
            // A helper's text is not what the entry returns.
            "import zwc\ndef f(values):\n    return zwc.kocito(values)\ndef g(a, b):\n    return f\"{a}/{b}\"\n",
        ] {
            assert_eq!(grader_evals(code, &["1.5"]), Vec::<String>::new(), "{code}");
        }
        // The task asks for text (a date, a word): the text is the answer's form.
        let date = "import zwc\ndef f(values):\n    return f\"{values[0]}-{values[1]}-5\"\n";
        for outputs in [
            &["2024-1-5"][..],
            &["2024-01-05"],
            &["hello"],
            &["'x'", "a-b"],
        ] {
            assert_eq!(
                grader_evals(date, outputs),
                Vec::<String>::new(),
                "{outputs:?}"
            );
        }
        // Unknown outputs: no accusation.
        let code = "import zwc\ndef f(values):\n    return f\"{values[0]}/{values[1]}\"\n";
        assert!(
            analyze_code(code, &api(), None, None, 1)
                .findings
                .iter()
                .all(|f| f.kind != FindingKind::GraderEval)
        );
    }
}
