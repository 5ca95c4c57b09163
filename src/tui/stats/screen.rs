//! Drawing the stats and compare screens (the `StatsView` component, `super`, holds their state): run
//! summaries, the heat-coloured internalization map, the flip matrix, a cell's pairs, and
//! one pair side by side with a diff of the code.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use similar::{ChangeTag, TextDiff};

use crate::grade::runs::{self, pct};
use crate::model::Verdict;

use super::super::action::{Action, Scope};
use super::super::component::DrawCx;
use super::super::entry::Shown;
use super::super::layout::fit;
use super::super::theme::Theme;
use super::{Screen, StatsResult, StatsView, cell_pairs, sort_label, sorted_map};

/// `s` as it is when it fits in `w` characters, else cut to them with a closing `…`
/// (never padded).
fn fit_end(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else {
        fit(s, w)
    }
}

fn rfit(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w {
        format!("{}{s}", " ".repeat(w - n))
    } else {
        fit(s, w)
    }
}

/// Heat of an accuracy, from the theme: low is an error colour, high the `right` colour.
pub(crate) fn heat(theme: &Theme, acc: f64) -> Style {
    if acc >= 0.75 {
        theme.verdict_right
    } else if acc >= 0.4 {
        theme.warning
    } else {
        theme.error
    }
}

fn bar(share: f64, width: usize) -> String {
    let eighths = (share.clamp(0.0, 1.0) * width as f64 * 8.0).round() as usize;
    const E: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    format!("{}{}", "█".repeat(eighths / 8), E[eighths % 8])
}

/// Draws the open screen over the list and panes (the status bar stays).
pub fn draw(view: &StatsView, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let Some(screen) = view.screen else {
        return;
    };
    let theme = cx.theme;
    let [main, _status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    frame.render_widget(Clear, main);
    let name = match screen {
        Screen::Map => "Stats",
        Screen::Compare => "Compare",
        Screen::Cell(..) => "Pairs in the cell",
        Screen::Pair(..) => "Pair side by side",
    };
    let title = format!(
        " {name} · {}{} ",
        super::footer_keys(screen, cx.keys),
        super::extra_keys(screen, cx.keys).map_or(String::new(), |k| format!(" · {k}"))
    );
    let block = crate::tui::layout::titled_box(theme, title, theme.base, main.width);
    let inner = block.inner(main);
    frame.render_widget(block, main);
    let Some(r) = &view.result else {
        frame.render_widget(
            Paragraph::new(Line::styled(" computing the figures…", theme.dim)),
            inner,
        );
        return;
    };
    let lines = match screen {
        Screen::Map => map_lines(view, cx, r, inner),
        Screen::Compare => compare_lines(view, cx, r, inner),
        Screen::Cell(a, b) => cell_lines(view, cx, r, a, b),
        Screen::Pair(a, b, i) => pair_lines(view, cx, r, a, b, i, inner),
    };
    let scroll = if matches!(screen, Screen::Pair(..)) {
        view.scroll
    } else {
        0
    };
    frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), inner);
}

