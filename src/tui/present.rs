//! The presenter: a reading group's projector view. One rollout at a time, revealed stage
//! by stage with one key (space or →, back with ←): the task → the answer, highlighted,
//! its zwc calls annotated with their NumPy names → a pause for the room to guess (the
//! verdict hidden) → the verdict → why (the failed case with its diff, the finding with
//! the right name, the dependency graph's hinge). No list and no status noise: the stage
//! and the position (`3/8`) only; `n` toggles speaker notes (`notes`: labels, notes,
//! finding details, each only once its stage is revealed). The slide's caption is shown
//! from the verdict on, since captions tend to give the answer away.
//!
//! `sebx present` ([`run`]) and `P` in the explorer build a [`Presenter`] from a loaded
//! [`App`]; either way it runs in the explorer's one event loop (`root::event_loop`) as
//! [`Presenting`], the root that holds the screen. Export draws the same stages off screen.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, bail};
use ratatui::Frame;
use ratatui::backend::Backend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyEvent, KeyEventKind};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use crate::analysis::{Analysis, Severity, analyze_rollout};
use crate::grade::report::GradeReport;
use crate::model::playlist::{Playlist, PlaylistRef};
use crate::model::{ApiMap, DatasetItem, LoadIssue, Verdict};

use super::action::{Action, Keymap, Scope};
use super::app::App;
use super::component::{Component, Cx, DrawCx};
use super::effects::{Effects, Handled};
use super::entry::{Entry, Shown};
use super::graph_view::draw_graph;
use super::highlight::{Highlighted, highlight_python};
use super::panes::{labelled, wrap_words};
use super::root::Root;
use super::state::Popup;
use super::theme::Theme;

pub mod follow;
mod notes;

/// The demo's playlist, built in so `sebx present` works from any folder.
pub const DEMO_PLAYLIST: &str = include_str!("../../samples/demo/playlist.txt");

/// Options of `sebx present` besides the files (the explorer's options come with them).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PresentArgs {
    /// A playlist: one `FILE:LINE` (relative to the playlist) or rollout id per line, then a
    /// caption. Without it: the bookmarks of FILES, else every rollout of FILES; with neither
    /// FILES nor a playlist, the demo's story of SE-Bench.
    #[arg(long, value_name = "FILE")]
    pub playlist: Option<PathBuf>,
    /// Start with speaker notes shown.
    #[arg(long)]
    pub notes: bool,
    /// In a second terminal: show the speaker notes of the slide the projecting
    /// `sebx present` shows (same files or playlist), and nothing else.
    #[arg(long)]
    pub follow: bool,
    /// Write the slides (e.g. your bookmarks, in their order) as a playlist file and exit.
    #[arg(long, value_name = "FILE")]
    pub save_playlist: Option<PathBuf>,
}

/// The stages of a slide, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    Task,
    Response,
    Guess,
    Verdict,
    Why,
}

impl Stage {
    pub const ALL: [Stage; 5] = [
        Stage::Task,
        Stage::Response,
        Stage::Guess,
        Stage::Verdict,
        Stage::Why,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Stage::Task => "Task",
            Stage::Response => "Answer",
            Stage::Guess => "Your guess?",
            Stage::Verdict => "Verdict",
            Stage::Why => "Why",
        }
    }
}

/// One rollout, with everything its stages show, prepared before the talk starts.
pub struct Slide {
    pub caption: String,
    pub entry: Arc<Entry>,
    pub item: Option<DatasetItem>,
    pub shown: Shown,
    pub report: Option<GradeReport>,
    pub analysis: Arc<Analysis>,
    pub code: Highlighted,
    /// Labels and notes of every annotator, for the speaker.
    pub labels: Vec<String>,
}

/// The presenter's state.
pub struct Presenter {
    pub slides: Vec<Slide>,
    pub index: usize,
    pub stage: Stage,
    pub notes: bool,
    pub scroll: u16,
    pub theme: Theme,
    pub api: Arc<ApiMap>,
    pub quit: bool,
    /// The keys (the `present` scope of the explorer's keymap, `[keys.present]`).
    pub keys: Keymap,
}

