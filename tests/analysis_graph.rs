//! The dependency graph: nodes, edges, marks and value kinds on solutions of our own,
//! plus snapshots of the text rendering.

use sebx::analysis::graph::{DepGraph, GraphNode, NodeKind};
use sebx::analysis::{ValueKind, analyze_code};
use sebx::model::{ApiMap, TestCase};
use serde_json::json;

fn api() -> ApiMap {
    ApiMap::from_mappings_json(&json!({
        "main": { "mean": "kocito", "array": "yitaf", "sum": "bapu", "cumsum": "wemaxo",
                  "sqrt": "rijufi", "max": "sutin" },
        "linalg": { "inv": "quvohe", "det": "zigecit" }
    }))
    .expect("mapping")
}

fn graph(code: &str) -> DepGraph {
    let cases = vec![TestCase {
        input: "a=[1, 2]".to_string(),
        output: "1".to_string(),
    }];
    let a = analyze_code(code, &api(), None, Some(&cases), 1);
    assert!(a.parse_error.is_none(), "{:?}", a.parse_error);
    a.graph
}

fn node<'g>(g: &'g DepGraph, label_start: &str) -> &'g GraphNode {
    g.nodes
        .iter()
        .find(|n| n.label.starts_with(label_start))
        .unwrap_or_else(|| panic!("no node {label_start}: {:#?}", g.nodes))
}

fn has_edge(g: &DepGraph, from: &GraphNode, to: &GraphNode) -> bool {
    g.edges.iter().any(|e| e.from == from.id && e.to == to.id)
}

const MEAN_CENTER: &str = "\
import zwc

def center(a):
    x = zwc.yitaf(a)
    m = zwc.kocito(x)
    zwc.bapu(x)
    return x - m
";

#[test]
fn taint_path_unused_call_and_kinds() {
    let g = graph(MEAN_CENTER);
    let yitaf = node(&g, "zwc.yitaf");
    let mean = node(&g, "zwc.kocito");
    let sum = node(&g, "zwc.bapu");
    assert_eq!(yitaf.label, "zwc.yitaf ‹array›");
    assert_eq!(mean.label, "zwc.kocito ‹mean›");
    assert_eq!(yitaf.kind, NodeKind::ZwcCall);
    assert!(yitaf.reaches_return && mean.reaches_return);
    assert!(!sum.reaches_return);
    assert!(sum.unused);
    assert!(!mean.unused);
    assert_eq!(yitaf.value, ValueKind::ZwcArray);
    assert_eq!(mean.value, ValueKind::Scalar);
    let ret = node(&g, "return");
    assert_eq!(ret.value, ValueKind::ZwcArray);
    assert_eq!((ret.line, ret.col), (7, 5));
    // Three library calls: nothing hinges on one of them.
    assert!(g.nodes.iter().all(|n| !n.hinge));
    let x = g.nodes.iter().find(|n| n.label == "x").expect("x");
    assert!(has_edge(&g, yitaf, x));
    assert!(has_edge(&g, x, mean));
    let param = g
        .nodes
        .iter()
        .find(|n| n.kind == NodeKind::Param)
        .expect("param");
    assert_eq!(param.label, "a");
    assert!(has_edge(&g, param, yitaf));
}

const WITH_HELPER: &str = "\
import zwc

def norm(v):
    return zwc.rijufi(zwc.bapu(v * v))

def solve(rows, k):
    out = []
    for r in rows:
        out.append(norm(zwc.yitaf(r)) * k)
    inv = zwc.rfx.quvohe(zwc.yitaf(rows))
    total, count = 0, len(out)
    total += sum(out)
    squares = [q * q for q in out]
    return total / count, inv, squares
";

#[test]
fn helpers_are_subgraphs_linked_at_their_calls() {
    let g = graph(WITH_HELPER);
    // The entry is `norm` (the first `def` in the text), as officially.
    let entry: Vec<_> = g.functions.iter().filter(|f| f.is_entry).collect();
    assert_eq!(entry.len(), 1);
    assert_eq!(entry[0].name, "norm");
    assert_eq!(g.functions.len(), 2);
    let call = node(&g, "norm()");
    assert_eq!(call.function, "solve");
    assert_eq!(call.kind, NodeKind::HelperCall);
    let helper_return = g
        .nodes
        .iter()
        .find(|n| n.function == "norm" && n.kind == NodeKind::Return)
        .expect("helper return");
    assert!(
        g.edges
            .iter()
            .any(|e| e.link && e.from == helper_return.id && e.to == call.id)
    );
    // zwc calls in the helper reach the helper's return.
    assert!(node(&g, "zwc.rijufi").reaches_return);
    // rfx results are NumPy arrays.
    let inv = g.nodes.iter().find(|n| n.label == "inv").expect("inv");
    assert_eq!(inv.value, ValueKind::NumpyArray);
    // Loop, tuple-unpacking, augmented and comprehension targets are assignments.
    for name in ["r", "total", "count", "q", "squares"] {
        assert!(
            g.nodes
                .iter()
                .any(|n| n.kind == NodeKind::Assign && n.label == name),
            "{name}"
        );
    }
    // `out.append(...)` makes `out` depend on the helper's result, so it reaches the return.
    let yitaf_in_loop = g
        .nodes
        .iter()
        .find(|n| n.function == "solve" && n.label.starts_with("zwc.yitaf") && n.line == 9)
        .expect("yitaf in loop");
    assert!(yitaf_in_loop.reaches_return);
}

