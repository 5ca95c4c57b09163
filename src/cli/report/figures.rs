//! The figures of `sebx report`, each read off the typed reports `sebx stats` and
//! `sebx compare` print (a share is a count of the report over another of the same row;
//! nothing is recounted from rollouts). A figure that has nothing to show is left out.

use std::collections::BTreeSet;

use anyhow::Result;

use crate::grade::runs::{self, HeatSort, Learning, StepRow};

/// Columns of the heat map at most (step ranges beyond).
const HEAT_COLUMNS: usize = 40;
use crate::model::Verdict;
use crate::session::report::{CompareReport, StatsReport};

use super::plot::{
    self, Bar, HeatMap, LineChart, Mark, Series, bar_chart, colour, heat_map, line_chart,
    stacked_bars,
};

/// Which part of the page a figure belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Training,
    Evaluation,
    Comparison,
}

/// One figure: its id (the SVG's file name under `--figures`), title, what it shows, and
/// the SVG document.
pub struct Figure {
    pub id: String,
    pub part: Part,
    pub title: String,
    pub caption: String,
    pub svg: String,
}

/// Every figure the reports have something for, in page order.
pub fn figures(stats: &StatsReport, compare: Option<&CompareReport>) -> Result<Vec<Figure>> {
    let mut out = Vec::new();
    if let Some(t) = &stats.training {
        let steps = &t.figures.steps;
        let runs = step_runs(steps);
        out.push(curves(steps, &runs)?);
        out.push(loopholes(stats, &runs)?);
        out.push(lengths(steps, &runs)?);
        out.push(empty_cut(steps, &runs)?);
        if let Some(f) = zero_advantage(steps, &runs)? {
            out.push(f);
        }
        out.push(reward_gap(steps, &runs)?);
        let mut heat_runs: Vec<u32> = t
            .figures
            .function_steps
            .iter()
            .map(|c| c.run_index)
            .collect();
        heat_runs.sort_unstable();
        heat_runs.dedup();
        for (i, run) in heat_runs.into_iter().enumerate() {
            out.push(step_heat_map(stats, run, i)?);
        }
    }
    let eval = eval_runs(stats);
    if !eval.is_empty() {
        out.push(verdict_mix(stats, &eval)?);
        out.push(accuracy(stats, &eval)?);
        if let Some(f) = pass_at_k(stats, &eval)? {
            out.push(f);
        }
        for (n, &i) in eval.iter().enumerate() {
            if let Some(f) = internalization(stats, i, n)? {
                out.push(f);
            }
        }
        if let Some(f) = wrong_names(stats)? {
            out.push(f);
        }
        for (n, &i) in eval.iter().enumerate() {
            if let Some(f) = labels(stats, i, n)? {
                out.push(f);
            }
        }
    }
    if let Some(c) = compare {
        out.push(flips(c)?);
    }
    Ok(out)
}

/// The training runs, in the order their steps come.
fn step_runs(steps: &[StepRow]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    steps
        .iter()
        .filter(|s| seen.insert(s.run.as_str()))
        .map(|s| s.run.clone())
        .collect()
}

/// The indices of the runs that are not training runs.
pub fn eval_runs(stats: &StatsReport) -> Vec<usize> {
    let training: BTreeSet<&str> = stats
        .training
        .iter()
        .flat_map(|t| t.figures.steps.iter().map(|s| s.run.as_str()))
        .collect();
    (0..stats.runs.len())
        .filter(|&i| !training.contains(stats.runs[i].stats.name.as_str()))
        .collect()
}

/// A run's name in a legend, before a metric when there are several runs.
fn named(runs: &[String], run: &str, metric: &str) -> String {
    if runs.len() > 1 {
        format!("{run}: {metric}")
    } else {
        metric.to_string()
    }
}

/// One series per run of a per-step value; colour `base + run`, the metric's colour for a
/// single run.
fn per_step(
    steps: &[StepRow],
    runs: &[String],
    metric: &str,
    metric_index: usize,
    dashed: bool,
    value: impl Fn(&StepRow) -> Option<f64>,
) -> Vec<Series> {
    runs.iter()
        .enumerate()
        .map(|(r, run)| Series {
            label: named(runs, run, metric),
            colour: colour(metric_index + r * 3),
            dashed,
            points: steps
                .iter()
                .filter(|s| &s.run == run)
                .filter_map(|s| Some((f64::from(s.step), value(s)?)))
                .collect(),
            intervals: Vec::new(),
        })
        .collect()
}

