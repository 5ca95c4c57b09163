//! The rollout list as a component: its title (counts, where the cursor is, labelling
//! progress), the column header and the rows (verdict, reward, run, step, the extra keys
//! chosen as columns, the task with this annotator's label, the functions called, failed
//! cases, findings). It reads the labels, bookmarks and extra columns through [`DrawCx`].
//! Its keys: the filters (verdict, run, function, finding kind, same task), the grouping,
//! the search and go-to boxes, which `App` rebuilds the view from; and the moves (↑↓,
//! pages, top, bottom), answered with the row they reach, which `App` selects, settling the
//! detail pane and grading that row first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::super::action::Action;
use super::super::component::{Component, Cx, DrawCx};
use super::super::effects::{Effects, Handled};
use super::super::layout::fit;
use super::super::search::highlight_spans;
use super::super::state::{FindingFilter, Grouping, ListView, SearchState, VerdictFilter, ViewRow};
use crate::analysis::FindingKind;

impl ListView {
    /// The row at view line `target` (at most the last), headings skipped: looking forward,
    /// then backward; `None` when the view holds no row.
    pub fn row_at_view_index(&self, target: usize) -> Option<usize> {
        let target = target.min(self.view.len().checked_sub(1)?);
        self.view[target..]
            .iter()
            .chain(self.view[..target].iter().rev())
            .find_map(ViewRow::row)
    }

    /// The row `delta` rows (not headings) from the cursor, kept within the view; `None`
    /// when the view holds no row.
    pub fn row_moved_by(&self, delta: isize) -> Option<usize> {
        let rows: Vec<usize> = self.rows().collect();
        if rows.is_empty() {
            return None;
        }
        let current = self
            .selected
            .and_then(|s| rows.iter().position(|r| *r == s))
            .unwrap_or(0);
        let next = (current as isize + delta).clamp(0, rows.len() as isize - 1) as usize;
        Some(rows[next])
    }
}

impl Component for ListView {
    /// The list's keys: its filters, grouping, search and go-to boxes (the view is rebuilt
    /// by `App`), and its moves.
    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        // The filters, the grouping and the boxes: the list is rebuilt from them.
        match action {
            Action::Search => {
                // A new pattern: the last one offered selected, so typing replaces it.
                let last = self.search.pattern.clone();
                self.search_box.open(0, &last, true);
                return Handled::Redraw;
            }
            Action::GotoLine => {
                self.goto.open(0, "", false);
                return Handled::Redraw;
            }
            Action::CycleVerdictFilter => {
                self.filters.verdict = cycle(&VerdictFilter::CYCLE, self.filters.verdict);
            }
            Action::CycleRunFilter => {
                let runs: Vec<usize> = (0..cx.corpus.runs.len()).collect();
                self.filters.run = cycle(&runs, self.filters.run);
            }
            Action::CycleFunctionFilter => {
                let options: Vec<String> = self
                    .selected
                    .map(|i| cx.corpus.functions(i).to_vec())
                    .unwrap_or_default();
                if options.is_empty() && self.filters.function.is_none() {
                    fx.say("the selected rollout calls no zwc function");
                    return Handled::Redraw;
                }
                self.filters.function = cycle(&options, self.filters.function.clone());
            }
            Action::CycleFindingFilter => {
                let mut options = vec![FindingFilter::Any];
                options.extend(FindingKind::BY_IMPORTANCE.map(FindingFilter::Kind));
                self.filters.finding = cycle(&options, self.filters.finding);
            }
            Action::CycleGrouping => {
                self.grouping =
                    cycle(&Grouping::CYCLE, Some(self.grouping)).unwrap_or(Grouping::FileOrder);
            }
            Action::SameTask => {
                let task = self.selected.and_then(|i| cx.corpus.entries.get(i));
                self.filters.task = match (self.filters.task, task) {
                    (Some(_), _) => None,
                    (None, Some(e)) => Some(e.task),
                    (None, None) => None,
                };
            }
            // Esc drops the search's results (the whole list again).
            Action::Cancel if self.search.results.is_some() => {
                self.search = SearchState {
                    id: self.search.id + 1,
                    ..SearchState::default()
                };
            }
            _ => return self.moved(action, cx, fx),
        }
        fx.refresh_view = true;
        Handled::Redraw
    }

    fn draw(&self, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
        draw_list(self, frame, area, cx);
    }
}

