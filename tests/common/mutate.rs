//! A seeded generator of programs no test was tuned on, for the runtime oracle
//! (`tests/analysis_oracle.rs`): mutations of real solutions (the parity corpus, the demo)
//! that put zwc values where the analysis has to reason about them. Each family rewrites
//! one `return` of the entry function (or a zwc name, or the test inputs):
//!
//! - `swap`: a zwc name for another zwc function, a NumPy name or a typo;
//! - `method`: a NumPy method on the returned value (`.tolist()`, `.item()`, `.sum()`…);
//! - `hasattr`: the use wrapped in a `hasattr` test (inline, `if`, `and`);
//! - `isinstance`: the use wrapped in an `isinstance` test;
//! - `try`: the use inside `try`, with handlers that do or do not catch it;
//! - `guard`: `ndim` / `shape` / `size` / `len` guards around `float()`, `.item()`, `list()`;
//! - `scalar`: numbers passed where the test cases passed lists (plus a method or guard);
//! - `helper`: the value returned through a helper defined after the entry;
//! - `loop`: a loop or comprehension over the value, using each element;
//! - `op`: an operator or builtin a ZWCArray refuses (`-`, `%`, `@`, `abs`, `round`…).
#![allow(dead_code)]

use sebx::analysis::entry_function_name;
use sebx::analysis::pyast::{self, Node, ast};
use sebx::model::{ApiMap, TestCase};

/// A small deterministic generator (SplitMix64): the same seed gives the same programs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A program to run: the code, the cases it runs on, where it came from and how it was made.
#[derive(Debug, Clone)]
pub struct Program {
    pub code: String,
    pub cases: Vec<TestCase>,
    pub origin: String,
    pub family: &'static str,
}

/// The mutation families, in the order of the module doc.
pub const FAMILIES: [&str; 10] = [
    "swap",
    "method",
    "hasattr",
    "isinstance",
    "try",
    "guard",
    "scalar",
    "helper",
    "loop",
    "op",
];

/// A `return EXPR` alone on its line in the entry function.
struct Ret {
    /// Byte range of the whole line, without its newline.
    line: std::ops::Range<usize>,
    indent: String,
    expr: String,
}

fn entry_returns(code: &str) -> Vec<Ret> {
    let Ok(suite) = pyast::parse_suite(code) else {
        return Vec::new();
    };
    let entry = entry_function_name(code);
    let nodes = pyast::walk_suite(&suite);
    let Some(def) = nodes.iter().find_map(|n| match n {
        Node::Stmt(s @ ast::Stmt::FunctionDef(f)) if f.name.as_str() == entry => {
            Some((pyast::start_of(*s), pyast::end_of(*s)))
        }
        _ => None,
    }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in &nodes {
        let Node::Stmt(s @ ast::Stmt::Return(r)) = n else {
            continue;
        };
        let Some(value) = &r.value else { continue };
        let (start, end) = (pyast::start_of(*s), pyast::end_of(*s));
        if start < def.0 || end > def.1 {
            continue;
        }
        let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = code[end..].find('\n').map_or(code.len(), |i| end + i);
        let indent = &code[line_start..start];
        if !indent.chars().all(|c| c == ' ' || c == '\t') {
            continue;
        }
        let rest = code[end..line_end].trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            continue;
        }
        let expr = &code[pyast::start_of(value.as_ref())..pyast::end_of(value.as_ref())];
        if expr.contains('\n') {
            continue;
        }
        out.push(Ret {
            line: line_start..line_end,
            indent: indent.to_string(),
            expr: expr.to_string(),
        });
    }
    out
}

/// `code` with `ret`'s line replaced by `lines` (indented like it) and `tail` appended.
fn splice(code: &str, ret: &Ret, lines: &[String], tail: &str) -> String {
    let body = lines
        .iter()
        .map(|l| format!("{}{l}", ret.indent))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = format!(
        "{}{}{}",
        &code[..ret.line.start],
        body,
        &code[ret.line.end..]
    );
    if !tail.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(tail);
    }
    out
}

const METHODS: &[&str] = &[
    "tolist()",
    "item()",
    "sum()",
    "mean()",
    "astype(float)",
    "reshape(-1)",
    "flatten()",
    "copy()",
    "round(2)",
    "max()",
    "argmax()",
    "T",
    "shape",
    "ndim",
];

