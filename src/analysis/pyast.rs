//! The one place that knows the Python parser (rustpython-parser 0.4): parsing,
//! positions, and a complete walk over every node in CPython's `ast.walk` order.
//! Other analysis modules use the AST types re-exported here, so swapping the
//! parser means changing this module and the type paths only.

pub use rustpython_parser::ast;
use rustpython_parser::ast::Ranged;
use rustpython_parser::{Parse, ParseErrorType};

/// A parsed module: its top-level statements, and how deep the tree is.
///
/// Dropping a deep tree takes it apart with a loop: the AST types' own drop recurses once
/// per nesting level, which overflows a thread's stack on a 100,000-term `+` chain or a
/// deep `-` / `[` nesting that the (table-driven) parser itself accepts. A shallow tree
/// (nearly every one) is dropped as usual.
#[derive(Debug, Default)]
pub struct Suite {
    stmts: Vec<ast::Stmt>,
    depth: usize,
}

/// Trees up to this deep are dropped by their own (recursive) drop: a few hundred nested
/// calls fit any thread's stack.
const RECURSIVE_DROP_DEPTH: usize = 256;

impl Suite {
    /// The longest chain of AST nodes from the module through this suite (the module
    /// counted), as CPython's `ast2obj` recursion counts it (operators and contexts not
    /// counted); computed once, when the suite is parsed.
    pub fn depth(&self) -> usize {
        self.depth
    }
}

impl std::ops::Deref for Suite {
    type Target = Vec<ast::Stmt>;
    fn deref(&self) -> &Vec<ast::Stmt> {
        &self.stmts
    }
}

impl Drop for Suite {
    fn drop(&mut self) {
        if self.depth > RECURSIVE_DROP_DEPTH {
            dismantle(std::mem::take(&mut self.stmts));
        }
    }
}

/// An owned node on the dismantling stack.
enum Owned {
    Stmt(ast::Stmt),
    Expr(ast::Expr),
    Pattern(ast::Pattern),
}

