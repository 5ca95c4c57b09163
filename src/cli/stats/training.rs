//! `sebx stats` on training runs: the per-step table, the internalization heat map
//! (functions × steps; binned to a readable width in text and Markdown, every step in CSV
//! and JSON), when each task and function was learned or forgotten, and the samples that
//! joined no task. The figures come from [`crate::grade::runs::steps`].

use crate::analysis::FindingKind;
use crate::grade::runs::{
    Course, FunctionStep, HeatSort, RunTotals, StepRow, TrainingFigures, UngradedSample, bin_label,
    heat_map, pct, short_query,
};

use super::render::{Cells, Table};
use crate::grade::runs::onset::ANY;
pub use crate::session::report::{TrainingReport, training_report};

/// Columns of the heat map in text and Markdown.
const HEAT_COLUMNS: usize = 12;

fn opt_pct(x: Option<f64>) -> String {
    x.map_or("-".into(), pct)
}

fn mean4(x: Option<f64>) -> String {
    x.map_or("-".into(), |m| format!("{m:.3}"))
}

/// The finding kinds a step table shows in text (CSV and JSON have every kind).
const SHOWN_KINDS: [FindingKind; 3] = [
    FindingKind::NumpyNameOnZwc,
    FindingKind::UnknownZwcName,
    FindingKind::ArrayMethod,
];

/// One row per (run, step); CSV has a column per finding kind, numbers as numbers and the
/// zero-advantage groups as two counts. The token columns are there when a tokenizer
/// counted the responses (`--tokenizer`).
pub(super) fn step_table(rows: &[StepRow], cells: Cells) -> Table {
    let kinds: &[FindingKind] = if cells.csv {
        &FindingKind::ALL
    } else {
        &SHOWN_KINDS
    };
    let tokens = rows
        .iter()
        .any(|r| r.lengths.response_tokens_mean.is_some());
    let mut headers: Vec<(String, bool)> = [
        ("run", false),
        ("step", true),
        ("samples", true),
        ("tasks", true),
        ("reward_mean", true),
        ("official_reward_mean", true),
        ("accuracy", true),
        ("reward_1_not_right", true),
        ("reward_0_right", true),
        ("stored_differs_from_official", true),
        ("zero_variance_groups", true),
        ("unjoined", true),
        ("loophole_right", true),
        ("loophole_reward_1", true),
        ("loophole_share", true),
        ("response_chars_mean", true),
        ("response_chars_p90", true),
        ("response_tokens_mean", true),
        ("response_tokens_p90", true),
        ("empty_outputs", true),
        ("open_fence_responses", true),
    ]
    .iter()
    .filter(|(h, _)| tokens || !h.starts_with("response_tokens"))
    .map(|(h, r)| (h.to_string(), *r))
    .collect();
    if cells.csv {
        // Zero-advantage groups of all groups: two counts (empty: no group has two samples).
        let at = headers
            .iter()
            .position(|(h, _)| h == "zero_variance_groups")
            .unwrap_or(0);
        headers.insert(at + 1, ("groups".to_string(), true));
    }
    headers.extend(kinds.iter().map(|k| (k.as_str().to_string(), true)));
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new(
        "Training, step by step (accuracy: verdict right; reward_mean: stored score; loophole_right, loophole_reward_1: right verdicts and rewards of 1 that went through a loophole; loophole_share: graded samples through any loophole; response_chars_*: response length in characters, mean and 90th percentile; response_tokens_*: the same in tokens (--tokenizer); empty_outputs: aborted requests; open_fence_responses: cut off inside a code block; finding columns: share of samples)",
        &h,
    );
    for r in rows {
        let mut row = vec![
            r.run.clone(),
            r.step.to_string(),
            r.samples.to_string(),
            r.tasks.to_string(),
            if cells.csv {
                cells.num(r.reward_mean, 3)
            } else {
                mean4(r.reward_mean)
            },
            if cells.csv {
                cells.num(r.official_reward_mean, 3)
            } else {
                mean4(r.official_reward_mean)
            },
            cells.opt_frac(r.accuracy),
            r.reward_1_not_right.to_string(),
            r.reward_0_right.to_string(),
            r.stored_differs_from_official.to_string(),
        ];
        if cells.csv {
            row.push(
                r.zero_variance_groups
                    .map_or_else(String::new, |z| z.to_string()),
            );
            row.push(r.groups.to_string());
        } else {
            row.push(zero_of_groups(r));
        }
        row.extend([
            r.unjoined.to_string(),
            r.loopholes.right.to_string(),
            r.loopholes.reward_1.to_string(),
            cells.opt_frac(r.loophole_shares.get(ANY).copied()),
            // Whole characters and tokens, in every format.
            r.lengths
                .response_chars_mean
                .map_or_else(|| cells.none(), |m| format!("{m:.0}")),
            r.lengths
                .response_chars_p90
                .map_or_else(|| cells.none(), |p| p.to_string()),
        ]);
        if tokens {
            row.push(
                r.lengths
                    .response_tokens_mean
                    .map_or_else(|| cells.none(), |m| format!("{m:.0}")),
            );
            row.push(
                r.lengths
                    .response_tokens_p90
                    .map_or_else(|| cells.none(), |p| p.to_string()),
            );
        }
        row.push(r.lengths.empty_outputs.to_string());
        row.push(r.lengths.open_fence_responses.to_string());
        row.extend(
            kinds
                .iter()
                .map(|k| cells.frac(r.finding_rates.get(k.as_str()).copied().unwrap_or(0.0))),
        );
        t.rows.push(row);
    }
    t
}

