//! The dependency graph as a picture: one box per node (parameters at the top, zwc calls
//! below them, the return at the bottom), layer by layer, edges routed in box characters
//! between the layers, borders coloured by value kind, the hinge call and unused results
//! marked. [`draw_graph`] lays it out once into an off-screen buffer; [`GraphView`] is the
//! widget that shows a scrolled window of it, and [`GraphDrawing::lines`] the same cells as
//! lines for the pane; [`GraphCache`] keeps those lines per row, so a frame does not lay
//! the graph out again.
//!
//! Layout (a small Sugiyama): layers from `DepGraph::layers`; an edge that skips layers
//! passes through a one-column stand-in in each layer between; order in a layer by
//! barycentre sweeps down and up (`graph_order`), the fewest crossings kept; each edge gets its own port on the boxes' borders and
//! its own horizontal track in the channel between two layers, so edges cross (`┼`) but
//! never merge.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::analysis::Analysis;
use crate::analysis::graph::{DepGraph, GraphNode, NodeKind, ValueKind};
use crate::model::bounded::Bounded;

use super::theme::Theme;

/// Longest node label drawn in a box (longer ones end in `…`).
const LABEL_MAX: usize = 28;
/// Columns between two boxes of a layer.
const GAP: u16 = 2;
/// Height of a box.
const BOX_H: u16 = 3;
/// Larger graphs are not drawn (the list shows them): the drawing would not fit any screen,
/// and its size would overflow terminal coordinates.
const MAX_NODES: usize = 300;
/// Widest layer drawn, in columns.
const MAX_WIDTH: u16 = 2000;
/// Tallest function drawn, in rows.
const MAX_HEIGHT: u16 = 4000;

/// Where a node's box was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeBox {
    pub node: usize,
    pub area: Rect,
}

/// The laid-out graph: its cells, where each box is, and which edges were drawn.
#[derive(Debug, Clone)]
pub struct GraphDrawing {
    pub buffer: Buffer,
    pub boxes: Vec<NodeBox>,
    /// Edges drawn, as (from node, to node).
    pub edges: Vec<(usize, usize)>,
    /// Edges not drawn (backward edges of loops, helper links), counted for the footnote.
    pub skipped: usize,
}

impl GraphDrawing {
    pub fn width(&self) -> u16 {
        self.buffer.area.width
    }

    pub fn height(&self) -> u16 {
        self.buffer.area.height
    }

    /// The drawing as styled lines (one per row), for panes that scroll lines.
    pub fn lines(&self) -> Vec<Line<'static>> {
        let area = self.buffer.area;
        (0..area.height)
            .map(|y| {
                let mut spans: Vec<Span<'static>> = Vec::new();
                let mut run = String::new();
                let mut style = Style::default();
                for x in 0..area.width {
                    let cell = &self.buffer[(x, y)];
                    let s = cell.style();
                    if s != style && !run.is_empty() {
                        spans.push(Span::styled(std::mem::take(&mut run), style));
                    }
                    style = s;
                    run.push_str(cell.symbol());
                }
                let trimmed = run.trim_end().to_string();
                if !trimmed.is_empty() {
                    spans.push(Span::styled(trimmed, style));
                }
                Line::from(spans)
            })
            .collect()
    }
}

/// Rows' graph drawings as lines, laid out once per row: the drawing depends only on the
/// row's analysis and the theme (not on the pane's width: wide drawings scroll sideways),
/// so both are checked on a hit. Drawing reads the app, hence the cell inside.
#[derive(Debug)]
pub struct GraphCache {
    drawn: RefCell<Bounded<usize, DrawnGraph>>,
}

#[derive(Debug)]
struct DrawnGraph {
    analysis: Arc<Analysis>,
    theme: Theme,
    lines: Arc<Vec<Line<'static>>>,
}

/// Most graph drawings kept; the rows looked at least recently go first.
const GRAPH_CACHE: usize = 32;

impl Default for GraphCache {
    fn default() -> GraphCache {
        GraphCache {
            drawn: RefCell::new(Bounded::new(GRAPH_CACHE)),
        }
    }
}