fn share(n: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| n as f64 / of as f64)
}

fn curves(steps: &[StepRow], runs: &[String]) -> Result<Figure> {
    let mut series = per_step(steps, runs, "accuracy (verdict right)", 0, false, |s| {
        s.accuracy
    });
    series.extend(per_step(steps, runs, "official RL reward", 1, true, |s| {
        s.official_reward_mean
    }));
    series.extend(per_step(steps, runs, "stored score", 2, false, |s| {
        s.reward_mean
    }));
    Ok(Figure {
        id: "training-curves".into(),
        part: Part::Training,
        title: "Accuracy, official reward and stored score per step".into(),
        caption: "Per training step: the share of graded samples whose verdict is right, the mean official RL reward (recomputed), and the mean score the run stored (its own reward pipeline).".into(),
        svg: line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: "share of samples (mean, 0–1)".into(),
            y_range: Some((0.0, 1.0)),
            series,
            marks: Vec::new(),
        })?,
    })
}

fn loopholes(stats: &StatsReport, runs: &[String]) -> Result<Figure> {
    let Some(t) = &stats.training else {
        anyhow::bail!("no training runs");
    };
    let steps = &t.figures.steps;
    let kinds: BTreeSet<&'static str> = steps
        .iter()
        .flat_map(|s| s.loophole_shares.keys().copied())
        .collect();
    let mut series = Vec::new();
    let mut marks = Vec::new();
    for (k, kind) in kinds.iter().enumerate() {
        let at = series.len();
        series.extend(per_step(steps, runs, kind, k, *kind != "any", |s| {
            s.loophole_shares.get(kind).copied()
        }));
        for (r, run) in runs.iter().enumerate() {
            let onset = t
                .figures
                .onsets
                .iter()
                .find(|o| &o.run == run && o.kind == *kind)
                .and_then(|o| o.step);
            if let Some(step) = onset {
                marks.push(Mark {
                    x: f64::from(step),
                    label: format!("onset: {kind}"),
                    colour: series[at + r].colour,
                });
            }
        }
    }
    Ok(Figure {
        id: "loophole-share".into(),
        part: Part::Training,
        title: "Loophole share per family, with onset".into(),
        caption: format!(
            "Per step, the share of graded samples that went through each loophole kind (any: through at least one). A dashed vertical line marks a loophole's onset: the first step from which its share stays at or above {} to the run's last step.",
            t.figures.onset_at
        ),
        svg: line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: "share of graded samples (0–1)".into(),
            y_range: Some((0.0, 1.0)),
            series,
            marks,
        })?,
    })
}

fn lengths(steps: &[StepRow], runs: &[String]) -> Result<Figure> {
    let tokens = steps
        .iter()
        .any(|s| s.lengths.response_tokens_mean.is_some());
    let unit = if tokens { "tokens" } else { "characters" };
    let mut series = per_step(steps, runs, "mean", 0, false, |s| {
        if tokens {
            s.lengths.response_tokens_mean
        } else {
            s.lengths.response_chars_mean
        }
    });
    series.extend(per_step(steps, runs, "90th percentile", 1, true, |s| {
        if tokens {
            s.lengths.response_tokens_p90.map(f64::from)
        } else {
            s.lengths.response_chars_p90.map(f64::from)
        }
    }));
    Ok(Figure {
        id: "response-length".into(),
        part: Part::Training,
        title: "Response length per step".into(),
        caption: format!(
            "The mean and 90th percentile of the responses' length in {unit}, over every sample of the step{}.",
            if tokens {
                " (the tokenizer given)"
            } else {
                " (give --tokenizer for tokens)"
            }
        ),
        svg: line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: format!("response length ({unit})"),
            y_range: None,
            series,
            marks: Vec::new(),
        })?,
    })
}

