//! Drawing the Training screen (the `TrainingView` component, `super`, holds its state): per step, the stored
//! training reward, the recomputed official reward, the accuracy and the responses' mean
//! length as sparklines with their last values; the run's totals (zero-advantage groups,
//! stored ≠ official, reward vs verdict, unjoined; empty outputs and those cut off in a
//! code block); the heat map of zwc functions × steps, heat-coloured by accuracy, in the
//! order in force, whose columns are step ranges of one span with whole labels; and what
//! the highlighted cell and its function's course say (their two lines are always drawn).
//! `z` swaps the map for the column's zero-advantage groups. A figure with nothing graded
//! behind it reads `–`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::grade::runs::onset::ANY;
use crate::grade::runs::{HeatMap, StepRow, bin_label, pct, step_bins};

use super::super::action::{Action, Scope};
use super::super::component::DrawCx;
use super::super::layout::fit;
use super::super::stats::heat;
use super::super::theme::Theme;
use super::{TrainingResult, TrainingView};

/// One per-step figure of a step row.
type StepFigure = fn(&StepRow) -> Option<f64>;

/// Width of the name column of the heat map (NumPy name and zwc name).
const NAME_WIDTH: usize = super::NAME_COLUMNS - 1;

/// What a figure with nothing graded behind it reads.
const NOTHING: &str = "–";

const TICKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A sparkline of values in [0, 1] (`None`: no value, a space).
fn spark(values: &[Option<f64>]) -> String {
    values
        .iter()
        .map(|v| match v {
            Some(x) => TICKS[((x.clamp(0.0, 1.0) * 7.0).round()) as usize],
            None => ' ',
        })
        .collect()
}

/// The mean of `f` over the step rows of each bin.
fn binned(
    rows: &[&StepRow],
    bins: &[(u32, u32)],
    f: fn(&StepRow) -> Option<f64>,
) -> Vec<Option<f64>> {
    bins.iter()
        .map(|(lo, hi)| {
            let vals: Vec<f64> = rows
                .iter()
                .filter(|r| r.step >= *lo && r.step <= *hi)
                .filter_map(|r| f(r))
                .collect();
            (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64)
        })
        .collect()
}