impl Presenter {
    /// Slides of `rows` (row, caption) of a loaded app, drawn with `theme`.
    pub fn from_app(app: &App, rows: &[(usize, String)], theme: Theme) -> Presenter {
        let slides = rows
            .iter()
            .filter_map(|(row, caption)| {
                let entry = app.corpus.entries.get(*row)?.clone();
                let item = app.corpus.dataset_item(&entry).cloned();
                let analysis = match app.detail.held.analyses.peek(row) {
                    Some(a) => a.clone(),
                    None => Arc::new(analyze_rollout(
                        &entry.rollout,
                        &app.corpus.ctx.api,
                        item.as_ref(),
                    )),
                };
                let code = highlight_python(entry.code(), &theme.syntect_theme);
                let labels = app
                    .labelling
                    .sidecars
                    .get(entry.run)
                    .and_then(|s| s.labels.as_ref())
                    .map(|store| {
                        store
                            .current_for(&entry.rollout.id)
                            .into_iter()
                            .map(|r| {
                                let what = super::labelling::describe(&app.labelling.taxonomy, r);
                                if r.note.is_empty() {
                                    format!("{}: {what}", r.annotator)
                                } else {
                                    format!("{}: {what} — {}", r.annotator, r.note)
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Some(Slide {
                    caption: caption.clone(),
                    item,
                    shown: app.corpus.shown(*row),
                    report: app.report_of_row(*row).map(|r| r.into_owned()),
                    analysis,
                    code,
                    labels,
                    entry,
                })
            })
            .collect();
        Presenter {
            keys: app.keymap.clone(),
            slides,
            index: 0,
            stage: Stage::Task,
            notes: false,
            scroll: 0,
            theme,
            api: app.corpus.ctx.api.clone(),
            quit: false,
        }
    }

    /// `3/8`: this slide and how many there are.
    pub fn position(&self) -> String {
        format!("{}/{}", self.index + 1, self.slides.len())
    }

    /// The next stage, or the next slide's first.
    pub fn next(&mut self) {
        let k = Stage::ALL
            .iter()
            .position(|s| *s == self.stage)
            .unwrap_or(0);
        if k + 1 < Stage::ALL.len() {
            self.stage = Stage::ALL[k + 1];
        } else if self.index + 1 < self.slides.len() {
            self.index += 1;
            self.stage = Stage::Task;
        }
        self.scroll = 0;
    }

    /// The previous stage, or the previous slide's last.
    pub fn back(&mut self) {
        let k = Stage::ALL
            .iter()
            .position(|s| *s == self.stage)
            .unwrap_or(0);
        if k > 0 {
            self.stage = Stage::ALL[k - 1];
        } else if self.index > 0 {
            self.index -= 1;
            self.stage = Stage::Why;
        }
        self.scroll = 0;
    }

    fn jump(&mut self, index: usize) {
        self.index = index.min(self.slides.len().saturating_sub(1));
        self.stage = Stage::Task;
        self.scroll = 0;
    }

    /// Applies a key; returns whether to redraw.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        match self.key(key, None) {
            Some(action) => self.act(&action),
            None => false,
        }
    }

    /// Applies one of the presenter's actions; returns whether it was one.
    fn act(&mut self, action: &Action) -> bool {
        match action {
            Action::NextStage => self.next(),
            Action::PrevStage => self.back(),
            Action::NextSlide => self.jump(self.index + 1),
            Action::PrevSlide => self.jump(self.index.saturating_sub(1)),
            Action::FirstSlide => self.jump(0),
            Action::LastSlide => self.jump(usize::MAX),
            Action::ScrollDown => self.scroll = self.scroll.saturating_add(1),
            Action::ScrollUp => self.scroll = self.scroll.saturating_sub(1),
            Action::ToggleNotes => self.notes = !self.notes,
            Action::CloseScreen => self.quit = true,
            _ => return false,
        }
        true
    }

    /// The presenter's keys, from its keymap: shown under the first slide's task and on the
    /// speaker notes.
    pub fn key_hints(&self) -> String {
        self.keys.hint(
            Scope::Present,
            &[
                (&[Action::NextStage], "next stage"),
                (&[Action::PrevStage], "back"),
                (&[Action::PrevSlide, Action::NextSlide], "rollout"),
                (&[Action::ToggleNotes], "notes"),
                (&[Action::CloseScreen], "leave"),
            ],
        )
    }

    /// The lines of one stage of one slide, for a body `width` cells wide.
    pub fn stage_lines(&self, slide: &Slide, stage: Stage, width: u16) -> Vec<Line<'static>> {
        let t = &self.theme;
        let w = usize::from(width);
        let mut lines: Vec<Line<'static>> = Vec::new();
        let prose = |lines: &mut Vec<Line<'static>>, text: &str, style: Style| {
            for para in text.lines() {
                if para.trim().is_empty() {
                    lines.push(Line::raw(""));
                    continue;
                }
                for l in wrap_words(para, w) {
                    lines.push(Line::styled(l, style));
                }
            }
        };
        match stage {
            Stage::Task => {
                prose(&mut lines, &slide.entry.rollout.query, t.base);
                lines.push(Line::raw(""));
                if let Some(item) = &slide.item
                    && !item.function_name.is_empty()
                {
                    lines.push(Line::from(vec![
                        Span::styled("Signature  ", t.heading),
                        Span::styled(item.function_name.clone(), t.inline_code),
                    ]));
                    lines.push(Line::raw(""));
                }
                let selected = match &slide.item {
                    Some(i) if !i.selected_functions.is_empty() => i.selected_functions.clone(),
                    _ => slide.entry.rollout.selected_functions.to_vec(),
                };
                if !selected.is_empty() {
                    lines.push(Line::styled("zwc functions it needs", t.heading));
                    for name in selected {
                        let missing = if self.api.is_empty() {
                            "(no API doc found)"
                        } else {
                            "(not in the API doc)"
                        };
                        let (np, zwc) = match self.api.selected_function(&name) {
                            Some((np, zwc)) => (np, zwc),
                            None => (format!("np.{name}"), missing),
                        };
                        lines.push(Line::from(vec![
                            Span::styled(format!("  {zwc}"), t.inline_code),
                            Span::styled("  is  ", t.dim),
                            Span::raw(np),
                        ]));
                    }
                    if self.api.is_empty() {
                        lines.push(Line::styled(
                            "No API doc was found, so zwc names are not known: pass --api-doc FILE, set SEBX_API_DOC, or put api_doc.jsonl beside the rollouts.",
                            t.dim,
                        ));
                    }
                }
            }
            Stage::Response | Stage::Guess => {
                if stage == Stage::Guess {
                    lines.push(Line::styled(
                        "Does it pass? If not, what goes wrong? (the answer is next)",
                        t.heading,
                    ));
                    lines.push(Line::raw(""));
                }
                lines.extend(self.code_lines(slide));
            }
            Stage::Verdict => {
                lines.extend(self.verdict_lines(slide, w));
            }
            Stage::Why => {
                lines.extend(self.verdict_lines(slide, w).into_iter().skip(1).take(1));
                lines.push(Line::raw(""));
                self.why_lines(slide, w, &mut lines);
            }
        }
        lines
    }

    /// The graded code, highlighted, each zwc call followed by its NumPy name; the whole
    /// response when no code was extracted.
    fn code_lines(&self, slide: &Slide) -> Vec<Line<'static>> {
        let t = &self.theme;
        let code = slide.entry.code();
        let mut lines = Vec::new();
        if code.trim().is_empty() {
            lines.push(Line::styled(
                "(no ```python block; the whole answer:)",
                t.dim,
            ));
            for l in slide.entry.rollout.response.lines() {
                lines.push(Line::styled(l.to_string(), t.base));
            }
            return lines;
        }
        let digits = code.lines().count().to_string().len();
        for (k, text) in code.lines().enumerate() {
            let mut spans = vec![Span::styled(format!("{:>digits$} ", k + 1), t.gutter)];
            spans.extend(super::panes::styled_or_plain(
                slide.code.lines.get(k).and_then(Option::as_ref),
                text,
                t.base,
            ));
            let meanings: Vec<String> = zwc_names(text)
                .into_iter()
                .filter_map(|n| self.api.numpy_short(&n).map(|np| format!("‹{np}›")))
                .collect();
            if !meanings.is_empty() {
                spans.push(Span::styled(format!("  {}", meanings.join(" ")), t.hint));
            }
            lines.push(Line::from(spans));
        }
        lines
    }

