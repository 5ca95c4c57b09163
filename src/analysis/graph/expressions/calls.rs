//! The expression walk's calls: of zwc and NumPy functions (the graph's call nodes, the
//! kinds `kinds::zwc_call` gives), of helper functions defined in the code (linked to
//! their bodies later, with what each call passes), of builtins and of methods (an
//! in-place method makes its receiver depend on the call).

use super::{ArgKind, ExprWalker, MUTATORS};
use crate::analysis::graph::dep_graph::{NodeKind, ValueKind};
use crate::analysis::graph::kinds::{self, Env, Items, Val, union};
use crate::analysis::names::{Binding, ZwcRef, classify_zwc};
use crate::analysis::pyast::{self, ast};

impl ExprWalker<'_> {
    /// A call: of a zwc or NumPy function, a helper, a builtin or a method.
    pub(super) fn call(&mut self, e: &ast::Expr, c: &ast::ExprCall, env: &mut Env) -> Val {
        let offset = pyast::start_of(e);
        let mut args = self.exprs(&c.args, env);
        for k in &c.keywords {
            args.push(self.expr(&k.value, env));
        }
        let deps = union(&args);
        if let Some(binding) = self.module_path(&c.func) {
            return self.module_call(&binding, c, &args, deps, offset);
        }
        match c.func.as_ref() {
            ast::Expr::Name(n)
                if self.helpers.contains(n.id.as_str()) && !env.contains_key(n.id.as_str()) =>
            {
                self.note_helper_args(n.id.as_str(), c, &args);
                self.helper_call(n.id.as_str(), deps, offset)
            }
            ast::Expr::Name(n) => self.name_call(n.id.as_str(), c, &args, deps, env, offset),
            ast::Expr::Attribute(a) => self.method_call(c, a, &args, deps, env, offset),
            other => {
                let mut deps = deps;
                let f = self.expr(other, env);
                deps.extend(f.deps);
                let id = self.node(
                    NodeKind::Call,
                    "(…)()".to_string(),
                    offset,
                    ValueKind::Unknown,
                );
                self.edges_into(&deps, id);
                Val {
                    deps: vec![id],
                    kind: ValueKind::Unknown,
                    sure: true,
                    dims: 0,
                    items: None,
                }
            }
        }
    }

    /// A call of a zwc or NumPy function (`binding`), on arguments of values `args`.
    fn module_call(
        &mut self,
        binding: &Binding,
        c: &ast::ExprCall,
        args: &[Val],
        deps: Vec<usize>,
        offset: usize,
    ) -> Val {
        let written = pyast::dotted_name(&c.func).unwrap_or_default();
        let mut sure = true;
        let mut dims = 0;
        let mut callee: (Option<String>, Option<String>) = (None, None);
        let (kind, label, value) = match binding {
            Binding::Zwc(path) => match classify_zwc(self.api, path) {
                ZwcRef::Function(q) => {
                    let meaning = self.api.numpy_short(&q).unwrap_or("?").to_string();
                    let rfx = q.starts_with("zwc.rfx.");
                    let (value, value_sure, value_dims) = kinds::zwc_call(&meaning, rfx, c, args);
                    (sure, dims) = (value_sure, value_dims);
                    callee = (
                        Some(q.clone()),
                        self.api.numpy_short(&q).map(str::to_string),
                    );
                    (NodeKind::ZwcCall, format!("{written} ‹{meaning}›"), value)
                }
                ZwcRef::Module | ZwcRef::Rfx => {
                    (NodeKind::ZwcCall, written.clone(), ValueKind::Unknown)
                }
                ZwcRef::NumpyName { .. } | ZwcRef::Unknown { .. } => {
                    callee.0 = Some(path.clone());
                    (
                        NodeKind::ZwcCall,
                        format!("{written} ‹?›"),
                        ValueKind::Unknown,
                    )
                }
            },
            Binding::Numpy(_) => (NodeKind::Call, written.clone(), ValueKind::NumpyArray),
        };
        let id = self.node(kind, label, offset, value);
        (self.graph.nodes[id].zwc, self.graph.nodes[id].numpy) = callee;
        self.edges_into(&deps, id);
        Val {
            deps: vec![id],
            kind: value,
            sure,
            dims,
            items: None,
        }
    }

    /// Joins what call `c` of helper `name` passes into what its other calls pass.
    fn note_helper_args(&mut self, name: &str, c: &ast::ExprCall, args: &[Val]) {
        let plain =
            c.keywords.is_empty() && !c.args.iter().any(|a| matches!(a, ast::Expr::Starred(_)));
        let this: Option<Vec<ArgKind>> = plain.then(|| {
            args[..c.args.len()]
                .iter()
                .map(|v| (v.kind, v.sure, v.dims))
                .collect()
        });
        match self.helper_args.get_mut(name) {
            None => {
                self.helper_args.insert(name.to_string(), this);
            }
            Some(known) => {
                *known = match (known.take(), this) {
                    (Some(a), Some(b)) if a.len() == b.len() => Some(
                        a.iter()
                            .zip(&b)
                            .map(|(x, y)| {
                                if x.0 == y.0 {
                                    (x.0, x.1 && y.1, if x.2 == y.2 { x.2 } else { 0 })
                                } else {
                                    (ValueKind::Unknown, false, 0)
                                }
                            })
                            .collect(),
                    ),
                    _ => None,
                };
            }
        }
    }

    /// A call of the helper function `name` defined in the code.
    fn helper_call(&mut self, name: &str, deps: Vec<usize>, offset: usize) -> Val {
        let id = self.node(
            NodeKind::HelperCall,
            format!("{name}()"),
            offset,
            ValueKind::Unknown,
        );
        self.edges_into(&deps, id);
        self.pending_links.push((id, name.to_string()));
        // A helper walked before this call returns what its returns return.
        self.late_helper_calls |= !self.return_kinds.contains_key(name);
        let (kind, sure) = self
            .return_kinds
            .get(name)
            .or_else(|| self.prior_returns.get(name))
            .copied()
            .unwrap_or((ValueKind::Unknown, false));
        self.graph.nodes[id].value = kind;
        Val {
            deps: vec![id],
            kind,
            sure,
            dims: 0,
            items: None,
        }
    }

    /// A call of the name `name` that is not a helper: a builtin, or a local function.
    fn name_call(
        &mut self,
        name: &str,
        c: &ast::ExprCall,
        args: &[Val],
        mut deps: Vec<usize>,
        env: &Env,
        offset: usize,
    ) -> Val {
        if let Some(f) = env.get(name) {
            deps.extend(f.deps.clone());
        }
        self.findings
            .builtin_call(name, args.first(), c.args.first(), offset);
        let kind = kinds::builtin_call(name);
        let id = self.node(NodeKind::Call, format!("{name}()"), offset, kind);
        self.edges_into(&deps, id);
        Val {
            deps: vec![id],
            kind,
            sure: true,
            dims: 0,
            items: None,
        }
    }

    /// `recv.method(...)`; an in-place method makes the receiver depend on the call.
    fn method_call(
        &mut self,
        c: &ast::ExprCall,
        a: &ast::ExprAttribute,
        args: &[Val],
        mut deps: Vec<usize>,
        env: &mut Env,
        offset: usize,
    ) -> Val {
        let recv = self.attribute(&c.func, a, env);
        deps.extend(recv.deps.iter().copied());
        let method = a.attr.as_str();
        let (recv_kind, recv_sure) = match a.value.as_ref() {
            ast::Expr::Name(n) => match env.get(n.id.as_str()) {
                Some(v) => (Some(v.kind), v.sure),
                None => (None, false),
            },
            _ => (None, false),
        };
        let (kind, sure) = kinds::method_call(recv_kind, recv_sure, method);
        let label = match a.value.as_ref() {
            ast::Expr::Name(n) => format!("{}.{method}()", n.id),
            _ => format!(".{method}()"),
        };
        let id = self.node(NodeKind::Call, label, offset, kind);
        self.edges_into(&deps, id);
        // In-place methods: the receiver now depends on this call.
        if MUTATORS.contains(&method)
            && let ast::Expr::Name(n) = a.value.as_ref()
            && let Some(old) = env.get(n.id.as_str()).cloned()
        {
            self.forget_first_index(n.id.as_str());
            let mid = self.node(NodeKind::Assign, n.id.to_string(), offset, old.kind);
            let mut from = old.deps.clone();
            from.push(id);
            self.edges_into(&from, mid);
            // What the list holds now: `append`/`insert` add their value, `extend` the
            // elements of theirs; the others only take elements away or reorder them.
            let plain = c.keywords.is_empty() && c.args.len() == args.len();
            let items = match (method, args) {
                ("append", [x]) if plain => Items::join(old.items, Some(Items::of(x))),
                ("insert", [_, x]) if plain => Items::join(old.items, Some(Items::of(x))),
                ("extend", [x]) if plain => Items::join(old.items, x.items),
                ("sort" | "reverse" | "pop" | "remove" | "clear", _) => old.items,
                _ => None,
            };
            env.insert(
                n.id.to_string(),
                Val {
                    deps: vec![mid],
                    items,
                    ..old
                },
            );
        }
        Val {
            deps: vec![id],
            kind,
            sure,
            dims: 0,
            items: None,
        }
    }
}