fn map_lines(view: &StatsView, cx: &DrawCx<'_>, r: &StatsResult, area: Rect) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let w = area.width as usize;
    let mut lines = Vec::new();
    if view.computing {
        lines.push(Line::styled(" updating…", theme.dim));
    }
    let wide = w >= 120;
    let names: Vec<&str> = r
        .report
        .runs
        .iter()
        .map(|run| run.stats.name.as_str())
        .collect();
    let names = runs::short_run_names(&names, 12);
    for (k, st) in r.report.runs.iter().map(|run| &run.stats).enumerate() {
        let mark = if st.run as usize == view.run {
            "▸"
        } else {
            " "
        };
        let ci = st.accuracy_ci95.map(runs::interval).unwrap_or_default();
        let p1 = st.pass_at_k.first().and_then(|p| p.value);
        let how = if wide {
            " (95% CI, bootstrap over tasks)"
        } else {
            ""
        };
        let reward = reward_text(&st.reward, st.rollouts);
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "{mark}{} ",
                    fit(names.get(k).map_or("", String::as_str), 12)
                ),
                theme.title,
            ),
            Span::raw(format!(
                "{} rollouts · {} tasks · acc {} {ci}{how} · pass@1 {}{reward}",
                st.rollouts,
                st.tasks,
                // Nothing graded: no accuracy, not 0%.
                if st.rollouts == 0 {
                    "–".to_string()
                } else {
                    pct(st.accuracy)
                },
                runs::pass_value(p1)
            )),
        ]));
        // The rights paid through a loophole (issue 29), as `sebx stats` counts them.
        // Wrapped under the run's figures: a figure cut off reads as another figure.
        if st.loopholes.right > 0 {
            let text = loophole_text(&st.loopholes, st.reward.rewarded > 0);
            for part in super::super::layout::wrap_words(&text, w.saturating_sub(15)) {
                lines.push(Line::styled(
                    format!("{}{part}", " ".repeat(14)),
                    theme.verdict_failed,
                ));
            }
        }
        // Verdict shares as one stacked bar, then the shares in figures.
        let bw = if wide { 60 } else { 30 };
        let mut spans = vec![Span::raw(" ".repeat(14))];
        for v in Verdict::ALL {
            let n = (st.summary.share(v) * bw as f64).round() as usize;
            spans.push(Span::styled("█".repeat(n), theme.verdict(v)));
        }
        spans.push(Span::raw(" "));
        for v in Verdict::ALL {
            let name = if wide {
                short(v)
            } else {
                Shown::Verdict(v).symbol()
            };
            spans.push(Span::styled(
                format!(" {name} {:.0}%", 100.0 * st.summary.share(v)),
                theme.verdict(v),
            ));
        }
        lines.push(Line::from(spans));
        lines.push(curve_line(theme, st));
    }
    if r.ungraded > 0 {
        lines.push(Line::styled(
            format!(
                " {} rows not graded yet are left out{}",
                r.ungraded,
                cx.keys
                    .says_in(Scope::Stats, Action::StatsScreen, "refreshes")
                    .map_or(String::new(), |s| format!(" ({s})"))
            ),
            theme.dim,
        ));
    }
    // Label progress as the list and the label panel say it (one tally, the session's):
    // over every run, then over the run shown, each naming its scope; wrapped, not cut.
    let run_labels = r.report.labels.get(view.run).map(|l| &l.stats);
    if let Some(tally) = cx.labels.label_tally()
        && tally.all().counts.labelled > 0
    {
        let mut said = vec![format!("your labels: {}", tally.all().text())];
        if tally.run_count() > 1
            && let Some(run) = tally.run(view.run)
        {
            said.push(run.text());
        }
        if let Some(l) = run_labels.filter(|l| l.labelled_failures > 0)
            && let Some(last) = said.last_mut()
        {
            let sample = match l.sample {
                runs::LabelSample::Random => "a random sample",
                runs::LabelSample::All => "all of them",
                runs::LabelSample::Picked => "picked, not random",
                runs::LabelSample::None => "none",
            };
            let order = match l.sample {
                runs::LabelSample::Picked => cx
                    .keys
                    .says(Action::ToggleLabelOrder, "labels in random order")
                    .map_or(String::new(), |s| format!(" ({s})")),
                _ => String::new(),
            };
            last.push_str(&format!(", {sample}{order}"));
        }
        for text in said {
            for part in super::super::layout::wrap_words(&text, w.saturating_sub(2)) {
                lines.push(Line::styled(format!(" {part}"), theme.dim));
            }
        }
    }
    if let Some(l) = run_labels
        && l.labelled_failures > 0
    {
        let mut top: Vec<&runs::CategoryStats> = l.categories.iter().collect();
        top.sort_by_key(|c| std::cmp::Reverse(c.failures));
        let parts: Vec<String> = top
            .iter()
            .take(if wide { 5 } else { 3 })
            .map(|c| {
                format!(
                    "{} {} {}",
                    c.category,
                    c.prevalence.map(pct).unwrap_or_default(),
                    c.prevalence_ci95
                        .map(|(lo, hi)| format!("[{:.0}–{:.0}%]", 100.0 * lo, 100.0 * hi))
                        .unwrap_or_default()
                )
            })
            .collect();
        // Every category shown whole: wrapped, not cut.
        for part in super::super::layout::wrap_words(&parts.join(" · "), w.saturating_sub(4)) {
            lines.push(Line::styled(format!("   {part}"), theme.dim));
        }
    }
    let run_name = r.set.runs.get(view.run).cloned().unwrap_or_default();
    lines.push(Line::styled(
        format!(
            " internalization map of {run_name} ({}{})",
            sort_label(view.sort),
            cx.keys
                .key_in(Scope::Stats, Action::SortRows)
                .map_or(String::new(), |k| format!("; {k}: sort"))
        ),
        theme.column_header,
    ));
    if !r.set.unknown_selected.is_empty() {
        let names: Vec<&str> = r.set.unknown_selected.iter().map(String::as_str).collect();
        lines.push(Line::styled(
            fit(
                &format!(
                    " no row for {} selected function(s) the API doc lacks: {}",
                    names.len(),
                    names.join(", ")
                ),
                w,
            ),
            theme.warning,
        ));
    }
    let layout = MapColumns::for_width(w);
    lines.push(Line::styled(layout.header(), theme.column_header));
    let map = sorted_map(view, r);
    if map.is_empty() {
        let why = if cx.corpus.ctx.api.is_empty() {
            " no function rows: no API doc (pass --api-doc FILE or set SEBX_API_DOC)"
        } else {
            " no function rows: the tasks name no function the API doc knows"
        };
        lines.push(Line::styled(why, theme.dim));
    }
    // The wrong names (what was written instead) take the room the map leaves, up to 8.
    let names: Vec<&runs::WrongNameRow> = r.report.wrong_names.iter().take(8).collect();
    let left = (area.height as usize).saturating_sub(lines.len());
    let names_h = if names.is_empty() {
        0
    } else if left >= map.len() + names.len() + 2 {
        names.len() + 2
    } else if left >= 16 {
        // A long map scrolls; the names keep a third of the screen.
        (names.len() + 2).min(left / 3)
    } else {
        0
    };
    let room = left.saturating_sub(names_h).max(1);
    let first = view.cursor.saturating_sub(room.saturating_sub(1));
    for (i, row) in map.iter().enumerate().skip(first).take(room) {
        lines.push(layout.row(theme, row, i == view.cursor));
    }
    if names_h > 2 {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            " wrong names, all runs (written instead → the right zwc name)",
            theme.column_header,
        ));
        for n in names.iter().take(names_h - 2) {
            lines.push(Line::from(vec![
                Span::styled(
                    format!(" {} ", rfit(&format!("×{}", n.count), 6)),
                    theme.base,
                ),
                Span::styled(fit(&n.name, 28), theme.error),
                // The rest of the row: cut with a `…` where the screen ends (`sebx stats
                // --by finding` has it whole).
                Span::styled(
                    fit_end(
                        &format!(
                            " {} {}",
                            n.correct
                                .as_deref()
                                .map_or_else(String::new, |c| format!("→ {c}")),
                            // On screens a finding is named by its label, as everywhere.
                            crate::analysis::FindingKind::BY_IMPORTANCE
                                .iter()
                                .find(|k| k.as_str() == n.kind)
                                .map_or(n.kind, |k| k.label())
                        ),
                        w.saturating_sub(8 + 28),
                    ),
                    theme.dim,
                ),
            ]));
        }
    }
    lines
}