    fn verdict_lines(&self, slide: &Slide, w: usize) -> Vec<Line<'static>> {
        let t = &self.theme;
        let style = match slide.shown {
            Shown::Verdict(v) => t.verdict(v),
            Shown::StoredFail | Shown::Error => t.verdict_failed,
            Shown::Pending | Shown::Grading => t.verdict_pending,
        };
        let label = format!("{} {}", slide.shown.symbol(), slide.shown.label());
        let strong = style.add_modifier(ratatui::style::Modifier::REVERSED);
        let pad = " ".repeat(label.chars().count() + 6);
        // A band three lines high: the answer the room waited for.
        let mut lines = vec![
            Line::from(Span::styled(pad.clone(), strong)),
            Line::from(Span::styled(format!("   {label}   "), strong)),
            Line::from(Span::styled(pad, strong)),
        ];
        lines.push(Line::raw(""));
        match &slide.report {
            Some(r) => {
                for (k, part) in wrap_words(&r.decided_by, w.saturating_sub(12))
                    .into_iter()
                    .enumerate()
                {
                    let head = if k == 0 {
                        "decided by  "
                    } else {
                        "            "
                    };
                    lines.push(Line::from(vec![Span::styled(head, t.dim), Span::raw(part)]));
                }
                if r.execution.is_some() && !r.cases.is_empty() {
                    let ok = r.cases.len() - r.failed_cases();
                    lines.push(Line::from(vec![
                        Span::styled("cases       ", t.dim),
                        Span::raw(format!("{ok} of {} matched", r.cases.len())),
                    ]));
                }
                // What the room must not take as settled: a verdict another machine or run
                // could flip, and an RL reward that says otherwise.
                if let Some(text) = fragile_text(r) {
                    lines.extend(labelled("fragile     ", &text, w, t.dim, t.warning));
                }
                if let Some(text) = reward_text(r) {
                    lines.extend(labelled("RL reward   ", &text, w, t.dim, t.warning));
                }
            }
            None if matches!(slide.shown, Shown::Pending) => lines.push(Line::styled(
                "not graded: `sebx grade FILE` first, or open its scored results with it",
                t.dim,
            )),
            None => {}
        }
        lines
    }

    fn why_lines(&self, slide: &Slide, w: usize, lines: &mut Vec<Line<'static>>) {
        let t = &self.theme;
        let mut said = false;
        // The finding with the right name.
        for f in slide
            .analysis
            .code
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
        {
            said = true;
            let mut spans = if f.line == 0 {
                vec![Span::styled(f.kind.label(), t.error)]
            } else {
                vec![
                    Span::styled(format!("line {}  ", f.line), t.gutter),
                    Span::styled(f.name.clone(), t.error),
                ]
            };
            if let Some(s) = &f.suggestion {
                spans.push(Span::styled("  → use ", t.dim));
                spans.push(Span::styled(s.clone(), t.verdict_right));
            }
            lines.push(Line::from(spans));
            for l in wrap_words(&f.message, w.saturating_sub(2)) {
                lines.push(Line::styled(format!("  {l}"), t.base));
            }
        }
        if let Some(r) = &slide.report {
            // The failed case with its diff.
            if r.execution.is_some()
                && let Some(c) = r.cases.iter().find(|c| !c.matched)
            {
                said = true;
                lines.push(Line::styled(
                    format!("Case {} failed", c.index + 1),
                    t.heading,
                ));
                lines.push(Line::from(vec![
                    Span::styled("input     ", t.dim),
                    Span::styled(one_line(&c.input), t.inline_code),
                ]));
                lines.push(Line::from(vec![
                    Span::styled("expected  ", t.dim),
                    Span::raw(one_line(&c.expected)),
                ]));
                match &c.actual {
                    Some(actual) => {
                        let mut spans = vec![Span::styled("actual    ", t.dim)];
                        spans.extend(char_diff(&c.expected, actual, t));
                        lines.push(Line::from(spans));
                    }
                    None => lines.push(Line::from(vec![
                        Span::styled("actual    ", t.dim),
                        Span::styled("(nothing printed)", t.error),
                    ])),
                }
                if let Some(m) = c.comparison.as_ref().and_then(|c| c.mismatch.as_ref()) {
                    lines.extend(labelled("why       ", &m.reason, w, t.dim, t.base));
                }
            }
            if let Some(e) = &r.execution
                && let Some(last) = e.stderr.lines().rev().find(|l| !l.trim().is_empty())
            {
                said = true;
                lines.extend(labelled("error     ", last.trim(), w, t.dim, t.error));
            }
            if let Some(why) = r.static_check.as_ref().and_then(|sc| sc.official_error()) {
                said = true;
                lines.extend(labelled("static    ", &why, w, t.dim, t.warning));
            }
            if let Some(text) = fragile_text(r) {
                said = true;
                lines.extend(labelled("fragile   ", &text, w, t.dim, t.warning));
            }
            if let Some(text) = reward_text(r) {
                said = true;
                lines.extend(labelled("reward    ", &text, w, t.dim, t.warning));
            }
        }
        if !said {
            lines.push(Line::styled(
                "Every case matched, zwc was used, NumPy was not imported.",
                t.verdict_right,
            ));
        }
        // The dependency graph and its hinge.
        let graph = &slide.analysis.code.graph;
        lines.push(Line::raw(""));
        match graph.nodes.iter().find(|n| n.hinge) {
            Some(h) => lines.push(Line::from(vec![
                Span::styled("The static check hinges on ", t.heading),
                Span::styled(h.label.clone(), t.warning),
                Span::styled(format!("  (line {})", h.line), t.dim),
            ])),
            None => lines.push(Line::styled("Dependency graph", t.heading)),
        }
        lines.extend(draw_graph(graph, t).lines());
    }
}