fn empty_cut(steps: &[StepRow], runs: &[String]) -> Result<Figure> {
    let mut series = per_step(steps, runs, "empty", 0, false, |s| {
        share(s.lengths.empty_outputs, s.samples)
    });
    series.extend(per_step(steps, runs, "cut off in code", 1, true, |s| {
        share(s.lengths.open_fence_responses, s.samples)
    }));
    Ok(Figure {
        id: "empty-cut-off".into(),
        part: Part::Training,
        title: "Empty and cut-off responses per step".into(),
        caption: "The share of the step's samples whose response is empty (an aborted request) and of those that end inside an open code block (cut off at the length limit).".into(),
        svg: line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: "share of samples (0–1)".into(),
            y_range: Some((0.0, 1.0)),
            series,
            marks: Vec::new(),
        })?,
    })
}

fn zero_advantage(steps: &[StepRow], runs: &[String]) -> Result<Option<Figure>> {
    if steps.iter().all(|s| s.zero_variance_groups.is_none()) {
        return Ok(None);
    }
    let series = per_step(steps, runs, "zero-advantage groups", 0, false, |s| {
        share(s.zero_variance_groups?, s.groups)
    });
    Ok(Some(Figure {
        id: "zero-advantage".into(),
        part: Part::Training,
        title: "Zero-advantage share per step".into(),
        caption: "The share of the step's GRPO groups whose samples all stored the same score: their advantage is zero, so they teach nothing.".into(),
        svg: line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: "share of groups (0–1)".into(),
            y_range: Some((0.0, 1.0)),
            series,
            marks: Vec::new(),
        })?,
    }))
}

fn reward_gap(steps: &[StepRow], runs: &[String]) -> Result<Figure> {
    let mut series = per_step(steps, runs, "reward 1, not right", 3, false, |s| {
        Some(s.reward_1_not_right as f64)
    });
    series.extend(per_step(steps, runs, "right, reward 0", 0, true, |s| {
        Some(s.reward_0_right as f64)
    }));
    series.extend(per_step(
        steps,
        runs,
        "stored ≠ official",
        4,
        false,
        |s| Some(s.stored_differs_from_official as f64),
    ));
    let reasons: BTreeSet<&'static str> = steps
        .iter()
        .flat_map(|s| s.reward_reasons.keys().copied())
        .collect();
    for (i, reason) in reasons.into_iter().enumerate() {
        series.extend(per_step(
            steps,
            runs,
            &format!("reason: {reason}"),
            // The palette's colours the three lines above leave free.
            [5, 6, 7, 1, 2][i % 5],
            true,
            |s| Some(s.reward_reasons.get(reason).copied().unwrap_or(0) as f64),
        ));
    }
    Ok(Figure {
        id: "reward-verdict-gap".into(),
        part: Part::Training,
        title: "Where the reward and the verdict disagree, per step".into(),
        caption: "Samples per step whose official RL reward is 1 but whose verdict is not right, those judged right with reward 0, and those whose stored score is not the official reward; dashed, the disagreements by reason (the first python block scored, np.array inputs, stderr, a timeout, the tolerance, ...).".into(),
        svg: line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: "samples (count)".into(),
            y_range: None,
            series,
            marks: Vec::new(),
        })?,
    })
}

fn step_heat_map(stats: &StatsReport, run: u32, n: usize) -> Result<Figure> {
    let Some(t) = &stats.training else {
        anyhow::bail!("no training runs");
    };
    let fig = &t.figures;
    // The layout the stats tables and the Training screen use, at 40 columns at most.
    let map = runs::heat_map(fig, run, |b| b.len() <= HEAT_COLUMNS, HeatSort::Name);
    let name = fig.run_names.get(run as usize).cloned().unwrap_or_default();
    let grid = (0..map.rows.len())
        .map(|r| (0..map.bins.len()).map(|b| map.accuracy(r, b)).collect())
        .collect();
    Ok(Figure {
        id: format!("internalization-steps-{}", n + 1),
        part: Part::Training,
        title: format!("Internalization per function and step: {name}"),
        caption: "Each cell: the share of the graded samples on tasks selecting the zwc function, at that step (or step range), whose verdict is right. Grey: no graded sample of the function there.".into(),
        svg: heat_map(&HeatMap {
            x_desc: "training step".into(),
            y_desc: "zwc function (NumPy name)".into(),
            value_desc: "accuracy (0–1)".into(),
            cols: map.bins.iter().map(|b| runs::bin_label(*b)).collect(),
            rows: map
                .rows
                .iter()
                .map(|(_, zwc, np)| format!("{zwc} ({np})"))
                .collect(),
            cells: grid,
        })?,
    })
}