/// Drops `stmts` without recursion: every node's children are moved onto a heap stack
/// before the node itself is dropped, so no drop ever sees a nested child.
fn dismantle(stmts: Vec<ast::Stmt>) {
    use ast::{Expr as E, Pattern as P, Stmt as S};
    let mut stack: Vec<Owned> = stmts.into_iter().map(Owned::Stmt).collect();
    fn ex(stack: &mut Vec<Owned>, es: impl IntoIterator<Item = ast::Expr>) {
        stack.extend(es.into_iter().map(Owned::Expr));
    }
    fn bx(stack: &mut Vec<Owned>, e: Option<Box<ast::Expr>>) {
        if let Some(e) = e {
            stack.push(Owned::Expr(*e));
        }
    }
    fn st(stack: &mut Vec<Owned>, ss: Vec<ast::Stmt>) {
        stack.extend(ss.into_iter().map(Owned::Stmt));
    }
    fn arguments(stack: &mut Vec<Owned>, a: ast::Arguments) {
        let ast::Arguments {
            posonlyargs,
            args,
            vararg,
            kwonlyargs,
            kwarg,
            ..
        } = a;
        for a in posonlyargs.into_iter().chain(args).chain(kwonlyargs) {
            bx(stack, a.def.annotation);
            bx(stack, a.default);
        }
        for a in vararg.into_iter().chain(kwarg) {
            bx(stack, a.annotation);
        }
    }
    fn comprehensions(stack: &mut Vec<Owned>, gens: Vec<ast::Comprehension>) {
        for g in gens {
            ex(stack, [g.target, g.iter]);
            ex(stack, g.ifs);
        }
    }
    fn type_params(stack: &mut Vec<Owned>, params: Vec<ast::TypeParam>) {
        for p in params {
            if let ast::TypeParam::TypeVar(v) = p {
                bx(stack, v.bound);
            }
        }
    }
    while let Some(node) = stack.pop() {
        match node {
            Owned::Stmt(s) => match s {
                S::FunctionDef(f) => {
                    arguments(&mut stack, *f.args);
                    st(&mut stack, f.body);
                    ex(&mut stack, f.decorator_list);
                    bx(&mut stack, f.returns);
                    type_params(&mut stack, f.type_params);
                }
                S::AsyncFunctionDef(f) => {
                    arguments(&mut stack, *f.args);
                    st(&mut stack, f.body);
                    ex(&mut stack, f.decorator_list);
                    bx(&mut stack, f.returns);
                    type_params(&mut stack, f.type_params);
                }
                S::ClassDef(c) => {
                    ex(&mut stack, c.bases);
                    ex(&mut stack, c.keywords.into_iter().map(|k| k.value));
                    st(&mut stack, c.body);
                    ex(&mut stack, c.decorator_list);
                    type_params(&mut stack, c.type_params);
                }
                S::Return(r) => bx(&mut stack, r.value),
                S::Delete(d) => ex(&mut stack, d.targets),
                S::Assign(a) => {
                    ex(&mut stack, a.targets);
                    ex(&mut stack, [*a.value]);
                }
                S::TypeAlias(t) => {
                    ex(&mut stack, [*t.name, *t.value]);
                    type_params(&mut stack, t.type_params);
                }
                S::AugAssign(a) => ex(&mut stack, [*a.target, *a.value]),
                S::AnnAssign(a) => {
                    ex(&mut stack, [*a.target, *a.annotation]);
                    bx(&mut stack, a.value);
                }
                S::For(f) => {
                    ex(&mut stack, [*f.target, *f.iter]);
                    st(&mut stack, f.body);
                    st(&mut stack, f.orelse);
                }
                S::AsyncFor(f) => {
                    ex(&mut stack, [*f.target, *f.iter]);
                    st(&mut stack, f.body);
                    st(&mut stack, f.orelse);
                }
                S::While(w) => {
                    ex(&mut stack, [*w.test]);
                    st(&mut stack, w.body);
                    st(&mut stack, w.orelse);
                }
                S::If(i) => {
                    ex(&mut stack, [*i.test]);
                    st(&mut stack, i.body);
                    st(&mut stack, i.orelse);
                }
                S::With(w) => {
                    for item in w.items {
                        ex(&mut stack, [item.context_expr]);
                        bx(&mut stack, item.optional_vars);
                    }
                    st(&mut stack, w.body);
                }
                S::AsyncWith(w) => {
                    for item in w.items {
                        ex(&mut stack, [item.context_expr]);
                        bx(&mut stack, item.optional_vars);
                    }
                    st(&mut stack, w.body);
                }
                S::Match(m) => {
                    ex(&mut stack, [*m.subject]);
                    for case in m.cases {
                        stack.push(Owned::Pattern(case.pattern));
                        bx(&mut stack, case.guard);
                        st(&mut stack, case.body);
                    }
                }
                S::Raise(r) => {
                    bx(&mut stack, r.exc);
                    bx(&mut stack, r.cause);
                }
                // `try` and `try …: except*` have the same parts.
                S::Try(ast::StmtTry {
                    body,
                    handlers,
                    orelse,
                    finalbody,
                    ..
                })
                | S::TryStar(ast::StmtTryStar {
                    body,
                    handlers,
                    orelse,
                    finalbody,
                    ..
                }) => {
                    st(&mut stack, body);
                    for ast::ExceptHandler::ExceptHandler(h) in handlers {
                        bx(&mut stack, h.type_);
                        st(&mut stack, h.body);
                    }
                    st(&mut stack, orelse);
                    st(&mut stack, finalbody);
                }
                S::Assert(a) => {
                    ex(&mut stack, [*a.test]);
                    bx(&mut stack, a.msg);
                }
                S::Expr(e) => ex(&mut stack, [*e.value]),
                S::Import(_)
                | S::ImportFrom(_)
                | S::Global(_)
                | S::Nonlocal(_)
                | S::Pass(_)
                | S::Break(_)
                | S::Continue(_) => {}
            },
            Owned::Expr(e) => match e {
                E::BoolOp(b) => ex(&mut stack, b.values),
                E::NamedExpr(n) => ex(&mut stack, [*n.target, *n.value]),
                E::BinOp(b) => ex(&mut stack, [*b.left, *b.right]),
                E::UnaryOp(u) => ex(&mut stack, [*u.operand]),
                E::Lambda(l) => {
                    arguments(&mut stack, *l.args);
                    ex(&mut stack, [*l.body]);
                }
                E::IfExp(i) => ex(&mut stack, [*i.test, *i.body, *i.orelse]),
                E::Dict(d) => {
                    ex(&mut stack, d.keys.into_iter().flatten());
                    ex(&mut stack, d.values);
                }
                E::Set(s) => ex(&mut stack, s.elts),
                E::ListComp(c) => {
                    ex(&mut stack, [*c.elt]);
                    comprehensions(&mut stack, c.generators);
                }
                E::SetComp(c) => {
                    ex(&mut stack, [*c.elt]);
                    comprehensions(&mut stack, c.generators);
                }
                E::DictComp(c) => {
                    ex(&mut stack, [*c.key, *c.value]);
                    comprehensions(&mut stack, c.generators);
                }
                E::GeneratorExp(c) => {
                    ex(&mut stack, [*c.elt]);
                    comprehensions(&mut stack, c.generators);
                }
                E::Await(a) => ex(&mut stack, [*a.value]),
                E::Yield(y) => bx(&mut stack, y.value),
                E::YieldFrom(y) => ex(&mut stack, [*y.value]),
                E::Compare(c) => {
                    ex(&mut stack, [*c.left]);
                    ex(&mut stack, c.comparators);
                }
                E::Call(c) => {
                    ex(&mut stack, [*c.func]);
                    ex(&mut stack, c.args);
                    ex(&mut stack, c.keywords.into_iter().map(|k| k.value));
                }
                E::FormattedValue(f) => {
                    ex(&mut stack, [*f.value]);
                    bx(&mut stack, f.format_spec);
                }
                E::JoinedStr(j) => ex(&mut stack, j.values),
                E::Attribute(a) => ex(&mut stack, [*a.value]),
                E::Subscript(s) => ex(&mut stack, [*s.value, *s.slice]),
                E::Starred(s) => ex(&mut stack, [*s.value]),
                E::List(l) => ex(&mut stack, l.elts),
                E::Tuple(t) => ex(&mut stack, t.elts),
                E::Slice(s) => {
                    bx(&mut stack, s.lower);
                    bx(&mut stack, s.upper);
                    bx(&mut stack, s.step);
                }
                E::Constant(_) | E::Name(_) => {}
            },
            Owned::Pattern(p) => match p {
                P::MatchValue(v) => ex(&mut stack, [*v.value]),
                P::MatchSingleton(_) | P::MatchStar(_) => {}
                P::MatchSequence(s) => stack.extend(s.patterns.into_iter().map(Owned::Pattern)),
                P::MatchMapping(m) => {
                    ex(&mut stack, m.keys);
                    stack.extend(m.patterns.into_iter().map(Owned::Pattern));
                }
                P::MatchClass(c) => {
                    ex(&mut stack, [*c.cls]);
                    stack.extend(
                        c.patterns
                            .into_iter()
                            .chain(c.kwd_patterns)
                            .map(Owned::Pattern),
                    );
                }
                P::MatchAs(a) => {
                    if let Some(p) = a.pattern {
                        stack.push(Owned::Pattern(*p));
                    }
                }
                P::MatchOr(o) => stack.extend(o.patterns.into_iter().map(Owned::Pattern)),
            },
        }
    }
}

/// Why the parser rejected the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFailure {
    /// The parser's own message.
    pub message: String,
    /// The token the parser did not expect, as it prints it (`'='`, `Newline`, `Indent`).
    pub unexpected_token: Option<String>,
    /// The parser expected an indented block here.
    pub expected_indent: bool,
    /// The input ended in the middle of a statement.
    pub unexpected_eof: bool,
    /// Byte offset of the error in the source.
    pub offset: usize,
    /// The error is in an f-string that Python 3.12 (PEP 701) would accept,
    /// so CPython may disagree with this parser here.
    pub maybe_py312_fstring: bool,
    /// CPython 3.11's own message, when this failure is one it is known to give
    /// (Python 3.12-only syntax that this parser accepts but 3.11 rejects).
    pub cpython_message: Option<String>,
    /// The tree parsed but is nested deeper than CPython builds (its depth in nodes):
    /// a RecursionError, not a syntax error.
    pub too_deep: Option<usize>,
}