/// Why the verdict is fragile (another machine or grader run could flip it), if it is.
fn fragile_text(r: &GradeReport) -> Option<String> {
    r.fragile.then(|| {
        let why = r
            .fragile_reason
            .as_deref()
            .unwrap_or("another machine or run could decide otherwise");
        format!("this verdict could flip: {why}")
    })
}

/// The official RL reward where it disagrees with the verdict, with why.
fn reward_text(r: &GradeReport) -> Option<String> {
    let (Some(reward), Some(verdict), Some(true)) = (r.reward, r.verdict, r.reward_disagrees())
    else {
        return None;
    };
    let why = r
        .reward_reason
        .as_deref()
        .map_or(String::new(), |w| format!(": {w}"));
    Some(format!(
        "{reward} (official RL) ≠ verdict {}{why}",
        verdict.as_str()
    ))
}

/// `zwc.x` / `zwc.rfx.y` names called on a line of code.
fn zwc_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("zwc.") {
        let start = i + at;
        let boundary = start == 0
            || !(bytes[start - 1].is_ascii_alphanumeric()
                || bytes[start - 1] == b'_'
                || bytes[start - 1] == b'.');
        let mut end = start + 4;
        while end < bytes.len()
            && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b'.')
        {
            end += 1;
        }
        if boundary && end > start + 4 {
            out.push(text[start..end].trim_end_matches('.').to_string());
        }
        i = end.max(start + 4);
    }
    out
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The actual value with the characters that differ from the expected one marked.
fn char_diff(expected: &str, actual: &str, t: &Theme) -> Vec<Span<'static>> {
    use similar::{ChangeTag, TextDiff};
    let (e, a) = (one_line(expected), one_line(actual));
    let diff = TextDiff::from_chars(&e, &a);
    let mut spans = Vec::new();
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Equal => spans.push(Span::raw(change.value().to_string())),
            ChangeTag::Insert => {
                spans.push(Span::styled(change.value().to_string(), t.diff_insert))
            }
            ChangeTag::Delete => {}
        }
    }
    spans
}

