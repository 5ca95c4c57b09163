//! The dump's extra keys in the explorer's list (issue 30): a generated verl run whose lines
//! carry `acc` (`"True"`, `false`, `null` or no key at all), `pred` (strings) and, at one
//! step only, `request_id`. The explorer is opened as `sebx FILES` opens it and driven by
//! key events through the keymap: `V` lists the keys with their counts, `enter` shows `acc`
//! as a column (each row's value, or `–`), `→` and `enter` on a value keep only its samples,
//! `c` shows every row again, and `?` lists the key. Every expected figure comes from the
//! generator, not from sebx.

use crate::tui_common;

use crate::isolated;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};

use sebx::tui::App;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::run::action_for_event;

const STEPS: u32 = 3;
const PER_STEP: usize = 12;

/// One generated line: its step, line number and extras (value as written in the JSON,
/// and as text: a string is itself, anything else its JSON).
struct Line {
    step: u32,
    line: usize,
    acc: Option<(Value, String)>,
    pred: String,
    request_id: Option<String>,
}

fn generate() -> Vec<Line> {
    let mut out = Vec::new();
    for step in 1..=STEPS {
        for k in 0..PER_STEP {
            let n = (step as usize - 1) * PER_STEP + k;
            // Not a plain cycle of four, so counts differ per value.
            let acc = match (n * 7) % 5 {
                0 | 1 => Some((json!("True"), "True".to_string())),
                2 => Some((json!(false), "false".to_string())),
                3 => Some((Value::Null, "null".to_string())),
                _ => None,
            };
            out.push(Line {
                step,
                line: k + 1,
                acc,
                pred: format!("[{} {}]", n % 3, n % 3 + 1),
                request_id: (step == 2).then(|| format!("req-{n}")),
            });
        }
    }
    out
}

fn write_run(dir: &Path, lines: &[Line]) -> PathBuf {
    let run = dir.join("exp").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    for step in 1..=STEPS {
        let text: String = lines
            .iter()
            .filter(|l| l.step == step)
            .map(|l| {
                let mut v = json!({
                    "input": format!("user\n### Problem\nTask {}\nassistant\n", l.line % 4),
                    "output": format!("```python\nprint({})\n```", l.line),
                    "score": 0.0,
                    "step": step,
                    "pred": l.pred,
                });
                if let Some((acc, _)) = &l.acc {
                    v["acc"] = acc.clone();
                }
                if let Some(r) = &l.request_id {
                    v["request_id"] = json!(r);
                }
                format!("{v}\n")
            })
            .collect();
        std::fs::write(run.join(format!("{step}.jsonl")), text).expect("step file");
    }
    run
}

fn press(app: &mut App, key: KeyCode) {
    let event = Event::Key(KeyEvent::new(key, KeyModifiers::NONE));
    if let Some(action) = action_for_event(app, &event) {
        app.update(&action);
    }
    drain_inline(app, None);
}

fn drawn(app: &App) -> String {
    let (w, h) = app.size;
    tui_common::screen(&tui_common::draw(app, w, h))
}

/// The popup whose title holds `title`, cut out of `screen` (its box only: what is around
/// it, the list and its status line, is not the picker's).
fn popup(screen: &str, title: &str) -> String {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains(title))
        .unwrap_or_else(|| panic!("no popup titled {title}:\n{screen}"));
    let text: String = lines[top].iter().collect();
    let title_at = text[..text.find(title).expect("title")].chars().count();
    // The popup's corner: the last `┌` before its title.
    let left = lines[top][..title_at]
        .iter()
        .rposition(|c| *c == '┌')
        .expect("a corner");
    let right = left
        + lines[top][left..]
            .iter()
            .position(|c| *c == '┐')
            .expect("the right corner");
    let mut out = Vec::new();
    for l in &lines[top..] {
        let part: String = l[left..=right.min(l.len() - 1)].iter().collect();
        let bottom = part.starts_with('└');
        out.push(part);
        if bottom {
            break;
        }
    }
    out.join("\n")
}

/// The generated line a row was read from.
fn line_of<'a>(app: &App, lines: &'a [Line], row: usize) -> &'a Line {
    let r = &app.corpus.entries[row].rollout;
    let step: u32 = r
        .source
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.parse().ok())
        .expect("a step file");
    lines
        .iter()
        .find(|l| l.step == step && l.line == r.line)
        .expect("a generated line")
}

/// Opens the picker and, on `key`'s values, chooses `value` (`None`: the key absent).
fn filter_by(app: &mut App, key: &str, value: Option<&str>) {
    press(app, KeyCode::Char('V'));
    let at = app
        .extras
        .summary
        .iter()
        .position(|k| &*k.key == key)
        .expect("the key is listed");
    while app.extras.cursor != at {
        press(
            app,
            if app.extras.cursor < at {
                KeyCode::Down
            } else {
                KeyCode::Up
            },
        );
    }
    press(app, KeyCode::Right);
    let v = app.extras.summary[at]
        .values
        .iter()
        .position(|(v, _)| v.as_deref() == value)
        .expect("the value is listed");
    for _ in 0..v {
        press(app, KeyCode::Down);
    }
    press(app, KeyCode::Enter);
    assert!(app.popup.is_none(), "choosing a value closes the picker");
}

