//! Text (terminal pane, layered) and Graphviz DOT renderings of a [`DepGraph`].

use std::collections::HashMap;

use super::graph::{DepGraph, FunctionInfo, GraphEdge, GraphNode, NodeKind};

/// One line of the graph as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRow {
    pub shows: RowShows,
    pub text: String,
}

/// What a line of the graph as text shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowShows {
    /// "(no functions)".
    Nothing,
    /// A function's heading.
    Function { is_entry: bool },
    /// The separator before the nodes of one layer.
    Layer(usize),
    /// A node, by id.
    Node(usize),
}

impl DepGraph {
    /// Nodes of one function.
    pub fn function_nodes<'g>(&'g self, function: &'g str) -> impl Iterator<Item = &'g GraphNode> {
        self.nodes.iter().filter(move |n| n.function == function)
    }

    /// Layer of each node: the longest chain of same-function dependencies leading to it.
    pub fn layers(&self) -> Vec<usize> {
        let mut layer = vec![0usize; self.nodes.len()];
        // Node ids follow evaluation order, so most edges point forward; iterate to a fixpoint
        // (bounded, since loops can make edges point backwards).
        for _ in 0..self.nodes.len().min(64) {
            let mut changed = false;
            for e in &self.edges {
                if e.link || self.nodes[e.from].function != self.nodes[e.to].function {
                    continue;
                }
                if e.from < e.to && layer[e.to] < layer[e.from] + 1 {
                    layer[e.to] = layer[e.from] + 1;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        layer
    }

    /// The graph as text for a terminal pane: one block per function (entry first),
    /// nodes grouped by layer, each line `id label kind value line ← sources marks`.
    pub fn render_text(&self, width: usize) -> String {
        let mut out = String::new();
        for row in self.text_rows(width) {
            out.push_str(&row.text);
            out.push('\n');
        }
        out
    }

    /// The lines of [`DepGraph::render_text`], each with what it shows, so a front end can
    /// style them from the graph rather than from the text.
    pub fn text_rows(&self, width: usize) -> Vec<TextRow> {
        let mut out = Vec::new();
        let layers = self.layers();
        let mut preds: HashMap<usize, Vec<&GraphEdge>> = HashMap::new();
        for e in &self.edges {
            preds.entry(e.to).or_default().push(e);
        }
        let mut functions: Vec<&FunctionInfo> = self.functions.iter().collect();
        functions.sort_by_key(|f| (!f.is_entry, f.line));
        if functions.is_empty() {
            out.push(TextRow {
                shows: RowShows::Nothing,
                text: "(no functions)".to_string(),
            });
        }
        for f in functions {
            let role = if f.is_entry { "entry" } else { "helper" };
            out.push(TextRow {
                shows: RowShows::Function {
                    is_entry: f.is_entry,
                },
                text: fit(
                    &format!(
                        "{role} {}({})  line {}",
                        f.name,
                        f.params.join(", "),
                        f.line
                    ),
                    width,
                ),
            });
            let mut nodes: Vec<&GraphNode> = self.function_nodes(&f.name).collect();
            nodes.sort_by_key(|n| (layers[n.id], n.id));
            let mut current = usize::MAX;
            for n in nodes {
                if layers[n.id] != current {
                    current = layers[n.id];
                    out.push(TextRow {
                        shows: RowShows::Layer(current),
                        text: format!("  ─ {current} ─"),
                    });
                }
                let mut marks = Vec::new();
                if n.hinge {
                    marks.push("◆hinge");
                }
                if n.reaches_return {
                    marks.push("✓ret");
                }
                if n.unused {
                    marks.push("✗unused");
                }
                let sources: Vec<String> = preds
                    .get(&n.id)
                    .map(|es| {
                        es.iter()
                            .map(|e| {
                                if e.link {
                                    format!("{}:#{}", self.nodes[e.from].function, e.from)
                                } else {
                                    format!("#{}", e.from)
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let mut line = format!(
                    "  #{:<3} {:<30} {:<8} {:<8} L{:<3}",
                    n.id,
                    truncate(&n.label, 30),
                    n.kind.label(),
                    n.value.label(),
                    n.line
                );
                if !marks.is_empty() {
                    line.push(' ');
                    line.push_str(&marks.join(" "));
                }
                if !sources.is_empty() {
                    line.push_str(" ← ");
                    line.push_str(&sources.join(" "));
                }
                out.push(TextRow {
                    shows: RowShows::Node(n.id),
                    text: fit(line.trim_end(), width),
                });
            }
        }
        out
    }

    /// The graph in Graphviz DOT, one cluster per function.
    pub fn to_dot(&self) -> String {
        let mut out = String::from(
            "digraph solution {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n",
        );
        for (i, f) in self.functions.iter().enumerate() {
            let role = if f.is_entry { " (entry)" } else { "" };
            out.push_str(&format!(
                "  subgraph cluster_{i} {{\n    label=\"{}{role}\";\n",
                dot_escape(&f.name)
            ));
            for n in self.function_nodes(&f.name) {
                let shape = match n.kind {
                    NodeKind::Param => "ellipse",
                    NodeKind::Return => "house",
                    NodeKind::Assign => "plaintext",
                    _ => "box",
                };
                let mut attrs = vec![
                    format!(
                        "label=\"{}\\n{} L{}\"",
                        dot_escape(&n.label),
                        n.value.label(),
                        n.line
                    ),
                    format!("shape={shape}"),
                ];
                if n.kind == NodeKind::ZwcCall {
                    let color = if n.reaches_return {
                        "palegreen"
                    } else if n.unused {
                        "lightgray"
                    } else {
                        "lightyellow"
                    };
                    attrs.push(format!("style=filled, fillcolor={color}"));
                }
                if n.hinge {
                    attrs.push("color=red, penwidth=2".to_string());
                }
                out.push_str(&format!("    n{} [{}];\n", n.id, attrs.join(", ")));
            }
            out.push_str("  }\n");
        }
        for e in &self.edges {
            let style = if e.link { " [style=dashed]" } else { "" };
            out.push_str(&format!("  n{} -> n{}{style};\n", e.from, e.to));
        }
        out.push_str("}\n");
        out
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn fit(s: &str, width: usize) -> String {
    truncate(s, width.max(20))
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