/// Widest the text of a slide gets on a wide projector (lines stay readable).
const MAX_BODY: u16 = 140;

/// The presenter as a component of the explorer's loop (`P`): while open it holds the
/// screen, takes every key of its scope (`[keys.present]`) and draws the slide; it reads
/// nothing of the explorer but its own slides.
impl Component for Presenter {
    fn key(&self, key: &KeyEvent, _popup: Option<Popup>) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        self.keys.action_in(Scope::Present, key)
    }

    fn update(&mut self, action: &Action, _cx: &Cx<'_>, _fx: &mut Effects) -> Handled {
        if self.act(action) {
            Handled::Redraw
        } else {
            Handled::Passed
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, _cx: &DrawCx<'_>) {
        render(self, area, frame.buffer_mut());
    }
}

/// Draws the presenter over the whole frame.
pub fn draw(frame: &mut Frame, p: &Presenter) {
    render(p, frame.area(), frame.buffer_mut());
}

/// Draws the presenter into any buffer (the terminal, or off screen for export).
pub fn render(p: &Presenter, area: Rect, buf: &mut Buffer) {
    let t = &p.theme;
    Block::default().style(t.base).render(area, buf);
    let Some(slide) = p.slides.get(p.index) else {
        Paragraph::new("nothing to present")
            .style(t.dim)
            .render(area, buf);
        return;
    };
    let [bar, _, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
    ])
    .areas(area);
    // Top bar: the stage, the caption once the answer is out, the position.
    let position = p.position();
    let mut left = vec![Span::styled(format!(" {} ", p.stage.title()), t.tab_active)];
    if p.stage >= Stage::Verdict && !slide.caption.is_empty() {
        left.push(Span::styled(format!("  {}", slide.caption), t.title));
    }
    let [l, r] = Layout::horizontal([
        Constraint::Min(0),
        Constraint::Length(position.chars().count() as u16 + 2),
    ])
    .areas(bar);
    Paragraph::new(Line::from(left)).render(l, buf);
    Paragraph::new(Line::styled(format!(" {position} "), t.title)).render(r, buf);
    // Body: centred, at most MAX_BODY wide, with a margin.
    let width = body.width.saturating_sub(4).min(MAX_BODY);
    let x = body.x + (body.width - width) / 2;
    let (text_area, notes_area) = if p.notes {
        let notes_h = (body.height / 3).max(5).min(body.height);
        let [a, b] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(notes_h)]).areas(body);
        (a, Some(b))
    } else {
        (body, None)
    };
    let text_area = Rect {
        x,
        width,
        ..text_area
    };
    let lines = p.stage_lines(slide, p.stage, width);
    let more = lines.len() > usize::from(p.scroll) + usize::from(text_area.height);
    Paragraph::new(lines)
        .scroll((p.scroll, 0))
        .render(text_area, buf);
    if more && text_area.height > 0 {
        // Content below the fold: say so, in the corner.
        let hint = " ↓ more ";
        let w = hint.chars().count() as u16;
        let corner = Rect {
            x: (area.x + area.width).saturating_sub(w),
            y: text_area.y + text_area.height - 1,
            width: w.min(area.width),
            height: 1,
        };
        Paragraph::new(Span::styled(hint, t.status_key)).render(corner, buf);
    }
    if p.index == 0 && p.stage == Stage::Task && !p.notes && body.height > 2 {
        // The first screen says how to move on (the notes say it from then on).
        // Beside the "↓ more" corner, not over it.
        let corner = if more { 9 } else { 0 };
        let line = Rect {
            y: body.y + body.height - 1,
            height: 1,
            width: body.width.saturating_sub(corner),
            ..body
        };
        Clear.render(line, buf);
        Paragraph::new(Line::styled(format!(" {}", p.key_hints()), t.dim)).render(line, buf);
    }
    if let Some(n) = notes_area {
        Clear.render(n, buf);
        let block = Block::default()
            .borders(Borders::TOP)
            .border_style(t.border)
            .title(Span::styled(
                format!(" speaker notes · {} ", p.key_hints()),
                t.dim,
            ))
            .style(t.base);
        Paragraph::new(p.note_lines(slide, p.stage))
            .block(block)
            .wrap(Wrap { trim: false })
            .render(n, buf);
    }
}

