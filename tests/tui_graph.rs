//! The dependency graph drawn as boxes and arrows: snapshots for demo rollouts, and a check
//! read back from the drawn cells that every arrow leaves the right box and lands on the
//! right one.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::shared_data;
use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use sebx::analysis::{Analysis, DepGraph, analyze_rollout};
use sebx::model::ApiMap;
use sebx::model::rollout::load_rollout_file;
use sebx::tui::Theme;
use sebx::tui::graph_view::{GraphCache, GraphDrawing, draw_graph};

fn demo_graph(line: usize) -> DepGraph {
    demo_analysis(line).code.graph
}

fn demo_analysis(line: usize) -> Analysis {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo");
    let api = ApiMap::load(&root.join("api_doc.jsonl")).expect("demo API doc");
    let file = load_rollout_file(&root.join("rollouts.jsonl")).expect("demo rollouts");
    let rollout = file
        .rollouts
        .iter()
        .find(|r| r.line == line)
        .expect("the demo line");
    analyze_rollout(rollout, &api, None)
}

fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut row = String::new();
        for x in 0..buf.area.width {
            row.push_str(buf[(x, y)].symbol());
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// Follows every arrow from the tee (`┬`) on a box's bottom border down to its head (`▼`)
/// on top of another box, using only the drawn symbols: straight through `│ ─ ┼`, turning
/// at corners. A junction where lines merge would make the answer ambiguous: that fails.
fn traced_edges(d: &GraphDrawing) -> Result<BTreeSet<(usize, usize)>, String> {
    let buf = &d.buffer;
    let sym = |x: u16, y: u16| buf[(x, y)].symbol().to_string();
    let mut out = BTreeSet::new();
    for b in &d.boxes {
        let bottom = b.area.y + b.area.height - 1;
        for x in b.area.x + 1..b.area.x + b.area.width - 1 {
            if sym(x, bottom) != "┬" {
                continue;
            }
            // (dx, dy): moving down (0, 1), left (-1, 0) or right (1, 0).
            let (mut cx, mut cy, mut dx, mut dy) = (x as i32, bottom as i32 + 1, 0i32, 1i32);
            let target = loop {
                let s = sym(cx as u16, cy as u16);
                match (s.as_str(), dx, dy) {
                    ("│", 0, 1) | ("┼", _, _) | ("─", _, 0) => {}
                    ("┘", 0, 1) => (dx, dy) = (-1, 0),
                    ("└", 0, 1) => (dx, dy) = (1, 0),
                    ("┐", 1, 0) | ("┌", -1, 0) => (dx, dy) = (0, 1),
                    ("▼", 0, 1) => {
                        let hit = d.boxes.iter().find(|t| {
                            t.area.y as i32 == cy + 1
                                && (t.area.x as i32..(t.area.x + t.area.width) as i32).contains(&cx)
                        });
                        break hit.map(|t| t.node);
                    }
                    other => {
                        return Err(format!(
                            "edge from #{} hits {other:?} at ({cx}, {cy}):\n{}",
                            b.node,
                            text(buf)
                        ));
                    }
                }
                cx += dx;
                cy += dy;
            };
            let Some(target) = target else {
                return Err(format!("arrow lands on no box:\n{}", text(buf)));
            };
            out.insert((b.node, target));
        }
    }
    Ok(out)
}

fn check_edges(line: usize) -> GraphDrawing {
    let g = demo_graph(line);
    let d = draw_graph(&g, &Theme::dark());
    let expected: BTreeSet<(usize, usize)> = d.edges.iter().copied().collect();
    // Every same-function forward edge of the graph is drawn...
    let layers = g.layers();
    for e in &g.edges {
        let same = g.nodes[e.from].function == g.nodes[e.to].function;
        if !e.link && same && layers[e.from] < layers[e.to] {
            assert!(expected.contains(&(e.from, e.to)), "edge {e:?} not drawn");
        }
    }
    // ...and the cells say exactly that.
    match traced_edges(&d) {
        Ok(traced) => assert_eq!(traced, expected, "\n{}", text(&d.buffer)),
        Err(e) => panic!("{e}"),
    }
    d
}

#[test]
fn arrows_connect_the_right_boxes() {
    let mut total = 0;
    for line in 1..=36 {
        let d = check_edges(line);
        total += d.edges.len();
    }
    assert!(total > 60, "the demo has many edges: {total}");
}

/// Every graph of the parity corpus (real model answers, read by path; skipped when the
/// data is not there) is drawn, and its arrows traced back from the cells say exactly the
/// edges drawn. Known limit: when the port order between two layers is cyclic (edge A must
/// run above B, B above C, C above A) and no port can move aside, two edges share a
/// junction; on this corpus that is 1 graph of 1,883, and more than 1 in 500 fails the test.
#[test]
fn arrows_connect_the_right_boxes_on_the_parity_corpus() {
    // Skipped (saying so) without the data; under CI=true a missing corpus fails.
    let Some(data) =
        shared_data::shared_data_or_skip(&["parity/rollouts.jsonl", "se-bench/api_doc.jsonl"])
    else {
        return;
    };
    let (rollouts, api) = (
        data.join("parity/rollouts.jsonl"),
        data.join("se-bench/api_doc.jsonl"),
    );
    let api = ApiMap::load(&api).expect("API doc");
    let file = load_rollout_file(&rollouts).expect("parity rollouts");
    let theme = Theme::dark();
    let (mut graphs, mut edges, mut failed) = (0, 0, Vec::new());
    for r in &file.rollouts {
        let g = analyze_rollout(r, &api, None).code.graph;
        let d = draw_graph(&g, &theme);
        graphs += 1;
        edges += d.edges.len();
        let expected: BTreeSet<(usize, usize)> = d.edges.iter().copied().collect();
        match traced_edges(&d) {
            Ok(traced) if traced == expected => {}
            Ok(traced) => failed.push(format!("line {}: traced {traced:?}", r.line)),
            Err(e) => failed.push(format!("line {}: {e}", r.line)),
        }
    }
    eprintln!(
        "{graphs} graphs, {edges} edges drawn, {} not traceable",
        failed.len()
    );
    assert!(
        graphs > 1000 && edges > 5000,
        "{graphs} graphs, {edges} edges"
    );
    assert!(
        failed.len() * 500 <= graphs,
        "{} of {graphs}:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn pass_drawn() {
    let d = check_edges(1);
    assert_snapshot!(text(&d.buffer));
}

#[test]
fn helper_first_drawn() {
    let d = check_edges(32);
    assert_snapshot!(text(&d.buffer));
}

#[test]
fn numpy_array_and_tolist_drawn() {
    let d = check_edges(4);
    assert_snapshot!(text(&d.buffer));
}

#[test]
fn boxes_take_colours_from_the_theme_by_value_kind_and_mark_the_hinge() {
    let theme = Theme::builtin("high-contrast").expect("theme");
    let g = demo_graph(1);
    let d = draw_graph(&g, &theme);
    let call = d
        .boxes
        .iter()
        .find(|b| g.nodes[b.node].label.starts_with("zwc.kocito"))
        .expect("the zwc call's box");
    let corner = &d.buffer[(call.area.x, call.area.y)];
    assert_eq!(corner.symbol(), "┌");
    assert_eq!(Some(corner.fg), theme.value_zwc_array.fg);
    let inside: String = (call.area.x..call.area.x + call.area.width)
        .map(|x| d.buffer[(x, call.area.y + 1)].symbol().to_string())
        .collect();
    assert!(inside.contains("◆ zwc.kocito"), "{inside}");
}

#[test]
fn crossing_edges_drawn() {
    // The demo's busiest graph: edges cross, skip layers, and back edges are counted.
    let (line, d) = (1..=36)
        .map(|l| (l, check_edges(l)))
        .max_by_key(|(_, d)| d.edges.len())
        .expect("demo lines");
    assert!(d.edges.len() >= 10, "line {line}: {}", d.edges.len());
    assert_snapshot!(format!("demo line {line}\n{}", text(&d.buffer)));
}

#[test]
fn the_pane_lays_a_rows_drawing_out_once_and_again_for_a_new_analysis_or_theme() {
    let theme = Theme::dark();
    let analysis = Arc::new(demo_analysis(1));
    let cache = GraphCache::default();
    let first = cache.lines(7, &analysis, &theme);
    assert_eq!(*first, draw_graph(&analysis.code.graph, &theme).lines());
    // The next frames get the same lines, not a new layout.
    assert!(Arc::ptr_eq(&first, &cache.lines(7, &analysis, &theme)));
    // A new analysis of the row, or another theme, is laid out again.
    let fresh = Arc::new(demo_analysis(1));
    let redrawn = cache.lines(7, &fresh, &theme);
    assert!(!Arc::ptr_eq(&first, &redrawn));
    assert_eq!(*redrawn, *first);
    let light = Theme::builtin("light").expect("light theme");
    let relit = cache.lines(7, &fresh, &light);
    assert!(!Arc::ptr_eq(&redrawn, &relit));
    assert_eq!(*relit, draw_graph(&fresh.code.graph, &light).lines());
    assert_eq!(cache.len(), 1);
    cache.lines(8, &fresh, &light);
    assert_eq!(cache.len(), 2);
}
