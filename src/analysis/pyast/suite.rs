//! [`Suite`], a parsed module that knows how deep its tree is, and takes a deep tree apart
//! with a loop when dropped (the AST types' own drop recurses once per nesting level).

use super::ast;

/// A parsed module: its top-level statements, and how deep the tree is.
///
/// Dropping a deep tree takes it apart with a loop: the AST types' own drop recurses once
/// per nesting level, which overflows a thread's stack on a 100,000-term `+` chain or a
/// deep `-` / `[` nesting that the (table-driven) parser itself accepts. A shallow tree
/// (nearly every one) is dropped as usual.
#[derive(Debug, Default)]
pub struct Suite {
    pub(super) stmts: Vec<ast::Stmt>,
    pub(super) depth: usize,
}

/// Trees up to this deep are dropped by their own (recursive) drop: a few hundred nested
/// calls fit any thread's stack.
pub(super) const RECURSIVE_DROP_DEPTH: usize = 256;

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