/// The presenter holding the screen, as the event loop's root (`sebx present`, and `P` in
/// the explorer): its keys (`[keys.present]`), and where it is written to `position` at
/// each move, for `sebx present --follow`.
pub struct Presenting {
    pub presenter: Presenter,
    position: Option<PathBuf>,
}

impl Presenting {
    /// Presents `presenter`, saying where it is in `position` (now, and at each move).
    pub fn new(presenter: Presenter, position: Option<PathBuf>) -> Presenting {
        if let Some(path) = &position {
            follow::publish(&presenter, path);
        }
        Presenting {
            presenter,
            position,
        }
    }
}

impl<B: Backend> Root<B> for Presenting {
    fn action_for(&self, event: &Event) -> Option<Action> {
        match event {
            Event::Key(key) => self.presenter.key(key, None),
            Event::Resize(width, height) => Some(Action::Resize {
                width: *width,
                height: *height,
            }),
            _ => None,
        }
    }

    fn apply(&mut self, action: &Action) -> bool {
        let p = &mut self.presenter;
        if p.act(action)
            && let Some(path) = &self.position
        {
            follow::publish(p, path);
        }
        // Any action redraws (a resize too).
        true
    }

    fn draw(&self, frame: &mut Frame) {
        draw(frame, &self.presenter);
    }

