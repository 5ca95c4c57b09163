//! `sebx export` on demo rollouts: SVG and HTML parse as XML, carry the code as text and
//! the theme's verdict colours; Markdown has the task, code, verdict and failed cases; the
//! plain text is a snapshot; a playlist becomes one page with every stage.

use std::path::Path;

use insta::assert_snapshot;
use quick_xml::Reader;
use quick_xml::events::Event;
use sebx::tui::Theme;
use sebx::tui::export::css_color;

use crate::isolated;

fn demo(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(file)
        .display()
        .to_string()
}

/// Runs `sebx export ARGS` with a private home; returns stdout.
fn export(args: &[&str]) -> String {
    let home = tempfile::tempdir().expect("tempdir");
    let out = isolated::assert_sebx()
        .arg("export")
        .args(args)
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

/// Parses `doc` as XML; returns the root element's name and all text, unescaped.
fn parse_xml(doc: &str) -> (String, String) {
    let mut reader = Reader::from_str(doc);
    let mut root = String::new();
    let mut text = String::new();
    let mut depth = 0;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                if depth == 0 {
                    root = AsRef::<str>::as_ref(&e.name()).to_string();
                }
                depth += 1;
            }
            Ok(Event::End(_)) => {
                depth -= 1;
                if depth == 0 {
                    text.push('\n');
                }
            }
            Ok(Event::Text(t)) => {
                text.push_str(&t);
            }
            Ok(Event::GeneralRef(r)) => {
                let name = r.to_string();
                text.push_str(match name.as_str() {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    "#39" => "'",
                    other => panic!("unknown entity {other}"),
                });
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed at {}: {e}", reader.buffer_position()),
        }
    }
    assert_eq!(depth, 0, "unclosed elements");
    (root, text)
}

fn hex(theme: &Theme, v: sebx::model::Verdict) -> String {
    css_color(theme.verdict(v).fg.expect("verdict colour")).expect("hex")
}

#[test]
fn svg_is_xml_with_the_code_as_text_and_the_verdict_colour() {
    let svg = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "16",
        "--format",
        "svg",
        "--theme",
        "dark",
    ]);
    let (root, text) = parse_xml(&svg);
    assert_eq!(root, "svg");
    assert!(svg.contains(r#"xmlns="http://www.w3.org/2000/svg""#));
    assert!(svg.contains("monospace"));
    assert!(text.contains("return zwc.mean(readings, axis=1)"), "{text}");
    let colour = hex(&Theme::dark(), sebx::model::Verdict::ExeError);
    assert!(
        svg.contains(&format!(r#"fill="{colour}""#)) && text.contains("exe_error"),
        "verdict drawn in {colour}"
    );
}

#[test]
fn html_is_a_self_contained_page_with_code_and_verdict_colour() {
    let theme = Theme::builtin("light").expect("light");
    let html = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "26",
        "--format",
        "html",
        "--theme",
        "light",
        "--pane",
        "cases",
    ]);
    assert!(html.starts_with("<!DOCTYPE html>"));
    let (root, text) = parse_xml(&html);
    assert_eq!(root, "html");
    assert!(text.contains("result_error"), "{text}");
    assert!(text.contains("offset=[3, 4]"), "the Cases pane: {text}");
    let colour = hex(&theme, sebx::model::Verdict::ResultError);
    assert!(
        html.contains(&format!("color:{colour}")),
        "verdict in {colour}"
    );
    assert!(
        !html.contains("src=") && !html.contains("href="),
        "nothing external"
    );
}

#[test]
fn markdown_has_task_code_verdict_and_failed_cases() {
    let md = export(&[&demo("rollouts.jsonl"), "--line", "26", "--format", "md"]);
    assert!(md.contains("**Task.** A delivery drone"), "{md}");
    assert!(md.contains("```python\nimport zwc"), "{md}");
    assert!(md.contains("ord=1"), "{md}");
    assert!(md.contains("**Verdict:** `result_error`"), "{md}");
    assert!(
        md.contains("| 1 | `offset=[3, 4]` | `5.0` | `7.0` |"),
        "{md}"
    );
}

#[test]
fn txt_is_the_plain_screen() {
    let txt = export(&[
        &demo("rollouts.jsonl"),
        "--line",
        "19",
        "--format",
        "txt",
        "--width",
        "80",
        "--pane",
        "graph",
    ]);
    assert!(txt.lines().all(|l| l == l.trim_end()));
    assert_snapshot!(txt);
}

#[test]
fn a_playlist_is_one_page_with_every_stage() {
    let html = export(&["--playlist", &demo("playlist.txt"), "--format", "html"]);
    let (root, text) = parse_xml(&html);
    assert_eq!(root, "html");
    for k in 1..=6 {
        assert!(text.contains(&format!("{k}/6")), "slide {k}");
    }
    for stage in ["Task", "Answer", "Your guess?", "Verdict", "Why"] {
        assert_eq!(
            text.matches(&format!(" {stage} ")).count(),
            6,
            "{stage} once per slide"
        );
    }
    for v in ["right", "exe_error", "result_error", "without_zwc"] {
        assert!(text.contains(v), "{v}");
    }
    let theme = Theme::builtin("high-contrast").expect("theme");
    let colour = hex(&theme, sebx::model::Verdict::WithoutZwc);
    assert!(html.contains(&format!("color:{colour}")));
}

#[test]
fn a_line_without_a_rollout_is_an_error_naming_file_and_line() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = isolated::assert_sebx()
        .args([
            "export",
            &demo("rollouts.jsonl"),
            "--line",
            "999",
            "--format",
            "txt",
        ])
        .env("HOME", home.path())
        .env("SEBX_DATA_DIR", home.path())
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rollouts.jsonl:999: no rollout on that line"),
        "{err}"
    );
}