fn verdict_mix(stats: &StatsReport, eval: &[usize]) -> Result<Figure> {
    let rows: Vec<(String, Vec<f64>)> = eval
        .iter()
        .map(|&i| {
            let s = &stats.runs[i].stats.summary;
            let shares = Verdict::ALL
                .iter()
                .map(|v| share(s.counts[v.code() as usize], s.total).unwrap_or(0.0))
                .collect();
            (stats.runs[i].stats.name.clone(), shares)
        })
        .collect();
    Ok(Figure {
        id: "verdict-mix".into(),
        part: Part::Evaluation,
        title: "Verdict mix per run".into(),
        caption: "The share of each official verdict among a run's graded rollouts.".into(),
        svg: stacked_bars(
            "share of rollouts (0–1)",
            &rows,
            &Verdict::ALL.map(|v| v.as_str().to_string()),
        )?,
    })
}

fn accuracy(stats: &StatsReport, eval: &[usize]) -> Result<Figure> {
    let bars: Vec<Bar> = eval
        .iter()
        .enumerate()
        .map(|(n, &i)| {
            let r = &stats.runs[i].stats;
            Bar {
                label: r.name.clone(),
                value: r.accuracy,
                interval: r.accuracy_ci95,
                colour: colour(n),
            }
        })
        .collect();
    Ok(Figure {
        id: "accuracy".into(),
        part: Part::Evaluation,
        title: "Accuracy per run, with its 95% interval".into(),
        caption: "Right over all rollouts (the official figure); the black line is the task-clustered percentile-bootstrap 95% interval.".into(),
        svg: bar_chart("accuracy (share right, 0–1)", &bars, Some(1.0))?,
    })
}

fn pass_at_k(stats: &StatsReport, eval: &[usize]) -> Result<Option<Figure>> {
    let series: Vec<Series> = eval
        .iter()
        .enumerate()
        .filter(|(_, i)| !stats.runs[**i].curve.is_empty())
        .map(|(n, &i)| Series {
            label: stats.runs[i].stats.name.clone(),
            colour: colour(n),
            dashed: false,
            points: stats.runs[i]
                .curve
                .iter()
                .filter_map(|p| Some((p.k as f64, p.value?)))
                .collect(),
            intervals: stats.runs[i]
                .curve
                .iter()
                .filter_map(|p| Some((p.k as f64, p.ci95?.0, p.ci95?.1)))
                .collect(),
        })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    Ok(Some(Figure {
        id: "pass-at-k".into(),
        part: Part::Evaluation,
        title: "pass@k per run, with its 95% interval".into(),
        caption: "The unbiased pass@k estimator averaged over the tasks with at least k samples, for k up to the largest sample count (20 at most); the bars are its 95% percentile-bootstrap interval over those tasks.".into(),
        svg: line_chart(&LineChart {
            x_desc: "k (samples drawn per task)".into(),
            y_desc: "pass@k (0–1)".into(),
            y_range: Some((0.0, 1.0)),
            series,
            marks: Vec::new(),
        })?,
    }))
}

fn internalization(stats: &StatsReport, run: usize, n: usize) -> Result<Option<Figure>> {
    let rows = stats.function_map(run);
    if rows.is_empty() {
        return Ok(None);
    }
    let bars: Vec<Bar> = rows
        .iter()
        .map(|f| Bar {
            label: format!("{} ({})", f.zwc, f.numpy),
            value: f.accuracy,
            interval: None,
            colour: colour(2),
        })
        .collect();
    let name = &stats.runs[run].stats.name;
    Ok(Some(Figure {
        id: format!("internalization-{}", n + 1),
        part: Part::Evaluation,
        title: format!("Internalization map: {name}"),
        caption: "Per zwc function: the share of the rollouts on tasks selecting it whose verdict is right, in the report's order.".into(),
        svg: bar_chart("accuracy (share right, 0–1)", &bars, Some(1.0))?,
    }))
}