/// When each loophole took off, per run: the first step from which its share of the graded
/// samples stays at or above `--onset-at`, its peak and its share at the last step.
/// `None` when no run went through a loophole at any step.
pub(super) fn onset_table(fig: &TrainingFigures, cells: Cells) -> Option<Table> {
    if fig.onsets.iter().all(|o| o.peak.is_none()) {
        return None;
    }
    let mut t = Table::new(
        &format!(
            "Loophole onset (the first step from which at least {} of every step's graded samples went through the loophole, to the last step)",
            fig.onset_at
        ),
        &[
            ("run", false),
            ("loophole", false),
            ("onset_step", true),
            ("peak_step", true),
            ("peak_share", true),
            ("last_share", true),
        ],
    );
    for o in fig.onsets.iter().filter(|o| o.peak.is_some()) {
        t.rows.push(vec![
            o.run.clone(),
            o.kind.to_string(),
            o.step.map_or_else(|| cells.none(), |s| s.to_string()),
            o.peak.map_or_else(|| cells.none(), |(s, _)| s.to_string()),
            cells.opt_frac(o.peak.map(|(_, x)| x)),
            cells.frac(o.last),
        ]);
    }
    Some(t)
}

/// Zero-advantage groups of all groups (`3/16`), `n/a` when no group has two samples (a
/// validation run samples each prompt once: no group can have zero advantage).
pub fn zero_of_groups(r: &StepRow) -> String {
    match r.zero_variance_groups {
        Some(z) => format!("{z}/{}", r.groups),
        None => "n/a".into(),
    }
}

/// Each run's steps added up (the Training screen's totals lines, `RunTotals::lines`).
pub(super) fn totals_table(totals: &[RunTotals]) -> Table {
    let mut t = Table::new(
        "Totals over the steps (zero-advantage groups of all groups; empty outputs and open code blocks: over every step, then at the last)",
        &[
            ("run", false),
            ("zero_variance_groups", true),
            ("stored_differs_from_official", true),
            ("reward_1_not_right", true),
            ("reward_0_right", true),
            ("unjoined", true),
            ("loophole_right", true),
            ("empty_outputs", true),
            ("open_fence_responses", true),
        ],
    );
    for r in totals {
        t.rows.push(vec![
            r.run.clone(),
            r.zero_variance_groups
                .map_or_else(|| "n/a".to_string(), |z| format!("{z}/{}", r.groups)),
            r.stored_differs_from_official.to_string(),
            r.reward_1_not_right.to_string(),
            r.reward_0_right.to_string(),
            r.unjoined.to_string(),
            r.loophole_right.to_string(),
            format!("{} (last {})", r.empty_outputs, r.empty_outputs_last_step),
            format!(
                "{} (last {})",
                r.open_fence_responses, r.open_fence_responses_last_step
            ),
        ]);
    }
    t
}

