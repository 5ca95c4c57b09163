//! `sebx stats` and `sebx compare`: run-level figures and the paired comparison of two runs,
//! headless. Loading (verdicts from scored files or stored scores, grading the rest, one
//! analysis per rollout, hand labels) is here; the figures come from [`crate::grade::runs`].

use crate::model::discovery::ContextArgs;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use crate::grade::batch::{Summary, grade_all_scored};
use crate::grade::engine::Engine;
use crate::grade::report::ReasonKind;
use crate::grade::resolve::{Resolved, Resolver, VerdictSource, classify_inputs};
use crate::grade::reward::Scorer;
use crate::grade::runs::{
    self, Comparison, FunctionRow, FunctionSort, LabelStats, RunSet, RunStats, WrongNameRow, fmt_p,
    short_query,
};
use crate::model::discovery::discover;
use crate::model::labels::LabelStore;
use crate::model::rollout::load_rollout_file;
use crate::model::sampling::DEFAULT_SEED;
use crate::model::taxonomy::Taxonomy;
use crate::model::{ApiMap, LoadedFile, Rollout, Verdict};

use super::charts;
use super::labels::csv_table;

/// Output format of `sebx stats` and `sebx compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Aligned text with terminal charts.
    #[default]
    Table,
    /// Markdown tables, ready for a paper.
    Md,
    /// CSV, one table per `--by`, separated by a blank line.
    Csv,
    /// One JSON object.
    Json,
}

/// Which table(s) `sebx stats` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    /// One row per run: verdicts, accuracy with its interval, pass@k.
    Run,
    /// The internalization map: one row per zwc function.
    Function,
    /// One row per task: samples, right, accuracy.
    Task,
    /// Wrong names (analysis findings) across the runs.
    Finding,
    /// Hand-label categories: counts and prevalence among failures.
    Category,
}

/// Inputs shared by `sebx stats` and `sebx compare`.
#[derive(Debug, Clone, clap::Args)]
pub struct InputArgs {
    #[command(flatten)]
    pub context: ContextArgs,
    /// Programs graded in parallel for rollouts without a verdict (default: number of cores).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Wall-clock timeout per graded program in seconds (official: 3).
    #[arg(long, value_name = "SECONDS", default_value = "3",
          value_parser = crate::grade::settings::parse_timeout, allow_negative_numbers = true)]
    pub timeout: Duration,
    /// Whose hand labels count (default: the annotator with the most labels in each file).
    #[arg(long)]
    pub annotator: Option<String>,
    /// Seed of the bootstrap, the random labelling order and the Monte Carlo tests.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// No progress bars.
    #[arg(short, long)]
    pub quiet: bool,
    /// Where to write (default: stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Run-level figures: summary, accuracy with a task-clustered interval, pass@k, the
/// internalization map, wrong names and hand-label prevalence.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "FILES are any mix the explorer opens: rollout files (each one run), \
`sebx grade` output (verdicts joined by rollout id), correct-trajectories files, dataset files \
and an API doc. Rollouts without a verdict are graded first.\n\n\
Accuracy is right / all rollouts (the official figure); its 95% interval is a percentile \
bootstrap over tasks (2000 resamples, --seed), so rollouts of one task stay together. \
pass@k is the unbiased estimator 1 - C(n-c,k)/C(n,k) per task, averaged over the tasks with \
n >= k samples; it answers another question than accuracy and is never mixed with it. \
Label prevalence is among labelled failures, with a Wilson 95% interval, and the output says \
whether the labelled failures are the first of the seeded random order (a random sample) or \
were picked."
)]
pub struct StatsArgs {
    /// Rollout files, scored results, correct-trajectories files, datasets, an API doc.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Tables to print (repeatable; default: all for table/md, run for csv).
    #[arg(long, value_enum)]
    pub by: Vec<By>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// pass@k for these k (repeatable; default: 1 and the largest sample count per task).
    #[arg(short, value_name = "K")]
    pub k: Vec<usize>,
    /// Order of the internalization map.
    #[arg(long, value_enum, default_value_t = FunctionSort::Accuracy)]
    pub sort: FunctionSort,
    /// Rows of the wrong-names table in table/md output (0: all).
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Compare two runs rollout by rollout.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "A and B are rollout files; further files may be `sebx grade` output, \
dataset files or an API doc. Rollouts are paired by task (query): the i-th rollout of a task \
in A with the i-th in B; the rest are counted as unpaired. The flip matrix counts pairs by \
(verdict in A, verdict in B). McNemar's exact test (two-sided) asks whether right->not-right \
and not-right->right flips are equally likely. With several samples per task, a sign-flip \
permutation test over the per-task accuracy deltas is added. Function deltas are over the \
paired rollouts, largest drop first."
)]
pub struct CompareArgs {
    /// Run A (rollout file).
    pub a: PathBuf,
    /// Run B (rollout file).
    pub b: PathBuf,
    /// More inputs: `sebx grade` output, dataset files, an API doc.
    pub more: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// List the pairs of one flip-matrix cell, e.g. `--cell right,exe_error`.
    #[arg(long, value_name = "VA,VB", value_delimiter = ',')]
    pub cell: Vec<String>,
    /// Rows of the task and function tables in table/md output (0: all).
    #[arg(long, default_value_t = 15)]
    pub top: usize,
    #[command(flatten)]
    pub input: InputArgs,
}