/// Parses `source` as a Python 3.11 module (the grader's Python): syntax this parser
/// accepts but 3.11 rejects (PEP 695 type parameters and `type` statements, backslashes
/// inside f-string expressions) fails too.
pub fn parse_suite(source: &str) -> Result<Suite, ParseFailure> {
    if let Some((offset, message)) = tokenizer_refusal(source) {
        return Err(ParseFailure {
            message: message.to_string(),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset,
            maybe_py312_fstring: false,
            cpython_message: None,
            too_deep: None,
        });
    }
    let stmts = parse_suite_any(source)?;
    let depth = depth_of(&stmts);
    let suite = Suite { stmts, depth };
    if depth > AST_DEPTH_CEILING {
        // Dropped without recursion (see `Suite`'s `Drop`).
        drop(suite);
        return Err(ParseFailure {
            message: RECURSION_IN_AST_CONSTRUCTION.to_string(),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset: 0,
            maybe_py312_fstring: false,
            cpython_message: None,
            too_deep: Some(depth),
        });
    }
    match py312_only_syntax(source, &suite) {
        Some((offset, message)) => Err(ParseFailure {
            message: format!("{message} (accepted from Python 3.12 on)"),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset,
            maybe_py312_fstring: false,
            cpython_message: Some(message.to_string()),
            too_deep: None,
        }),
        None => Ok(suite),
    }
}

/// CPython's message when building the `ast` objects of a too deeply nested tree fails.
pub const RECURSION_IN_AST_CONSTRUCTION: &str =
    "maximum recursion depth exceeded during ast construction";

/// Nesting of AST nodes that CPython 3.11 refuses to build at any call depth (three times
/// the default recursion limit); deeper trees are refused before any analysis walks them,
/// and CPython rejects a little less deep ones depending on where `ast.parse` is called
/// from (see `static_check`).
pub const AST_DEPTH_CEILING: usize = 3 * PY_RECURSION_LIMIT;

/// CPython's tokenizer refuses more than this many open brackets (its `MAXLEVEL`).
pub const MAX_BRACKET_NESTING: usize = 200;

/// Errors CPython's tokenizer raises that this parser may not: brackets nested past
/// [`MAX_BRACKET_NESTING`], and tabs and spaces mixed inconsistently (TabError). Scanned
/// only when the source could have them.
fn tokenizer_refusal(source: &str) -> Option<(usize, &'static str)> {
    let opening = source
        .bytes()
        .filter(|b| matches!(b, b'(' | b'[' | b'{'))
        .count();
    if opening < MAX_BRACKET_NESTING && !source.contains('\t') {
        return None;
    }
    let (line, message) = scan_tokens(source).error?;
    let known = [TOO_MANY_BRACKETS, TAB_ERROR]
        .into_iter()
        .find(|m| *m == message)?;
    let offset = LineIndex::new(source).line_start(line).unwrap_or(0);
    Some((offset, known))
}

const TAB_ERROR: &str = "inconsistent use of tabs and spaces in indentation";
const TOO_MANY_BRACKETS: &str = "too many nested parentheses";

/// The first 3.12-only construct (by position) and CPython 3.11's message for it.
fn py312_only_syntax(source: &str, suite: &Suite) -> Option<(usize, &'static str)> {
    if !may_have_py312_only_syntax(source) {
        return None;
    }
    walk_suite(suite)
        .into_iter()
        .filter_map(|n| match n {
            Node::Expr(ast::Expr::FormattedValue(f)) => {
                let expr = source.get(start_of(&*f.value)..end_of(&*f.value))?;
                expr.contains('\\').then(|| {
                    (
                        start_of(&*f.value),
                        "f-string expression part cannot include a backslash",
                    )
                })
            }
            // 3.11 expects the parameter list right after the name.
            Node::Stmt(ast::Stmt::FunctionDef(f)) if !f.type_params.is_empty() => {
                Some((start_of(&f.type_params[0]), "expected '('"))
            }
            Node::Stmt(ast::Stmt::AsyncFunctionDef(f)) if !f.type_params.is_empty() => {
                Some((start_of(&f.type_params[0]), "expected '('"))
            }
            Node::Stmt(ast::Stmt::ClassDef(c)) if !c.type_params.is_empty() => {
                Some((start_of(&c.type_params[0]), "invalid syntax"))
            }
            Node::Stmt(s @ ast::Stmt::TypeAlias(_)) => Some((start_of(s), "invalid syntax")),
            _ => None,
        })
        .min_by_key(|(offset, _)| *offset)
}

/// What follows `word` at the start of `text` when whitespace (tabs too) comes after it.
fn after_keyword<'t>(text: &'t str, word: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(word)?;
    rest.starts_with(char::is_whitespace).then_some(rest)
}

/// Whether `source` can hold what [`py312_only_syntax`] looks for, read from the text: a
/// backslash (inside an f-string), a `def`/`class` name followed by `[`, or the word
/// `type` followed by whitespace. False means it surely holds none (most code), and the
/// tree need not be walked.
fn may_have_py312_only_syntax(source: &str) -> bool {
    if source.contains('\\') {
        return true;
    }
    source.lines().any(|line| {
        // `type` as a word followed by whitespace (`type X = int`, after `;` or `:` too).
        let alias = line.match_indices("type").any(|(i, _)| {
            let before = line[..i].chars().next_back();
            let after = line[i + 4..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && after.is_some_and(char::is_whitespace)
        });
        if alias {
            return true;
        }
        let t = line.trim_start();
        let t = after_keyword(t, "async").map_or(t, str::trim_start);
        let rest = after_keyword(t, "def").or_else(|| after_keyword(t, "class"));
        rest.is_some_and(|r| {
            let after_name = r
                .trim_start()
                .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
            after_name.trim_start().starts_with('[')
        })
    })
}

/// Sources up to this size parse on the caller's thread: the parser's stack use grows with
/// the nesting of the source, which cannot exceed its length (about 128 bytes of stack per
/// byte of source, measured on a debug build: `-` chains, `a.b.c` chains, `[[[`, failed
/// parses dropping half-built trees), and 4 KiB of source stays well inside a 2 MiB thread.
const INLINE_PARSE_BYTES: usize = 4 * 1024;

/// Parses with everything this parser accepts. Larger sources parse on a thread of their
/// own with a stack sized to the source (twice the measured need; 1 GiB for the longest
/// line a rollout file may hold), so no input overflows the caller's stack.
fn parse_suite_any(source: &str) -> Result<Vec<ast::Stmt>, ParseFailure> {
    if source.len() <= INLINE_PARSE_BYTES {
        return parse_suite_here(source);
    }
    let stack = (1 << 20) + source.len().saturating_mul(256).min(1 << 30);
    let owned = source.to_owned();
    let joined = std::thread::Builder::new()
        .name("sebx-parse".to_owned())
        .stack_size(stack)
        .spawn(move || parse_suite_here(&owned))
        .map(|handle| handle.join());
    match joined {
        Ok(Ok(result)) => result,
        // The parser panicked, or no thread could be made: say so as a parse failure.
        Ok(Err(_)) | Err(_) => Err(ParseFailure {
            message: "the parser could not handle this program (too large or too deeply nested)"
                .to_owned(),
            unexpected_token: None,
            expected_indent: false,
            unexpected_eof: false,
            offset: 0,
            maybe_py312_fstring: false,
            cpython_message: None,
            too_deep: None,
        }),
    }
}

fn parse_suite_here(source: &str) -> Result<Vec<ast::Stmt>, ParseFailure> {
    ast::Suite::parse(source, "<unknown>").map_err(|e| {
        let offset = usize::from(e.offset).min(source.len());
        let maybe_py312_fstring = matches!(
            &e.error,
            ParseErrorType::Lexical(rustpython_parser::lexer::LexicalErrorType::FStringError(_))
        ) || line_has_fstring_at(source, offset);
        let (unexpected_token, expected_indent) = match &e.error {
            ParseErrorType::UnrecognizedToken(tok, expected) => {
                (Some(tok.to_string()), expected.as_deref() == Some("Indent"))
            }
            ParseErrorType::ExtraToken(tok) => (Some(tok.to_string()), false),
            _ => (None, false),
        };
        ParseFailure {
            message: e.error.to_string(),
            cpython_message: None,
            unexpected_token,
            expected_indent,
            unexpected_eof: matches!(
                e.error,
                ParseErrorType::Eof
                    | ParseErrorType::Lexical(rustpython_parser::lexer::LexicalErrorType::Eof)
            ),
            offset,
            maybe_py312_fstring,
            too_deep: None,
        }
    })
}

/// Whether the line holding `offset` contains an f-string prefix (`f"`, `rf'`…).
fn line_has_fstring_at(source: &str, offset: usize) -> bool {
    let start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = source[offset..]
        .find('\n')
        .map_or(source.len(), |i| offset + i);
    let line = source[start..end].to_ascii_lowercase();
    let bytes = line.as_bytes();
    bytes.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'f'
            && (w[1] == b'"' || w[1] == b'\'')
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'r')
    })
}

