//! Passes over the walked graph: module-level nodes dropped (they belong to no function's
//! story) and, per function, which zwc calls reach a return and which nobody uses.

use std::collections::{HashMap, HashSet};

use super::dep_graph::{DepGraph, NodeKind};

/// Removes the nodes of module-level code and the edges touching them, renumbering the
/// rest in order.
pub(super) fn drop_module_nodes(g: &mut DepGraph) {
    let module_nodes: HashSet<usize> = g
        .nodes
        .iter()
        .filter(|n| n.function == "<module>")
        .map(|n| n.id)
        .collect();
    if module_nodes.is_empty() {
        return;
    }
    g.nodes.retain(|n| !module_nodes.contains(&n.id));
    g.edges
        .retain(|e| !module_nodes.contains(&e.from) && !module_nodes.contains(&e.to));
    let remap: HashMap<usize, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    for n in &mut g.nodes {
        n.id = remap[&n.id];
    }
    for e in &mut g.edges {
        e.from = remap[&e.from];
        e.to = remap[&e.to];
    }
}

/// Marks zwc calls that reach a return of their own function and zwc calls nobody uses.
/// One backward walk from each function's returns (linear per function), not a forward
/// walk from every call: a chain of thousands of calls stays fast.
pub(super) fn mark_flow(g: &mut DepGraph) {
    let n = g.nodes.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut has_out = vec![false; n];
    for e in &g.edges {
        preds[e.to].push(e.from);
        has_out[e.from] = true;
    }
    // Per function: its returns and its zwc calls (node ids).
    let mut per_function: HashMap<&str, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (i, node) in g.nodes.iter().enumerate() {
        match node.kind {
            NodeKind::Return => per_function.entry(&node.function).or_default().0.push(i),
            NodeKind::ZwcCall => per_function.entry(&node.function).or_default().1.push(i),
            _ => {}
        }
    }
    // `seen[x] == stamp`: reached in the current function's walk (no clearing between walks).
    let mut seen = vec![0usize; n];
    let mut reaches = vec![false; n];
    for (stamp, (returns, calls)) in per_function.values().enumerate() {
        let stamp = stamp + 1;
        if calls.is_empty() {
            continue;
        }
        let mut stack = returns.clone();
        for &r in returns {
            seen[r] = stamp;
        }
        while let Some(x) = stack.pop() {
            for &p in &preds[x] {
                if seen[p] != stamp {
                    seen[p] = stamp;
                    stack.push(p);
                }
            }
        }
        for &c in calls {
            reaches[c] = seen[c] == stamp;
        }
    }
    for (i, node) in g.nodes.iter_mut().enumerate() {
        if node.kind == NodeKind::ZwcCall {
            node.reaches_return = reaches[i];
        }
    }
    for (i, node) in g.nodes.iter_mut().enumerate() {
        if node.kind == NodeKind::ZwcCall {
            node.unused = !has_out[i];
        }
    }
}