fn method_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let m = rng.pick(METHODS);
    match rng.below(3) {
        0 => vec![format!("return ({e}).{m}")],
        1 => vec![format!("_r = {e}"), format!("return _r.{m}")],
        _ => vec![
            format!("_r = {e}"),
            format!("_v = _r.{m}"),
            "return _v".to_string(),
        ],
    }
}

fn hasattr_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let m = rng.pick(&["tolist", "item", "sum", "shape", "ndim", "astype", "copy"]);
    let call = |v: &str| match *m {
        "shape" | "ndim" => format!("{v}.{m}"),
        "astype" => format!("{v}.astype(float)"),
        _ => format!("{v}.{m}()"),
    };
    let other = *rng.pick(&["item()", "tolist()", "ITSELF", "LIST", "FLOAT"]);
    let alt = |v: &str| match other {
        "ITSELF" => v.to_string(),
        "LIST" => format!("list({v})"),
        "FLOAT" => format!("float({v})"),
        o => format!("{v}.{o}"),
    };
    match rng.below(5) {
        // The miss: the value computed three times.
        0 => vec![format!(
            "return {} if hasattr({e}, '{m}') else {}",
            call(&format!("({e})")),
            alt(&format!("({e})"))
        )],
        1 => vec![
            format!("_r = {e}"),
            format!("if hasattr(_r, '{m}'):"),
            format!("    return {}", call("_r")),
            format!("return {}", alt("_r")),
        ],
        2 => vec![
            format!("_r = {e}"),
            format!("if not hasattr(_r, '{m}'):"),
            format!("    return {}", alt("_r")),
            format!("return {}", call("_r")),
        ],
        3 => vec![
            format!("_r = {e}"),
            format!("return hasattr(_r, '{m}') and {}", call("_r")),
        ],
        _ => vec![
            format!("_r = {e}"),
            format!("if hasattr(_r, '{m}'):"),
            format!("    _r = {}", call("_r")),
            "else:".to_string(),
            format!("    _r = {}", alt("_r")),
            "return _r".to_string(),
        ],
    }
}

fn isinstance_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let ty = *rng.pick(&[
        "(int, float)",
        "list",
        "(list, tuple)",
        "float",
        "zwc.ZWCArray",
    ]);
    let yes = *rng.pick(&["float(_r)", "_r", "list(_r)", "_r.tolist()", "_r.item()"]);
    let no = *rng.pick(&["_r.tolist()", "_r", "list(_r)", "_r.item()", "float(_r)"]);
    match rng.below(3) {
        0 => vec![
            format!("_r = {e}"),
            format!("if isinstance(_r, {ty}):"),
            format!("    return {yes}"),
            format!("return {no}"),
        ],
        1 => vec![
            format!("_r = {e}"),
            format!("return {yes} if isinstance(_r, {ty}) else {no}"),
        ],
        _ => vec![
            format!("_r = {e}"),
            format!("if not isinstance(_r, {ty}):"),
            format!("    return {no}"),
            format!("return {yes}"),
        ],
    }
}

fn try_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let handler = *rng.pick(&[
        "except AttributeError:",
        "except TypeError:",
        "except Exception:",
        "except ValueError:",
        "except (AttributeError, TypeError):",
        "except:",
        "except KeyError:",
    ]);
    let risky = *rng.pick(&[
        "_r.tolist()",
        "_r.item()",
        "float(_r)",
        "_r.sum()",
        "-_r",
        "_r % 2",
    ]);
    let fallback = *rng.pick(&["_r", "list(_r)", "_r.tolist()", "None"]);
    vec![
        format!("_r = {e}"),
        "try:".to_string(),
        format!("    return {risky}"),
        handler.to_string(),
        format!("    return {fallback}"),
    ]
}

