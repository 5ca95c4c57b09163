//! Exports are pages, not screens: no tab strip, frame, key hints, cursor row or pointers
//! to other panes; light by default; the header fits with an ellipsis; the SVG's row pitch
//! is the font's line box, so box-drawing lines join; `--line N` alone means the demo.

use std::path::Path;

use sebx::tui::Theme;
use sebx::tui::export::{CELL_H, css_color};

use crate::isolated;

fn demo(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(file)
        .display()
        .to_string()
}

fn export(args: &[&str]) -> String {
    let home = tempfile::tempdir().expect("tempdir");
    let out = isolated::assert_sebx()
        .arg("export")
        .args(args)
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .env("SEBX_DATA_DIR", home.path())
        .env_remove("SEBX_API_DOC")
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// What the explorer draws around and over a pane, which a page must not carry.
const CHROME: [&str; 10] = [
    "] next",
    "1 Response",
    "2 Code",
    "3 Cases",
    "J/K move",
    "f first failed",
    "5 again",
    "see the Code pane",
    "to regrade",
    "┌",
];

#[test]
fn txt_exports_carry_the_content_not_the_chrome() {
    for (line, pane) in [
        ("26", "cases"),
        ("19", "graph"),
        ("16", "output"),
        ("16", "code"),
        ("1", "task"),
    ] {
        let txt = export(&[
            &demo("rollouts.jsonl"),
            "--line",
            line,
            "--format",
            "txt",
            "--width",
            "80",
            "--pane",
            pane,
        ]);
        let head = txt.lines().next().unwrap_or("");
        assert!(
            head.starts_with(&format!("rollouts.jsonl:{line} ")),
            "{txt}"
        );
        for c in CHROME {
            // The graph drawing itself has boxes; the frame's corner is only checked on
            // the first lines.
            let probe = if c == "┌" {
                txt.lines().take(2).collect::<Vec<_>>().join("\n")
            } else {
                txt.clone()
            };
            assert!(!probe.contains(c), "{pane}: {c:?} in\n{txt}");
        }
    }
    let cases = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "26",
        "--format",
        "txt",
        "--pane",
        "cases",
    ]);
    assert!(cases.contains("offset=[3, 4]"), "{cases}");
    assert!(cases.contains("cases failed"), "{cases}");
}

#[test]
fn the_header_is_cut_with_an_ellipsis() {
    let txt = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "26",
        "--format",
        "txt",
        "--width",
        "50",
        "--pane",
        "response",
    ]);
    let head = txt.lines().next().unwrap_or("");
    assert!(head.chars().count() <= 50, "{head}");
    assert!(head.ends_with('…'), "{head}");
}

#[test]
fn html_and_svg_are_light_by_default_and_have_no_cursor_row() {
    let light = Theme::builtin("light").expect("light");
    let dark = Theme::dark();
    let bg = |t: &Theme| css_color(t.base.bg.expect("a background")).expect("hex");
    let html = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "26",
        "--format",
        "html",
        "--pane",
        "cases",
    ]);
    assert!(html.contains(&bg(&light)), "light background");
    assert!(!html.contains(&bg(&dark)), "not the dark one");
    if let Some(sel) = light.selected.bg.and_then(css_color) {
        assert!(!html.contains(&format!("background:{sel}")), "a cursor row");
    }
}

#[test]
fn svg_rows_are_one_line_box_apart() {
    let svg = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "19",
        "--format",
        "svg",
        "--pane",
        "graph",
    ]);
    // DejaVu Sans Mono's line box is 1.164 em: box lines only join at that pitch.
    let font: f32 = svg
        .split("font-size=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("a font size");
    assert!((CELL_H - font * 1.164).abs() < 0.01, "{CELL_H} vs {font}");
    let ys: Vec<f32> = svg
        .match_indices("<text y=\"")
        .filter_map(|(i, m)| {
            svg[i + m.len()..]
                .split('"')
                .next()
                .and_then(|n| n.parse().ok())
        })
        .collect();
    assert!(ys.len() > 5, "{svg}");
    for w in ys.windows(2) {
        let rows = (w[1] - w[0]) / CELL_H;
        assert!(
            (rows - rows.round()).abs() < 0.02 && rows.round() >= 1.0,
            "text rows {} and {} are not whole line boxes apart",
            w[0],
            w[1]
        );
    }
    // The graph's vertical box lines are drawn on consecutive rows.
    assert!(svg.contains('│'), "the graph has vertical lines");
}

#[test]
fn line_alone_exports_from_the_demo() {
    let md = export(&["--line", "16", "--format", "md"]);
    assert!(md.contains("**Verdict:**"), "{md}");
    assert!(md.contains("```python"), "{md}");
}