/// One loaded run: its file and where each rollout's verdict came from.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    pub path: PathBuf,
    pub name: String,
    /// Annotator whose labels were used, if any.
    pub annotator: Option<String>,
    /// Category order (taxonomy).
    pub categories: Vec<String>,
}

/// Everything `stats` and `compare` computed from.
pub struct Loaded {
    pub set: RunSet,
    pub runs: Vec<LoadedRun>,
    pub notes: Vec<String>,
}

fn run_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    name.strip_suffix(".jsonl")
        .map(str::to_string)
        .unwrap_or(name)
}

fn bar(quiet: bool, len: usize, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{what} {{bar:40}} {{pos}}/{{len}} [{{elapsed_precise}} < {{eta_precise}}]"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Loads runs from `files`: verdicts from scored files, stored scores or grading (with a
/// progress bar), then one analysis per rollout and the hand labels.
pub fn load_runs(files: &[PathBuf], input: &InputArgs) -> Result<Loaded> {
    let mut notes = Vec::new();
    let inputs = classify_inputs(files, &[])?;
    let api_doc = input.context.api_doc.clone().or(inputs.api_doc.clone());
    let mut datasets = input.context.dataset.clone();
    datasets.extend(inputs.datasets.iter().cloned());
    let run_files: Vec<(PathBuf, bool)> = inputs
        .runs
        .iter()
        .map(|r| (r.path.clone(), r.correct))
        .collect();
    if run_files.is_empty() {
        bail!("no rollout file among the inputs (a rollout file is one run)");
    }
    let paths: Vec<PathBuf> = run_files.iter().map(|(p, _)| p.clone()).collect();
    let found = discover(api_doc.as_deref(), &datasets, &paths);
    let (api, dataset) = found.load()?;
    let api = api.unwrap_or_else(|| {
        notes.push(
            "no API doc (pass --api-doc FILE or set SEBX_API_DOC): the internalization map and wrong names are empty, and rollouts without a verdict cannot be graded".to_string(),
        );
        ApiMap::default()
    });
    // Verdicts an earlier `sebx grade` or explorer session remembered are reused.
    let cache = if api.is_empty() {
        None
    } else {
        crate::grade::score_cache::default_dir()
            .and_then(|dir| {
                // At the timeout the rollouts below are graded with; a lookup asks for the
                // verdict (a report with the reward too serves), what is graded carries both.
                let settings =
                    crate::grade::settings::GradingSettings::official().with_timeout(input.timeout);
                crate::grade::score_cache::ScoreCache::open(&dir, &api, &settings).ok()
            })
            .map(std::sync::Arc::new)
    };
    let (resolver, issues) = Resolver::new(&inputs.reports, cache.clone())?;
    for issue in issues {
        eprintln!("warning: {issue}");
    }

    let mut loaded_files: Vec<(LoadedFile, bool)> = Vec::new();
    for (path, correct) in &run_files {
        let loaded =
            load_rollout_file(path).with_context(|| format!("cannot read {}", path.display()))?;
        for issue in &loaded.issues {
            eprintln!("warning: {issue}");
        }
        loaded_files.push((loaded, *correct));
    }
    // Every verdict known without grading, by the resolver's precedence.
    let mut verdicts: Vec<Vec<Option<Resolved>>> = loaded_files
        .iter()
        .map(|(f, correct)| {
            f.rollouts
                .iter()
                .map(|r| resolver.known(r, *correct))
                .collect()
        })
        .collect();
    let reused = verdicts
        .iter()
        .flatten()
        .flatten()
        .filter(|k| k.source == VerdictSource::Cache)
        .count();
    if reused > 0 {
        notes.push(format!("{reused} verdicts reused from the score cache"));
    }
    let missing: Vec<(usize, usize)> = verdicts
        .iter()
        .enumerate()
        .flat_map(|(f, vs)| {
            vs.iter()
                .enumerate()
                .filter(|(_, v)| v.is_none())
                .map(move |(i, _)| (f, i))
        })
        .collect();
    if !missing.is_empty() {
        if api.is_empty() {
            bail!(
                "{} rollouts have no verdict and there is no API doc to grade them with (pass --api-doc FILE, or a `sebx grade` output)",
                missing.len()
            );
        }
        let jobs = input.jobs.unwrap_or_else(super::grade::default_jobs).max(1);
        let engine = Engine::start(&api, jobs).with_context(|| {
            format!(
                "{} rollouts have no verdict and the grader cannot start (run `sebx runtime install`, or pass a `sebx grade` output)",
                missing.len()
            )
        })?;
        let todo: Vec<&Rollout> = missing
            .iter()
            .map(|&(f, i)| &loaded_files[f].0.rollouts[i])
            .collect();
        let progress = bar(input.quiet, todo.len(), "grading");
        let timeout = input.timeout;
        // Both official scorers: the reward is shown beside accuracy.
        let reports = grade_all_scored(&todo, &engine, jobs, timeout, Scorer::Both, &|n, _| {
            progress.set_position(n as u64)
        });
        if let Some(cache) = &cache {
            for (rollout, report) in todo.iter().zip(&reports) {
                // A cache that cannot be written only costs a regrade next time.
                let _ = cache.put(rollout, report);
            }
        }
        progress.finish_and_clear();
        let mut failed = 0;
        for (&(f, i), report) in missing.iter().zip(&reports) {
            verdicts[f][i] = Resolved::of_report(report, VerdictSource::Graded);
            failed += usize::from(report.verdict.is_none());
        }
        notes.push(format!("graded {} rollouts without a verdict", todo.len()));
        if failed > 0 {
            notes.push(format!(
                "{failed} rollouts could not be graded and are left out"
            ));
        }
    }

    let total: usize = loaded_files.iter().map(|(f, _)| f.rollouts.len()).sum();
    let progress = bar(input.quiet || total < 2000, total, "analyzing");
    let mut set = RunSet::default();
    let mut runs = Vec::new();
    for (((path, _), (file, _)), vs) in run_files.iter().zip(&loaded_files).zip(&verdicts) {
        let name = run_name(path);
        let run = set.add_run(&name);
        let (store, issues) = LabelStore::open(path)
            .with_context(|| format!("cannot read the labels of {}", path.display()))?;
        for issue in issues {
            eprintln!("warning: skipped a damaged label line: {issue}");
        }
        let annotator = input.annotator.clone().or_else(|| {
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for r in store.all_current() {
                *counts.entry(r.annotator.clone()).or_default() += 1;
            }
            counts
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
                .map(|(a, _)| a)
        });
        let categories = Taxonomy::for_rollout_file(path, None)
            .map(|t| t.ids().into_iter().map(|c| c.0).collect())
            .unwrap_or_default();
        for (r, v) in file.rollouts.iter().zip(vs) {
            progress.inc(1);
            let Some(known) = v else { continue };
            let v = &known.verdict;
            let labels = annotator
                .as_deref()
                .and_then(|a| store.current(&r.id, a))
                .map(|rec| rec.categories.iter().map(|c| c.0.clone()).collect());
            if api.is_empty() {
                set.add_bare(run, r, *v, labels);
            } else {
                set.add_rollout(run, r, *v, &api, dataset.get(&r.query), labels);
            }
            set.set_last_reward(known.reward, known.reason);
        }
        runs.push(LoadedRun {
            path: path.clone(),
            name,
            annotator,
            categories,
        });
    }
    progress.finish_and_clear();
    let rewarded = set.rollouts.iter().filter(|r| r.reward.is_some()).count();
    if rewarded > 0 && rewarded < set.rollouts.len() {
        notes.push(format!(
            "the official RL reward is known for {rewarded} of {} rollouts (`sebx grade --scorer both` scores it for all)",
            set.rollouts.len()
        ));
    }
    Ok(Loaded { set, runs, notes })
}

// ---------------------------------------------------------------- tables

/// A table for text, Markdown and CSV.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    /// Columns aligned right (numbers).
    pub right: Vec<bool>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    fn new(title: &str, headers: &[(&str, bool)]) -> Table {
        Table {
            title: title.to_string(),
            headers: headers.iter().map(|h| h.0.to_string()).collect(),
            right: headers.iter().map(|h| h.1).collect(),
            rows: Vec::new(),
        }
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
        s
    }

    /// RFC 4180 CSV with a header row.
    pub fn csv(&self) -> String {
        let rows =
            std::iter::once(self.headers.as_slice()).chain(self.rows.iter().map(Vec::as_slice));
        csv_table(rows).unwrap_or_default()
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn ci(c: Option<(f64, f64)>) -> String {
    match c {
        Some((lo, hi)) => format!("[{}, {}]", pct(lo), pct(hi)),
        None => "-".into(),
    }
}

fn opt3(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into())
}

fn run_table(stats: &[RunStats], ks: &[usize]) -> Table {
    let mut headers: Vec<(String, bool)> = vec![
        ("run".into(), false),
        ("rollouts".into(), true),
        ("tasks".into(), true),
    ];
    for v in Verdict::ALL {
        headers.push((v.as_str().into(), true));
    }
    headers.push(("accuracy".into(), true));
    let rewards = stats.iter().any(|s| s.reward_mean.is_some());
    if rewards {
        headers.push(("mean RL reward".into(), true));
    }
    headers.push(("accuracy 95% CI (bootstrap over tasks)".into(), false));
    for k in ks {
        headers.push((format!("pass@{k}"), true));
        headers.push((format!("pass@{k} tasks"), true));
    }
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new("runs", &h);
    for s in stats {
        let mut row = vec![s.name.clone(), s.rollouts.to_string(), s.tasks.to_string()];
        for v in Verdict::ALL {
            row.push(s.summary.count(v).to_string());
        }
        row.push(pct(s.accuracy));
        if rewards {
            row.push(s.reward_mean.map_or("-".into(), |m| format!("{m:.4}")));
        }
        row.push(ci(s.accuracy_ci95));
        for p in &s.pass_at_k {
            row.push(opt3(p.value));
            row.push(p.tasks.to_string());
        }
        t.rows.push(row);
    }
    t
}

/// The official RL reward beside the verdict, per run: mean reward, the 2×2 of (reward,
/// verdict right) and the disagreements by reason. `None` when no run has a reward.
fn reward_table(set: &RunSet, runs: &[u32]) -> Option<Table> {
    let summaries: Vec<(u32, Summary)> = runs
        .iter()
        .map(|&run| (run, runs::run_summary(set, run)))
        .filter(|(_, s)| s.rewarded > 0)
        .collect();
    if summaries.is_empty() {
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
        .filter(|k| summaries.iter().any(|(_, s)| s.reasons.contains_key(k)))
        .collect();
    for kind in &kinds {
        headers.push((format!("why: {}", kind.label()), true));
    }
    let h: Vec<(&str, bool)> = headers.iter().map(|(a, b)| (a.as_str(), *b)).collect();
    let mut t = Table::new("official RL reward vs verdict", &h);
    for (run, s) in summaries {
        let mut row = vec![
            set.runs[run as usize].clone(),
            s.rewarded.to_string(),
            s.mean_reward().map_or("-".into(), |m| format!("{m:.4}")),
            pct(s.share(Verdict::Right)),
        ];
        row.extend(s.reward_by_verdict.iter().map(usize::to_string));
        for kind in &kinds {
            row.push(s.reasons.get(kind).copied().unwrap_or(0).to_string());
        }
        t.rows.push(row);
    }
    Some(t)
}

/// The reward figures of one run as JSON (`null` fields when it has no reward).
fn reward_json(s: &Summary) -> Value {
    let [one_right, one_not, zero_right, zero_not] = s.reward_by_verdict;
    let reasons: BTreeMap<&str, usize> = s.reasons.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    json!({
        "rewarded": s.rewarded,
        "reward_mean": s.mean_reward(),
        "reward_vs_verdict": {
            "reward_1_right": one_right,
            "reward_1_not_right": one_not,
            "reward_0_right": zero_right,
            "reward_0_not_right": zero_not,
        },
        "reward_reasons": reasons,
    })
}

fn function_table(rows: &[(String, FunctionRow)]) -> Table {
    let mut t = Table::new(
        "internalization map (per zwc function the tasks select)",
        &[
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
        ],
    );
    for (run, r) in rows {
        let names: Vec<String> = r
            .wrong_names
            .iter()
            .take(3)
            .map(|(n, c)| format!("{n} ×{c}"))
            .collect();
        let mix: Vec<String> = Verdict::ALL
            .iter()
            .map(|v| r.verdicts[v.code() as usize].to_string())
            .collect();
        t.rows.push(vec![
            run.clone(),
            r.numpy.clone(),
            r.zwc.clone(),
            r.tasks.to_string(),
            r.rollouts.to_string(),
            r.right.to_string(),
            pct(r.accuracy),
            r.called_right.to_string(),
            r.numpy_name.to_string(),
            r.invented_name.to_string(),
            names.join(", "),
            mix.join("/"),
        ]);
    }
    t
}

fn task_table(set: &RunSet) -> Table {
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
    let mut counts: BTreeMap<(u32, u32), (usize, usize)> = BTreeMap::new();
    for r in &set.rollouts {
        let e = counts.entry((r.run, r.task)).or_default();
        e.0 += 1;
        e.1 += usize::from(r.verdict == Verdict::Right);
    }
    for ((run, task), (n, c)) in counts {
        t.rows.push(vec![
            set.runs[run as usize].clone(),
            short_query(&set.tasks[task as usize], 60),
            n.to_string(),
            c.to_string(),
            pct(c as f64 / n as f64),
        ]);
    }
    t
}

fn wrong_table(rows: &[WrongNameRow], top: usize) -> Table {
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
    let n = if top == 0 { rows.len() } else { top };
    for r in rows.iter().take(n) {
        t.rows.push(vec![
            r.name.clone(),
            r.kind.to_string(),
            r.count.to_string(),
            r.correct.clone().unwrap_or_else(|| "-".into()),
            r.runs.join(", "),
        ]);
    }
    t
}

fn label_table(labels: &[(LabelStats, Option<String>)]) -> Table {
    let mut t = Table::new(
        "hand labels (prevalence among labelled failures, Wilson 95% interval)",
        &[
            ("run", false),
            ("annotator", false),
            ("category", false),
            ("labelled", true),
            ("among failures", true),
            ("prevalence", true),
            ("95% CI", false),
            ("sample", false),
        ],
    );
    for (l, annotator) in labels {
        for c in &l.categories {
            t.rows.push(vec![
                l.run.clone(),
                annotator.clone().unwrap_or_else(|| "-".into()),
                c.category.clone(),
                c.count.to_string(),
                format!("{}/{}", c.failures, l.labelled_failures),
                c.prevalence.map(pct).unwrap_or_else(|| "-".into()),
                ci(c.prevalence_ci95),
                format!("{:?}", l.sample).to_lowercase(),
            ]);
        }
    }
    t
}

/// Default pass@k values: 1 and the largest number of samples of a task.
fn default_ks(stats: &[RunStats]) -> Vec<usize> {
    let max = stats.iter().map(|s| s.max_samples).max().unwrap_or(1);
    if max > 1 { vec![1, max] } else { vec![1] }
}

fn writer(output: Option<&Path>) -> Result<Box<dyn Write>> {
    Ok(match output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}

/// Everything `sebx stats` reports, computed.
pub struct StatsReport {
    pub ks: Vec<usize>,
    pub runs: Vec<RunStats>,
    /// (run name, row), run by run.
    pub functions: Vec<(String, FunctionRow)>,
    pub wrong_names: Vec<WrongNameRow>,
    /// With the annotator whose labels were counted.
    pub labels: Vec<(LabelStats, Option<String>)>,
}

/// Computes the stats of loaded runs.
pub fn compute_stats(loaded: &Loaded, ks: &[usize], sort: FunctionSort, seed: u64) -> StatsReport {
    let set = &loaded.set;
    let mut ks = ks.to_vec();
    if ks.is_empty() {
        ks = default_ks(&runs::run_stats(set, &[], seed));
    }
    ks.sort_unstable();
    ks.dedup();
    let run_stats = runs::run_stats(set, &ks, seed);
    let mut functions = Vec::new();
    for (i, name) in set.runs.iter().enumerate() {
        for row in runs::function_map(set, Some(i as u32), sort) {
            functions.push((name.clone(), row));
        }
    }
    let labels = loaded
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (
                runs::label_stats(set, i as u32, &r.categories, seed),
                r.annotator.clone(),
            )
        })
        .collect();
    StatsReport {
        ks,
        runs: run_stats,
        functions,
        wrong_names: runs::wrong_names(set),
        labels,
    }
}

/// The stats as one JSON object.
pub fn stats_json(loaded: &Loaded, report: &StatsReport, seed: u64) -> Value {
    let runs: Vec<Value> = report
        .runs
        .iter()
        .zip(&loaded.runs)
        .map(|(s, lr)| {
            let verdicts: BTreeMap<&str, usize> = Verdict::ALL
                .iter()
                .map(|v| (v.as_str(), s.summary.count(*v)))
                .collect();
            let pass: BTreeMap<String, Option<f64>> = s
                .pass_at_k
                .iter()
                .map(|p| (p.k.to_string(), p.value))
                .collect();
            json!({
                "name": s.name,
                "path": lr.path.display().to_string(),
                "rollouts": s.rollouts,
                "tasks": s.tasks,
                "verdicts": verdicts,
                "summary": s.summary.lines(),
                "accuracy": s.accuracy,
                "accuracy_ci95": s.accuracy_ci95.map(|(a, b)| [a, b]),
                "accuracy_ci95_method": format!("percentile bootstrap over tasks, {} resamples, seed {seed}", runs::BOOTSTRAP_REPS),
                "pass_at_k": pass,
                "pass_at_k_detail": s.pass_at_k,
                "reward": reward_json(&s.summary),
            })
        })
        .collect();
    let functions: Vec<Value> = report
        .functions
        .iter()
        .map(|(run, r)| {
            json!({
                "run": run,
                "numpy": r.numpy,
                "zwc": r.zwc,
                "tasks": r.tasks,
                "rollouts": r.rollouts,
                "right": r.right,
                "accuracy": r.accuracy,
                "called_right_name": r.called_right,
                "numpy_name": r.numpy_name,
                "invented_name": r.invented_name,
                "wrong_names": r.wrong_names.iter().map(|(n, c)| json!({"name": n, "count": c})).collect::<Vec<_>>(),
                "verdicts": r.verdict_map(),
            })
        })
        .collect();
    let labels: Vec<Value> = report
        .labels
        .iter()
        .map(|(l, annotator)| {
            let mut v = serde_json::to_value(l).unwrap_or(Value::Null);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("annotator".into(), json!(annotator));
                obj.insert("sample_note".into(), json!(l.sample.describe(l.seed)));
            }
            v
        })
        .collect();
    json!({
        "runs": runs,
        "functions": functions,
        "wrong_names": report.wrong_names,
        "labels": labels,
        "notes": loaded.notes,
    })
}