/// The zero-advantage groups of every step, one row each: which group, how many samples,
/// the score they all stored and how many the verdict calls right.
pub(super) fn zero_group_table(rows: &[StepRow], top: usize, cells: Cells) -> Table {
    let mut headers = vec![
        ("run", false),
        ("step", true),
        ("group", true),
        ("samples", true),
        ("score", true),
        ("right", true),
    ];
    if cells.csv {
        headers.push(("graded", true));
    }
    headers.push(("task", false));
    let mut t = Table::new(
        "Zero-advantage groups (every sample of a group at a step stored the same score: they teach nothing)",
        &headers,
    );
    let all: Vec<(&StepRow, &crate::grade::runs::ZeroGroup)> = rows
        .iter()
        .flat_map(|r| r.zero_variance_detail.iter().map(move |g| (r, g)))
        .collect();
    let (shown, more) = super::render::take_top(&all, top);
    t.more = more;
    for (r, g) in shown {
        let mut row = vec![
            r.run.clone(),
            r.step.to_string(),
            g.group.to_string(),
            g.samples.to_string(),
            g.score.to_string(),
        ];
        if cells.csv {
            row.extend([g.right.to_string(), g.graded.to_string()]);
        } else {
            row.push(format!("{}/{}", g.right, g.graded));
        }
        row.push(cells.text(&g.task, 60));
        t.rows.push(row);
    }
    t
}

/// Every heat-map cell, one row each (CSV).
pub(super) fn function_step_table(steps: &[FunctionStep], cells: Cells) -> Table {
    let mut t = Table::new(
        "Internalization over training: each zwc function at each step",
        &[
            ("numpy", false),
            ("zwc", false),
            ("run", false),
            ("step", true),
            ("rollouts", true),
            ("right", true),
            ("reward", true),
            ("accuracy", true),
        ],
    );
    for c in steps {
        t.rows.push(vec![
            c.numpy.clone(),
            c.zwc.clone(),
            c.run.clone(),
            c.step.to_string(),
            c.rollouts.to_string(),
            c.right.to_string(),
            c.reward.to_string(),
            cells.opt_frac(c.accuracy()),
        ]);
    }
    t
}

/// The heat map of each training run as a table: a row per function, a column per step
/// (or step range), accuracy in each cell.
pub fn heat_tables(fig: &TrainingFigures) -> Vec<Table> {
    let mut runs: Vec<u32> = fig.function_steps.iter().map(|c| c.run_index).collect();
    runs.sort_unstable();
    runs.dedup();
    runs.into_iter()
        .map(|run| {
            let map = heat_map(fig, run, |b| b.len() <= HEAT_COLUMNS, HeatSort::Name);
            let name = fig.run_names.get(run as usize).cloned().unwrap_or_default();
            let cols: Vec<String> = map.bins.iter().map(|b| bin_label(*b)).collect();
            let mut headers: Vec<(String, bool)> =
                vec![("function".into(), false), ("zwc".into(), false)];
            headers.extend(cols.iter().map(|c| (c.clone(), true)));
            let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
            let mut t = Table::new(
                &format!("Accuracy per zwc function and step, run {name} (-: no sample)"),
                &h,
            );
            for (i, (_, zwc, numpy)) in map.rows.iter().enumerate() {
                let mut row = vec![numpy.clone(), zwc.clone()];
                row.extend((0..map.bins.len()).map(|b| opt_pct(map.accuracy(i, b))));
                t.rows.push(row);
            }
            t
        })
        .collect()
}