/// The rights (and rewards of 1) that went through a loophole, by kind, and the accuracy
/// without them.
fn loophole_text(l: &runs::LoopholeFigures, rewarded: bool) -> String {
    let kinds: Vec<String> = l
        .by_kind
        .iter()
        .filter(|(_, c)| c.right > 0)
        .map(|(k, c)| format!("{k} {}", c.right))
        .collect();
    let reward = if rewarded {
        format!(", {} rewards of 1", l.reward_1)
    } else {
        String::new()
    };
    format!(
        "through a loophole: {} right{reward} ({}) · accuracy without {}",
        l.right,
        kinds.join(", "),
        l.accuracy_without.map_or_else(|| "–".to_string(), pct)
    )
}

/// The official RL reward as `sebx stats` reports it: the mean over every rollout, `–`
/// with how many lack a reward when some do (never a mean over a subset), and how many
/// disagree with their verdict.
fn reward_text(reward: &runs::RewardFigures, rollouts: usize) -> String {
    if reward.rewarded == 0 {
        return String::new();
    }
    let mean = match reward.reward_mean {
        Some(mean) => format!("{mean:.3}"),
        None => format!("– (unknown for {} of {rollouts})", reward.reward_unknown),
    };
    let differ = match reward.disagreements() {
        0 => String::new(),
        n => format!(" · {n} reward ≠ verdict"),
    };
    format!(" · RL reward {mean}{differ}")
}

