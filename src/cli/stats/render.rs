//! The one renderer of `sebx stats` and `sebx compare`: a computed report becomes aligned
//! text with terminal charts (the default), Markdown tables, CSV (one table per `--by`) or
//! JSON (the report's types, serialized). Every sentence and number format the CLI prints is
//! here; the few the explorer prints too come from [`crate::grade::runs::text`].

use anyhow::Result;

use crate::grade::report::ReasonKind;
use crate::grade::runs::{
    BOOTSTRAP_REPS, LoopholeFigures, RewardFigures, fmt_p, interval, pass_value, pct, short_query,
    top_names,
};
use crate::model::Verdict;

use super::{By, Format, training};
use crate::cli::charts;
use crate::cli::labels::csv_table;
use crate::session::report::{
    CompareReport, FunctionReport, LabelReport, RunReport, StatsReport, TaskRow,
};

/// A table for text, Markdown and CSV.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    /// Columns aligned right (numbers).
    pub right: Vec<bool>,
    pub rows: Vec<Vec<String>>,
    /// Rows left out by `--top` (said under the table, never silently).
    pub more: usize,
}

/// The first `top` of `rows` (all when `top` is 0), and how many are left out.
pub(super) fn take_top<T>(rows: &[T], top: usize) -> (&[T], usize) {
    let n = if top == 0 {
        rows.len()
    } else {
        top.min(rows.len())
    };
    (&rows[..n], rows.len() - n)
}

impl Table {
    pub(super) fn new(title: &str, headers: &[(&str, bool)]) -> Table {
        Table {
            title: title.to_string(),
            headers: headers.iter().map(|h| h.0.to_string()).collect(),
            right: headers.iter().map(|h| h.1).collect(),
            rows: Vec::new(),
            more: 0,
        }
    }