impl ListView {
    /// The move keys: the row they reach is selected (and scrolled to) by `App`, which
    /// settles the detail pane and grades the row first.
    fn moved(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        // A page key moves by the rows shown, less one.
        let page = cx.list_rows.max(2) as isize - 1;
        let reached = match action {
            Action::Up => self.row_moved_by(-1),
            Action::Down => self.row_moved_by(1),
            Action::PageUp => self.row_moved_by(-page),
            Action::PageDown => self.row_moved_by(page),
            Action::Top => self.row_at_view_index(0),
            Action::Bottom => self.row_at_view_index(self.view.len().saturating_sub(1)),
            _ => return Handled::Passed,
        };
        match reached {
            Some(row) if Some(row) != self.selected => {
                fx.jump_to = Some(row);
                Handled::Redraw
            }
            _ => Handled::Unchanged,
        }
    }
}

/// The option after `current` in `options`, then none, then the first again.
fn cycle<T: Clone + PartialEq>(options: &[T], current: Option<T>) -> Option<T> {
    match current {
        None => options.first().cloned(),
        Some(c) => options
            .iter()
            .position(|o| *o == c)
            .and_then(|p| options.get(p + 1).cloned()),
    }
}

struct Columns {
    verdict: usize,
    /// The official RL reward (`1`, `0`, `0≠`); 0 wide when no row has one.
    reward: usize,
    run: usize,
    task: usize,
    functions: usize,
    fail: usize,
    findings: usize,
    /// A training sample's step and stored score; 0 wide when no row is one.
    step: usize,
}

fn columns(width: u16, show_run: bool, show_reward: bool, show_step: bool) -> Columns {
    let w = width as usize;
    // `step` then the stored score (`  12     1`).
    let step = if show_step { 10 } else { 0 };
    let verdict = 12;
    let reward = if show_reward { 2 } else { 0 };
    let run = if show_run { (w / 9).clamp(6, 16) } else { 0 };
    let functions = (w / 6).clamp(8, 28);
    let (fail, findings) = (5, 3);
    // Optional columns with the space after each, nothing when not shown.
    let optional = reward
        + usize::from(show_reward)
        + run
        + usize::from(show_run)
        + step
        + usize::from(show_step);
    // marker, symbol, space, and one space between each further column
    let fixed = 2 + verdict + 1 + optional + 1 + functions + 1 + fail + 1 + findings;
    Columns {
        verdict,
        reward,
        run,
        task: w.saturating_sub(fixed).max(8),
        functions,
        fail,
        findings,
        step,
    }
}

/// A training sample's step and stored score, right-aligned (`  12     1`).
fn step_cell(e: &super::super::entry::Entry, width: usize) -> String {
    let text = match e.rollout.sample.as_deref() {
        Some(m) => {
            let score = m.score.map_or("-".to_string(), |x| {
                if x.fract() == 0.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x:.2}").trim_start_matches('0').to_string()
                }
            });
            format!("{:>4} {:>5}", m.step, score)
        }
        None => String::new(),
    };
    fit(&text, width)
}