    fn done(&self) -> bool {
        self.presenter.quit
    }
}

/// The playlist to present: `--playlist`, else the demo's when no file is given.
/// Returns it with its load issues, and adds the files it names (and scored results
/// `X.scored.jsonl` beside each `X.jsonl`) to `paths`.
pub fn resolve_playlist(
    args: &PresentArgs,
    paths: &mut Vec<PathBuf>,
) -> Result<(Option<Playlist>, Vec<LoadIssue>)> {
    let (playlist, issues) = match &args.playlist {
        Some(file) => {
            let (p, issues) = Playlist::load(file)?;
            (Some(p), issues)
        }
        None if paths.is_empty() => {
            let (p, issues) = Playlist::parse(
                DEMO_PLAYLIST,
                Path::new("samples/demo/playlist.txt"),
                Path::new("samples/demo"),
            );
            // The demo is built in: no paths, so the explorer loads it from the binary.
            return Ok((Some(p), issues));
        }
        None => (None, Vec::new()),
    };
    if let Some(p) = &playlist {
        // A missing file is reported per playlist line when the slides are resolved.
        for f in p.files() {
            if f.is_file() && !paths.contains(&f) {
                paths.push(f);
            }
        }
    }
    add_companions(paths);
    Ok((playlist, issues))
}

pub use crate::session::inputs::add_companions;

fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Rows of the app a playlist names, with captions; what it names that is not loaded is
/// returned as issues (playlist file and line).
pub fn playlist_rows(app: &App, playlist: &Playlist) -> (Vec<(usize, String)>, Vec<LoadIssue>) {
    let mut rows = Vec::new();
    let mut issues = Vec::new();
    for item in &playlist.items {
        let found = app.corpus.entries.iter().position(|e| match &item.target {
            PlaylistRef::FileLine { file, line } => {
                e.rollout.line == *line && same_file(&e.rollout.source, file)
            }
            PlaylistRef::Id(id) => &e.rollout.id == id,
        });
        match found {
            Some(row) => rows.push((row, item.caption.clone())),
            None => issues.push(LoadIssue {
                source: playlist.source.clone(),
                line: item.line,
                reason: format!("no loaded rollout is {}", item.target),
            }),
        }
    }
    (rows, issues)
}