impl GraphCache {
    /// The drawing of `row`'s graph (from `analysis`) as lines, laid out on the first call.
    pub fn lines(
        &self,
        row: usize,
        analysis: &Arc<Analysis>,
        theme: &Theme,
    ) -> Arc<Vec<Line<'static>>> {
        let mut drawn = self.drawn.borrow_mut();
        if let Some(d) = drawn.get(&row)
            && Arc::ptr_eq(&d.analysis, analysis)
            && d.theme == *theme
        {
            return d.lines.clone();
        }
        let lines = Arc::new(draw_graph(&analysis.code.graph, theme).lines());
        drawn.insert(
            row,
            DrawnGraph {
                analysis: analysis.clone(),
                theme: theme.clone(),
                lines: lines.clone(),
            },
        );
        lines
    }

    /// Number of rows whose drawing is held.
    pub fn len(&self) -> usize {
        self.drawn.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A window onto a [`GraphDrawing`], scrolled by (columns, rows).
pub struct GraphView<'a> {
    pub drawing: &'a GraphDrawing,
    pub scroll: (u16, u16),
}

impl Widget for GraphView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let src = &self.drawing.buffer;
        for dy in 0..area.height {
            let sy = dy + self.scroll.1;
            if sy >= src.area.height {
                break;
            }
            for dx in 0..area.width {
                let sx = dx + self.scroll.0;
                if sx >= src.area.width {
                    break;
                }
                buf[(area.x + dx, area.y + dy)] = src[(sx, sy)].clone();
            }
        }
    }
}

/// Style of a box's border by the kind of value the node is.
pub fn value_style(theme: &Theme, kind: ValueKind) -> Style {
    match kind {
        ValueKind::ZwcArray | ValueKind::ZwcTuple => theme.value_zwc_array,
        ValueKind::NumpyArray | ValueKind::NumpyTuple => theme.value_numpy_array,
        ValueKind::Python | ValueKind::Scalar => theme.value_python,
        ValueKind::Unknown => theme.border,
    }
}

fn label_of(n: &GraphNode) -> String {
    let mut label = match n.kind {
        NodeKind::Return => "return".to_string(),
        _ => n.label.clone(),
    };
    if n.hinge {
        label = format!("◆ {label}");
    }
    if n.unused {
        label.push_str(" ✗unused");
    }
    let count = label.chars().count();
    if count > LABEL_MAX {
        label = label.chars().take(LABEL_MAX - 1).collect::<String>() + "…";
    }
    label
}

fn kind_tag(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Unknown => "",
        other => other.label(),
    }
}

/// An item of a layer: a node's box, or the stand-in of an edge passing through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Item {
    Node(usize),
    /// Edge index and layer, passing through that layer.
    Pass(usize, usize),
}

/// One edge piece between two consecutive layers.
#[derive(Debug, Clone, Copy)]
struct Segment {
    upper: Item,
    lower: Item,
    /// Ports (filled once items are placed).
    fx: u16,
    tx: u16,
}