    /// The line under a cut table.
    fn more_line(&self) -> Option<String> {
        (self.more > 0).then(|| format!("… {} more rows (--top 0 shows every row)", self.more))
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, c) in row.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        w
    }

    /// Aligned text.
    pub fn text(&self) -> String {
        let w = self.widths();
        let line = |cells: &[String]| {
            let parts: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let pad = w[i].saturating_sub(c.chars().count());
                    if self.right[i] {
                        format!("{}{c}", " ".repeat(pad))
                    } else {
                        format!("{c}{}", " ".repeat(pad))
                    }
                })
                .collect();
            format!("  {}\n", parts.join("  ").trim_end())
        };
        let mut s = format!("{}\n", self.title);
        s.push_str(&line(&self.headers));
        for row in &self.rows {
            s.push_str(&line(row));
        }
        if let Some(more) = self.more_line() {
            s.push_str(&format!("  {more}\n"));
        }
        s
    }

    /// A Markdown table under a bold title.
    pub fn markdown(&self) -> String {
        let esc = |c: &str| c.replace('|', "\\|");
        let mut s = format!("**{}**\n\n", self.title);
        s.push_str(&format!(
            "| {} |\n",
            self.headers
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        s.push_str(&format!(
            "|{}|\n",
            self.right
                .iter()
                .map(|r| if *r { "---:" } else { "---" })
                .collect::<Vec<_>>()
                .join("|")
        ));
        for row in &self.rows {
            s.push_str(&format!(
                "| {} |\n",
                row.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        if let Some(more) = self.more_line() {
            s.push_str(&format!("\n{more}\n"));
        }
        s
    }

    /// RFC 4180 CSV with a header row.
    pub fn csv(&self) -> String {
        let rows =
            std::iter::once(self.headers.as_slice()).chain(self.rows.iter().map(Vec::as_slice));
        csv_table(rows).unwrap_or_default()
    }
}

fn ci(c: Option<(f64, f64)>) -> String {
    c.map(interval).unwrap_or_else(|| "-".into())
}

/// How cells are written: for reading (text, Markdown: `56.2%`, `0/2`, `-`, cut text) or
/// as data (CSV: fractions as numbers, counts in columns of their own, unknowns empty,
/// text whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cells {
    pub csv: bool,
}

impl Cells {
    pub(super) const TEXT: Cells = Cells { csv: false };

    /// A fraction: `56.2%`, or `0.5625` in CSV.
    pub(super) fn frac(self, x: f64) -> String {
        if self.csv { x.to_string() } else { pct(x) }
    }

    /// A fraction that may be unknown: `-`, or an empty cell in CSV.
    pub(super) fn opt_frac(self, x: Option<f64>) -> String {
        x.map_or_else(|| self.none(), |x| self.frac(x))
    }

    /// A number shown with `decimals` (whole in CSV), `-` (empty in CSV) when unknown.
    pub(super) fn num(self, x: Option<f64>, decimals: usize) -> String {
        match x {
            Some(x) if self.csv => x.to_string(),
            Some(x) => format!("{x:.decimals$}"),
            None => self.none(),
        }
    }

    /// An unknown value: `-`, or an empty cell in CSV.
    pub(super) fn none(self) -> String {
        if self.csv { String::new() } else { "-".into() }
    }

    /// Task text: its first line cut to `max` characters, or whole in CSV.
    pub(super) fn text(self, t: &str, max: usize) -> String {
        if self.csv {
            t.to_string()
        } else {
            short_query(t, max)
        }
    }

    /// A 95% interval: one cell (`[22.9%, 43.3%]`), or two numbers in CSV.
    fn interval(self, c: Option<(f64, f64)>) -> Vec<String> {
        match (self.csv, c) {
            (false, c) => vec![ci(c)],
            (true, Some((lo, hi))) => vec![lo.to_string(), hi.to_string()],
            (true, None) => vec![String::new(), String::new()],
        }
    }

    /// The header(s) of [`Cells::interval`].
    fn interval_headers(self, name: &str) -> Vec<(String, bool)> {
        if self.csv {
            vec![
                (format!("{name}_low"), true),
                (format!("{name}_high"), true),
            ]
        } else {
            vec![(name.to_string(), false)]
        }
    }
}

fn reward4(m: Option<f64>) -> String {
    m.map_or("-".into(), |m| format!("{m:.4}"))
}

/// A report as JSON: its types, serialized (keys sorted), pretty, with a final newline.
fn json<T: serde::Serialize>(report: &T) -> Result<String> {
    let value = serde_json::to_value(report)?;
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}

/// Tables as Markdown or CSV, separated by a blank line.
fn joined(tables: &[Table], format: Format) -> String {
    let text: Vec<String> = tables
        .iter()
        .map(|t| {
            if format == Format::Md {
                t.markdown()
            } else {
                t.csv()
            }
        })
        .collect();
    text.join("\n")
}

// ---------------------------------------------------------------- stats

fn run_table(runs: &[RunReport], ks: &[usize], cells: Cells) -> Table {
    let mut headers: Vec<(String, bool)> = vec![
        ("run".into(), false),
        ("rollouts".into(), true),
        ("tasks".into(), true),
    ];
    for v in Verdict::ALL {
        headers.push((v.as_str().into(), true));
    }
    headers.push(("accuracy".into(), true));
    let rewards = runs.iter().any(|r| r.stats.reward.rewarded > 0);
    if rewards {
        headers.push(("mean RL reward".into(), true));
    }
    headers.extend(cells.interval_headers(if cells.csv {
        "accuracy_ci95"
    } else {
        "accuracy 95% CI (bootstrap over tasks)"
    }));
    for k in ks {
        headers.push((format!("pass@{k}"), true));
        headers.push((format!("pass@{k} tasks"), true));
    }
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new("runs", &h);
    for r in runs {
        let s = &r.stats;
        let mut row = vec![s.name.clone(), s.rollouts.to_string(), s.tasks.to_string()];
        for v in Verdict::ALL {
            row.push(s.summary.count(v).to_string());
        }
        row.push(cells.frac(s.accuracy));
        if rewards {
            row.push(cells.num(s.reward_mean, 4));
        }
        row.extend(cells.interval(s.accuracy_ci95));
        for p in &s.pass_at_k {
            row.push(if cells.csv {
                cells.num(p.value, 3)
            } else {
                pass_value(p.value)
            });
            row.push(p.tasks.to_string());
        }
        t.rows.push(row);
    }
    t
}

/// The official RL reward beside the verdict, per run (name, accuracy, reward figures):
/// mean reward, the 2×2 of (reward, verdict right) and the disagreements by reason. `None`
/// when no run has a reward.
fn reward_table(runs: &[(&str, f64, &RewardFigures)], cells: Cells) -> Option<Table> {
    // A CSV asked for by `--by reward` has a row per run, rewarded or not.
    let rewarded: Vec<&(&str, f64, &RewardFigures)> = runs
        .iter()
        .filter(|(_, _, r)| cells.csv || r.rewarded > 0)
        .collect();
    if rewarded.iter().all(|(_, _, r)| r.rewarded == 0) && !cells.csv {
        return None;
    }
    let mut headers = vec![
        ("run".to_string(), false),
        ("rewarded".to_string(), true),
        ("mean RL reward".to_string(), true),
        ("accuracy".to_string(), true),
        ("reward 1, right".to_string(), true),
        ("reward 1, not right".to_string(), true),
        ("reward 0, right".to_string(), true),
        ("reward 0, not right".to_string(), true),
    ];
    // Only the reasons some run has.
    let kinds: Vec<ReasonKind> = ReasonKind::ALL
        .into_iter()
        .filter(|k| {
            rewarded
                .iter()
                .any(|(_, _, r)| r.reward_reasons.contains_key(k.as_str()))
        })
        .collect();
    for kind in &kinds {
        headers.push((format!("why: {}", kind.label()), true));
    }
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new("official RL reward vs verdict", &h);
    for (name, accuracy, r) in rewarded {
        let v = &r.reward_vs_verdict;
        let mut row = vec![
            name.to_string(),
            r.rewarded.to_string(),
            if cells.csv {
                cells.num(r.reward_mean, 4)
            } else {
                reward4(r.reward_mean)
            },
            cells.frac(*accuracy),
        ];
        row.extend(
            [
                v.reward_1_right,
                v.reward_1_not_right,
                v.reward_0_right,
                v.reward_0_not_right,
            ]
            .iter()
            .map(usize::to_string),
        );
        for kind in &kinds {
            row.push(
                r.reward_reasons
                    .get(kind.as_str())
                    .copied()
                    .unwrap_or(0)
                    .to_string(),
            );
        }
        t.rows.push(row);
    }
    Some(t)
}

/// The verdicts `right` and rewards of 1 that went through a loophole, per run, by kind,
/// and the accuracy without them. `None` when no run has a loophole finding.
fn loophole_table(runs: &[(&str, f64, &LoopholeFigures)], cells: Cells) -> Option<Table> {
    if runs.iter().all(|(_, _, l)| l.rollouts == 0) && !cells.csv {
        return None;
    }
    let kinds: Vec<&str> = crate::model::finding_kinds::KINDS
        .iter()
        .filter(|k| k.family == crate::model::finding_kinds::Family::Loophole)
        .map(|k| k.name)
        .collect();
    let mut headers: Vec<(String, bool)> = [
        ("run", false),
        ("rollouts", true),
        ("through a loophole", true),
        ("right through one", true),
        ("reward 1 through one", true),
        ("accuracy", true),
        ("accuracy without", true),
    ]
    .iter()
    .map(|(h, r)| (h.to_string(), *r))
    .collect();
    headers.extend(kinds.iter().map(|k| (format!("right: {k}"), true)));
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let title = format!(
        "loopholes (paid by the official scorers without zwc: {})",
        kinds.join(", ")
    );
    let mut t = Table::new(&title, &h);
    for (name, accuracy, l) in runs {
        let mut row = vec![
            name.to_string(),
            l.total.to_string(),
            l.rollouts.to_string(),
            l.right.to_string(),
            l.reward_1.to_string(),
            cells.frac(*accuracy),
            cells.opt_frac(l.accuracy_without),
        ];
        row.extend(
            kinds
                .iter()
                .map(|k| l.by_kind.get(k).map_or(0, |c| c.right).to_string()),
        );
        t.rows.push(row);
    }
    Some(t)
}

fn stats_loophole_table(report: &StatsReport, cells: Cells) -> Option<Table> {
    let runs: Vec<(&str, f64, &LoopholeFigures)> = report
        .runs
        .iter()
        .map(|r| (r.stats.name.as_str(), r.stats.accuracy, &r.stats.loopholes))
        .collect();
    loophole_table(&runs, cells)
}

fn stats_reward_table(report: &StatsReport, cells: Cells) -> Option<Table> {
    let runs: Vec<(&str, f64, &RewardFigures)> = report
        .runs
        .iter()
        .map(|r| (r.stats.name.as_str(), r.stats.accuracy, &r.stats.reward))
        .collect();
    reward_table(&runs, cells)
}

fn function_table(rows: &[FunctionReport], cells: Cells) -> Table {
    let mut headers: Vec<(String, bool)> = [
        ("run", false),
        ("numpy", false),
        ("zwc", false),
        ("tasks", true),
        ("rollouts", true),
        ("right", true),
        ("accuracy", true),
        ("right name", true),
        ("numpy name", true),
        ("invented name", true),
        ("top wrong names", false),
        ("verdicts (right/result/exe/numpy/no-zwc)", false),
        ("right via loophole", true),
    ]
    .iter()
    .map(|(h, r)| (h.to_string(), *r))
    .collect();
    if cells.csv {
        // The verdict mix as a count per verdict.
        headers.remove(11);
        headers.extend(Verdict::ALL.iter().map(|v| (v.as_str().to_string(), true)));
    }
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new(
        "internalization map (per zwc function the tasks select)",
        &h,
    );
    for FunctionReport { run, row: r, .. } in rows {
        let mix: Vec<String> = Verdict::ALL
            .iter()
            .map(|v| r.verdicts[v.code() as usize].to_string())
            .collect();
        let mut row = vec![
            run.clone(),
            r.numpy.clone(),
            r.zwc.clone(),
            r.tasks.to_string(),
            r.rollouts.to_string(),
            r.right.to_string(),
            cells.frac(r.accuracy),
            r.called_right.to_string(),
            r.numpy_name.to_string(),
            r.invented_name.to_string(),
            top_names(&r.wrong_names, 3),
            mix.join("/"),
            r.loophole_right.to_string(),
        ];
        if cells.csv {
            row.remove(11);
            row.extend(mix);
        }
        t.rows.push(row);
    }
    t
}

fn task_table(rows: &[TaskRow], cells: Cells) -> Table {
    let mut t = Table::new(
        "tasks",
        &[
            ("run", false),
            ("task", false),
            ("samples", true),
            ("right", true),
            ("accuracy", true),
        ],
    );
    for r in rows {
        t.rows.push(vec![
            r.run.clone(),
            cells.text(&r.query, 60),
            r.samples.to_string(),
            r.right.to_string(),
            cells.frac(r.accuracy),
        ]);
    }
    t
}

fn wrong_table(report: &StatsReport, top: usize, csv: bool) -> Table {
    let rows = &report.wrong_names;
    let mut t = Table::new(
        "wrong names (analysis findings)",
        &[
            ("name", false),
            ("finding", false),
            ("count", true),
            ("correct zwc name", false),
            ("runs", false),
        ],
    );
    let (shown, more) = take_top(rows, top);
    t.more = more;
    for r in shown {
        t.rows.push(vec![
            r.name.clone(),
            r.kind.to_string(),
            r.count.to_string(),
            r.correct.clone().unwrap_or_else(|| Cells { csv }.none()),
            r.runs.join(", "),
        ]);
    }
    t
}

fn label_table(labels: &[LabelReport], cells: Cells) -> Table {
    let mut headers: Vec<(String, bool)> = [
        ("run", false),
        ("annotator", false),
        ("category", false),
        ("labelled", true),
    ]
    .iter()
    .map(|(h, r)| (h.to_string(), *r))
    .collect();
    if cells.csv {
        headers.push(("failures with it".into(), true));
        headers.push(("labelled failures".into(), true));
    } else {
        headers.push(("among failures".into(), true));
    }
    headers.push(("prevalence".into(), true));
    headers.extend(cells.interval_headers(if cells.csv {
        "prevalence_ci95"
    } else {
        "95% CI"
    }));
    headers.push(("sample".into(), false));
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new(
        "hand labels (prevalence among labelled failures, Wilson 95% interval)",
        &h,
    );
    for LabelReport {
        stats: l,
        annotator,
        ..
    } in labels
    {
        for c in &l.categories {
            let mut row = vec![
                l.run.clone(),
                annotator.clone().unwrap_or_else(|| cells.none()),
                c.category.clone(),
                c.count.to_string(),
            ];
            if cells.csv {
                row.push(c.failures.to_string());
                row.push(l.labelled_failures.to_string());
            } else {
                row.push(format!("{}/{}", c.failures, l.labelled_failures));
            }
            row.push(cells.opt_frac(c.prevalence));
            row.extend(cells.interval(c.prevalence_ci95));
            row.push(format!("{:?}", l.sample).to_lowercase());
            t.rows.push(row);
        }
    }
    t
}

/// The tables of `by`, in that order: in text and Markdown the reward and loophole tables
/// follow the run table and the onset, zero-advantage group and unjoined tables follow the
/// step table; in CSV (one table a stream) each `--by` is exactly one table.
fn stats_tables(report: &StatsReport, by: &[By], top: usize, csv: bool) -> Vec<Table> {
    // A CSV is data: every row.
    let top = if csv { 0 } else { top };
    let cells = Cells { csv };
    let training = report.training.as_ref();
    by.iter()
        .flat_map(|b| match b {
            By::Run if csv => vec![run_table(&report.runs, &report.ks, cells)],
            By::Run => std::iter::once(run_table(&report.runs, &report.ks, cells))
                .chain(stats_reward_table(report, cells))
                .chain(stats_loophole_table(report, cells))
                .collect(),
            // In text and Markdown, `--by run` has them already.
            By::Reward | By::Loophole | By::Onset | By::Group | By::Unjoined
                if !csv && by.contains(&b.parent()) =>
            {
                Vec::new()
            }
            By::Reward => stats_reward_table(report, cells).into_iter().collect(),
            By::Loophole => stats_loophole_table(report, cells).into_iter().collect(),
            By::Function => vec![function_table(&report.functions, cells)],
            By::Task => vec![task_table(&report.tasks, cells)],
            By::Finding => vec![wrong_table(report, top, csv)],
            By::Category => vec![label_table(&report.labels, cells)],
            By::Step if csv => training.map_or_else(Vec::new, |t| {
                vec![training::step_table(&t.figures.steps, cells)]
            }),
            By::Step => training.map_or_else(Vec::new, |t| {
                let mut v = vec![
                    training::step_table(&t.figures.steps, cells),
                    training::totals_table(&t.figures.totals),
                ];
                v.extend(training::onset_table(&t.figures, cells));
                if t.figures
                    .steps
                    .iter()
                    .any(|s| !s.zero_variance_detail.is_empty())
                {
                    v.push(training::zero_group_table(&t.figures.steps, top, cells));
                }
                if !t.unjoined.is_empty() {
                    v.push(training::unjoined_table(&t.unjoined, top));
                }
                v
            }),
            By::Onset => training
                .and_then(|t| training::onset_table(&t.figures, cells))
                .into_iter()
                .collect(),
            By::Group => training.map_or_else(Vec::new, |t| {
                vec![training::zero_group_table(&t.figures.steps, top, cells)]
            }),
            By::Unjoined => training.map_or_else(Vec::new, |t| {
                vec![training::unjoined_table(&t.unjoined, top)]
            }),
            By::Heatmap => training.map_or_else(Vec::new, |t| {
                if csv {
                    vec![training::function_step_table(
                        &t.figures.function_steps,
                        cells,
                    )]
                } else {
                    training::heat_tables(&t.figures)
                }
            }),
            By::Course if csv => training.map_or_else(Vec::new, |t| {
                vec![training::course_csv_table(
                    &t.figures.task_courses,
                    &t.figures.function_courses,
                )]
            }),
            By::Course => training.map_or_else(Vec::new, |t| {
                let [tasks, functions] = training::course_titles(&t.figures);
                vec![
                    training::course_table(&tasks, &t.figures.task_courses, false, top),
                    training::course_table(&functions, &t.figures.function_courses, true, top),
                ]
            }),
        })
        .collect()
}

/// One run's summary as text with its charts.
fn run_text(r: &RunReport, seed: u64) -> String {
    let st = &r.stats;
    let mut s = format!("\nrun {} ({})\n", st.name, r.path);
    s.push_str(&format!(
        "  rollouts: {}   tasks: {}\n",
        st.rollouts, st.tasks
    ));
    // The official summary lines, verbatim, each verdict line with its share as a bar.
    for (i, line) in r.summary.iter().enumerate() {
        let bar = if (2..2 + Verdict::ALL.len()).contains(&i) {
            let v = Verdict::ALL[i - 2];
            format!("  {}", charts::hbar(st.summary.share(v), 30))
        } else {
            String::new()
        };
        s.push_str(&format!("  {line}{bar}\n"));
    }
    s.push_str(&format!(
        "  accuracy 95% CI: {} (percentile bootstrap over {} tasks, {BOOTSTRAP_REPS} resamples, seed {seed})\n",
        ci(st.accuracy_ci95),
        st.tasks,
    ));
    for p in &st.pass_at_k {
        s.push_str(&format!(
            "  pass@{} (unbiased estimator; not accuracy): {} over {} tasks with ≥{} samples ({} samples)\n",
            p.k,
            pass_value(p.value),
            p.tasks,
            p.k,
            p.samples
        ));
    }
    s.push_str("  per-task accuracy (tasks per bin):\n");
    s.push_str(&charts::histogram(&st.task_accuracy, 30));
    if st.max_samples > 1 {
        s.push_str("  pass@k curve (k = 1 … largest sample count):\n");
        let curve: Vec<(usize, Option<f64>)> = r.curve.iter().map(|p| (p.k, p.value)).collect();
        s.push_str(&charts::curve(&curve, 30));
    }
    s
}

/// The stats as text with charts (the default output).
fn stats_text(report: &StatsReport, by: &[By], top: usize) -> String {
    let mut s = String::new();
    if by.contains(&By::Run) {
        for r in &report.runs {
            s.push_str(&run_text(r, report.seed));
        }
        s.push('\n');
        s.push_str(&run_table(&report.runs, &report.ks, Cells::TEXT).text());
        if let Some(t) = stats_reward_table(report, Cells::TEXT) {
            s.push('\n');
            s.push_str(&t.text());
        }
        if let Some(t) = stats_loophole_table(report, Cells::TEXT) {
            s.push('\n');
            s.push_str(&t.text());
        }
    } else {
        for t in stats_tables(
            report,
            &[By::Reward, By::Loophole]
                .into_iter()
                .filter(|b| by.contains(b))
                .collect::<Vec<_>>(),
            top,
            false,
        ) {
            s.push('\n');
            s.push_str(&t.text());
        }
    }
    if by.contains(&By::Function) {
        s.push('\n');
        s.push_str(&function_table(&report.functions, Cells::TEXT).text());
    }
    if by.contains(&By::Task) {
        s.push('\n');
        s.push_str(&task_table(&report.tasks, Cells::TEXT).text());
    }
    if by.contains(&By::Finding) {
        s.push('\n');
        s.push_str(&wrong_table(report, top, false).text());
    }
    if let Some(t) = &report.training {
        let tables = stats_tables(
            report,
            &[
                By::Step,
                By::Onset,
                By::Group,
                By::Unjoined,
                By::Heatmap,
                By::Course,
            ]
            .into_iter()
            .filter(|b| by.contains(b))
            .collect::<Vec<_>>(),
            top,
            false,
        );
        for table in tables {
            s.push('\n');
            s.push_str(&table.text());
        }
        if by.contains(&By::Course) {
            for line in training::course_summary(&t.figures.task_courses) {
                s.push_str(&format!("  {line}\n"));
            }
        }
    }
    if by.contains(&By::Category) {
        s.push('\n');
        s.push_str(&label_table(&report.labels, Cells::TEXT).text());
        // The figure the explorer says, each run's then every run's, its scope named.
        for (i, l) in report.labels.iter().enumerate() {
            let Some(progress) = report.label_progress.run(i) else {
                continue;
            };
            s.push_str(&format!(
                "  {}, by {}: {}\n",
                progress.text(),
                l.annotator.as_deref().unwrap_or("nobody"),
                l.sample_note
            ));
        }
        if report.labels.len() > 1 {
            s.push_str(&format!("  {}\n", report.label_progress.all().text()));
        }
    }
    s
}

/// `sebx stats` output in `format`: the tables of `by` (`top` rows of wrong names in text
/// and Markdown; CSV has them all).
pub fn render_stats(report: &StatsReport, format: Format, by: &[By], top: usize) -> Result<String> {
    Ok(match format {
        Format::Json => json(report)?,
        Format::Table => stats_text(report, by, top),
        Format::Md => {
            let mut s = joined(&stats_tables(report, by, top, false), format);
            if by.contains(&By::Run) {
                s.push_str(&format!(
                    "\nAccuracy: right / all rollouts; 95% CI: percentile bootstrap over tasks ({BOOTSTRAP_REPS} resamples, seed {}). pass@k: unbiased estimator over tasks with at least k samples.\n",
                    report.seed
                ));
            }
            s
        }
        Format::Csv => joined(&stats_tables(report, by, 0, true), format),
    })
}

// ---------------------------------------------------------------- compare

fn matrix_table(c: &CompareReport) -> Table {
    let mut headers: Vec<(String, bool)> = vec![("A \\ B".into(), false)];
    headers.extend(Verdict::ALL.iter().map(|v| (v.as_str().to_string(), true)));
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new(
        "flip matrix (rows: verdict in A, columns: verdict in B; ▼ right→not right, ▲ not right→right)",
        &h,
    );
    for va in Verdict::ALL {
        let mut row = vec![va.as_str().to_string()];
        for vb in Verdict::ALL {
            let n = c.comparison.matrix[va.code() as usize][vb.code() as usize];
            let mark = match (va == Verdict::Right, vb == Verdict::Right) {
                (true, false) if n > 0 => "▼",
                (false, true) if n > 0 => "▲",
                _ => "",
            };
            row.push(format!("{n}{mark}"));
        }
        t.rows.push(row);
    }
    t
}

/// `rows` ordered by the size of their change, drops and gains alike (a cut table then shows
/// the largest gains too, not only the drops).
fn by_change<T>(rows: &[T], delta: impl Fn(&T) -> f64) -> Vec<&T> {
    let mut out: Vec<&T> = rows.iter().collect();
    out.sort_by(|a, b| delta(b).abs().total_cmp(&delta(a).abs()));
    out
}

fn compare_task_table(c: &CompareReport, top: usize) -> Table {
    let tasks = by_change(&c.comparison.tasks, |r| r.delta);
    let mut t = Table::new(
        "per-task accuracy (paired rollouts), largest change first",
        &[
            ("task", false),
            ("pairs", true),
            ("A", true),
            ("B", true),
            ("delta", true),
        ],
    );
    let (shown, more) = take_top(&tasks, top);
    t.more = more;
    for r in shown {
        t.rows.push(vec![
            short_query(&r.query, 60),
            r.pairs.to_string(),
            pct(r.accuracy_a),
            pct(r.accuracy_b),
            format!("{:+.1}", 100.0 * r.delta),
        ]);
    }
    t
}

fn compare_function_table(c: &CompareReport, top: usize) -> Table {
    let functions = by_change(&c.comparison.functions, |r| r.delta);
    let mut t = Table::new(
        "per-function accuracy (paired rollouts), largest change first",
        &[
            ("numpy", false),
            ("zwc", false),
            ("pairs", true),
            ("A", true),
            ("B", true),
            ("delta", true),
        ],
    );
    let (shown, more) = take_top(&functions, top);
    t.more = more;
    for r in shown {
        t.rows.push(vec![
            r.numpy.clone(),
            r.zwc.clone(),
            r.pairs.to_string(),
            pct(r.accuracy_a),
            pct(r.accuracy_b),
            format!("{:+.1}", 100.0 * r.delta),
        ]);
    }
    t
}

/// The pairs of the cell `--cell` asked for, if it did.
fn cell_table(c: &CompareReport) -> Option<Table> {
    let cell = c.cell.as_ref()?;
    let mut t = Table::new(
        &format!(
            "pairs with {} in A and {} in B",
            cell.verdict_a, cell.verdict_b
        ),
        &[("A line", true), ("B line", true), ("task", false)],
    );
    for p in &cell.pairs {
        t.rows.push(vec![
            p.a_line.to_string(),
            p.b_line.to_string(),
            short_query(&p.query, 70),
        ]);
    }
    Some(t)
}

fn compare_reward_table(c: &CompareReport) -> Option<Table> {
    reward_table(
        &[
            (c.a.as_str(), c.heads[0].accuracy, &c.reward_a),
            (c.b.as_str(), c.heads[1].accuracy, &c.reward_b),
        ],
        Cells::TEXT,
    )
}

/// The comparison as text.
fn compare_text(c: &CompareReport, top: usize) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "A: {} ({} rollouts)   B: {} ({} rollouts)\n",
        c.a, c.heads[0].rollouts, c.b, c.heads[1].rollouts
    ));
    s.push_str(&format!(
        "pairs: {} (same task, i-th rollout in A with the i-th in B); unpaired: {} in A, {} in B\n\n",
        c.pairs.len(),
        c.comparison.unpaired_a,
        c.comparison.unpaired_b
    ));
    s.push_str(&matrix_table(c).text());
    if let Some(t) = compare_reward_table(c) {
        s.push('\n');
        s.push_str(&t.text());
    }
    if let Some(t) = loophole_table(
        &[
            (c.a.as_str(), c.heads[0].accuracy, &c.loopholes.a),
            (c.b.as_str(), c.heads[1].accuracy, &c.loopholes.b),
        ],
        Cells::TEXT,
    ) {
        s.push('\n');
        s.push_str(&t.text());
        if let Some(d) = c.loopholes.delta() {
            s.push_str(&format!(
                "loophole-right rate: {:+.1} points from A to B\n",
                100.0 * d
            ));
        }
    }
    let m = &c.comparison.mcnemar;
    s.push_str(&format!(
        "\nMcNemar (exact, two-sided) on right / not right: A right & B not {}, A not & B right {}, p = {}\n",
        m.a_right_b_wrong,
        m.a_wrong_b_right,
        fmt_p(m.p_value)
    ));
    match &c.comparison.task_test {
        Some(t) => s.push_str(&format!(
            "per-task paired test ({}): {} tasks, mean delta {:+.1} points, p = {}\n",
            t.method,
            t.tasks,
            100.0 * t.mean_delta,
            fmt_p(t.p_value)
        )),
        None => s.push_str(
            "per-task paired test: not run (one pair per task; McNemar above is the paired test)\n",
        ),
    }
    s.push('\n');
    s.push_str(&compare_function_table(c, top).text());
    s.push('\n');
    s.push_str(&compare_task_table(c, top).text());
    s
}