/// Byte offset → 1-based line and 1-based column counted in characters.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based (line, column) of byte `offset` in `source` (the text this index was built from).
    pub fn position(&self, source: &str, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|s| *s <= offset).max(1);
        let start = self.starts[line - 1];
        let end = offset.min(source.len());
        let col = source
            .get(start..end)
            .map_or(end - start, |s| s.chars().count())
            + 1;
        (line, col)
    }

    /// Byte offset where 1-based `line` starts, if it exists.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        line.checked_sub(1)
            .and_then(|i| self.starts.get(i).copied())
    }
}

/// Start byte offset of any ranged node.
pub fn start_of<T: Ranged>(node: &T) -> usize {
    usize::from(node.start())
}

/// End byte offset of any ranged node.
pub fn end_of<T: Ranged>(node: &T) -> usize {
    usize::from(node.end())
}

/// A reference to any AST node, for walking.
#[derive(Debug, Clone, Copy)]
pub enum Node<'a> {
    Stmt(&'a ast::Stmt),
    Expr(&'a ast::Expr),
    ExceptHandler(&'a ast::ExceptHandler),
    MatchCase(&'a ast::MatchCase),
    Pattern(&'a ast::Pattern),
    Comprehension(&'a ast::Comprehension),
    Arguments(&'a ast::Arguments),
    Arg(&'a ast::Arg),
    Keyword(&'a ast::Keyword),
    Alias(&'a ast::Alias),
    WithItem(&'a ast::WithItem),
    TypeParam(&'a ast::TypeParam),
}

/// Direct children of `node`, in the order of CPython's `ast.iter_child_nodes`
/// (field order of the node class), so a breadth-first walk visits nodes as
/// `ast.walk` does.
pub fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    push_children(node, &mut out);
    out
}

/// Appends `node`'s children to `out` ([`children`] without a vector of its own).
pub fn push_children<'a>(node: Node<'a>, out: &mut Vec<Node<'a>>) {
    match node {
        Node::Stmt(s) => stmt_children(s, out),
        Node::Expr(e) => expr_children(e, out),
        Node::ExceptHandler(ast::ExceptHandler::ExceptHandler(h)) => {
            push_opt(out, h.type_.as_deref());
            stmts(out, &h.body);
        }
        Node::MatchCase(c) => {
            out.push(Node::Pattern(&c.pattern));
            push_opt(out, c.guard.as_deref());
            stmts(out, &c.body);
        }
        Node::Pattern(p) => pattern_children(p, out),
        Node::Comprehension(c) => {
            out.push(Node::Expr(&c.target));
            out.push(Node::Expr(&c.iter));
            exprs(out, &c.ifs);
        }
        Node::Arguments(a) => {
            // CPython: posonlyargs, args, vararg, kwonlyargs, kw_defaults, kwarg, defaults.
            for p in a.posonlyargs.iter().chain(&a.args) {
                out.push(Node::Arg(&p.def));
            }
            if let Some(v) = &a.vararg {
                out.push(Node::Arg(v));
            }
            for k in &a.kwonlyargs {
                out.push(Node::Arg(&k.def));
            }
            for k in &a.kwonlyargs {
                push_opt(out, k.default.as_deref());
            }
            if let Some(k) = &a.kwarg {
                out.push(Node::Arg(k));
            }
            for p in a.posonlyargs.iter().chain(&a.args) {
                push_opt(out, p.default.as_deref());
            }
        }
        Node::Arg(a) => push_opt(out, a.annotation.as_deref()),
        Node::Keyword(k) => out.push(Node::Expr(&k.value)),
        Node::Alias(_) => {}
        Node::WithItem(w) => {
            out.push(Node::Expr(&w.context_expr));
            push_opt(out, w.optional_vars.as_deref());
        }
        Node::TypeParam(t) => {
            if let ast::TypeParam::TypeVar(v) = t {
                push_opt(out, v.bound.as_deref());
            }
        }
    }
}

fn push_opt<'a>(out: &mut Vec<Node<'a>>, e: Option<&'a ast::Expr>) {
    if let Some(e) = e {
        out.push(Node::Expr(e));
    }
}

fn exprs<'a>(out: &mut Vec<Node<'a>>, es: &'a [ast::Expr]) {
    out.extend(es.iter().map(Node::Expr));
}

fn stmts<'a>(out: &mut Vec<Node<'a>>, ss: &'a [ast::Stmt]) {
    out.extend(ss.iter().map(Node::Stmt));
}

fn stmt_children<'a>(s: &'a ast::Stmt, out: &mut Vec<Node<'a>>) {
    use ast::Stmt as S;
    match s {
        S::FunctionDef(f) => {
            out.push(Node::Arguments(&f.args));
            stmts(out, &f.body);
            exprs(out, &f.decorator_list);
            push_opt(out, f.returns.as_deref());
            out.extend(f.type_params.iter().map(Node::TypeParam));
        }
        S::AsyncFunctionDef(f) => {
            out.push(Node::Arguments(&f.args));
            stmts(out, &f.body);
            exprs(out, &f.decorator_list);
            push_opt(out, f.returns.as_deref());
            out.extend(f.type_params.iter().map(Node::TypeParam));
        }
        S::ClassDef(c) => {
            exprs(out, &c.bases);
            out.extend(c.keywords.iter().map(Node::Keyword));
            stmts(out, &c.body);
            exprs(out, &c.decorator_list);
            out.extend(c.type_params.iter().map(Node::TypeParam));
        }
        S::Return(r) => push_opt(out, r.value.as_deref()),
        S::Delete(d) => exprs(out, &d.targets),
        S::Assign(a) => {
            exprs(out, &a.targets);
            out.push(Node::Expr(&a.value));
        }
        S::TypeAlias(t) => {
            out.push(Node::Expr(&t.name));
            out.extend(t.type_params.iter().map(Node::TypeParam));
            out.push(Node::Expr(&t.value));
        }
        S::AugAssign(a) => {
            out.push(Node::Expr(&a.target));
            out.push(Node::Expr(&a.value));
        }
        S::AnnAssign(a) => {
            out.push(Node::Expr(&a.target));
            out.push(Node::Expr(&a.annotation));
            push_opt(out, a.value.as_deref());
        }
        S::For(f) => {
            out.push(Node::Expr(&f.target));
            out.push(Node::Expr(&f.iter));
            stmts(out, &f.body);
            stmts(out, &f.orelse);
        }
        S::AsyncFor(f) => {
            out.push(Node::Expr(&f.target));
            out.push(Node::Expr(&f.iter));
            stmts(out, &f.body);
            stmts(out, &f.orelse);
        }
        S::While(w) => {
            out.push(Node::Expr(&w.test));
            stmts(out, &w.body);
            stmts(out, &w.orelse);
        }
        S::If(i) => {
            out.push(Node::Expr(&i.test));
            stmts(out, &i.body);
            stmts(out, &i.orelse);
        }
        S::With(w) => {
            out.extend(w.items.iter().map(Node::WithItem));
            stmts(out, &w.body);
        }
        S::AsyncWith(w) => {
            out.extend(w.items.iter().map(Node::WithItem));
            stmts(out, &w.body);
        }
        S::Match(m) => {
            out.push(Node::Expr(&m.subject));
            out.extend(m.cases.iter().map(Node::MatchCase));
        }
        S::Raise(r) => {
            push_opt(out, r.exc.as_deref());
            push_opt(out, r.cause.as_deref());
        }
        S::Try(ast::StmtTry {
            body,
            handlers,
            orelse,
            finalbody,
            ..
        })
        | S::TryStar(ast::StmtTryStar {
            body,
            handlers,
            orelse,
            finalbody,
            ..
        }) => {
            stmts(out, body);
            out.extend(handlers.iter().map(Node::ExceptHandler));
            stmts(out, orelse);
            stmts(out, finalbody);
        }
        S::Assert(a) => {
            out.push(Node::Expr(&a.test));
            push_opt(out, a.msg.as_deref());
        }
        S::Import(i) => out.extend(i.names.iter().map(Node::Alias)),
        S::ImportFrom(i) => out.extend(i.names.iter().map(Node::Alias)),
        S::Expr(e) => out.push(Node::Expr(&e.value)),
        S::Global(_) | S::Nonlocal(_) | S::Pass(_) | S::Break(_) | S::Continue(_) => {}
    }
}

fn expr_children<'a>(e: &'a ast::Expr, out: &mut Vec<Node<'a>>) {
    use ast::Expr as E;
    match e {
        E::BoolOp(b) => exprs(out, &b.values),
        E::NamedExpr(n) => {
            out.push(Node::Expr(&n.target));
            out.push(Node::Expr(&n.value));
        }
        E::BinOp(b) => {
            out.push(Node::Expr(&b.left));
            out.push(Node::Expr(&b.right));
        }
        E::UnaryOp(u) => out.push(Node::Expr(&u.operand)),
        E::Lambda(l) => {
            out.push(Node::Arguments(&l.args));
            out.push(Node::Expr(&l.body));
        }
        E::IfExp(i) => {
            out.push(Node::Expr(&i.test));
            out.push(Node::Expr(&i.body));
            out.push(Node::Expr(&i.orelse));
        }
        E::Dict(d) => {
            out.extend(d.keys.iter().flatten().map(Node::Expr));
            exprs(out, &d.values);
        }
        E::Set(s) => exprs(out, &s.elts),
        E::ListComp(c) => {
            out.push(Node::Expr(&c.elt));
            out.extend(c.generators.iter().map(Node::Comprehension));
        }
        E::SetComp(c) => {
            out.push(Node::Expr(&c.elt));
            out.extend(c.generators.iter().map(Node::Comprehension));
        }
        E::DictComp(c) => {
            out.push(Node::Expr(&c.key));
            out.push(Node::Expr(&c.value));
            out.extend(c.generators.iter().map(Node::Comprehension));
        }
        E::GeneratorExp(c) => {
            out.push(Node::Expr(&c.elt));
            out.extend(c.generators.iter().map(Node::Comprehension));
        }
        E::Await(a) => out.push(Node::Expr(&a.value)),
        E::Yield(y) => push_opt(out, y.value.as_deref()),
        E::YieldFrom(y) => out.push(Node::Expr(&y.value)),
        E::Compare(c) => {
            out.push(Node::Expr(&c.left));
            exprs(out, &c.comparators);
        }
        E::Call(c) => {
            out.push(Node::Expr(&c.func));
            exprs(out, &c.args);
            out.extend(c.keywords.iter().map(Node::Keyword));
        }
        E::FormattedValue(f) => {
            out.push(Node::Expr(&f.value));
            push_opt(out, f.format_spec.as_deref());
        }
        E::JoinedStr(j) => exprs(out, &j.values),
        E::Constant(_) | E::Name(_) => {}
        E::Attribute(a) => out.push(Node::Expr(&a.value)),
        E::Subscript(s) => {
            out.push(Node::Expr(&s.value));
            out.push(Node::Expr(&s.slice));
        }
        E::Starred(s) => out.push(Node::Expr(&s.value)),
        E::List(l) => exprs(out, &l.elts),
        E::Tuple(t) => exprs(out, &t.elts),
        E::Slice(s) => {
            push_opt(out, s.lower.as_deref());
            push_opt(out, s.upper.as_deref());
            push_opt(out, s.step.as_deref());
        }
    }
}

fn pattern_children<'a>(p: &'a ast::Pattern, out: &mut Vec<Node<'a>>) {
    use ast::Pattern as P;
    match p {
        P::MatchValue(v) => out.push(Node::Expr(&v.value)),
        P::MatchSingleton(_) | P::MatchStar(_) => {}
        P::MatchSequence(s) => out.extend(s.patterns.iter().map(Node::Pattern)),
        P::MatchMapping(m) => {
            exprs(out, &m.keys);
            out.extend(m.patterns.iter().map(Node::Pattern));
        }
        P::MatchClass(c) => {
            out.push(Node::Expr(&c.cls));
            out.extend(c.patterns.iter().map(Node::Pattern));
            out.extend(c.kwd_patterns.iter().map(Node::Pattern));
        }
        P::MatchAs(a) => {
            if let Some(p) = &a.pattern {
                out.push(Node::Pattern(p));
            }
        }
        P::MatchOr(o) => out.extend(o.patterns.iter().map(Node::Pattern)),
    }
}

/// Every node under (and including) `roots`, breadth first, as `ast.walk` yields them.
pub fn walk_bfs<'a>(roots: impl IntoIterator<Item = Node<'a>>) -> Vec<Node<'a>> {
    // The output is the queue: node `i`'s children go to the end as it is reached.
    let mut out: Vec<Node<'a>> = roots.into_iter().collect();
    let mut i = 0;
    while i < out.len() {
        let n = out[i];
        push_children(n, &mut out);
        i += 1;
    }
    out
}

/// Every node of a module, breadth first.
pub fn walk_suite(suite: &Suite) -> Vec<Node<'_>> {
    walk_bfs(suite.iter().map(Node::Stmt))
}