/// Lays out `graph` (every function, the entry first) with `theme`'s colours.
pub fn draw_graph(graph: &DepGraph, theme: &Theme) -> GraphDrawing {
    if graph.nodes.len() > MAX_NODES {
        let text = format!(
            "{} nodes: too many to draw (5 shows the graph as a list)",
            graph.nodes.len()
        );
        let mut buffer = Buffer::empty(Rect::new(0, 0, text.chars().count() as u16, 1));
        buffer.set_string(0, 0, &text, theme.dim);
        return GraphDrawing {
            buffer,
            boxes: Vec::new(),
            edges: Vec::new(),
            skipped: graph.edges.len(),
        };
    }
    let layers = graph.layers();
    let mut functions: Vec<_> = graph.functions.iter().collect();
    functions.sort_by_key(|f| (!f.is_entry, f.line));
    let mut blocks: Vec<Block> = Vec::new();
    let mut skipped = 0;
    for f in &functions {
        let nodes: Vec<&GraphNode> = graph.function_nodes(&f.name).collect();
        let role = if f.is_entry { "entry" } else { "helper" };
        let mut title = format!("{role} {}({})", f.name, f.params.join(", "));
        if title.chars().count() > 160 {
            title = title.chars().take(159).collect::<String>() + "…";
        }
        let (block, skip) = layout_function(graph, &nodes, &layers, title, theme);
        skipped += skip;
        blocks.push(block);
    }
    skipped += graph.edges.iter().filter(|e| e.link).count();
    let legend = legend(theme, skipped);
    let width = blocks
        .iter()
        .map(|b| b.width)
        .chain(std::iter::once(
            legend.iter().map(|(t, _)| t.chars().count() as u16).sum(),
        ))
        .max()
        .unwrap_or(1)
        .max(1);
    // Functions past the tallest drawing are left out (the list has them).
    let mut shown = 0;
    let mut total: u32 = 1;
    for b in &blocks {
        if total + u32::from(b.height) + 1 > u32::from(MAX_HEIGHT) {
            break;
        }
        total += u32::from(b.height) + 1;
        shown += 1;
    }
    blocks.truncate(shown);
    let height = total as u16;
    let mut buffer = Buffer::empty(Rect::new(0, 0, width, height.max(1)));
    let mut boxes = Vec::new();
    let mut edges = Vec::new();
    let mut y = 0;
    if blocks.is_empty() {
        buffer.set_string(0, 0, "(no functions)", theme.dim);
    }
    for b in &blocks {
        for (x, yy, sym, style) in &b.cells {
            if *x < width && y + yy < height {
                let cell = &mut buffer[(*x, y + yy)];
                cell.set_symbol(sym);
                cell.set_style(*style);
            }
        }
        for nb in &b.boxes {
            boxes.push(NodeBox {
                node: nb.node,
                area: Rect {
                    y: nb.area.y + y,
                    ..nb.area
                },
            });
        }
        edges.extend(b.edges.iter().copied());
        y += b.height + 1;
    }
    let mut x = 0;
    for (text, style) in legend {
        buffer.set_string(x, height - 1, &text, style);
        x += text.chars().count() as u16;
    }
    GraphDrawing {
        buffer,
        boxes,
        edges,
        skipped,
    }
}

fn legend(theme: &Theme, skipped: usize) -> Vec<(String, Style)> {
    let mut out = vec![
        ("◆ hinge  ".to_string(), theme.warning),
        ("✗ unused  ".to_string(), theme.error),
        ("■ ZWCArray ".to_string(), theme.value_zwc_array),
        ("■ ndarray ".to_string(), theme.value_numpy_array),
        ("■ python/number".to_string(), theme.value_python),
    ];
    if skipped > 0 {
        out.push((
            format!("  ({skipped} loop/helper edges not drawn: 5 shows the list)"),
            theme.dim,
        ));
    }
    out
}

/// One function's drawing, in its own coordinates.
struct Block {
    width: u16,
    height: u16,
    cells: Vec<(u16, u16, String, Style)>,
    boxes: Vec<NodeBox>,
    edges: Vec<(usize, usize)>,
}

/// The block drawn instead of a graph too big for the screen: its title `cells` and `note`.
fn too_big(
    mut cells: Vec<(u16, u16, String, Style)>,
    title_w: u16,
    note: &str,
    style: Style,
) -> Block {
    for (k, ch) in note.chars().enumerate() {
        cells.push((k as u16, 1, ch.to_string(), style));
    }
    Block {
        width: title_w.max(note.chars().count() as u16),
        height: 2,
        cells,
        boxes: Vec::new(),
        edges: Vec::new(),
    }
}