/// The function search box (`/`) for the status bar, while it is open.
pub fn search_box(view: &TrainingView, cx: &DrawCx<'_>) -> Vec<Span<'static>> {
    let search = &view.search;
    if !search.is_open() {
        return Vec::new();
    }
    let key = cx
        .keys
        .key_in(Scope::Training, Action::Search)
        .unwrap_or_else(|| "search".to_string());
    let mut spans = vec![
        Span::styled(format!(" {key} "), cx.theme.status_key),
        Span::raw(" "),
    ];
    spans.extend(search.spans(Style::default()));
    spans.push(Span::styled(
        " a function's NumPy or zwc name (~ fuzzy) ",
        cx.theme.dim,
    ));
    spans
}

/// Draws the screen over the list and panes when it is open (the status bar stays).
pub fn draw(view: &TrainingView, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    if !view.open {
        return;
    }
    let theme = cx.theme;
    let [main, _status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    frame.render_widget(Clear, main);
    let keys = if view.groups.is_some() {
        super::group_keys(cx.keys)
    } else {
        super::footer_keys(cx.keys, main.width >= 100)
    };
    let title = format!(" Training · {keys} ");
    let block = crate::tui::layout::titled_box(theme, title, theme.base, main.width);
    let inner = block.inner(main);
    frame.render_widget(block, main);
    let lines = match &view.result {
        None => vec![Line::styled(" computing the figures…", theme.dim)],
        Some(r) => screen_lines(view, cx, r, inner),
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

fn screen_lines(
    view: &TrainingView,
    cx: &DrawCx<'_>,
    r: &TrainingResult,
    area: Rect,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let w = area.width as usize;
    let mut lines = Vec::new();
    let Some(&run) = r.training_runs.get(view.run) else {
        lines.push(Line::styled(
            " no training run among the loaded files",
            theme.dim,
        ));
        return lines;
    };
    let name = r.set.runs.get(run as usize).cloned().unwrap_or_default();
    let steps: Vec<&StepRow> = r
        .report
        .figures
        .steps
        .iter()
        .filter(|s| s.run == name)
        .collect();
    let mut head = format!(
        " run {name} ({}/{}) · {} steps",
        view.run + 1,
        r.training_runs.len(),
        steps.len()
    );
    if let (Some(first), Some(last)) = (steps.first(), steps.last()) {
        head.push_str(&format!(" ({}–{})", first.step, last.step));
    }
    if r.pending > 0 {
        head.push_str(&format!(" · {} samples not graded yet", r.pending));
    }
    if view.computing {
        head.push_str(" · updating…");
    }
    lines.push(Line::styled(fit(&head, w), theme.title));
    lines.push(Line::styled(fit(&run_summary(r, &name), w), theme.title));

    // Curves: one character per step (or step range).
    // The label (19 columns) and the value after the curve (` 100.0% at the last step`)
    // stay whole.
    let spark_w = w.saturating_sub(19 + 24).clamp(4, 120);
    let all_steps: Vec<u32> = steps.iter().map(|s| s.step).collect();
    let bins = step_bins(&all_steps, spark_w);
    // The last step's own figure: an earlier step's would be read as the last one's.
    let last = |f: fn(&StepRow) -> Option<f64>| {
        steps.last().and_then(|s| f(s)).map_or(NOTHING.into(), pct)
    };
    let mut curves: Vec<(&str, StepFigure, Style)> = vec![
        ("reward (stored)  ", |s| s.reward_mean, theme.hint),
        (
            "reward (official)",
            |s| s.official_reward_mean,
            theme.warning,
        ),
        ("accuracy         ", |s| s.accuracy, theme.verdict_right),
    ];
    // The share of samples whose `right` went through a loophole (issue 29), when any did:
    // the step where a loophole takes off.
    if steps.iter().any(|s| s.loopholes.right > 0) {
        curves.push((
            "right by loophole",
            |s| s.loopholes.right_rate(),
            theme.verdict_failed,
        ));
    }
    // Few steps: each is drawn several characters wide, so the curve reads as one.
    let repeat = (spark_w / bins.len().max(1)).clamp(1, 6);
    let loophole_curve = curves.len() > 3;
    for (label, f, style) in curves {
        let line: String = spark(&binned(&steps, &bins, f))
            .chars()
            .flat_map(|c| std::iter::repeat_n(c, repeat))
            .collect();
        lines.push(Line::from(vec![
            Span::styled(format!(" {label} "), theme.dim),
            Span::styled(line, style),
            Span::raw(format!(" {} at the last step", last(f))),
        ]));
    }
    // Under the loophole curve, where the loophole took off (the same step `stats --by
    // step` gives).
    let onset = r.report.figures.onset(&name, ANY);
    if let (true, Some(step)) = (loophole_curve, onset) {
        let bin = bins
            .iter()
            .position(|(lo, hi)| (*lo..=*hi).contains(&step))
            .unwrap_or(0);
        let text = format!(
            "onset: step {step} (from there on ≥ {} of each step's graded samples went through a loophole)",
            r.report.figures.onset_at
        );
        let at = 19 + bin * repeat;
        let n = text.chars().count();
        // The text after the mark where it fits, else before it.
        let line = if at + 2 + n <= w || at < n + 1 {
            format!("{}▲ {text}", " ".repeat(at))
        } else {
            format!("{}{text} ▲", " ".repeat(at - n - 1))
        };
        lines.push(Line::styled(fit(&line, w), theme.verdict_failed));
    }
    // Tokens still being counted: the count job's progress in their place.
    let counting = r.tokens_pending.then(|| match view.counting {
        Some((counted, total)) if total > 0 => {
            format!("tokens: counting… {}%", counted * 100 / total)
        }
        _ => "tokens: counting…".to_string(),
    });
    lines.push(length_line(&steps, &bins, repeat, w, counting, theme));
    if let (Some(first), Some(last_bin)) = (bins.first(), bins.last()) {
        let span = bins.len() * repeat;
        let (a, b) = (format!("step {}", first.0), format!("{}", last_bin.1));
        let gap = span
            .saturating_sub(a.chars().count() + b.chars().count())
            .max(1);
        lines.push(Line::styled(
            format!(" {:17} {a}{}{b}", "", " ".repeat(gap)),
            theme.dim,
        ));
    }
    // The run's totals, as `sebx stats --by step` prints them under its table.
    if let Some(totals) = r.report.figures.totals_of(&name) {
        for line in totals.lines() {
            lines.push(Line::styled(fit(&format!(" {line}"), w), theme.dim));
        }
    }

    let Some(map) = view.map() else {
        return lines;
    };
    let height = (area.height as usize).saturating_sub(lines.len() + 1);
    let body = match view.groups {
        Some(at) => group_lines(view, cx, at, w, height),
        None => map_lines(view, cx, r, &map, w, height),
    };
    let about = match view.groups {
        Some(_) => {
            let (lo, hi) = map.bins.get(view.cell.1).copied().unwrap_or_default();
            format!(
                " {} zero-advantage groups at {} (each prompt's samples stored one score)",
                view.zero_groups().len(),
                steps_text(lo, hi)
            )
        }
        None if map.rows.is_empty() => String::new(),
        None => {
            // Which rows are in sight, as the map scrolls.
            let (first, room) = map_window(view.cell.0, map_room(height));
            format!(
                " {} functions {} · rows {}–{}",
                map.rows.len(),
                map.sort.label(),
                first + 1,
                (first + room).min(map.rows.len())
            )
        }
    };
    lines.push(Line::styled(fit(&about, w), theme.dim));
    lines.extend(body);
    lines
}

/// The responses' mean length per step as a curve (scaled to the run's longest step), with
/// the last step's mean and 90th percentile in characters, and in tokens when a tokenizer
/// counted them (`--tokenizer`; `counting`: what to say in their place while they are
/// counted); shorter forms where the line has no room.
fn length_line(
    steps: &[&StepRow],
    bins: &[(u32, u32)],
    repeat: usize,
    w: usize,
    counting: Option<String>,
    theme: &Theme,
) -> Line<'static> {
    let longest = steps
        .iter()
        .filter_map(|s| s.lengths.response_chars_mean)
        .fold(0.0, f64::max);
    let scaled: Vec<Option<f64>> = binned(steps, bins, |s| s.lengths.response_chars_mean)
        .into_iter()
        .map(|m| m.map(|m| if longest > 0.0 { m / longest } else { 0.0 }))
        .collect();
    let curve: String = spark(&scaled)
        .chars()
        .flat_map(|c| std::iter::repeat_n(c, repeat))
        .collect();
    let last = steps.last().map(|s| &s.lengths);
    let tokens = last.and_then(|l| l.response_tokens_mean.zip(l.response_tokens_p90));
    let value = match last.and_then(|l| l.response_chars_mean.zip(l.response_chars_p90)) {
        Some((mean, p90)) => {
            let room = w.saturating_sub(19 + curve.chars().count());
            let mut forms = Vec::new();
            if let Some((t_mean, t_p90)) = tokens {
                forms.push(format!(
                    " {mean:.0} chars, p90 {p90} · {t_mean:.0} tokens, p90 {t_p90} at the last step"
                ));
                forms.push(format!(
                    " {mean:.0} chars · {t_mean:.0} tokens at the last step"
                ));
            }
            if let Some(counting) = &counting {
                forms.push(format!(
                    " {mean:.0} chars, p90 {p90} at the last step · {counting}"
                ));
                forms.push(format!(" {mean:.0} chars at the last step · {counting}"));
            }
            forms.push(format!(" {mean:.0} chars, p90 {p90} at the last step"));
            let short = format!(" {mean:.0} chars at the last step");
            forms
                .into_iter()
                .find(|f| f.chars().count() <= room)
                .unwrap_or_else(|| fit(&short, room))
        }
        None => format!(" {NOTHING} at the last step"),
    };
    Line::from(vec![
        Span::styled(format!(" {:17} ", "length (chars)"), theme.dim),
        Span::styled(curve, theme.title),
        Span::raw(value),
    ])
}

/// `step 7` or `steps 1–3`.
fn steps_text(lo: u32, hi: u32) -> String {
    if lo == hi {
        format!("step {lo}")
    } else {
        format!("steps {lo}–{hi}")
    }
}

/// ` (↓)`: the key that scrolls to what is out of sight, from the keymap.
fn down_key(cx: &DrawCx<'_>) -> String {
    cx.keys
        .key_in(Scope::Training, Action::Down)
        .map_or(String::new(), |k| format!(" ({k})"))
}

/// The run in one line, as `sebx stats --by course` counts it: how its tasks ended and when
/// loopholes set in (any kind, at `--onset-at`).
fn run_summary(r: &TrainingResult, name: &str) -> String {
    let fig = &r.report.figures;
    let [learned, forgotten, never] = crate::grade::runs::courses_ended(&fig.task_courses, name);
    let onset = match fig.onsets.iter().find(|o| o.run == name && o.kind == ANY) {
        Some(o) => match (o.step, o.peak) {
            (Some(step), _) => format!("loophole onset at step {step}"),
            (None, Some((step, share))) => format!(
                "no loophole onset (at most {} of a step's samples, step {step})",
                pct(share)
            ),
            (None, None) => "no loophole".to_string(),
        },
        None => "no loophole".to_string(),
    };
    format!(" tasks: {learned} learned, {forgotten} forgotten, {never} never solved · {onset}")
}

/// How a function's course reads: when it was first solved and where it ended, with the
/// last step that still had a wrong sample (a learned function may have had one).
fn course_text(c: &crate::grade::runs::Course, learned_at: impl std::fmt::Display) -> String {
    use crate::grade::runs::Learning;
    let solved = format!("solved: at least {learned_at} of a step's samples right");
    let last = pct(c.last_accuracy);
    match (c.status, c.first_solved) {
        (Learning::NeverSolved, _) | (_, None) => {
            format!(" over the run: never solved ({last} right at its last step; {solved})")
        }
        (Learning::Learned, Some(first)) => {
            let wrong = match c.last_failed {
                None => ", no sample ever wrong".to_string(),
                Some(s) if s >= first => format!(", a sample still wrong at step {s}"),
                Some(_) => ", every sample right from then on".to_string(),
            };
            format!(
                " over the run: learned: solved from step {first}{wrong}, {last} right at its last step ({solved})"
            )
        }
        (Learning::Forgotten, Some(first)) => format!(
            " over the run: forgotten: solved at step {first}, not at its last step ({last} right; {solved})"
        ),
    }
}

/// Rows of the map that fit `height` lines: the header and five lines are kept (how many
/// more, a blank, the cell's line and the course's two lines).
fn map_room(height: usize) -> usize {
    height.saturating_sub(6).max(1)
}

/// The first row in sight and how many: the highlighted row stays in sight.
fn map_window(cursor: usize, room: usize) -> (usize, usize) {
    (cursor.saturating_sub(room.saturating_sub(1)), room)
}

/// The zero-advantage groups of the highlighted column's steps, `height` lines at most.
fn group_lines(
    view: &TrainingView,
    cx: &DrawCx<'_>,
    at: usize,
    w: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let groups = view.zero_groups();
    let mut lines = Vec::new();
    // The line saying how many more, and the selected group's task.
    let room = height.saturating_sub(2).max(1);
    let first = at.saturating_sub(room.saturating_sub(1));
    for (i, (step, g)) in groups.iter().enumerate().skip(first).take(room) {
        let selected = i == at;
        let text = format!(
            "{}step {step} · group {} · {} samples · {} · {}/{} right · {}",
            if selected { "▸" } else { " " },
            g.group,
            g.samples,
            g.outcome(),
            g.right,
            g.graded,
            g.task
        );
        let style = if selected { theme.selected } else { theme.base };
        lines.push(Line::styled(fit(&text, w), style));
    }
    if first + room < groups.len() {
        lines.push(Line::styled(
            format!(
                " … {} more groups{}",
                groups.len() - first - room,
                down_key(cx)
            ),
            theme.dim,
        ));
    }
    if let Some((step, g)) = groups.get(at) {
        lines.push(Line::styled(
            fit(
                &format!(
                    " step {step}, group {}: {}{}",
                    g.group,
                    g.task,
                    cx.keys
                        .says_in(
                            Scope::Training,
                            Action::Choose,
                            &format!("lists its {} samples", g.samples)
                        )
                        .map_or(String::new(), |s| format!(" · {s}"))
                ),
                w,
            ),
            theme.title,
        ));
    }
    lines
}

/// The heat map and, always, the highlighted cell's line and its function's course line,
/// in `height` lines.
fn map_lines(
    view: &TrainingView,
    cx: &DrawCx<'_>,
    r: &TrainingResult,
    map: &HeatMap,
    w: usize,
    height: usize,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let mut lines = Vec::new();
    if map.rows.is_empty() {
        lines.push(Line::styled(
            " no graded sample of a selected zwc function yet (an API doc and a dataset are needed)",
            theme.dim,
        ));
        return lines;
    }
    // Header: the steps of the columns.
    let mut header = vec![Span::styled(
        format!(" {}", fit("zwc function \\ step", NAME_WIDTH)),
        theme.column_header,
    )];
    let cell_w = super::cell_width(&map.bins);
    for (b, bin) in map.bins.iter().enumerate() {
        let style = if b == view.cell.1 {
            theme.column_header.add_modifier(Modifier::REVERSED)
        } else {
            theme.column_header
        };
        header.push(Span::styled(format!("{:>cell_w$}", bin_label(*bin)), style));
    }
    lines.push(Line::from(header));
    let (first, room) = map_window(view.cell.0, map_room(height));
    for (i, (_, zwc, numpy)) in map.rows.iter().enumerate().skip(first).take(room) {
        let selected = i == view.cell.0;
        let name = format!("{} {}", numpy.trim_start_matches("np."), zwc);
        let name_style = if selected { theme.selected } else { theme.base };
        let mut spans = vec![Span::styled(
            format!(
                "{}{}",
                if selected { "▸" } else { " " },
                fit(&name, NAME_WIDTH)
            ),
            name_style,
        )];
        for b in 0..map.bins.len() {
            let text = match map.accuracy(i, b) {
                Some(a) => format!("{:>cell_w$}", format!("{:.0}", 100.0 * a)),
                None => format!("{NOTHING:>cell_w$}"),
            };
            let mut style = map.accuracy(i, b).map_or(theme.dim, |a| heat(theme, a));
            if selected && b == view.cell.1 {
                style = style.add_modifier(Modifier::REVERSED);
            }
            spans.push(Span::styled(text, style));
        }
        lines.push(Line::from(spans));
    }
    if first + room < map.rows.len() {
        lines.push(Line::styled(
            format!(
                " … {} more functions{}",
                map.rows.len() - first - room,
                down_key(cx)
            ),
            theme.dim,
        ));
    }
    lines.push(Line::raw(""));
    // The highlighted cell and its function's course.
    if let (Some((f, zwc, numpy)), Some(bin)) =
        (map.rows.get(view.cell.0), map.bins.get(view.cell.1))
    {
        let (n, right) = map.cells[view.cell.0][view.cell.1];
        let reward: usize = r
            .report
            .figures
            .function_steps
            .iter()
            .filter(|c| {
                c.run_index == map.run && c.function == *f && c.step >= bin.0 && c.step <= bin.1
            })
            .map(|c| c.reward)
            .sum();
        let steps = steps_text(bin.0, bin.1);
        let cell = if n == 0 {
            format!(" {numpy} ({zwc}) at {steps}: {NOTHING} (no graded sample)")
        } else {
            format!(
                " {numpy} ({zwc}) at {steps}: {n} samples, {right} right ({}), {reward} with reward 1{}",
                pct(right as f64 / n as f64),
                cx.keys
                    .says_in(Scope::Training, Action::Choose, "lists them")
                    .map_or(String::new(), |s| format!(" · {s}"))
            )
        };
        lines.push(Line::styled(fit(&cell, w), theme.title));
        if let Some(c) = r
            .report
            .figures
            .function_courses
            .iter()
            .find(|c| c.run_index == map.run && c.index == *f)
        {
            // Two lines at most (`map_room` keeps them), the second cut with a mark.
            let text = course_text(c, r.report.figures.learned_at);
            let wrapped = super::super::layout::wrap_words(text.trim_start(), w.saturating_sub(1));
            if let Some(first) = wrapped.first() {
                lines.push(Line::styled(format!(" {first}"), theme.dim));
            }
            if wrapped.len() > 1 {
                let rest = wrapped[1..].join(" ");
                lines.push(Line::styled(fit(&format!(" {rest}"), w), theme.dim));
            }
        }
    }
    lines
}