/// A run's pass@k curve and how its tasks' accuracies spread (ten bins, 0 to 100 %).
fn curve_line(theme: &Theme, st: &runs::RunStats) -> Line<'static> {
    let ks: Vec<String> = st
        .pass_at_k
        .iter()
        .filter(|p| p.value.is_some())
        .map(|p| format!("{} {}", p.k, runs::pass_value(p.value)))
        .collect();
    let mut bins = [0usize; 10];
    for a in &st.task_accuracy {
        bins[((a * 10.0) as usize).min(9)] += 1;
    }
    let most = bins.iter().copied().max().unwrap_or(0).max(1);
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let hist: String = bins
        .iter()
        .map(|n| {
            if *n == 0 {
                ' '
            } else {
                BARS[(n * 7).div_ceil(most).min(7)]
            }
        })
        .collect();
    Line::from(vec![
        Span::styled(format!("{}pass@k ", " ".repeat(14)), theme.dim),
        Span::raw(ks.join(" · ")),
        Span::styled("  tasks by accuracy 0%", theme.dim),
        Span::styled(format!("▕{hist}▏"), theme.title),
        Span::styled("100%", theme.dim),
    ])
}

/// The map's columns at a width: the names and counts always, the accuracy bar, the top
/// wrong names (what the map is for) and the verdict mix as room allows. The columns are
/// named as `sebx stats` names them.
struct MapColumns {
    /// Width of the NumPy and zwc name columns.
    name: usize,
    zwc: usize,
    /// Width of the accuracy bar (0: none).
    bar: usize,
    /// Whether the tasks column is shown (not at 80 columns).
    tasks: bool,
    /// Width of the top wrong names (0: none).
    wrong: usize,
    /// Whether the verdict mix is shown.
    mix: bool,
}

/// `right/result/exe/numpy/no-zwc` counts, as wide as this.
const MIX_WIDTH: usize = 26;

impl MapColumns {
    fn for_width(w: usize) -> MapColumns {
        // `zwc.rfx.gicopuf` is 15 wide: linalg names fit even at 80 columns.
        let (name, zwc, bar, tasks) = if w >= 100 {
            (16, 16, 8, true)
        } else {
            (13, 15, 0, false)
        };
        // Marker, names, tasks, n and right, accuracy (and bar), the three name counts.
        let fixed = 1
            + (name + 1)
            + (zwc + 1)
            + if tasks { 6 } else { 0 }
            + 12
            + 7
            + if bar > 0 { bar + 1 } else { 0 }
            + 28;
        let rest = w.saturating_sub(fixed);
        let mix = rest >= 2 + 20 + 2 + MIX_WIDTH;
        let wrong = if rest >= 14 {
            rest - 2 - if mix { MIX_WIDTH + 2 } else { 0 }
        } else {
            0
        };
        MapColumns {
            name,
            zwc,
            bar,
            tasks,
            wrong,
            mix,
        }
    }