#[test]
fn single_library_call_is_the_hinge() {
    let g = graph("import zwc\ndef f(a):\n    b = [v * 2 for v in a]\n    return zwc.yitaf(b)\n");
    let hinge: Vec<_> = g.nodes.iter().filter(|n| n.hinge).collect();
    assert_eq!(hinge.len(), 1);
    assert!(hinge[0].label.starts_with("zwc.yitaf"));
    assert!(hinge[0].reaches_return);
}

#[test]
fn dot_export_has_clusters_marks_and_links() {
    let g = graph(WITH_HELPER);
    let dot = g.to_dot();
    assert!(dot.starts_with("digraph solution {"));
    assert!(dot.contains("subgraph cluster_0"));
    assert!(dot.contains("label=\"norm (entry)\""));
    assert!(dot.contains("[style=dashed]"), "helper link edge");
    assert!(dot.contains("fillcolor=palegreen"));
    assert!(dot.contains("zwc.rfx.quvohe ‹linalg.inv›"));
    assert_eq!(dot.matches(" -> ").count(), g.edges.len());
}

#[test]
fn text_fits_80_columns() {
    for code in [MEAN_CENTER, WITH_HELPER] {
        let text = graph(code).render_text(80);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "too wide: {line}");
        }
    }
}

#[test]
fn snapshot_mean_center() {
    insta::assert_snapshot!("mean_center", graph(MEAN_CENTER).render_text(80));
}

#[test]
fn snapshot_with_helper() {
    insta::assert_snapshot!("with_helper", graph(WITH_HELPER).render_text(80));
}

#[test]
fn snapshot_branches_and_tolist() {
    let code = "\
import zwc

def solve(m, use_inv):
    a = zwc.yitaf(m)
    if use_inv:
        r = zwc.rfx.quvohe(a)
    else:
        r = zwc.wemaxo(a, axis=0)
    best = zwc.sutin(a)
    return r.tolist(), best
";
    insta::assert_snapshot!("branches_and_tolist", graph(code).render_text(80));
}

fn notes(code: &str) -> Vec<String> {
    let cases = vec![TestCase {
        input: "a=[1, 2]".to_string(),
        output: "1".to_string(),
    }];
    analyze_code(code, &api(), None, Some(&cases), 1).notes
}

#[test]
fn notes_explain_the_quirks_that_decided_the_check() {
    let n = notes(
        "import zwc\ndef _check(v):\n    return v\ndef solve(a):\n    return zwc.kocito(a)\n",
    );
    assert_eq!(n.len(), 1, "{n:?}");
    assert!(
        n[0].contains("`_check`") && n[0].contains("`solve`"),
        "{n:?}"
    );

    let n = notes("import zwc\ndef f(a):\n    return zwc.yitaf(a)\n");
    assert!(
        n[0].contains("only zwc call") && n[0].contains("zwc.yitaf"),
        "{n:?}"
    );

    let n = notes("import zwc\ndef f(a):\n    return zwc.kocito(a)");
    assert!(n[0].contains("no final newline"), "{n:?}");

    let n = notes("x = 1\n");
    assert!(n[0].contains("entry name is empty"), "{n:?}");

    let n = notes("import zwc\ndef f(a):\n    return f\"{'\\n'.join(a)}\" + zwc.kocito(a)\n");
    assert!(
        n[0].contains("Python 3.12") && n[0].starts_with("line 3"),
        "{n:?}"
    );

    assert!(notes("import zwc\ndef f(a):\n    return zwc.kocito(a)\n").is_empty());
}

#[test]
fn very_deep_expressions_do_not_overflow_the_stack() {
    // Run on a small stack, as a TUI worker thread might have. 2,900 terms is about as
    // deep as CPython builds a tree; deeper ones it refuses (RecursionError), and so does
    // sebx's parser, before any analysis recurses on them.
    let analyze = |terms: usize| {
        let code = format!(
            "import zwc\ndef f(a):\n    return zwc.kocito({})\n",
            vec!["a"; terms].join(" + ")
        );
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let a = analyze_code(&code, &api(), None, None, 1);
                (a.graph.nodes.len(), a.parse_error)
            })
            .expect("spawn")
            .join()
            .expect("analysis finished without overflowing")
    };
    let (nodes, error) = analyze(2_900);
    assert!(nodes >= 3 && error.is_none(), "{nodes} {error:?}");
    for terms in [3_000, 50_000] {
        let (nodes, error) = analyze(terms);
        assert_eq!(nodes, 0);
        assert!(
            error
                .as_ref()
                .is_some_and(|e| e.message.contains("recursion")),
            "{error:?}"
        );
    }
}
