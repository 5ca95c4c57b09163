//! The presenter says what the room must not take as settled: a fragile verdict (another
//! machine or grader run could flip it) and an RL reward that disagrees with the verdict,
//! in both the Verdict and the Why stage (issue 41). Fixture reports of our own, run A's
//! line 1 rewarded 0 though `right`, its line 2 marked fragile.

use crate::tui_common;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use sebx::tui::Grading;
use sebx::tui::present::{self, Presenter, Stage};
use tui_common::*;

const REASON: &str = "the official grader printed fewer results than expected";

/// Run A's reports with rewards, line 2's verdict marked fragile.
fn reports() -> String {
    reports_a_with_rewards()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a report");
            if v["line"] == 2 {
                v["fragile"] = true.into();
                v["fragile_reason"] = REASON.into();
            }
            v.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn presenter() -> Presenter {
    let app = app_with(
        Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
        &[],
    );
    let (p, _) = present::prepare(app, &sources_with(reports()), None);
    p
}

fn shown(p: &mut Presenter, line: usize, stage: Stage) -> String {
    p.index = p
        .slides
        .iter()
        .position(|s| s.entry.run == 0 && s.entry.rollout.line == line)
        .expect("the slide");
    p.stage = stage;
    let mut buf = Buffer::empty(Rect::new(0, 0, 160, 60));
    present::render(p, buf.area, &mut buf);
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_fragile_verdict_is_said_in_the_verdict_and_why_stages() {
    let mut p = presenter();
    for stage in [Stage::Verdict, Stage::Why] {
        let text = shown(&mut p, 2, stage);
        assert!(text.contains("fragile"), "{stage:?}:\n{text}");
        assert!(text.contains("could flip"), "{stage:?}:\n{text}");
        assert!(text.contains("fewer results"), "{stage:?}:\n{text}");
    }
    // A verdict that is not fragile is not said to be.
    let text = shown(&mut p, 3, Stage::Why);
    assert!(!text.contains("could flip"), "{text}");
}

#[test]
fn a_reward_that_disagrees_is_said_in_the_verdict_and_why_stages() {
    let mut p = presenter();
    let slide = p
        .slides
        .iter()
        .find(|s| s.entry.run == 0 && s.entry.rollout.line == 1)
        .expect("line 1");
    let r = slide.report.as_ref().expect("a report");
    assert_eq!(r.reward_disagrees(), Some(true), "the fixture disagrees");
    let want = format!(
        "{} (official RL) ≠ verdict {}",
        r.reward.expect("a reward"),
        r.verdict.expect("a verdict").as_str()
    );
    for stage in [Stage::Verdict, Stage::Why] {
        let text = shown(&mut p, 1, stage);
        assert!(text.contains(&want), "{stage:?}: {want}\n{text}");
    }
    // Where they agree, nothing is said of the reward.
    let text = shown(&mut p, 3, Stage::Verdict);
    assert!(!text.contains("(official RL)"), "{text}");
}