fn guard_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let (test, yes) = *rng.pick(&[
        ("_r.ndim == 0", "float(_r)"),
        ("_r.ndim == 0", "_r.item()"),
        ("_r.size == 1", "_r.item()"),
        ("_r.size == 1", "float(_r)"),
        ("_r.shape == ()", "float(_r)"),
        ("len(_r.shape) == 0", "float(_r)"),
        ("_r.ndim > 0", "list(_r)"),
        ("_r.ndim >= 1", "_r.tolist()"),
        ("_r.ndim == 1", "[float(v) for v in _r]"),
        ("not _r.shape", "_r.item()"),
    ]);
    let no = *rng.pick(&["_r.tolist()", "_r", "list(_r)", "float(_r)", "_r.item()"]);
    match rng.below(3) {
        0 => vec![
            format!("_r = {e}"),
            format!("if {test}:"),
            format!("    return {yes}"),
            format!("return {no}"),
        ],
        1 => vec![
            format!("_r = {e}"),
            format!("return {yes} if {test} else {no}"),
        ],
        _ => vec![
            format!("_r = {e}"),
            format!("if {test}:"),
            format!("    return {yes}"),
            "else:".to_string(),
            format!("    return {no}"),
        ],
    }
}

fn loop_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let use_ = *rng.pick(&[
        "_x.tolist()",
        "float(_x)",
        "_x * 2",
        "round(_x, 2)",
        "_x.item()",
        "_x",
        "-_x",
        "abs(_x)",
        "int(_x)",
        "list(_x)",
    ]);
    match rng.below(3) {
        0 => vec![
            format!("_r = {e}"),
            "_out = []".to_string(),
            "for _x in _r:".to_string(),
            format!("    _out.append({use_})"),
            "return _out".to_string(),
        ],
        1 => vec![format!("return [{use_} for _x in {e}]")],
        _ => vec![
            format!("_r = {e}"),
            "_out = []".to_string(),
            "for _i in range(len(_r)):".to_string(),
            "    _x = _r[_i]".to_string(),
            format!("    _out.append({use_})"),
            "return _out".to_string(),
        ],
    }
}

fn op_lines(rng: &mut Rng, e: &str) -> Vec<String> {
    let form = *rng.pick(&[
        "-{}",
        "{} % 2",
        "{} // 2",
        "abs({})",
        "round({}, 2)",
        "float({})",
        "int({})",
        "{0} @ {0}",
        "~{}",
        "{} * 2",
        "{} + 1",
        "round({})",
    ]);
    let at = |v: &str| form.replace("{0}", v).replace("{}", v);
    match rng.below(3) {
        0 => vec![format!("return {}", at(&format!("({e})")))],
        1 => vec![format!("_r = {e}"), format!("return {}", at("_r"))],
        _ => vec![
            format!("_r = {e}"),
            format!("_r {}= 3", rng.pick(&["%", "//", "+", "*", "-"])),
            "return _r".to_string(),
        ],
    }
}

fn helper(rng: &mut Rng, e: &str) -> (Vec<String>, String) {
    let body = *rng.pick(&[
        "return v.tolist()",
        "return v",
        "return float(v)",
        "return [x for x in v]",
        "return -v",
        "return v.item()",
        "return list(v)",
        "out = zwc.CONS(v)\n    return out.tolist()",
        "return zwc.CONS(v)",
    ]);
    let call = *rng.pick(&["_h({e})", "_h({e}).tolist()", "list(_h({e}))", "_h({e})"]);
    (
        vec![format!("return {}", call.replace("{e}", e))],
        format!("def _h(v):\n    {body}\n"),
    )
}

/// Numbers where the test inputs pass lists: `a=[[1, 2], [3, 4]]` becomes `a=1`.
pub fn scalar_cases(cases: &[TestCase]) -> Option<Vec<TestCase>> {
    let mut changed = false;
    let out = cases
        .iter()
        .map(|c| {
            let mut s = String::new();
            let text = c.input.as_str();
            let mut i = 0;
            let bytes = text.as_bytes();
            while i < bytes.len() {
                if bytes[i] == b'['
                    && text[..i].trim_end().ends_with('=')
                    && let Some(end) = matching_bracket(text, i)
                {
                    let inner = &text[i..=end];
                    let number: String = inner
                        .trim_start_matches(['[', ' '])
                        .chars()
                        .take_while(|ch| ch.is_ascii_digit() || matches!(ch, '.' | '-' | 'e'))
                        .collect();
                    if !number.is_empty() && number.parse::<f64>().is_ok() {
                        s.push_str(&number);
                        changed = true;
                        i = end + 1;
                        continue;
                    }
                }
                s.push(bytes[i] as char);
                i += 1;
            }
            TestCase {
                input: if s.is_ascii() { s } else { c.input.clone() },
                output: c.output.clone(),
            }
        })
        .collect();
    changed.then_some(out)
}