/// The dotted name of `a.b.c` when it is a chain of attributes on a plain name.
pub fn dotted_name(e: &ast::Expr) -> Option<String> {
    // A loop, not recursion: chains can be 100,000 attributes long.
    let mut attrs = Vec::new();
    let mut cur = e;
    while let ast::Expr::Attribute(a) = cur {
        attrs.push(a.attr.as_str());
        cur = &a.value;
    }
    let ast::Expr::Name(n) = cur else {
        return None;
    };
    let mut out = n.id.to_string();
    for attr in attrs.iter().rev() {
        out.push('.');
        out.push_str(attr);
    }
    Some(out)
}

/// The name at the root of an attribute chain (`a` in `a.b.c`), if the chain ends in a name.
pub fn chain_root(e: &ast::Expr) -> Option<&str> {
    let mut cur = e;
    while let ast::Expr::Attribute(a) = cur {
        cur = &a.value;
    }
    match cur {
        ast::Expr::Name(n) => Some(n.id.as_str()),
        _ => None,
    }
}

/// What CPython's tokenizer would object to in a source, found by a light scan of
/// brackets, strings and comments (CPython reports these in preference to most parser errors).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenizerScan {
    /// The first error the tokenizer raises: 1-based line and CPython's message.
    pub error: Option<(usize, String)>,
    /// The innermost bracket still open at the end: its line and character.
    pub unclosed: Option<(usize, char)>,
}

