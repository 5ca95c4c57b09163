//! Speaker notes never give the answer away: stepping through every slide of the demo
//! playlist with notes on, no stage shows the caption or verdict before the Verdict stage,
//! nor a label or finding before the Why stage, that the stage itself does not show.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use sebx::tui::present::{self, Presenter, Stage};

use crate::isolated;

const VERDICTS: [&str; 5] = [
    "right",
    "result_error",
    "exe_error",
    "use_numpy",
    "without_zwc",
];

fn demo(data: &std::path::Path) -> Presenter {
    crate::tui_common::demo_presenter(&isolated::explore_args(), data)
}

fn text(p: &Presenter, w: u16, h: u16) -> String {
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    present::render(p, buf.area, &mut buf);
    let mut out = String::new();
    for y in 0..h {
        let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// Text that notes must not show before `reveal`, for one slide.
fn secrets(p: &Presenter, k: usize) -> Vec<(String, Stage)> {
    let slide = &p.slides[k];
    let mut out = Vec::new();
    if !slide.caption.is_empty() {
        out.push((slide.caption.clone(), Stage::Verdict));
    }
    out.push((format!("verdict: {}", slide.shown.label()), Stage::Verdict));
    for l in &slide.labels {
        out.push((l.clone(), Stage::Why));
    }
    for f in &slide.analysis.code.findings {
        out.push((f.message.clone(), Stage::Why));
        out.push((format!("finding  {}", f.kind.label()), Stage::Why));
    }
    out
}

#[test]
fn notes_show_nothing_of_a_stage_not_yet_revealed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    assert_eq!(p.slides.len(), 6);
    assert!(
        p.slides.iter().any(|s| !s.labels.is_empty()),
        "the demo's slides carry labels to hide"
    );
    let mut checked = 0;
    for k in 0..p.slides.len() {
        for stage in Stage::ALL {
            assert_eq!((p.index, p.stage), (k, stage));
            for (w, h) in [(100, 40), (200, 50)] {
                p.notes = false;
                let plain = text(&p, w, h);
                p.notes = true;
                let noted = text(&p, w, h);
                assert!(noted.contains("speaker notes"), "{noted}");
                for (secret, reveal) in secrets(&p, k) {
                    // (Long texts are wrapped: their first words are enough.)
                    let probe: String = secret.chars().take(40).collect();
                    if stage < reveal {
                        assert!(
                            !noted.contains(&probe) || plain.contains(&probe),
                            "slide {k} at {stage:?}: the notes show {probe:?} (for {reveal:?}):\n{noted}"
                        );
                        checked += 1;
                    }
                }
                if stage < Stage::Verdict {
                    let notes_part = noted.split("speaker notes").nth(1).unwrap_or("");
                    for v in VERDICTS {
                        assert!(
                            !notes_part.contains(v),
                            "slide {k} at {stage:?}: {v} in the notes:\n{noted}"
                        );
                    }
                }
            }
            p.handle_key(&KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
        }
    }
    assert!(checked > 30, "{checked}");
    // At the Why stage the notes do carry them.
    p.index = 4;
    p.stage = Stage::Why;
    p.notes = true;
    let why = text(&p, 200, 50);
    for (secret, _) in secrets(&p, 4) {
        let probe: String = secret.chars().take(40).collect();
        assert!(why.contains(&probe), "{probe:?} at Why:\n{why}");
    }
}

#[test]
fn without_an_api_doc_the_task_stage_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut p = demo(dir.path());
    let with_doc = text(&p, 200, 50);
    assert!(!with_doc.contains("No API doc was found"), "{with_doc}");
    assert!(!with_doc.contains("(not in the API doc)"), "{with_doc}");
    p.api = std::sync::Arc::new(sebx::model::ApiMap::default());
    let without = text(&p, 200, 50);
    assert!(without.contains("No API doc was found"), "{without}");
    assert!(without.contains("(no API doc found)"), "{without}");
    assert!(!without.contains("(not in the API doc)"), "{without}");
}

#[test]
fn a_follower_shows_the_notes_of_where_the_presenter_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut leader = demo(dir.path());
    let mut follower = demo(dir.path());
    // Slide 5 (the demo's line 26, labelled by ana), walked to its Why stage.
    leader.handle_key(&KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    for _ in 0..3 {
        leader.handle_key(&KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    }
    assert_eq!((leader.index, leader.stage), (4, Stage::Task));
    let mut screens = Vec::new();
    for stage in Stage::ALL {
        assert_eq!(leader.stage, stage);
        assert!(follower.follow_position(&leader.position_text()) || stage != Stage::Task);
        assert_eq!((follower.index, follower.stage), (4, stage));
        let mut buf = Buffer::empty(Rect::new(0, 0, 100, 30));
        present::follow::render_notes(&follower, buf.area, &mut buf);
        let text: String = (0..30)
            .map(|y| {
                (0..100)
                    .map(|x| buf[(x, y)].symbol().to_string())
                    .collect::<String>()
                    + "\n"
            })
            .collect();
        screens.push(text);
        leader.handle_key(&KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    }
    let label = follower.slides[4]
        .labels
        .first()
        .expect("ana's label")
        .clone();
    for (k, screen) in screens.iter().enumerate() {
        assert!(screen.contains("5/6"), "{screen}");
        assert!(screen.contains("rollouts.jsonl:26"), "{screen}");
        let shown = screen.contains(&label.chars().take(30).collect::<String>());
        assert_eq!(
            shown,
            Stage::ALL[k] == Stage::Why,
            "{:?}:\n{screen}",
            Stage::ALL[k]
        );
        assert_eq!(
            screen.contains("verdict: "),
            Stage::ALL[k] >= Stage::Verdict,
            "{screen}"
        );
    }
    // Garbage or an unknown rollout leaves the follower where it is.
    assert!(!follower.follow_position("nonsense"));
    assert!(!follower.follow_position("no-such-id 0 0"));
    assert_eq!(follower.index, 4);
}