fn wrong_names(stats: &StatsReport) -> Result<Option<Figure>> {
    if stats.wrong_names.is_empty() {
        return Ok(None);
    }
    let kinds: Vec<&str> = {
        let mut seen = Vec::new();
        for w in &stats.wrong_names {
            if !seen.contains(&w.kind) {
                seen.push(w.kind);
            }
        }
        seen
    };
    let bars: Vec<Bar> = stats
        .wrong_names
        .iter()
        .take(15)
        .map(|w| Bar {
            label: format!("{} [{}]", w.name, w.kind),
            value: w.count as f64,
            interval: None,
            colour: colour(kinds.iter().position(|k| *k == w.kind).unwrap_or(0) + 3),
        })
        .collect();
    Ok(Some(Figure {
        id: "wrong-names".into(),
        part: Part::Evaluation,
        title: "Most frequent wrong names".into(),
        caption: "The names the code calls that zwc does not have (a NumPy name on zwc, an invented name, ...), over all runs, most frequent first (15 at most); the kind is in brackets.".into(),
        svg: bar_chart("occurrences (count)", &bars, None)?,
    }))
}

fn labels(stats: &StatsReport, run: usize, n: usize) -> Result<Option<Figure>> {
    let Some(l) = stats.labels.get(run) else {
        return Ok(None);
    };
    let bars: Vec<Bar> = l
        .stats
        .categories
        .iter()
        .filter_map(|c| {
            Some(Bar {
                label: c.category.clone(),
                value: c.prevalence?,
                interval: c.prevalence_ci95,
                colour: colour(4),
            })
        })
        .collect();
    if bars.is_empty() {
        return Ok(None);
    }
    Ok(Some(Figure {
        id: format!("label-prevalence-{}", n + 1),
        part: Part::Evaluation,
        title: format!("Label prevalence among failures: {}", l.stats.run),
        caption: format!(
            "The share of {} labelled failures carrying each hand-label category, with its Wilson 95% interval; the labelled failures were {}.",
            l.stats.labelled_failures, l.sample_note
        ),
        svg: bar_chart("prevalence among labelled failures (0–1)", &bars, Some(1.0))?,
    }))
}

fn flips(c: &CompareReport) -> Result<Figure> {
    let m = &c.comparison.mcnemar;
    let right = Verdict::Right.code() as usize;
    let pairs: usize = c.comparison.matrix.iter().flatten().sum();
    let both = c.comparison.matrix[right][right];
    let neither = pairs - both - m.a_right_b_wrong - m.a_wrong_b_right;
    let bars = [
        ("right in both", both, 2),
        (&*format!("right in {} only", c.a), m.a_right_b_wrong, 0),
        (&*format!("right in {} only", c.b), m.a_wrong_b_right, 1),
        ("right in neither", neither, 7),
    ]
    .map(|(label, v, k)| Bar {
        label: label.to_string(),
        value: v as f64,
        interval: None,
        colour: colour(k),
    });
    Ok(Figure {
        id: "comparison-flips".into(),
        part: Part::Comparison,
        title: format!("{} vs {}: paired verdicts", c.a, c.b),
        caption: format!(
            "Rollouts paired by task (the i-th of a task in one run with the i-th in the other): {pairs} pairs ({} and {} unpaired). McNemar's exact two-sided test of the flips: p = {}.",
            c.comparison.unpaired_a,
            c.comparison.unpaired_b,
            plot::short(&format!("{:.4}", m.p_value), 8)
        ),
        svg: bar_chart("pairs (count)", &bars, None)?,
    })
}

/// The learned / forgotten / never-solved counts of a training run's functions and tasks.
pub fn course_counts(stats: &StatsReport, run: &str) -> [(Learning, usize, usize); 3] {
    let count = |courses: &[crate::grade::runs::Course], l: Learning| {
        courses
            .iter()
            .filter(|c| c.run == run && c.status == l)
            .count()
    };
    let t = stats.training.as_ref();
    [
        Learning::Learned,
        Learning::Forgotten,
        Learning::NeverSolved,
    ]
    .map(|l| {
        (
            l,
            t.map_or(0, |t| count(&t.figures.function_courses, l)),
            t.map_or(0, |t| count(&t.figures.task_courses, l)),
        )
    })
}