/// CPython's tokenizer's indentation stacks: columns with tabs to the next multiple of 8,
/// and with tabs as one column; the two must order lines the same way (else TabError).
struct Indents {
    cols: Vec<usize>,
    alt_cols: Vec<usize>,
}

impl Default for Indents {
    fn default() -> Self {
        Indents {
            cols: vec![0],
            alt_cols: vec![0],
        }
    }
}

impl Indents {
    /// Checks the indentation of the line starting at `start` (blank and comment-only
    /// lines do not count), as CPython 3.11's tokenizer does.
    fn line(&mut self, chars: &[char], start: usize) -> Result<(), &'static str> {
        let (mut col, mut alt) = (0usize, 0usize);
        let mut i = start;
        while let Some(&c) = chars.get(i) {
            match c {
                ' ' => {
                    col += 1;
                    alt += 1;
                }
                '\t' => {
                    col = (col / 8 + 1) * 8;
                    alt += 1;
                }
                '\x0c' => {
                    col = 0;
                    alt = 0;
                }
                _ => break,
            }
            i += 1;
        }
        if matches!(chars.get(i), None | Some('#' | '\n' | '\r')) {
            return Ok(());
        }
        let (top, alt_top) = (
            *self.cols.last().unwrap_or(&0),
            *self.alt_cols.last().unwrap_or(&0),
        );
        if col == top {
            if alt != alt_top {
                return Err(TAB_ERROR);
            }
        } else if col > top {
            if alt <= alt_top {
                return Err(TAB_ERROR);
            }
            self.cols.push(col);
            self.alt_cols.push(alt);
        } else {
            while self.cols.len() > 1 && col < *self.cols.last().unwrap_or(&0) {
                self.cols.pop();
                self.alt_cols.pop();
            }
            if col != *self.cols.last().unwrap_or(&0) {
                return Err("unindent does not match any outer indentation level");
            }
            if alt != *self.alt_cols.last().unwrap_or(&0) {
                return Err(TAB_ERROR);
            }
        }
        Ok(())
    }
}