fn draw_list(list: &ListView, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let theme = cx.theme;
    let total = cx.corpus.entries.len();
    let shown = list.shown_rows();
    // Parts of the title with how much they matter: when the list is narrow, the least
    // important go (the top categories, then the file line), never the counts.
    let mut title: Vec<(u8, Span)> = vec![(9, Span::styled(" sebx ", theme.title))];
    let summary = if shown == total {
        format!("{total} rollouts")
    } else {
        format!("{shown} of {total} rollouts")
    };
    title.push((9, Span::styled(format!("· {summary} "), theme.dim)));
    // Where the cursor is: its place in the list and its line in the file.
    if let Some(sel) = list.selected
        && let Some(k) = list.rows().position(|r| r == sel)
    {
        let line = cx.corpus.entries.get(sel).map_or(0, |e| e.rollout.line);
        title.push((
            8,
            Span::styled(format!("· row {}/{shown} ", k + 1), theme.dim),
        ));
        title.push((3, Span::styled(format!("line {line} "), theme.dim)));
    }
    // Labelling progress is always in view: labelled/total and the most used categories.
    // Labels go on failures: count them against the failures, not every rollout; the
    // figure names its scope (how many runs), as the label panel and Stats screen say it.
    title.push((
        9,
        Span::styled(
            format!("· {} ", cx.labels.progress_text(cx.corpus.runs.len())),
            theme.title,
        ),
    ));
    let per_category = cx.labels.category_counts();
    if !per_category.is_empty() {
        let top: Vec<String> = per_category
            .iter()
            .take(3)
            // Named as the list and the panel name them (the taxonomy's label).
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        // As many of the top categories as fit beside the rest (all or none of one).
        let room = usize::from(area.width.saturating_sub(2));
        let used: usize = title.iter().map(|(_, s)| s.content.chars().count()).sum();
        let fitting = (1..=top.len()).rev().find_map(|k| {
            let text = format!("({}) ", top[..k].join(", "));
            (used + text.chars().count() <= room).then_some(text)
        });
        if let Some(text) = fitting {
            title.push((1, Span::styled(text, theme.title)));
        }
    }
    let room = usize::from(area.width.saturating_sub(2));
    for level in [1u8, 2, 3] {
        let w: usize = title.iter().map(|(_, s)| s.content.chars().count()).sum();
        if w <= room {
            break;
        }
        title.retain(|(p, _)| *p > level);
    }
    let title: Vec<Span> = title.into_iter().map(|(_, s)| s).collect();
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Line::from(title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let show_run = cx.corpus.runs.len() > 1;
    let cols = columns(
        inner.width,
        show_run,
        cx.corpus.has_rewards(),
        cx.corpus.has_samples,
    );
    // The extra keys chosen as columns (`V`) take their room from the task.
    let extra_room: usize = cx.extra_columns.iter().map(|(_, w)| w + 1).sum();
    let cols = Columns {
        task: cols.task.saturating_sub(extra_room).max(8),
        ..cols
    };
    let mut header = format!("   {} ", fit("verdict", cols.verdict));
    if cols.reward > 0 {
        header.push_str(&fit("RL", cols.reward));
        header.push(' ');
    }
    if show_run {
        header.push_str(&fit("run", cols.run));
        header.push(' ');
    }
    if cols.step > 0 {
        header.push_str(&fit("step score", cols.step));
        header.push(' ');
    }
    for (key, w) in cx.extra_columns {
        header.push_str(&fit(key, *w));
        header.push(' ');
    }
    header.push_str(&fit("task", cols.task));
    header.push(' ');
    header.push_str(&fit("functions", cols.functions));
    header.push(' ');
    header.push_str(&fit("fail", cols.fail));
    header.push(' ');
    header.push_str(&fit("⚑", cols.findings));
    frame.render_widget(
        Paragraph::new(Line::styled(header, theme.column_header)),
        Rect { height: 1, ..inner },
    );

    // The rows, below the column header (`layout::Areas::list_body`).
    let body = Rect {
        y: inner.y.saturating_add(1).min(inner.bottom()),
        height: inner.height.saturating_sub(1),
        ..inner
    };
    if list.view.is_empty() {
        let msg = if !cx.corpus.load.done {
            "loading…".to_string()
        } else if total == 0 {
            "no rollouts loaded".to_string()
        } else {
            format!(
                "nothing matches the filters{}",
                cx.keys.aside(Action::ClearFilters, "clears them")
            )
        };
        frame.render_widget(Paragraph::new(Line::styled(msg, theme.dim)), body);
        return;
    }
    // Run names kept apart in the column's width (`heldout_main…` twice tells nothing).
    let run_names = cx.corpus.short_run_names(cols.run);
    let lines: Vec<Line> = list
        .view
        .iter()
        .skip(list.list_offset)
        .take(body.height as usize)
        .map(|row| match row {
            ViewRow::Group { label, count } => {
                // Shorten the label, never the count.
                let count = format!(" ({count})");
                let room = (body.width as usize).saturating_sub(2 + count.chars().count());
                let label = fit(label, room.min(label.chars().count()).max(1).min(room));
                Line::from(vec![Span::styled(
                    fit(&format!("▸ {label}{count}"), body.width as usize),
                    theme.group_header,
                )])
            }
            ViewRow::Row(i) => list_row(list, cx, *i, &cols, show_run.then_some(&run_names[..])),
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), body);
}

fn list_row(
    list: &ListView,
    cx: &DrawCx<'_>,
    i: usize,
    cols: &Columns,
    run_names: Option<&[String]>,
) -> Line<'static> {
    let theme = cx.theme;
    let e = &cx.corpus.entries[i];
    let shown = cx.corpus.shown(i);
    let vstyle = theme.shown(shown);
    let selected = list.selected == Some(i);
    let mut spans = vec![
        // `★`: bookmarked for the playlist (the selection marker wins).
        if selected {
            Span::styled("▶", theme.title)
        } else if cx.marks.is_bookmarked(e) {
            Span::styled("★", theme.warning)
        } else {
            Span::raw(" ")
        },
        Span::styled(shown.symbol(), vstyle),
        // `•`: labelled by this annotator.
        if cx.labels.is_labelled(e) {
            Span::styled("•", theme.hint)
        } else {
            Span::raw(" ")
        },
        Span::styled(fit(shown.label(), cols.verdict), vstyle),
        // `≈`: the verdict could differ on another machine or grader run.
        if cx.corpus.is_fragile(i) {
            Span::styled("≈", theme.warning)
        } else {
            Span::raw(" ")
        },
    ];
    if cols.reward > 0 {
        spans.push(reward_cell(cx, i, cols.reward));
        spans.push(Span::raw(" "));
    }
    if let Some(names) = run_names {
        let name = names.get(e.run).map_or("", String::as_str);
        spans.push(Span::styled(fit(name, cols.run), theme.dim));
        spans.push(Span::raw(" "));
    }
    if cols.step > 0 {
        spans.push(Span::styled(step_cell(e, cols.step), theme.hint));
        spans.push(Span::raw(" "));
    }
    for (key, w) in cx.extra_columns {
        let cell = super::super::extras::ExtraKeys::cell(e, key, *w);
        spans.push(Span::styled(cell, theme.hint));
        spans.push(Span::raw(" "));
    }
    let task = cx.corpus.tasks.get(e.task).map_or("", |t| t.short.as_str());
    // This annotator's label leads the task cell (the `•` says there is one).
    let label = cx
        .labels
        .label_text(e)
        .map(|(cats, _)| cats)
        .filter(|c| !c.is_empty() && cols.task >= 16);
    let task_room = match &label {
        Some(l) => {
            let lw = l.chars().count().min(cols.task * 2 / 5);
            spans.push(Span::styled(format!("{} ", fit(l, lw)), theme.hint));
            cols.task - lw - 1
        }
        None => cols.task,
    };
    let task_text = fit(task, task_room);
    let query = list.search.query();
    let cell = |span: Span<'static>, spans: &mut Vec<Span<'static>>| match &query {
        Some(q) => spans.extend(highlight_spans(vec![span], q, theme.matched)),
        None => spans.push(span),
    };
    cell(Span::raw(task_text), &mut spans);
    spans.push(Span::raw(" "));
    // A real zwc call is dim; a NumPy name on zwc a warning, an invented name an error.
    let findings = cx.corpus.findings(i);
    let mut room = cols.functions;
    for (k, name) in cx.corpus.functions(i).iter().enumerate() {
        let style = match findings
            .iter()
            .find(|f| f.is_wrong_name() && f.name == *name)
        {
            Some(f) if f.kind == crate::analysis::FindingKind::NumpyNameOnZwc => theme.warning,
            Some(_) => theme.error,
            None => theme.dim,
        };
        let text = if k == 0 {
            name.clone()
        } else {
            format!(",{name}")
        };
        let w = text.chars().count();
        if w > room || (w == room && k + 1 < cx.corpus.functions(i).len()) {
            if room > 0 {
                cell(Span::styled(fit(&text, room), style), &mut spans);
            }
            room = 0;
            break;
        }
        room -= w;
        cell(Span::styled(text, style), &mut spans);
    }
    if room > 0 {
        spans.push(Span::raw(" ".repeat(room)));
    }
    spans.push(Span::raw(" "));
    let fail = match cx.corpus.scores.get(i).and_then(|s| s.report()) {
        // Cases only count when the program ran (a static verdict runs nothing).
        Some(r) if !r.cases.is_empty() && r.execution.is_some() => {
            format!("{}/{}", r.failed_cases(), r.cases.len())
        }
        Some(_) => "-".to_string(),
        // A row held as its facts (graded in the background, or remembered).
        None => match cx.corpus.facts(i).and_then(|f| f.cases) {
            Some((failed, all)) => format!("{failed}/{all}"),
            None => String::new(),
        },
    };
    let fail_style = if fail.starts_with("0/") || fail.is_empty() {
        theme.dim
    } else {
        theme.verdict_result_error
    };
    spans.push(Span::styled(fit(&fail, cols.fail), fail_style));
    spans.push(Span::raw(" "));
    let n = cx.corpus.findings(i).len();
    spans.push(if n == 0 {
        Span::styled(fit("", cols.findings), theme.dim)
    } else {
        Span::styled(fit(&n.to_string(), cols.findings), theme.warning)
    });
    let line = Line::from(spans);
    if selected {
        line.patch_style(theme.selected)
    } else {
        line
    }
}

/// Row `i`'s official RL reward: `1` or `0`, `≠` after it (in the warning style) where it
/// disagrees with the verdict, `-` when it could not be run, blank when it was not scored.
fn reward_cell(cx: &DrawCx<'_>, i: usize, width: usize) -> Span<'static> {
    let theme = cx.theme;
    let Some(facts) = cx.corpus.facts(i) else {
        return Span::raw(fit("", width));
    };
    let (text, style) = match facts.reward {
        Some(r) if cx.corpus.reward_disagrees(i) => (format!("{r}≠"), theme.warning),
        Some(r) => (r.to_string(), theme.dim),
        None if facts.reward_run => ("-".to_string(), theme.dim),
        None => (String::new(), theme.dim),
    };
    Span::styled(fit(&text, width), style)
}