fn layout_function(
    graph: &DepGraph,
    nodes: &[&GraphNode],
    layers: &[usize],
    title: String,
    theme: &Theme,
) -> (Block, usize) {
    let mut cells: Vec<(u16, u16, String, Style)> = Vec::new();
    let put = |cells: &mut Vec<(u16, u16, String, Style)>, x: u16, y: u16, s: &str, st: Style| {
        cells.push((x, y, s.to_string(), st));
    };
    for (k, ch) in title.chars().enumerate() {
        put(&mut cells, k as u16, 0, &ch.to_string(), theme.title);
    }
    let title_w = title.chars().count() as u16;
    if nodes.is_empty() {
        return (
            Block {
                width: title_w,
                height: 1,
                cells,
                boxes: Vec::new(),
                edges: Vec::new(),
            },
            0,
        );
    }
    let in_fn: HashMap<usize, &GraphNode> = nodes.iter().map(|n| (n.id, *n)).collect();
    let base = nodes.iter().map(|n| layers[n.id]).min().unwrap_or(0);
    let layer_of = |id: usize| layers[id] - base;
    let depth = nodes.iter().map(|n| layer_of(n.id)).max().unwrap_or(0) + 1;
    // Edges drawn: inside this function, pointing down the layers.
    let mut drawn: Vec<(usize, usize)> = Vec::new();
    let mut skipped = 0;
    for e in &graph.edges {
        if e.link || !in_fn.contains_key(&e.from) || !in_fn.contains_key(&e.to) {
            continue;
        }
        if layer_of(e.from) < layer_of(e.to) {
            drawn.push((e.from, e.to));
        } else {
            skipped += 1;
        }
    }
    // Items per layer, and the segments between consecutive layers.
    let mut items: Vec<Vec<Item>> = vec![Vec::new(); depth];
    let mut sorted: Vec<&&GraphNode> = nodes.iter().collect();
    sorted.sort_by_key(|n| n.id);
    for n in sorted {
        items[layer_of(n.id)].push(Item::Node(n.id));
    }
    let mut segments: Vec<Vec<Segment>> = vec![Vec::new(); depth.saturating_sub(1)];
    for (k, (from, to)) in drawn.iter().enumerate() {
        let (a, b) = (layer_of(*from), layer_of(*to));
        let mut upper = Item::Node(*from);
        for (l, layer_segments) in segments.iter_mut().enumerate().take(b).skip(a) {
            let lower = if l + 1 == b {
                Item::Node(*to)
            } else {
                items[l + 1].push(Item::Pass(k, l + 1));
                Item::Pass(k, l + 1)
            };
            layer_segments.push(Segment {
                upper,
                lower,
                fx: 0,
                tx: 0,
            });
            upper = lower;
        }
    }
    // Order each layer so edges cross as little as the sweeps find (`graph_order`).
    let pairs: Vec<Vec<(Item, Item)>> = segments
        .iter()
        .map(|segs| segs.iter().map(|s| (s.upper, s.lower)).collect())
        .collect();
    super::graph_order::order_layers(&mut items, &pairs);
    // Widths: labels, and room for one port per edge on each border.
    let mut below: HashMap<Item, usize> = HashMap::new();
    let mut above: HashMap<Item, usize> = HashMap::new();
    for s in segments.iter().flatten() {
        *below.entry(s.upper).or_default() += 1;
        *above.entry(s.lower).or_default() += 1;
    }
    let ports = |it: Item, lower_border: bool| -> usize {
        let map = if lower_border { &below } else { &above };
        map.get(&it).copied().unwrap_or(0)
    };
    let width_of = |it: Item| -> u16 {
        match it {
            Item::Pass(..) => 1,
            Item::Node(id) => {
                let label = label_of(in_fn[&id]).chars().count();
                let tag = kind_tag(in_fn[&id].value).chars().count() + 2;
                let p = ports(it, true).max(ports(it, false));
                (label.max(tag).max(2 * p) + 4).min(usize::from(MAX_WIDTH)) as u16
            }
        }
    };
    let row_w32: Vec<u32> = items
        .iter()
        .map(|layer| {
            let w: u32 = layer.iter().map(|it| u32::from(width_of(*it))).sum();
            w + u32::from(GAP) * layer.len().saturating_sub(1) as u32
        })
        .collect();
    if row_w32.iter().any(|w| *w > u32::from(MAX_WIDTH)) {
        return (
            too_big(
                cells,
                title_w,
                "(too wide to draw: 5 shows this graph as a list)",
                theme.dim,
            ),
            drawn.len() + skipped,
        );
    }
    let row_w: Vec<u16> = row_w32.iter().map(|w| *w as u16).collect();
    let width = row_w.iter().copied().max().unwrap_or(0).max(title_w);
    let mut place: HashMap<Item, (u16, u16)> = HashMap::new();
    for (l, layer) in items.iter().enumerate() {
        let mut x = (width - row_w[l]) / 2;
        for it in layer {
            let w = width_of(*it);
            place.insert(*it, (x, w));
            x += w + GAP;
        }
    }
    // Ports: spread over the border, in the order of the other ends.
    for segs in segments.iter_mut() {
        let mut by_upper: HashMap<Item, Vec<usize>> = HashMap::new();
        let mut by_lower: HashMap<Item, Vec<usize>> = HashMap::new();
        for (k, s) in segs.iter().enumerate() {
            by_upper.entry(s.upper).or_default().push(k);
            by_lower.entry(s.lower).or_default().push(k);
        }
        let centre = |it: Item| place[&it].0 + place[&it].1 / 2;
        for (it, mut ks) in by_upper {
            ks.sort_by_key(|k| centre(segs[*k].lower));
            let xs = spread(place[&it], ks.len());
            for (k, x) in ks.into_iter().zip(xs) {
                segs[k].fx = x;
            }
        }
        for (it, mut ks) in by_lower {
            ks.sort_by_key(|k| centre(segs[*k].upper));
            let xs = spread(place[&it], ks.len());
            for (k, x) in ks.into_iter().zip(xs) {
                segs[k].tx = x;
            }
        }
    }
    // An upper port and a lower port in the same column of a channel force an order on the
    // two edges' tracks; such orders can be cyclic. Nudge a box's port a column aside where
    // there is room, so columns are not shared.
    for segs in segments.iter_mut() {
        for k in 0..segs.len() {
            let s = segs[k];
            if s.fx == s.tx {
                continue;
            }
            let uppers: Vec<u16> = segs.iter().map(|q| q.fx).collect();
            let lowers: Vec<u16> = segs.iter().map(|q| q.tx).collect();
            let inside = |it: Item, x: u16| {
                let (bx, bw) = place[&it];
                matches!(it, Item::Node(_)) && x > bx && x + 1 < bx + bw
            };
            if uppers.iter().enumerate().any(|(q, x)| q != k && *x == s.tx) {
                let free = [s.tx.wrapping_sub(1), s.tx + 1]
                    .into_iter()
                    .find(|x| inside(s.lower, *x) && !uppers.contains(x) && !lowers.contains(x));
                if let Some(x) = free {
                    segs[k].tx = x;
                    continue;
                }
            }
            if lowers.iter().enumerate().any(|(q, x)| q != k && *x == s.fx) {
                let free = [s.fx.wrapping_sub(1), s.fx + 1]
                    .into_iter()
                    .find(|x| inside(s.upper, *x) && !uppers.contains(x) && !lowers.contains(x));
                if let Some(x) = free {
                    segs[k].fx = x;
                }
            }
        }
    }
    // Rows: title, then each layer of boxes and the channel below it.
    let tracks: Vec<(Vec<usize>, u16)> = segments.iter().map(|s| assign_tracks(s)).collect();
    let mut layer_y = Vec::with_capacity(depth);
    let mut y: u32 = 1;
    for l in 0..depth {
        layer_y.push(y.min(u32::from(MAX_HEIGHT)) as u16);
        y += u32::from(BOX_H);
        if let Some((_, count)) = tracks.get(l) {
            y += u32::from(*count) + 2;
        }
    }
    if y > u32::from(MAX_HEIGHT) {
        return (
            too_big(
                cells,
                title_w,
                "(too tall to draw: 5 shows this graph as a list)",
                theme.dim,
            ),
            drawn.len() + skipped,
        );
    }
    let height = y as u16;
    let mut boxes = Vec::new();
    for (l, layer) in items.iter().enumerate() {
        let top = layer_y[l];
        for it in layer {
            let (x, w) = place[it];
            match it {
                Item::Pass(..) => {
                    for dy in 0..BOX_H {
                        put(&mut cells, x, top + dy, "│", theme.border);
                    }
                }
                Item::Node(id) => {
                    let n = in_fn[id];
                    let bstyle = value_style(theme, n.value);
                    let lstyle = if n.hinge {
                        theme.warning
                    } else if n.unused {
                        theme.error
                    } else if n.kind == NodeKind::ZwcCall {
                        theme.title
                    } else {
                        theme.base
                    };
                    let tag = kind_tag(n.value);
                    for dx in 0..w {
                        let (t, b) = match dx {
                            0 => ("┌", "└"),
                            d if d == w - 1 => ("┐", "┘"),
                            _ => ("─", "─"),
                        };
                        put(&mut cells, x + dx, top, t, bstyle);
                        put(&mut cells, x + dx, top + 2, b, bstyle);
                    }
                    for (k, ch) in tag.chars().enumerate() {
                        put(&mut cells, x + 2 + k as u16, top, &ch.to_string(), bstyle);
                    }
                    put(&mut cells, x, top + 1, "│", bstyle);
                    put(&mut cells, x + w - 1, top + 1, "│", bstyle);
                    let label = label_of(n);
                    let pad = (w - 2 - label.chars().count() as u16) / 2;
                    for dx in 1..w - 1 {
                        put(&mut cells, x + dx, top + 1, " ", lstyle);
                    }
                    for (k, ch) in label.chars().enumerate() {
                        put(
                            &mut cells,
                            x + 1 + pad + k as u16,
                            top + 1,
                            &ch.to_string(),
                            lstyle,
                        );
                    }
                    boxes.push(NodeBox {
                        node: *id,
                        area: Rect::new(x, top, w, BOX_H),
                    });
                }
            }
        }
    }
    // Edges, channel by channel: a direction mask per cell, then box characters.
    for (l, segs) in segments.iter().enumerate() {
        let top = layer_y[l] + BOX_H;
        let (assigned, count) = &tracks[l];
        let last = count + 1;
        let mut mask: HashMap<(u16, u16), u8> = HashMap::new();
        let mut add = |x: u16, y: u16, m: u8| *mask.entry((x, y)).or_default() |= m;
        for (k, s) in segs.iter().enumerate() {
            let row = if s.fx == s.tx {
                last
            } else {
                1 + assigned[k] as u16
            };
            for r in 0..row {
                add(s.fx, r, UP | DOWN);
            }
            if s.fx == s.tx {
                add(s.fx, row, UP | DOWN);
            } else {
                let (a, b) = (s.fx.min(s.tx), s.fx.max(s.tx));
                let toward = if s.tx > s.fx { RIGHT } else { LEFT };
                let back = if s.tx > s.fx { LEFT } else { RIGHT };
                add(s.fx, row, UP | toward);
                for x in a + 1..b {
                    add(x, row, LEFT | RIGHT);
                }
                add(s.tx, row, back | DOWN);
                for r in row + 1..=last {
                    add(s.tx, r, UP | DOWN);
                }
            }
            // The source border gets a tee; a box below gets an arrow head.
            if let Item::Node(_) = s.upper {
                put(&mut cells, s.fx, top - 1, "┬", theme.border);
            }
        }
        for ((x, r), m) in mask {
            put(&mut cells, x, top + r, box_char(m), theme.border);
        }
        for s in segs {
            if let Item::Node(_) = s.lower {
                put(&mut cells, s.tx, top + last, "▼", theme.border);
            }
        }
    }
    (
        Block {
            width,
            height,
            cells,
            boxes,
            edges: drawn,
        },
        skipped,
    )
}