fn step_or_dash(s: Option<u32>) -> String {
    s.map_or("-".into(), |s| s.to_string())
}

/// When each task (or function) was first solved and last failed, and where it ended.
pub fn course_table(title: &str, courses: &[Course], functions: bool, top: usize) -> Table {
    let mut t = Table::new(
        title,
        &[
            ("run", false),
            (if functions { "function" } else { "task" }, false),
            ("steps", true),
            ("last_accuracy", true),
            ("first_solved", true),
            ("last_failed", true),
            ("status", false),
        ],
    );
    let (shown, more) = super::render::take_top(courses, top);
    t.more = more;
    for c in shown {
        // A task's query is many lines long: its first line stands for it (wider when
        // every row is asked for).
        let name = match (&c.numpy, functions) {
            (Some(n), true) => format!("{n} ({})", c.name),
            _ if top == 0 => short_query(&c.name, 120),
            _ => short_query(&c.name, 60),
        };
        t.rows.push(vec![
            c.run.clone(),
            name,
            format!("{}-{}", c.first_step, c.last_step),
            pct(c.last_accuracy),
            step_or_dash(c.first_solved),
            step_or_dash(c.last_failed),
            c.status.as_str().to_string(),
        ]);
    }
    t
}

/// Task and function courses in one CSV table, a `kind` column telling them apart (two
/// tables under one header read as one by a CSV reader).
pub fn course_csv_table(tasks: &[Course], functions: &[Course]) -> Table {
    let mut t = Table::new(
        "courses",
        &[
            ("run", false),
            ("kind", false),
            ("name", false),
            ("numpy", false),
            ("first_step", true),
            ("last_step", true),
            ("last_accuracy", true),
            ("first_solved", true),
            ("last_failed", true),
            ("status", false),
        ],
    );
    for (kind, courses) in [("task", tasks), ("function", functions)] {
        for c in courses {
            t.rows.push(vec![
                c.run.clone(),
                kind.to_string(),
                c.name.clone(),
                c.numpy.clone().unwrap_or_default(),
                c.first_step.to_string(),
                c.last_step.to_string(),
                c.last_accuracy.to_string(),
                c.first_solved.map_or_else(String::new, |s| s.to_string()),
                c.last_failed.map_or_else(String::new, |s| s.to_string()),
                c.status.as_str().to_string(),
            ]);
        }
    }
    t
}

/// The samples joined to no task, with where they are.
pub fn unjoined_table(rows: &[UngradedSample], top: usize) -> Table {
    let mut t = Table::new(
        "Samples joined to no dataset task (shown and analysed, not graded: the dump has no test cases)",
        &[("file", false), ("line", true), ("problem", false)],
    );
    let (shown, more) = super::render::take_top(rows, top);
    t.more = more;
    for u in shown {
        t.rows
            .push(vec![u.file.clone(), u.line.to_string(), u.problem.clone()]);
    }
    t
}

/// The course tables' titles: what `solved` means at the threshold in force.
pub fn course_titles(fig: &TrainingFigures) -> [String; 2] {
    let at = fig.learned_at;
    [
        format!(
            "Tasks over training (solved: at least {at} of a step's samples right, --learned-at): accuracy at the last step, first step solved, last step failed, where each ended"
        ),
        format!("zwc functions over training (solved: at least {at} of a step's samples right)"),
    ]
}

/// A one-line count of how tasks ended, per run.
pub fn course_summary(courses: &[Course]) -> Vec<String> {
    let runs: std::collections::BTreeSet<&str> = courses.iter().map(|c| c.run.as_str()).collect();
    runs.into_iter()
        .map(|run| (run, crate::grade::runs::courses_ended(courses, run)))
        .map(|(run, [learned, forgotten, never])| {
            format!(
                "run {run}: {learned} tasks learned, {forgotten} forgotten, {never} never solved"
            )
        })
        .collect()
}