fn matching_bracket(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'\'' | b'"' => return None,
            _ => {}
        }
    }
    None
}

/// Every `zwc.name` (not `zwc.rfx`) in the code: byte range of `name`.
fn zwc_names(code: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("zwc.") {
        if i > 0
            && (code.as_bytes()[i - 1].is_ascii_alphanumeric() || code.as_bytes()[i - 1] == b'_')
        {
            continue;
        }
        let start = i + 4;
        let len = code[start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if len > 0 && &code[start..start + len] != "rfx" {
            out.push(start..start + len);
        }
    }
    out
}

/// The generator over a set of seed solutions and the API their zwc names come from.
pub struct Generator<'a> {
    pub api: &'a ApiMap,
    /// Short zwc names of real functions (`kocito`) and NumPy short names (`mean`).
    zwc_shorts: Vec<String>,
    numpy_shorts: Vec<String>,
    /// The zwc name of `np.array` (what `zwc.CONS` in a helper becomes).
    constructor: String,
}

impl<'a> Generator<'a> {
    pub fn new(api: &'a ApiMap) -> Generator<'a> {
        let zwc_shorts = api
            .zwc_to_numpy
            .keys()
            .filter_map(|q| q.strip_prefix("zwc."))
            .filter(|s| !s.contains('.'))
            .map(str::to_string)
            .collect();
        let numpy_shorts = api
            .numpy_to_zwc
            .keys()
            .filter_map(|q| q.strip_prefix("np."))
            .filter(|s| !s.contains('.'))
            .map(str::to_string)
            .collect();
        let constructor = api
            .zwc_name("np.array")
            .and_then(|z| z.strip_prefix("zwc."))
            .unwrap_or("array")
            .to_string();
        Generator {
            api,
            zwc_shorts,
            numpy_shorts,
            constructor,
        }
    }

    /// One mutation of `code` of `family`, or `None` when the code offers it no place.
    pub fn mutate(
        &self,
        rng: &mut Rng,
        family: &'static str,
        code: &str,
        cases: &[TestCase],
        origin: &str,
    ) -> Option<Program> {
        let program = |code: String, cases: Vec<TestCase>| Program {
            code,
            cases,
            origin: origin.to_string(),
            family,
        };
        if family == "swap" {
            let names = zwc_names(code);
            if names.is_empty() {
                return None;
            }
            let at = rng.pick(&names).clone();
            let old = &code[at.clone()];
            let new = match rng.below(4) {
                0 | 1 => rng.pick(&self.zwc_shorts).clone(),
                2 => rng.pick(&self.numpy_shorts).clone(),
                _ => format!("{old}x"),
            };
            let out = format!("{}{}{}", &code[..at.start], new, &code[at.end..]);
            return Some(program(out, cases.to_vec()));
        }
        let returns = entry_returns(code);
        if returns.is_empty() {
            return None;
        }
        let ret = rng.pick(&returns);
        let e = ret.expr.as_str();
        let (lines, tail, cases) = match family {
            "method" => (method_lines(rng, e), String::new(), cases.to_vec()),
            "hasattr" => (hasattr_lines(rng, e), String::new(), cases.to_vec()),
            "isinstance" => (isinstance_lines(rng, e), String::new(), cases.to_vec()),
            "try" => (try_lines(rng, e), String::new(), cases.to_vec()),
            "guard" => (guard_lines(rng, e), String::new(), cases.to_vec()),
            "loop" => (loop_lines(rng, e), String::new(), cases.to_vec()),
            "op" => (op_lines(rng, e), String::new(), cases.to_vec()),
            "helper" => {
                let (lines, tail) = helper(rng, e);
                let tail = tail.replace("CONS", &self.constructor);
                (lines, tail, cases.to_vec())
            }
            "scalar" => {
                let scalar = scalar_cases(cases)?;
                let lines = match rng.below(4) {
                    0 => vec![format!("return {e}")],
                    1 => method_lines(rng, e),
                    2 => guard_lines(rng, e),
                    _ => hasattr_lines(rng, e),
                };
                (lines, String::new(), scalar)
            }
            _ => return None,
        };
        Some(program(splice(code, ret, &lines, &tail), cases))
    }
}