/// The slides of `sebx present`: the playlist's, else the bookmarks, else every rollout.
pub fn slides_for(
    app: &App,
    playlist: Option<&Playlist>,
) -> (Vec<(usize, String)>, Vec<LoadIssue>) {
    if let Some(p) = playlist {
        return playlist_rows(app, p);
    }
    let marked = app.bookmarks.playlist_rows(&app.corpus);
    if !marked.is_empty() {
        return (marked, Vec::new());
    }
    (
        (0..app.corpus.entries.len())
            .map(|r| (r, String::new()))
            .collect(),
        Vec::new(),
    )
}

/// Loads `app`'s sources here, then prepares the slides (tests and `sebx present`).
pub fn prepare(
    mut app: App,
    sources: &[super::load::Source],
    playlist: Option<&Playlist>,
) -> (Presenter, Vec<LoadIssue>) {
    super::inline::load_inline(&mut app, sources);
    // The verdicts the session remembers (reruns, the score cache), as the explorer shows.
    super::inline::settle_verdicts(&mut app);
    // Label and bookmark sidecars, for notes and for bookmarks as the playlist.
    app.service();
    let (rows, issues) = slides_for(&app, playlist);
    let theme = app.theme.clone();
    (Presenter::from_app(&app, &rows, theme), issues)
}

/// `sebx present`: runs the presenter full screen.
pub fn run(
    app: App,
    sources: Vec<super::load::Source>,
    playlist: Option<Playlist>,
    args: &PresentArgs,
) -> Result<ExitCode> {
    use std::io::IsTerminal;
    let (mut p, issues) = prepare(app, &sources, playlist.as_ref());
    for i in &issues {
        crate::warnln!("sebx: {i}");
    }
    if p.slides.is_empty() {
        bail!("nothing to present (no rollout of the playlist or files was found)");
    }
    if let Some(out) = &args.save_playlist {
        let text = slides_playlist(&p).to_text();
        std::fs::write(out, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", out.display()))?;
        crate::warnln!("wrote {} ({} rollouts)", out.display(), p.slides.len());
        return Ok(ExitCode::SUCCESS);
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!(
            "the presenter needs a terminal; `sebx export --playlist FILE --format html` writes the slides to a page"
        );
    }
    p.notes = args.notes;
    let position = follow::position_file();
    let mut terminal = ratatui::try_init()?;
    // The explorer's event loop, with the presenter (or the follower) as its root.
    let events = &mut super::root::TerminalEvents;
    let result = match position {
        Some(path) if args.follow => {
            super::root::event_loop(&mut terminal, &mut follow::Following::new(p, path), events)
        }
        position => {
            super::root::event_loop(&mut terminal, &mut Presenting::new(p, position), events)
        }
    };
    ratatui::restore();
    result.map(|()| ExitCode::SUCCESS)
}

/// The slides as a playlist (`FILE:LINE caption`, files as loaded).
pub fn slides_playlist(p: &Presenter) -> Playlist {
    Playlist {
        source: PathBuf::new(),
        items: p
            .slides
            .iter()
            .map(|s| crate::model::playlist::PlaylistItem {
                target: PlaylistRef::FileLine {
                    file: s.entry.rollout.source.to_path_buf(),
                    line: s.entry.rollout.line,
                },
                caption: s.caption.clone(),
                line: 0,
            })
            .collect(),
    }
}

/// The verdict a slide reveals, if it has one.
pub fn slide_verdict(slide: &Slide) -> Option<Verdict> {
    match slide.shown {
        Shown::Verdict(v) => Some(v),
        _ => None,
    }
}
