//! The walk over every node: [`Node`], any node by reference; its children in the order of
//! CPython's `ast.iter_child_nodes` ([`children`]); every node breadth first as `ast.walk`
//! yields them ([`walk_bfs`], [`walk_suite`]); and the names of attribute chains.

use super::ast;
use super::suite::Suite;

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
