//! The presenter: the stage sequence over the demo playlist (the verdict is never on screen
//! before its stage, checked on the drawn buffer), keys, speaker notes, and snapshots at
//! 80×24 and 200×50.

use insta::assert_snapshot;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use sebx::model::Verdict;
use sebx::tui::Grading;
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::present::{self, Presenter, Stage};

use crate::isolated;

const VERDICTS: [&str; 5] = [
    "✓ right",
    "result_error",
    "exe_error",
    "use_numpy",
    "without_zwc",
];

/// The demo playlist over the built-in demo, in the high-contrast theme, sidecars in `data`.
fn demo(data: &std::path::Path) -> Presenter {
    let args = ExploreArgs {
        theme: Some("high-contrast".to_string()),
        ..isolated::explore_args()
    };
    crate::tui_common::demo_presenter(&args, data)
}

fn render(p: &Presenter, w: u16, h: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    present::render(p, buf.area, &mut buf);
    buf
}

fn text(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let row: String = (0..buf.area.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn the_verdict_is_never_on_screen_before_its_stage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    assert_eq!(p.slides.len(), 6);
    let expected = [
        Verdict::Right,
        Verdict::ExeError,
        Verdict::ExeError,
        Verdict::ExeError,
        Verdict::ResultError,
        Verdict::WithoutZwc,
    ];
    let got: Vec<Option<Verdict>> = p.slides.iter().map(present::slide_verdict).collect();
    assert_eq!(got, expected.map(Some).to_vec());
    let mut steps = 0;
    for (k, verdict) in expected.iter().enumerate() {
        for stage in Stage::ALL {
            assert_eq!(
                (p.index, p.stage),
                (k, stage),
                "space walks every stage in order"
            );
            for (w, h) in [(80, 24), (200, 50)] {
                let buf = render(&p, w, h);
                let screen = text(&buf);
                let top = screen.lines().next().unwrap_or("");
                assert!(top.contains(stage.title()), "{top}");
                assert!(top.trim_end().ends_with(&format!("{}/6", k + 1)), "{top}");
                let label = verdict.as_str();
                if stage < Stage::Verdict {
                    for v in VERDICTS {
                        assert!(!screen.contains(v), "{v} shown at {stage:?}:\n{screen}");
                    }
                } else {
                    // Shown below the top bar (which may carry the caption), in the theme's
                    // colour for that verdict.
                    let body: String = screen.lines().skip(1).collect::<Vec<_>>().join("\n");
                    let (x, y) = find(&body, label).unwrap_or_else(|| panic!("{screen}"));
                    let y = y + 1;
                    let cell = &buf[(x, y)];
                    assert_eq!(Some(cell.fg), p.theme.verdict(*verdict).fg, "{screen}");
                }
            }
            p.handle_key(&key(KeyCode::Char(' ')));
            steps += 1;
        }
    }
    assert_eq!(steps, 30);
    // The end stays at the end; ← walks back across slides.
    assert_eq!((p.index, p.stage), (5, Stage::Why));
    for _ in 0..5 {
        p.handle_key(&key(KeyCode::Left));
    }
    assert_eq!((p.index, p.stage), (4, Stage::Why));
    p.handle_key(&key(KeyCode::PageUp));
    assert_eq!((p.index, p.stage), (3, Stage::Task));
    p.handle_key(&key(KeyCode::Char('q')));
    assert!(p.quit);
}

/// Cell of the first occurrence of `needle` in the screen text.
fn find(screen: &str, needle: &str) -> Option<(u16, u16)> {
    screen.lines().enumerate().find_map(|(y, l)| {
        l.find(needle)
            .map(|b| (l[..b].chars().count() as u16, y as u16))
    })
}

#[test]
fn why_names_the_right_name_and_the_failed_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    p.index = 1;
    p.stage = Stage::Why;
    let screen = text(&render(&p, 200, 50));
    assert!(screen.contains("zwc.mean  → use zwc.kocito"), "{screen}");
    assert!(
        screen.contains("AttributeError: module 'zwc' has no attribute 'mean'"),
        "{screen}"
    );
    assert!(
        screen.contains("The static check hinges on zwc.mean"),
        "{screen}"
    );
    assert!(screen.contains("▼"), "the graph is drawn: {screen}");
    p.index = 4;
    let screen = text(&render(&p, 80, 24));
    assert!(screen.contains("expected  5.0"), "{screen}");
    assert!(screen.contains("actual    7.0"), "{screen}");
}