const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

fn box_char(mask: u8) -> &'static str {
    match mask {
        m if m == UP | DOWN | LEFT | RIGHT => "┼",
        m if m == UP | DOWN | RIGHT => "├",
        m if m == UP | DOWN | LEFT => "┤",
        m if m == DOWN | LEFT | RIGHT => "┬",
        m if m == UP | LEFT | RIGHT => "┴",
        m if m == DOWN | RIGHT => "┌",
        m if m == DOWN | LEFT => "┐",
        m if m == UP | RIGHT => "└",
        m if m == UP | LEFT => "┘",
        m if m & (LEFT | RIGHT) != 0 && m & (UP | DOWN) == 0 => "─",
        _ => "│",
    }
}

/// `n` distinct port columns inside an item at (x, width).
fn spread((x, w): (u16, u16), n: usize) -> Vec<u16> {
    if w <= 2 {
        return vec![x; n];
    }
    let inner = u32::from(w - 2);
    (0..n)
        .map(|k| x + 1 + ((k as u32 * 2 + 1) * inner / (2 * n as u32)) as u16)
        .collect()
}

/// A horizontal track per bending segment, so no two edges share a line: returns each
/// segment's track (straight segments: unused) and the number of tracks.
fn assign_tracks(segs: &[Segment]) -> (Vec<usize>, u16) {
    let mut track: Vec<Option<usize>> = vec![None; segs.len()];
    let mut order: Vec<usize> = (0..segs.len())
        .filter(|k| segs[*k].fx != segs[*k].tx)
        .collect();
    order.sort_by_key(|k| segs[*k].fx.min(segs[*k].tx));
    let mut count = 0usize;
    for k in order {
        let s = segs[k];
        let (lo, hi) = (s.fx.min(s.tx), s.fx.max(s.tx));
        // Tracks that must be below (greater) or above (smaller) this one.
        let mut above_of: Option<usize> = None; // this track < t for all these
        let mut below_of: Option<usize> = None; // this track > t for all these
        for (q, t) in track.iter().enumerate() {
            let Some(t) = *t else { continue };
            let o = segs[q];
            if s.fx == o.tx {
                above_of = Some(above_of.map_or(t, |a| a.min(t)));
            }
            if s.tx == o.fx {
                below_of = Some(below_of.map_or(t, |b| b.max(t)));
            }
        }
        let fits = |t: usize, track: &[Option<usize>]| {
            above_of.is_none_or(|a| t < a)
                && below_of.is_none_or(|b| t > b)
                && track.iter().enumerate().all(|(q, tq)| {
                    *tq != Some(t) || {
                        let o = segs[q];
                        let (olo, ohi) = (o.fx.min(o.tx), o.fx.max(o.tx));
                        hi + 1 < olo || ohi + 1 < lo
                    }
                })
        };
        let chosen = (0..count).find(|t| fits(*t, &track));
        let t = match chosen {
            Some(t) => t,
            None => {
                // A new track just below the ones it must follow, shifting the rest down.
                let at =
                    below_of
                        .map_or(0, |b| b + 1)
                        .max(if above_of.is_none() { count } else { 0 });
                let at = at.min(count);
                for t in track.iter_mut().flatten() {
                    if *t >= at {
                        *t += 1;
                    }
                }
                count += 1;
                at
            }
        };
        track[k] = Some(t);
    }
    (
        track.into_iter().map(|t| t.unwrap_or(0)).collect(),
        count as u16,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::graph::{FunctionInfo, GraphEdge};

    fn graph(params: usize, label: &str) -> DepGraph {
        let mut g = DepGraph {
            functions: vec![FunctionInfo {
                name: "solve".into(),
                params: Vec::new(),
                line: 1,
                is_entry: true,
                offset: 0,
            }],
            ..DepGraph::default()
        };
        for id in 0..=params {
            g.nodes.push(GraphNode {
                id,
                function: "solve".into(),
                kind: if id == params {
                    NodeKind::Return
                } else {
                    NodeKind::Param
                },
                label: format!("{label}{id}"),
                line: 1,
                col: 1,
                response_line: 1,
                value: ValueKind::Unknown,
                reaches_return: false,
                unused: false,
                hinge: false,
                zwc: None,
                numpy: None,
                offset: 0,
            });
            if id < params {
                g.edges.push(GraphEdge {
                    from: id,
                    to: params,
                    link: false,
                });
            }
        }
        g
    }

    fn text(d: &GraphDrawing) -> String {
        (0..d.height())
            .map(|y| {
                (0..d.width())
                    .map(|x| d.buffer[(x, y)].symbol().to_string())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn graphs_too_large_to_draw_say_so() {
        let theme = Theme::dark();
        let small = draw_graph(&graph(3, "p"), &theme);
        assert_eq!(small.edges.len(), 3);
        assert_eq!(small.boxes.len(), 4);
        let wide = draw_graph(&graph(120, "a_rather_long_parameter_name_"), &theme);
        assert!(wide.boxes.is_empty());
        assert!(text(&wide).contains("too wide to draw"), "{}", text(&wide));
        let many = draw_graph(&graph(400, "p"), &theme);
        assert!(text(&many).contains("401 nodes: too many to draw"));
    }
}
