//! Speaker notes: where a slide comes from, then only what its stage has revealed (the
//! room can read the notes too), so they never give the answer away.

use ratatui::text::{Line, Span};

use super::{Presenter, Slide, Stage};

impl Presenter {
    /// Speaker notes of a slide at `stage`: where it is, then only what that stage has
    /// revealed (the room can read the notes too): the caption and verdict from the
    /// Verdict stage, labels and findings (the why) at the Why stage.
    pub fn note_lines(&self, slide: &Slide, stage: Stage) -> Vec<Line<'static>> {
        let t = &self.theme;
        let r = &slide.entry.rollout;
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("{}:{}", r.source.display(), r.line), t.inline_code),
            Span::styled(format!("  id {}", r.id), t.dim),
        ])];
        if stage < Stage::Verdict {
            lines.push(Line::styled(
                "caption and verdict at the Verdict stage, labels and findings at Why",
                t.dim,
            ));
            return lines;
        }
        if !slide.caption.is_empty() {
            lines.push(Line::styled(format!("caption: {}", slide.caption), t.title));
        }
        lines.push(Line::styled(
            format!("verdict: {}", slide.shown.label()),
            t.dim,
        ));
        if stage < Stage::Why {
            lines.push(Line::styled("labels and findings at the Why stage", t.dim));
            return lines;
        }
        if slide.labels.is_empty() {
            lines.push(Line::styled("no labels", t.dim));
        }
        for l in &slide.labels {
            lines.push(Line::raw(format!("label  {l}")));
        }
        for f in &slide.analysis.code.findings {
            lines.push(Line::styled(
                format!(
                    "finding  {} {} line {}:{}: {}",
                    f.kind.label(),
                    f.name,
                    f.line,
                    f.col,
                    f.message
                ),
                t.dim,
            ));
        }
        lines
    }
}