#[test]
fn speaker_notes_toggle_with_labels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    p.index = 4;
    let plain = text(&render(&p, 100, 30));
    assert!(!plain.contains("speaker notes"), "{plain}");
    p.handle_key(&key(KeyCode::Char('n')));
    let notes = text(&render(&p, 100, 30));
    assert!(notes.contains("speaker notes"), "{notes}");
    assert!(notes.contains("samples/demo/rollouts.jsonl:26"), "{notes}");
    // Labels give the answer away: they wait for the Why stage.
    assert!(!notes.contains("ana: Wrong arguments"), "{notes}");
    p.stage = Stage::Why;
    let why = text(&render(&p, 100, 30));
    assert!(why.contains("ana: Wrong arguments"), "{why}");
    p.stage = Stage::Task;
    p.handle_key(&key(KeyCode::Char('n')));
    assert_eq!(text(&render(&p, 100, 30)), plain);
}

#[test]
fn snapshots_80x24() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    p.index = 3;
    p.stage = Stage::Task;
    assert_snapshot!("task_80x24", text(&render(&p, 80, 24)));
    p.stage = Stage::Guess;
    assert_snapshot!("guess_80x24", text(&render(&p, 80, 24)));
    p.stage = Stage::Why;
    assert_snapshot!("why_80x24", text(&render(&p, 80, 24)));
}

#[test]
fn snapshots_200x50() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    p.index = 2;
    p.stage = Stage::Response;
    assert_snapshot!("answer_200x50", text(&render(&p, 200, 50)));
    p.stage = Stage::Verdict;
    assert_snapshot!("verdict_200x50", text(&render(&p, 200, 50)));
    p.stage = Stage::Why;
    p.notes = true;
    assert_snapshot!("why_with_notes_200x50", text(&render(&p, 200, 50)));
}

/// `sebx present FILE` without a playlist presents the file's bookmarks in their order,
/// with captions and the verdicts of `X.scored.jsonl` beside it; `--save-playlist` writes
/// them as a playlist that `--playlist` reads back.
#[test]
fn bookmarks_are_the_playlist_and_can_be_saved() {
    use sebx::model::bookmarks::BookmarkStore;
    use sebx::model::rollout::load_rollout_file;
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo");
    for f in [
        "rollouts.jsonl",
        "rollouts.scored.jsonl",
        "api_doc.jsonl",
        "tasks.jsonl",
    ] {
        std::fs::copy(demo.join(f), dir.path().join(f)).expect("copy");
    }
    let file = dir.path().join("rollouts.jsonl");
    let loaded = load_rollout_file(&file).expect("loads");
    let id = |line: usize| {
        loaded
            .rollouts
            .iter()
            .find(|r| r.line == line)
            .expect("line")
            .id
            .clone()
    };
    let (mut store, _) = BookmarkStore::open(&file).expect("opens");
    store.toggle(&id(1), 1).expect("writes");
    store.toggle(&id(19), 19).expect("writes");
    store.set_caption(&id(19), 19, "tolist").expect("writes");
    store.move_by(&id(19), -1).expect("writes");

    let mut paths = vec![file.clone()];
    let (playlist, _) =
        present::resolve_playlist(&present::PresentArgs::default(), &mut paths).expect("files");
    assert!(playlist.is_none());
    assert!(
        paths.contains(&dir.path().join("rollouts.scored.jsonl")),
        "{paths:?}"
    );
    let args = ExploreArgs {
        paths,
        ..isolated::explore_args()
    };
    let mut session = prepare(
        &args,
        Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
            "test".to_string(),
        )),
    )
    .expect("files");
    session.app.labelling.data_dir = Some(dir.path().join("data"));
    let (p, _) = present::prepare(session.app, &session.sources, None);
    let slides: Vec<(usize, &str, Option<Verdict>)> = p
        .slides
        .iter()
        .map(|s| {
            (
                s.entry.rollout.line,
                s.caption.as_str(),
                present::slide_verdict(s),
            )
        })
        .collect();
    assert_eq!(
        slides,
        vec![
            (19, "tolist", Some(Verdict::ExeError)),
            (1, "", Some(Verdict::Right))
        ]
    );
    let text = present::slides_playlist(&p).to_text();
    let saved = dir.path().join("talk.txt");
    std::fs::write(&saved, &text).expect("write");
    let (again, issues) = sebx::model::playlist::Playlist::load(&saved).expect("reads");
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(again.items.len(), 2);
    assert_eq!(again.items[0].caption, "tolist");
    assert_eq!(again.files(), vec![file]);
}