/// The stats as text with charts (the default output).
pub fn stats_text(
    loaded: &Loaded,
    report: &StatsReport,
    by: &[By],
    top: usize,
    seed: u64,
) -> String {
    let mut s = String::new();
    for note in &loaded.notes {
        s.push_str(&format!("note: {note}\n"));
    }
    if by.contains(&By::Run) {
        for (st, lr) in report.runs.iter().zip(&loaded.runs) {
            s.push_str(&format!("\nrun {} ({})\n", st.name, lr.path.display()));
            s.push_str(&format!(
                "  rollouts: {}   tasks: {}\n",
                st.rollouts, st.tasks
            ));
            let lines = st.summary.lines();
            // The official summary lines, verbatim, each verdict line with its share as a bar.
            for (i, line) in lines.iter().enumerate() {
                let bar = if (2..2 + Verdict::ALL.len()).contains(&i) {
                    let v = Verdict::ALL[i - 2];
                    format!("  {}", charts::hbar(st.summary.share(v), 30))
                } else {
                    String::new()
                };
                s.push_str(&format!("  {line}{bar}\n"));
            }
            s.push_str(&format!(
                "  accuracy 95% CI: {} (percentile bootstrap over {} tasks, {} resamples, seed {seed})\n",
                ci(st.accuracy_ci95),
                st.tasks,
                runs::BOOTSTRAP_REPS
            ));
            for p in &st.pass_at_k {
                s.push_str(&format!(
                    "  pass@{} (unbiased estimator; not accuracy): {} over {} tasks with ≥{} samples ({} samples)\n",
                    p.k,
                    opt3(p.value),
                    p.tasks,
                    p.k,
                    p.samples
                ));
            }
            s.push_str("  per-task accuracy (tasks per bin):\n");
            s.push_str(&charts::histogram(&st.task_accuracy, 30));
            if st.max_samples > 1 {
                s.push_str("  pass@k curve (k = 1 … largest sample count):\n");
                let counts = per_task_counts(&loaded.set, st.run);
                let curve: Vec<(usize, Option<f64>)> = (1..=st.max_samples.min(20))
                    .map(|k| (k, runs::pass_at_k_over(&counts, k).value))
                    .collect();
                s.push_str(&charts::curve(&curve, 30));
            }
        }
        s.push('\n');
        s.push_str(&run_table(&report.runs, &report.ks).text());
        let all: Vec<u32> = (0..loaded.set.runs.len() as u32).collect();
        if let Some(t) = reward_table(&loaded.set, &all) {
            s.push('\n');
            s.push_str(&t.text());
        }
    }
    if by.contains(&By::Function) {
        s.push('\n');
        s.push_str(&function_table(&report.functions).text());
    }
    if by.contains(&By::Task) {
        s.push('\n');
        s.push_str(&task_table(&loaded.set).text());
    }
    if by.contains(&By::Finding) {
        s.push('\n');
        s.push_str(&wrong_table(&report.wrong_names, top).text());
    }
    if by.contains(&By::Category) {
        s.push('\n');
        s.push_str(&label_table(&report.labels).text());
        for (l, annotator) in &report.labels {
            s.push_str(&format!(
                "  {}: {} labelled by {} ({} of {} failures): {}\n",
                l.run,
                l.labelled,
                annotator.as_deref().unwrap_or("nobody"),
                l.labelled_failures,
                l.failures,
                l.sample.describe(l.seed)
            ));
        }
    }
    s
}