    fn header(&self) -> String {
        let tasks = if self.tasks {
            format!("{} ", rfit("tasks", 5))
        } else {
            String::new()
        };
        let mut h = format!(
            " {} {} {tasks}{} {} {}",
            fit("numpy", self.name),
            fit("zwc", self.zwc),
            rfit("n", 5),
            rfit("right", 5),
            fit("acc", 7 + if self.bar > 0 { self.bar + 1 } else { 0 }),
        );
        h.push_str(&format!(
            " {} {} {}",
            rfit("right name", 10),
            rfit("np name", 7),
            rfit("invented", 8)
        ));
        if self.wrong > 0 {
            h.push_str(&format!("  {}", fit("top wrong names", self.wrong)));
        }
        if self.mix {
            h.push_str(&format!(
                "  {}",
                fit("right/result/exe/np/no-zwc", MIX_WIDTH)
            ));
        }
        h
    }

    fn row(&self, theme: &Theme, row: &runs::FunctionRow, selected: bool) -> Line<'static> {
        let base = if selected { theme.selected } else { theme.base };
        let acc = if self.bar > 0 {
            format!(
                "{} {} ",
                rfit(&pct(row.accuracy), 6),
                fit(&bar(row.accuracy, self.bar), self.bar)
            )
        } else {
            format!("{} ", rfit(&pct(row.accuracy), 6))
        };
        let tasks = if self.tasks {
            format!("{} ", rfit(&row.tasks.to_string(), 5))
        } else {
            String::new()
        };
        let mut spans = vec![
            Span::styled(
                format!(
                    "{}{} {} {tasks}{} {} ",
                    if selected { "▸" } else { " " },
                    fit(&row.numpy, self.name),
                    fit(&row.zwc, self.zwc),
                    rfit(&row.rollouts.to_string(), 5),
                    rfit(&row.right.to_string(), 5),
                ),
                base,
            ),
            Span::styled(acc, heat(theme, row.accuracy)),
            Span::styled(
                format!(
                    " {} {} {}",
                    rfit(&row.called_right.to_string(), 10),
                    rfit(&row.numpy_name.to_string(), 7),
                    rfit(&row.invented_name.to_string(), 8)
                ),
                base,
            ),
        ];
        if self.wrong > 0 {
            let names = runs::top_names(&row.wrong_names, 3);
            spans.push(Span::styled(
                format!("  {}", fit(&names, self.wrong)),
                theme.error,
            ));
        }
        if self.mix {
            let mix: Vec<String> = Verdict::ALL
                .iter()
                .map(|v| row.verdicts[v.code() as usize].to_string())
                .collect();
            spans.push(Span::styled(
                format!("  {}", fit(&mix.join("/"), MIX_WIDTH)),
                theme.dim,
            ));
        }
        Line::from(spans)
    }
}

fn short(v: Verdict) -> &'static str {
    match v {
        Verdict::Right => "right",
        Verdict::ResultError => "result",
        Verdict::ExeError => "exe",
        Verdict::UseNumpy => "numpy",
        Verdict::WithoutZwc => "no-zwc",
    }
}