#[test]
fn extra_keys_as_columns_and_filters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines = generate();
    let run = write_run(dir.path(), &lines);
    let args = ExploreArgs {
        paths: vec![run],
        ..isolated::explore_args()
    };
    let (mut session, _backend) = open_default(&args).expect("opens");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, None);
    let app = &mut session.app;
    app.update(&sebx::tui::Action::Resize {
        width: 160,
        height: 50,
    });
    let total = lines.len();
    assert_eq!(app.list.rows().count(), total);

    // `V`: the keys by name, each with its samples and distinct values.
    press(app, KeyCode::Char('V'));
    assert_eq!(app.popup, Some(sebx::tui::app::Popup::ExtraKeys));
    let mut acc_counts: BTreeMap<Option<&str>, usize> = BTreeMap::new();
    for l in &lines {
        *acc_counts
            .entry(l.acc.as_ref().map(|a| a.1.as_str()))
            .or_default() += 1;
    }
    let with_acc = total - acc_counts[&None];
    let requests = lines.iter().filter(|l| l.request_id.is_some()).count();
    let got: Vec<(String, usize, usize)> = app
        .extras
        .summary
        .iter()
        .map(|k| (k.key.to_string(), k.samples, k.distinct()))
        .collect();
    assert_eq!(
        got,
        [
            ("acc".to_string(), with_acc, acc_counts.len() - 1),
            ("pred".to_string(), total, 3),
            ("request_id".to_string(), requests, requests),
        ]
    );
    let screen = drawn(app);
    insta::assert_snapshot!(
        "extra_keys_picker",
        popup(&screen, "Extra keys of the samples")
    );
    // The whole screen with the picker at the two sizes issue 41 names.
    let size = app.size;
    for (w, h) in [(80, 24), (160, 45)] {
        app.update(&sebx::tui::Action::Resize {
            width: w,
            height: h,
        });
        let whole = drawn(app);
        assert!(whole.contains("Extra keys of the samples"), "{whole}");
        insta::assert_snapshot!(format!("extra_keys_picker_{w}x{h}"), whole);
    }
    app.update(&sebx::tui::Action::Resize {
        width: size.0,
        height: size.1,
    });
    for (key, samples, distinct) in &got {
        let row = screen
            .lines()
            .find(|l| l.contains(&format!(" {key} ")) && l.contains("samples ·"))
            .unwrap_or_else(|| panic!("{key} not listed:\n{screen}"));
        assert!(
            row.contains(&format!("{samples} samples"))
                && row.contains(&format!("{distinct} values")),
            "{row}"
        );
    }
    // `enter` on `acc` (the first key): a column.
    press(app, KeyCode::Enter);
    press(app, KeyCode::Esc);
    assert!(app.popup.is_none());
    let screen = drawn(app);
    let screen_lines: Vec<&str> = screen.lines().collect();
    let header_at = screen_lines
        .iter()
        .position(|l| l.contains("verdict") && l.contains(" acc "))
        .unwrap_or_else(|| panic!("no acc column:\n{screen}"));
    let header = screen_lines[header_at];
    let start = header[..header.find(" acc ").expect("acc") + 1]
        .chars()
        .count();
    let shown_rows: Vec<usize> = app.list.rows().take(20).collect();
    for (k, row) in shown_rows.iter().enumerate() {
        let cell: String = screen_lines[header_at + 1 + k]
            .chars()
            .skip(start)
            .take(5)
            .collect();
        let want = line_of(app, &lines, *row)
            .acc
            .as_ref()
            .map_or("–", |a| a.1.as_str());
        assert_eq!(cell.trim(), want, "row {k}:\n{screen}");
    }

    // A value of `acc` keeps only its samples; the status bar names the filter.
    for value in [Some("True"), Some("false"), Some("null"), None] {
        filter_by(app, "acc", value);
        let rows: Vec<usize> = app.list.rows().collect();
        assert_eq!(rows.len(), acc_counts[&value], "acc={value:?}");
        assert!(
            rows.iter()
                .all(|r| line_of(app, &lines, *r).acc.as_ref().map(|a| a.1.as_str()) == value)
        );
        let status = drawn(app).lines().last().unwrap_or_default().to_string();
        let label = format!("acc={}", value.unwrap_or("(absent)"));
        assert!(status.contains(&label), "{status}");
    }
    // The same value again: every row.
    filter_by(app, "acc", None);
    assert_eq!(app.list.rows().count(), total);
    // A `pred` value, then `c` clears it.
    filter_by(app, "pred", Some("[1 2]"));
    let want = lines.iter().filter(|l| l.pred == "[1 2]").count();
    assert_eq!(app.list.rows().count(), want);
    press(app, KeyCode::Char('c'));
    assert_eq!(app.list.rows().count(), total);
    assert!(app.extras.filter.is_none());

    // `?` lists the key.
    press(app, KeyCode::Char('?'));
    let help = drawn(app);
    assert!(
        help.lines()
            .any(|l| l.contains(" V ") && l.contains("extra keys of the samples")),
        "{help}"
    );
}