/// `sebx compare` output in `format`: a cell's pairs when `--cell` asked for them (JSON: a
/// `cell` field beside everything else), else the whole comparison (`top` rows of the task
/// and function tables in text and Markdown; CSV has them all).
pub fn render_compare(c: &CompareReport, format: Format, top: usize) -> Result<String> {
    if format == Format::Json {
        return json(c);
    }
    if let Some(t) = cell_table(c) {
        return Ok(match format {
            Format::Table => t.text(),
            _ => joined(&[t], format),
        });
    }
    Ok(match format {
        Format::Table => compare_text(c, top),
        _ => {
            let top = if format == Format::Csv { 0 } else { top };
            let tables = [
                matrix_table(c),
                compare_function_table(c, top),
                compare_task_table(c, top),
            ];
            let mut s = joined(&tables, format);
            if format == Format::Md {
                let m = &c.comparison.mcnemar;
                s.push_str(&format!(
                    "\nPairs: {} (unpaired: {} in A, {} in B). McNemar exact two-sided p = {} ({} right→not right, {} not right→right).\n",
                    c.pairs.len(),
                    c.comparison.unpaired_a,
                    c.comparison.unpaired_b,
                    fmt_p(m.p_value),
                    m.a_right_b_wrong,
                    m.a_wrong_b_right
                ));
            }
            s
        }
    })
}