fn compare_lines(
    view: &StatsView,
    cx: &DrawCx<'_>,
    r: &StatsResult,
    area: Rect,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let mut lines = Vec::new();
    let Some(report) = &r.compare else {
        lines.push(Line::styled(" nothing to compare", theme.dim));
        return lines;
    };
    let c = &report.comparison;
    let heading = |a: &str, b: &str| {
        format!(
            " A: {a}   B: {b}   pairs {} · unpaired {} in A, {} in B",
            c.pairs.len(),
            c.unpaired_a,
            c.unpaired_b
        )
    };
    let mut head = heading(&report.a, &report.b);
    let over = head.chars().count().saturating_sub(usize::from(area.width));
    if over > 0 {
        // Too wide: the names lose what they share, as everywhere (the counts stay).
        let longest = report.a.chars().count().max(report.b.chars().count());
        let names = runs::short_run_names(
            &[report.a.as_str(), report.b.as_str()],
            longest.saturating_sub(over.div_ceil(2)).max(6),
        );
        head = heading(&names[0], &names[1]);
    }
    lines.push(Line::styled(head, theme.title));
    if report.reward_a.rewarded + report.reward_b.rewarded > 0 {
        let side = |reward: &runs::RewardFigures, rollouts: usize| {
            let text = reward_text(reward, rollouts);
            if text.is_empty() {
                " · no RL reward".to_string()
            } else {
                text
            }
        };
        let [a, b] = &report.heads;
        lines.push(Line::raw(format!(
            " A{}   B{}",
            side(&report.reward_a, a.rollouts),
            side(&report.reward_b, b.rollouts)
        )));
    }
    let m = &c.mcnemar;
    lines.push(Line::raw(format!(
        " McNemar exact: A right & B not {}, A not & B right {}, p = {}",
        m.a_right_b_wrong,
        m.a_wrong_b_right,
        runs::fmt_p(m.p_value)
    )));
    if let Some(t) = &c.task_test {
        lines.push(Line::raw(format!(
            " per-task paired test: {} tasks, mean delta {:+.1} points, p = {}",
            t.tasks,
            100.0 * t.mean_delta,
            runs::fmt_p(t.p_value)
        )));
    }
    let mut header = vec![Span::styled(
        format!(" {}", fit("A \\ B", 8)),
        theme.column_header,
    )];
    for v in Verdict::ALL {
        header.push(Span::styled(rfit(short(v), 8), theme.column_header));
    }
    lines.push(Line::from(header));
    for (i, va) in Verdict::ALL.iter().enumerate() {
        let mut spans = vec![Span::styled(
            format!(" {}", fit(short(*va), 8)),
            theme.verdict(*va),
        )];
        for (j, vb) in Verdict::ALL.iter().enumerate() {
            let n = c.matrix[va.code() as usize][vb.code() as usize];
            let mark = match (*va == Verdict::Right, *vb == Verdict::Right) {
                (true, false) if n > 0 => "▼",
                (false, true) if n > 0 => "▲",
                _ => " ",
            };
            let mut style = match mark {
                "▼" => theme.error,
                "▲" => theme.verdict_right,
                _ => theme.base,
            };
            if view.cell == (i, j) {
                style = theme.selected;
            }
            spans.push(Span::styled(rfit(&format!("{n}{mark}"), 8), style));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::styled(
        " ▼ right in A, not in B · ▲ not right in A, right in B",
        theme.dim,
    ));
    lines.push(Line::styled(
        format!(
            " {} {} {} {}   pairs",
            fit("per function, largest drop first", 33),
            rfit("A", 6),
            rfit("B", 8),
            rfit("Δ", 6)
        ),
        theme.column_header,
    ));
    let room = (area.height as usize).saturating_sub(lines.len());
    for f in c.functions.iter().take(room) {
        let style = if f.delta < 0.0 {
            theme.error
        } else if f.delta > 0.0 {
            theme.verdict_right
        } else {
            theme.base
        };
        lines.push(Line::from(vec![
            Span::raw(format!(
                " {} {} {} → {} ",
                fit(&f.numpy, 16),
                fit(&f.zwc, 16),
                rfit(&pct(f.accuracy_a), 6),
                rfit(&pct(f.accuracy_b), 6)
            )),
            Span::styled(rfit(&format!("{:+.1}", 100.0 * f.delta), 6), style),
            // How many pairs the delta rests on.
            Span::styled(format!("  {}", rfit(&f.pairs.to_string(), 5)), theme.dim),
        ]));
    }
    lines
}

fn cell_lines(
    view: &StatsView,
    cx: &DrawCx<'_>,
    r: &StatsResult,
    a: usize,
    b: usize,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let pairs = cell_pairs(r, a, b);
    let mut lines = vec![Line::styled(
        format!(
            " {} pairs: {} in A, {} in B",
            pairs.len(),
            Verdict::ALL[a],
            Verdict::ALL[b]
        ),
        theme.title,
    )];
    for (i, (ia, ib)) in pairs.iter().enumerate() {
        let (fa, fb) = (&r.set.rollouts[*ia], &r.set.rollouts[*ib]);
        let style = if i == view.pair_cursor {
            theme.selected
        } else {
            theme.base
        };
        let task = r.set.tasks.get(fa.task as usize).map_or("", String::as_str);
        lines.push(Line::styled(
            format!(
                " A:{} B:{}  {}",
                rfit(&fa.line.to_string(), 4),
                rfit(&fb.line.to_string(), 4),
                runs::short_query(task, 60)
            ),
            style,
        ));
    }
    lines
}

fn failed_cases(view: &StatsView, cx: &DrawCx<'_>, row: usize) -> Vec<String> {
    let report = view.pair_reports.report(row, cx.corpus.scores_changed, || {
        cx.corpus.report_of_row(row).map(|r| r.into_owned())
    });
    let Some(report) = report else {
        return Vec::new();
    };
    // A missing piece says what stopped the program: its exception, else the verdict's reason.
    let nothing = || {
        let raised = report
            .execution
            .as_ref()
            .and_then(|e| e.stderr.lines().rev().find(|l| !l.trim().is_empty()))
            .map(str::trim);
        format!("nothing ({})", raised.unwrap_or(report.decided_by.as_str()))
    };
    report
        .cases
        .iter()
        .filter(|c| !c.matched)
        .take(3)
        .map(|c| {
            format!(
                "case {}: expected {} got {}",
                c.index + 1,
                c.expected,
                c.actual.clone().unwrap_or_else(nothing)
            )
        })
        .collect()
}

fn pair_lines(
    view: &StatsView,
    cx: &DrawCx<'_>,
    r: &StatsResult,
    a: usize,
    b: usize,
    i: usize,
    area: Rect,
) -> Vec<Line<'static>> {
    let theme = cx.theme;
    let pairs = cell_pairs(r, a, b);
    let Some(&(ia, ib)) = pairs.get(i) else {
        return vec![Line::styled(" the pair is gone", theme.dim)];
    };
    let (row_a, row_b) = (r.rows[ia], r.rows[ib]);
    let (Some(ea), Some(eb)) = (cx.corpus.entries.get(row_a), cx.corpus.entries.get(row_b)) else {
        return vec![Line::styled(" the rows are gone", theme.dim)];
    };
    let (fa, fb) = (&r.set.rollouts[ia], &r.set.rollouts[ib]);
    let mut lines = vec![Line::from(vec![
        Span::raw(format!(" A line {}: ", fa.line)),
        Span::styled(fa.verdict.as_str(), theme.verdict(fa.verdict)),
        Span::raw(format!("   B line {}: ", fb.line)),
        Span::styled(fb.verdict.as_str(), theme.verdict(fb.verdict)),
    ])];
    for (label, row) in [("A", row_a), ("B", row_b)] {
        for c in failed_cases(view, cx, row) {
            lines.push(Line::styled(format!(" {label} {c}"), theme.dim));
        }
    }
    lines.push(Line::styled(
        " diff of the graded code (A → B)",
        theme.column_header,
    ));
    let diff = TextDiff::from_lines(ea.code(), eb.code());
    for change in diff.iter_all_changes() {
        let (sign, style) = match change.tag() {
            ChangeTag::Delete => ("-", theme.diff_delete),
            ChangeTag::Insert => ("+", theme.diff_insert),
            ChangeTag::Equal => (" ", theme.base),
        };
        lines.push(Line::styled(
            format!(" {sign} {}", change.value().trim_end_matches('\n')),
            style,
        ));
    }
    // The two responses side by side.
    let half = (area.width as usize).saturating_sub(3) / 2;
    lines.push(Line::styled(
        format!(" {} │ {}", fit("response A", half), fit("response B", half)),
        theme.column_header,
    ));
    let la: Vec<&str> = ea.rollout.response.lines().collect();
    let lb: Vec<&str> = eb.rollout.response.lines().collect();
    for k in 0..la.len().max(lb.len()) {
        lines.push(Line::raw(format!(
            " {} │ {}",
            fit(la.get(k).copied().unwrap_or(""), half),
            fit(lb.get(k).copied().unwrap_or(""), half)
        )));
    }
    lines
}