/// (samples, right) per task of one run.
fn per_task_counts(set: &RunSet, run: u32) -> Vec<(usize, usize)> {
    let mut m: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for r in set.rollouts.iter().filter(|r| r.run == run) {
        let e = m.entry(r.task).or_default();
        e.0 += 1;
        e.1 += usize::from(r.verdict == Verdict::Right);
    }
    m.into_values().collect()
}

fn stats_tables(loaded: &Loaded, report: &StatsReport, by: &[By], top: usize) -> Vec<Table> {
    let all: Vec<u32> = (0..loaded.set.runs.len() as u32).collect();
    by.iter()
        .flat_map(|b| match b {
            By::Run => std::iter::once(run_table(&report.runs, &report.ks))
                .chain(reward_table(&loaded.set, &all))
                .collect(),
            By::Function => vec![function_table(&report.functions)],
            By::Task => vec![task_table(&loaded.set)],
            By::Finding => vec![wrong_table(&report.wrong_names, top)],
            By::Category => vec![label_table(&report.labels)],
        })
        .collect()
}

/// Runs `sebx stats`.
pub fn run_stats(args: StatsArgs) -> Result<ExitCode> {
    if args.k.contains(&0) {
        bail!("-k must be at least 1");
    }
    let loaded = load_runs(&args.files, &args.input)?;
    let seed = args.input.seed;
    let report = compute_stats(&loaded, &args.k, args.sort, seed);
    let by = if !args.by.is_empty() {
        args.by.clone()
    } else if args.format == Format::Csv {
        vec![By::Run]
    } else {
        vec![By::Run, By::Function, By::Finding, By::Category]
    };
    let mut out = writer(args.input.output.as_deref())?;
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &stats_json(&loaded, &report, seed))?;
            out.write_all(b"\n")?;
        }
        Format::Table => {
            out.write_all(stats_text(&loaded, &report, &by, args.top, seed).as_bytes())?
        }
        Format::Md => {
            let tables = stats_tables(&loaded, &report, &by, args.top);
            let text: Vec<String> = tables.iter().map(Table::markdown).collect();
            out.write_all(text.join("\n").as_bytes())?;
            if by.contains(&By::Run) {
                out.write_all(
                    format!(
                        "\nAccuracy: right / all rollouts; 95% CI: percentile bootstrap over tasks ({} resamples, seed {seed}). pass@k: unbiased estimator over tasks with at least k samples.\n",
                        runs::BOOTSTRAP_REPS
                    )
                    .as_bytes(),
                )?;
            }
        }
        Format::Csv => {
            let tables = stats_tables(&loaded, &report, &by, 0);
            let text: Vec<String> = tables.iter().map(Table::csv).collect();
            out.write_all(text.join("\n").as_bytes())?;
        }
    }
    out.flush()?;
    if args.format != Format::Table {
        for note in &loaded.notes {
            eprintln!("note: {note}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------- compare

/// The comparison as one JSON object.
pub fn compare_json(loaded: &Loaded, c: &Comparison) -> Value {
    let set = &loaded.set;
    let pairs: Vec<Value> = c
        .pairs
        .iter()
        .map(|&(a, b)| {
            let (ra, rb) = (&set.rollouts[a], &set.rollouts[b]);
            json!({
                "task": short_query(&set.tasks[ra.task as usize], 80),
                "a_line": ra.line, "b_line": rb.line,
                "a_id": ra.id, "b_id": rb.id,
                "verdict_a": ra.verdict, "verdict_b": rb.verdict,
            })
        })
        .collect();
    json!({
        "a": set.runs[c.a as usize],
        "b": set.runs[c.b as usize],
        "pairs": pairs,
        "unpaired_a": c.unpaired_a,
        "unpaired_b": c.unpaired_b,
        "matrix": c.matrix_map(),
        "mcnemar": c.mcnemar,
        "tasks": c.tasks,
        "task_test": c.task_test,
        "functions": c.functions,
        "reward_a": reward_json(&runs::run_summary(set, c.a)),
        "reward_b": reward_json(&runs::run_summary(set, c.b)),
        "notes": loaded.notes,
    })
}

fn matrix_table(c: &Comparison) -> Table {
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
            let n = c.matrix[va.code() as usize][vb.code() as usize];
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

fn compare_task_table(c: &Comparison, top: usize) -> Table {
    let mut t = Table::new(
        "per-task accuracy (paired rollouts), largest drop first",
        &[
            ("task", false),
            ("pairs", true),
            ("A", true),
            ("B", true),
            ("delta", true),
        ],
    );
    let n = if top == 0 { c.tasks.len() } else { top };
    for r in c.tasks.iter().take(n) {
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

fn compare_function_table(c: &Comparison, top: usize) -> Table {
    let mut t = Table::new(
        "per-function accuracy (paired rollouts), largest drop first",
        &[
            ("numpy", false),
            ("zwc", false),
            ("pairs", true),
            ("A", true),
            ("B", true),
            ("delta", true),
        ],
    );
    let n = if top == 0 { c.functions.len() } else { top };
    for r in c.functions.iter().take(n) {
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

fn cell_table(loaded: &Loaded, c: &Comparison, va: Verdict, vb: Verdict) -> Table {
    let set = &loaded.set;
    let mut t = Table::new(
        &format!("pairs with {va} in A and {vb} in B"),
        &[("A line", true), ("B line", true), ("task", false)],
    );
    for (a, b) in c.cell(set, va, vb) {
        let (ra, rb) = (&set.rollouts[a], &set.rollouts[b]);
        t.rows.push(vec![
            ra.line.to_string(),
            rb.line.to_string(),
            short_query(&set.tasks[ra.task as usize], 70),
        ]);
    }
    t
}

/// The comparison as text.
pub fn compare_text(loaded: &Loaded, c: &Comparison, top: usize) -> String {
    let set = &loaded.set;
    let mut s = String::new();
    for note in &loaded.notes {
        s.push_str(&format!("note: {note}\n"));
    }
    let count = |run: u32| set.rollouts.iter().filter(|r| r.run == run).count();
    s.push_str(&format!(
        "A: {} ({} rollouts)   B: {} ({} rollouts)\n",
        set.runs[c.a as usize],
        count(c.a),
        set.runs[c.b as usize],
        count(c.b)
    ));
    s.push_str(&format!(
        "pairs: {} (same task, i-th rollout in A with the i-th in B); unpaired: {} in A, {} in B\n\n",
        c.pairs.len(),
        c.unpaired_a,
        c.unpaired_b
    ));
    s.push_str(&matrix_table(c).text());
    if let Some(t) = reward_table(set, &[c.a, c.b]) {
        s.push('\n');
        s.push_str(&t.text());
    }
    let m = &c.mcnemar;
    s.push_str(&format!(
        "\nMcNemar (exact, two-sided) on right / not right: A right & B not {}, A not & B right {}, p = {}\n",
        m.a_right_b_wrong,
        m.a_wrong_b_right,
        fmt_p(m.p_value)
    ));
    match &c.task_test {
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

/// Runs `sebx compare`.
pub fn run_compare(args: CompareArgs) -> Result<ExitCode> {
    let mut files = vec![args.a.clone(), args.b.clone()];
    files.extend(args.more.iter().cloned());
    // Everything the flags and the files' kinds can tell is checked before any grading.
    let cell = match args.cell.as_slice() {
        [] => None,
        [a, b] => {
            let parse = |s: &str| {
                Verdict::parse(s.trim()).with_context(|| {
                    format!("--cell: `{s}` is not a verdict (right, result_error, exe_error, use_numpy, without_zwc)")
                })
            };
            Some((parse(a)?, parse(b)?))
        }
        _ => bail!("--cell takes two verdicts, e.g. --cell right,exe_error"),
    };
    let inputs = classify_inputs(&files, &[])?;
    if inputs.runs.len() != 2 {
        bail!(
            "compare needs exactly two rollout files (runs); found {}: {}",
            inputs.runs.len(),
            inputs
                .runs
                .iter()
                .map(|r| r.path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let loaded = load_runs(&files, &args.input)?;
    let c = runs::compare(&loaded.set, 0, 1, args.input.seed);
    let mut out = writer(args.input.output.as_deref())?;
    match args.format {
        Format::Json => {
            let mut v = compare_json(&loaded, &c);
            if let (Some((va, vb)), Some(obj)) = (cell, v.as_object_mut()) {
                let t = cell_table(&loaded, &c, va, vb);
                obj.insert(
                    "cell".into(),
                    json!({"verdict_a": va, "verdict_b": vb, "pairs": t.rows.iter().map(|r| json!({"a_line": r[0].parse::<usize>().ok(), "b_line": r[1].parse::<usize>().ok()})).collect::<Vec<_>>()}),
                );
            }
            serde_json::to_writer_pretty(&mut out, &v)?;
            out.write_all(b"\n")?;
        }
        Format::Table => {
            let text = match cell {
                Some((va, vb)) => cell_table(&loaded, &c, va, vb).text(),
                None => compare_text(&loaded, &c, args.top),
            };
            out.write_all(text.as_bytes())?;
        }
        Format::Md | Format::Csv => {
            let tables = match cell {
                Some((va, vb)) => vec![cell_table(&loaded, &c, va, vb)],
                None => vec![
                    matrix_table(&c),
                    compare_function_table(
                        &c,
                        if args.format == Format::Csv {
                            0
                        } else {
                            args.top
                        },
                    ),
                    compare_task_table(
                        &c,
                        if args.format == Format::Csv {
                            0
                        } else {
                            args.top
                        },
                    ),
                ],
            };
            let text: Vec<String> = tables
                .iter()
                .map(|t| {
                    if args.format == Format::Md {
                        t.markdown()
                    } else {
                        t.csv()
                    }
                })
                .collect();
            out.write_all(text.join("\n").as_bytes())?;
            if args.format == Format::Md && cell.is_none() {
                let m = &c.mcnemar;
                out.write_all(
                    format!(
                        "\nPairs: {} (unpaired: {} in A, {} in B). McNemar exact two-sided p = {} ({} right→not right, {} not right→right).\n",
                        c.pairs.len(),
                        c.unpaired_a,
                        c.unpaired_b,
                        fmt_p(m.p_value),
                        m.a_right_b_wrong,
                        m.a_wrong_b_right
                    )
                    .as_bytes(),
                )?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