/// Scans `source` like CPython's tokenizer does for bracket, string and indentation errors.
pub fn scan_tokens(source: &str) -> TokenizerScan {
    let chars: Vec<char> = source.chars().collect();
    let last_line = source.trim_end_matches('\n').matches('\n').count() + 1;
    let mut line = 1;
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut indents = Indents::default();
    let mut i = 0;
    let error = |line: usize, msg: String| TokenizerScan {
        error: Some((line, msg)),
        unclosed: None,
    };
    if let Err(msg) = indents.line(&chars, 0) {
        return error(line, msg.to_string());
    }
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => {
                line += 1;
                // A new logical line starts only outside brackets.
                if stack.is_empty()
                    && let Err(msg) = indents.line(&chars, i + 1)
                {
                    return error(line, msg.to_string());
                }
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '\\' if chars.get(i + 1) == Some(&'\n') => {
                line += 1;
                i += 2;
                continue;
            }
            '(' | '[' | '{' => {
                if stack.len() >= MAX_BRACKET_NESTING {
                    return error(line, TOO_MANY_BRACKETS.to_string());
                }
                stack.push((c, line));
            }
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match stack.pop() {
                    None => return error(line, format!("unmatched '{c}'")),
                    Some((open, _)) if open == want => {}
                    Some((open, open_line)) => {
                        let msg = if open_line == line {
                            format!(
                                "closing parenthesis '{c}' does not match opening parenthesis '{open}'"
                            )
                        } else {
                            format!(
                                "closing parenthesis '{c}' does not match opening parenthesis '{open}' on line {open_line}"
                            )
                        };
                        return error(line, msg);
                    }
                }
            }
            '\'' | '"' => {
                let start_line = line;
                let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                i += if triple { 3 } else { 1 };
                let mut closed = false;
                while i < chars.len() {
                    let d = chars[i];
                    if d == '\\' {
                        if chars.get(i + 1) == Some(&'\n') {
                            line += 1;
                        }
                        i += 2;
                        continue;
                    }
                    if d == '\n' {
                        if !triple {
                            break;
                        }
                        line += 1;
                    }
                    if d == c
                        && (!triple
                            || (chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c)))
                    {
                        i += if triple { 3 } else { 1 };
                        closed = true;
                        break;
                    }
                    i += 1;
                }
                if !closed {
                    return if triple {
                        error(
                            start_line,
                            format!(
                                "unterminated triple-quoted string literal (detected at line {last_line})"
                            ),
                        )
                    } else {
                        error(
                            start_line,
                            format!("unterminated string literal (detected at line {start_line})"),
                        )
                    };
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    TokenizerScan {
        error: None,
        unclosed: stack.last().map(|(c, l)| (*l, *c)),
    }
}

// ---------------------------------------------------------------------------------------
// How deep the official checkers recurse (GRADER.md, "Recursion limits")
//
// CPython builds the `ast` objects recursively (one level per node, checked against three
// times the recursion limit less three times the caller's depth), and the official checks
// walk them with `ast.NodeVisitor`, which costs two Python frames per node (`visit`, then
// `generic_visit`) and three where the visitor defines `visit_X` and recurses from it.
// Operator and context objects (`ast.Add`, `ast.Load`) are nodes to a visitor too.
// These walks use explicit stacks: a tree deep enough to matter is too deep to recurse on.

/// Python's default recursion limit.
pub const PY_RECURSION_LIMIT: usize = 1000;

/// The deepest a stack of plain Python calls may be under the default limit before
/// RecursionError (measured on CPython 3.11: a `NodeVisitor` walk that makes the stack
/// 999 frames deep completes, 1000 raises; `tests/grade_recursion.rs` checks it). Calls
/// made through C (a builtin calling back into Python) count as frames too.
pub const PY_FRAME_BUDGET: usize = 999;

/// Whether a node carries operator or context objects (leaf nodes to a visitor).
fn has_leaf_objects(node: Node<'_>) -> bool {
    use ast::Expr as E;
    matches!(
        node,
        Node::Expr(
            E::Name(_)
                | E::Attribute(_)
                | E::Subscript(_)
                | E::Starred(_)
                | E::List(_)
                | E::Tuple(_)
                | E::BinOp(_)
                | E::UnaryOp(_)
                | E::BoolOp(_)
                | E::Compare(_)
        ) | Node::Stmt(ast::Stmt::AugAssign(_))
    )
}

/// [`Suite::depth`] of a module whose body is `stmts`.
fn depth_of(stmts: &[ast::Stmt]) -> usize {
    let mut deepest = 1;
    let mut stack: Vec<(Node<'_>, usize)> = stmts.iter().map(|s| (Node::Stmt(s), 2)).collect();
    let mut scratch = Vec::new();
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        push_children(node, &mut scratch);
        stack.extend(scratch.drain(..).map(|c| (c, depth + 1)));
    }
    deepest
}

/// The Python frames a recursive `ast.NodeVisitor` needs to walk everything under `roots`
/// (frames on the stack at the deepest point, counted from the first `visit`), where
/// `cost(node)` is 2 for a node the visitor handles generically and 3 for one it handles
/// in a `visit_X` method that calls `generic_visit`. `start` is added for the nodes
/// above the roots (2 for a `Module` the roots are the body of).
pub fn visitor_frames<'a>(
    roots: impl IntoIterator<Item = Node<'a>>,
    start: usize,
    cost: impl Fn(Node<'a>) -> usize,
) -> usize {
    let mut deepest = start;
    let mut stack: Vec<(Node<'a>, usize)> = roots.into_iter().map(|r| (r, start)).collect();
    let mut scratch = Vec::new();
    while let Some((node, above)) = stack.pop() {
        let here = above + cost(node);
        // An operator or context object below this node: visit + generic_visit.
        let leaf = if has_leaf_objects(node) { 2 } else { 0 };
        deepest = deepest.max(here + leaf);
        push_children(node, &mut scratch);
        stack.extend(scratch.drain(..).map(|c| (c, here)));
    }
    deepest
}

/// Frame cost of a node to the official checkers' visitors: `visit_Call` recurses from
/// its own method, every other node goes through `generic_visit` alone.
pub fn official_visitor_cost(node: Node<'_>) -> usize {
    match node {
        Node::Expr(ast::Expr::Call(_)) => 3,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CPython 3.11's tokenizer compares indentation with tabs as 8 columns and as 1; each
    /// case's message and line were checked against `ast.parse` in the grading runtime.
    #[test]
    fn indentation_errors_follow_cpython() {
        let cases = [
            (
                "def f(a):\n\tx = 1\n return x\n",
                Some((3, "unindent does not match any outer indentation level")),
            ),
            (
                "def f(a):\n        x = 1\n\treturn x\n",
                Some((3, TAB_ERROR)),
            ),
            ("def f(a):\n  \tx = 1\n\treturn x\n", Some((3, TAB_ERROR))),
            (
                "if 1:\n\tif 1:\n\t\tx=1\n\t        y=2\n",
                Some((4, TAB_ERROR)),
            ),
            ("def f(a):\n\tx = 1\n\treturn x\n", None),
            (
                "def f(a):\n\tx = (1,\n  2)\n\t# comment\n\n\treturn x\n",
                None,
            ),
        ];
        for (src, want) in cases {
            let got = scan_tokens(src).error;
            assert_eq!(got.as_ref().map(|(l, m)| (*l, m.as_str())), want, "{src:?}");
            if let Some((_, msg)) = want.filter(|(_, m)| *m == TAB_ERROR) {
                assert_eq!(parse_suite(src).expect_err("TabError").message, msg);
            }
        }
    }

    fn call_names(src: &str) -> Vec<String> {
        let suite = parse_suite(src).expect("parses");
        walk_suite(&suite)
            .into_iter()
            .filter_map(|n| match n {
                Node::Expr(ast::Expr::Call(c)) => dotted_name(&c.func),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn walk_reaches_calls_in_every_nested_position() {
        let src = r#"
@deco(a0())
def f(x=a1(), *, y=a2()) -> a3():
    g(key=a4())
    [a5() for i in a6() if a7()]
    {k: a8() for k in z}
    with a9() as w, a10():
        pass
    match x:
        case [1, 2] if a11():
            a12()
        case {"k": v}:
            a13()
    lam = lambda q=a14(): a15()
    class C(a16(), metaclass=a17()):
        pass
    try:
        pass
    except a18() as e:
        a19()
    s = f"{a20()}"
    t: a21() = a22()
    del d[a23()]
    assert a24(), a25()
    raise a26() from a27()
    try:
        a28()
    except* a29() as g:
        a30()
    else:
        a31()
    finally:
        a32()
    try:
        a33()
    except E:
        pass
    else:
        a34()
    finally:
        a35()
"#;
        let names = call_names(src);
        for i in 0..=35 {
            let want = format!("a{i}");
            assert!(names.contains(&want), "missing {want} in {names:?}");
        }
    }

    #[test]
    fn trees_dropped_recursively_fit_a_small_stack() {
        // Just under the depth that is still dropped recursively, on a 256 KiB stack (a
        // quarter of the smallest thread stack sebx runs analysis on): the drop fits.
        let unary = format!("x = {}1\n", "-".repeat(RECURSIVE_DROP_DEPTH - 4));
        let chain = format!("x = a{}\n", ".b".repeat(RECURSIVE_DROP_DEPTH - 4));
        let dropped = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                for src in [unary, chain] {
                    let suite = parse_suite(&src).expect("parses");
                    assert!(suite.depth <= RECURSIVE_DROP_DEPTH, "{}", suite.depth);
                    assert!(suite.depth > RECURSIVE_DROP_DEPTH - 10, "{}", suite.depth);
                    drop(suite);
                }
            })
            .expect("thread")
            .join();
        assert!(dropped.is_ok());
    }

    #[test]
    fn bfs_order_matches_ast_walk() {
        // ast.walk order: the module-level def `b` comes before the nested `a`.
        let src = "def outer():\n    def a():\n        pass\ndef b():\n    pass\n";
        let suite = parse_suite(src).expect("parses");
        let defs: Vec<&str> = walk_suite(&suite)
            .into_iter()
            .filter_map(|n| match n {
                Node::Stmt(ast::Stmt::FunctionDef(f)) => Some(f.name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(defs, vec!["outer", "b", "a"]);
    }

    #[test]
    fn positions_are_one_based_char_columns() {
        let src = "é = 1\nab = zz\n";
        let idx = LineIndex::new(src);
        let off = src.find("zz").expect("zz");
        assert_eq!(idx.position(src, off), (2, 6));
        let off = src.find('=').expect("=");
        assert_eq!(idx.position(src, off), (1, 3));
    }

    #[test]
    fn the_text_filter_lets_every_312_only_form_through() {
        for src in [
            "def f[T](x):\n    return x\n",
            "async def f[T](x):\n    return x\n",
            "class A[T]:\n    pass\n",
            "type X = int\n",
            "x = 1; type X = int\n",
            "if True: type X = int\n",
            "y = f\"{'\\n'.join(a)}\"\n",
            "if 1:\n    def  g [T](x): pass\n",
            "def\tf[T](x):\n    return x\n",
        ] {
            assert!(may_have_py312_only_syntax(src), "{src}");
        }
        for src in [
            "def f(x):\n    return zwc.yitaf(x, dtype=int)[0]\n",
            "class A:\n    xs = [1]\n",
            "t = type(x) if isinstance(x, type) else x.dtype\n",
        ] {
            assert!(!may_have_py312_only_syntax(src), "{src}");
        }
    }

    #[test]
    fn python_312_only_syntax_is_rejected_as_311_does() {
        let err = parse_suite("x = 1\ndef f[T](x):\n    return x\n").expect_err("3.11 rejects");
        assert_eq!(err.cpython_message.as_deref(), Some("expected '('"));
        assert_eq!(err.offset, "x = 1\ndef f[".len());
        let err = parse_suite("type X = int\n").expect_err("3.11 rejects");
        assert_eq!(err.cpython_message.as_deref(), Some("invalid syntax"));
        let err = parse_suite("class A[T]:\n    pass\n").expect_err("3.11 rejects");
        assert_eq!(err.cpython_message.as_deref(), Some("invalid syntax"));
        // `type` as a plain name is fine.
        assert!(parse_suite("type = 3\nprint(type)\n").is_ok());
    }

    #[test]
    fn fstring_expressions_with_backslash_or_hash_fail_as_on_311() {
        let err = parse_suite("x = 1\ny = f\"{'\\n'.join(a)}\"\n").expect_err("3.11 rejects");
        assert_eq!(
            err.cpython_message.as_deref(),
            Some("f-string expression part cannot include a backslash")
        );
        assert_eq!(err.offset, "x = 1\ny = f\"{".len());
        // Backslashes in the literal part, `#` in a string, format specs and conversions are fine.
        for ok in [
            "y = f'{\"#\"}'\n",
            "y = f'a\\n{b}#'\n",
            "y = f\"{a:{w}.{p}f}\"\n",
            "y = f'{x=}' + f'{x!r}'\n",
            "y = f'{a}\\t{b}'\n",
        ] {
            assert!(parse_suite(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn fstring_312_failure_is_flagged() {
        let err = parse_suite("x = f\"{d[\"a\"]}\"\n").expect_err("3.11 grammar rejects it");
        assert!(err.maybe_py312_fstring, "{err:?}");
        let err = parse_suite("x = (1 +\n").expect_err("unclosed");
        assert!(!err.maybe_py312_fstring);
    }
}