/// A map row of run `run` as named cells, each whole: what the map's columns, the run line
/// (its name cut to 12) and the wrong names (the top few, cut) show of it.
pub fn row_cells(row: &runs::FunctionRow, run: &str) -> Vec<(&'static str, String)> {
    let accuracy = if row.rollouts == 0 {
        "–".to_string()
    } else {
        pct(row.accuracy)
    };
    let mut cells = vec![
        ("function", format!("{} is {} in zwc", row.numpy, row.zwc)),
        ("run", run.to_string()),
        (
            "rollouts",
            format!(
                "{} over {} task(s); {} right, accuracy {accuracy}",
                row.rollouts, row.tasks, row.right
            ),
        ),
        (
            "names written",
            format!(
                "the right zwc name in {}, a NumPy name in {}, an invented name in {}",
                row.called_right, row.numpy_name, row.invented_name
            ),
        ),
        (
            "verdicts",
            Verdict::ALL
                .iter()
                .map(|v| format!("{} {}", v.as_str(), row.verdicts[v.code() as usize]))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ];
    if row.loophole_right > 0 {
        cells.push((
            "right through a loophole",
            format!(
                "{} (accuracy that is not internalization)",
                row.loophole_right
            ),
        ));
    }
    cells.push((
        "wrong names written instead",
        if row.wrong_names.is_empty() {
            "none".to_string()
        } else {
            row.wrong_names
                .iter()
                .map(|n| format!("{} ×{}", n.name, n.count))
                .collect::<Vec<_>>()
                .join("\n")
        },
    ));
    cells
}

/// The popup of the map row under the cursor, whole and wrapped (`full_text`).
pub fn draw_row_whole(view: &StatsView, frame: &mut Frame, area: Rect, cx: &DrawCx<'_>) {
    let Some(r) = &view.result else {
        return;
    };
    let theme = cx.theme;
    let width = area.width.saturating_sub(4).min(100);
    let text_width = usize::from(width.saturating_sub(4));
    let mut lines = Vec::new();
    let map = sorted_map(view, r);
    let Some(row) = map.get(view.cursor) else {
        return;
    };
    let run = r
        .report
        .runs
        .get(view.run)
        .map_or("", |run| run.stats.name.as_str());
    for (name, text) in row_cells(row, run) {
        lines.push(Line::styled(name, theme.column_header));
        for line in text.lines() {
            for part in crate::tui::layout::wrap_words(line, text_width) {
                lines.push(Line::from(Span::raw(format!("  {part}"))));
            }
        }
    }
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let popup =
        crate::tui::layout::popup_area(area, width, height.min(area.height.saturating_sub(2)));
    let numpy = &row.numpy;
    // Over the screen its keys are the Stats scope's: its close key closes the popup.
    let closes = cx
        .keys
        .says_in(Scope::Stats, Action::CloseScreen, "closes")
        .map_or(String::new(), |s| format!(" ({s})"));
    let title = format!(" {numpy}, whole{closes} ");
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(crate::tui::layout::titled_box(
                theme,
                title,
                theme.popup,
                popup.width,
            ))
            .scroll((cx.popup_scroll, 0)),
        popup,
    );
}
