//! `sebx stats` and `sebx compare`: run-level figures and the paired comparison of two runs,
//! headless. Each builds one [`Session`] from its command line (as every command does) and
//! [`load_runs`] turns it into a run set (verdicts by the resolver's precedence,
//! grading the rest, one analysis per rollout, hand labels); [`crate::session::report`] computes everything
//! once into a typed, serializable report (the figures come from [`crate::grade::runs`]);
//! [`render`] turns a report into a table, Markdown, CSV or JSON (the JSON is the report's
//! types, serialized).

pub mod render;
pub mod training;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::grade::runs::{FunctionSort, LearnedAt, OnsetAt};
use crate::model::Verdict;
use crate::model::discovery::ContextArgs;
use crate::model::sampling::DEFAULT_SEED;
use crate::session::caches::CacheFlags;
use crate::session::inputs::Inputs;
use crate::session::runs::{RunOptions, need_runs};
use crate::session::sidecars::SidecarFlags;
use crate::session::{Session, SessionArgs};

pub use crate::session::report::{CompareReport, StatsReport, compare_report, compute_stats};
pub use crate::session::runs::{Loaded, LoadedRun, load_runs};
pub use render::{Table, render_compare, render_stats};

/// Output format of `sebx stats` and `sebx compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Aligned text with terminal charts.
    #[default]
    Table,
    /// Markdown tables, ready for a paper.
    Md,
    /// CSV: the one table of one `--by` (fractions as numbers, counts in columns of their
    /// own, text whole).
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
    /// Training runs, one row per step: samples, rewards (stored and official), accuracy,
    /// disagreements, zero-advantage groups, finding rates; and the unjoined samples.
    Step,
    /// Training runs: accuracy per zwc function and step (CSV: one row per cell).
    Heatmap,
    /// Training runs: when each task and function was first solved (at least half of a
    /// step's samples right, or --learned-at), last failed, its accuracy at its last step,
    /// and whether it ended learned, forgotten or never solved.
    Course,
    /// The official RL reward beside the verdict, per run (text: part of `run`).
    Reward,
    /// The rights and rewards of 1 through a loophole, per run (text: part of `run`).
    Loophole,
    /// Training runs: when each loophole took off (text: part of `step`).
    Onset,
    /// Training runs: the zero-advantage groups, one row each (text: part of `step`).
    Group,
    /// Training runs: the samples joined to no task (text: part of `step`).
    Unjoined,
}

impl By {
    /// The `--by` whose text and Markdown output already holds this one's table.
    pub fn parent(self) -> By {
        match self {
            By::Reward | By::Loophole => By::Run,
            By::Onset | By::Group | By::Unjoined => By::Step,
            other => other,
        }
    }
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
    #[command(flatten)]
    pub cache: CacheFlags,
    #[command(flatten)]
    pub sidecars: SidecarFlags,
    /// Do not trace the rollouts a scorer pays (by default each runs twice more under the
    /// tracer, so that the loopholes the code's look hides are counted: see README,
    /// "Loopholes by behaviour").
    #[arg(long)]
    pub no_behaviour: bool,
}

impl InputArgs {
    /// The one [`Session`] of `command` over `paths`: classified once (`check` is asked
    /// about them before the API doc and datasets are read), the context these flags find,
    /// their cache, and where the sidecars are (the flag, else the config's `sidecar_dir`).
    pub fn session(
        &self,
        command: &'static str,
        paths: &[PathBuf],
        check: impl FnOnce(&Inputs) -> Result<()>,
    ) -> Result<Session> {
        // The config is read (and a bad one said) before any input is.
        let sidecars = self.sidecars.places()?;
        let mut session = Session::build_checked(
            SessionArgs {
                command,
                paths,
                correct: &[],
                context: &self.context,
                cache: &self.cache.choice(),
            },
            check,
        )?;
        session.sidecars = sidecars;
        Ok(session)
    }

    /// What loading the runs takes from these flags besides the session.
    pub fn options(&self) -> RunOptions {
        RunOptions {
            jobs: self.jobs,
            timeout: self.timeout,
            annotator: self.annotator.clone(),
            quiet: self.quiet,
            tokenizer: None,
            behaviour: !self.no_behaviour,
        }
    }
}

/// Run-level figures: summary, accuracy with a task-clustered interval, pass@k, the
/// internalization map, wrong names and hand-label prevalence.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "FILES are any mix the explorer opens: rollout files (each one run), \
`sebx grade` output (verdicts joined by rollout id), correct-trajectories files, dataset files \
and an API doc. Rollouts without a verdict are graded first. A folder of verl step dumps \
({step}.jsonl) is a training run (a folder of such folders: one run each; FOLDER@N: step N \
alone); its samples are joined to their tasks through the dataset (--dataset), and \
--by step / heatmap / course follow it step by step (see the README, Training runs).\n\n\
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
    /// Tables to print (repeatable; default: all for table/md; csv: exactly one, default run).
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
    /// Training runs: a step solves a task or function when at least this share of its
    /// graded samples is right (0.5, or a percentage such as 75%; in (0, 1]). A course is
    /// learned when its last step reaches it, forgotten when an earlier step did but the last
    /// does not, never solved when no step did; the JSON states it (`learned_at`).
    #[arg(long, value_name = "SHARE", default_value = "0.5", value_parser = LearnedAt::parse)]
    pub learned_at: LearnedAt,
    /// Training runs: a loophole takes off at the first step from which at least this share
    /// of each step's graded samples goes through it, to the run's last step (0.1, or a
    /// percentage such as 10%; in (0, 1]). Per loophole kind and for any loophole; the JSON
    /// states it (`onset_at`, `onsets`).
    #[arg(long, value_name = "SHARE", default_value = "0.1", value_parser = OnsetAt::parse)]
    pub onset_at: OnsetAt,
    /// A HuggingFace tokenizer.json (the trained model's): training steps get the
    /// responses' length in tokens too (response_tokens_mean, response_tokens_p90).
    #[arg(long, value_name = "FILE")]
    pub tokenizer: Option<PathBuf>,
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

fn writer(output: Option<&Path>) -> Result<Box<dyn Write>> {
    Ok(match output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}

/// Loads the inputs of `sebx stats` and computes its typed report, once: what `sebx stats`
/// prints (and, from the session `sebx report` builds, what it draws).
pub fn stats_of(args: &StatsArgs) -> Result<(Loaded, StatsReport)> {
    let session = stats_session(args, "stats")?;
    let loaded = load_for_stats(args, &session)?;
    let report = stats_from(args, &loaded);
    Ok((loaded, report))
}

/// The one [`Session`] of a `sebx stats` invocation (`command`: the one run, `stats` or
/// `report`), after the options are checked: its paths classified, a run among them, its
/// API doc and datasets read.
pub fn stats_session(args: &StatsArgs, command: &'static str) -> Result<Session> {
    if args.k.contains(&0) {
        bail!("-k must be at least 1");
    }
    if args.format == Format::Csv && args.by.len() > 1 {
        bail!(
            "CSV is one table per stream: pass one --by (run one command per table), or --format json for every figure"
        );
    }
    args.input.session(command, &args.files, need_runs)
}

/// The first half of [`stats_of`]: the runs of `session` loaded (and graded).
pub fn load_for_stats(args: &StatsArgs, session: &Session) -> Result<Loaded> {
    let options = RunOptions {
        tokenizer: args.tokenizer.clone(),
        ..args.input.options()
    };
    load_runs(session, &options)
}

/// The second half of [`stats_of`]: the typed report of what was loaded.
pub fn stats_from(args: &StatsArgs, loaded: &Loaded) -> StatsReport {
    let mut report = compute_stats(loaded, &args.k, args.sort, args.input.seed, args.learned_at);
    if let Some(t) = report.training.as_mut() {
        t.figures = std::mem::take(&mut t.figures).with_onset_at(args.onset_at);
    }
    report
}

/// Runs `sebx stats`.
pub fn run_stats(args: StatsArgs) -> Result<ExitCode> {
    let (_, report) = stats_of(&args)?;
    let by = if !args.by.is_empty() {
        args.by.clone()
    } else if args.format == Format::Csv {
        vec![By::Run]
    } else if report.training.is_some() {
        vec![
            By::Run,
            By::Step,
            By::Heatmap,
            By::Course,
            By::Function,
            By::Finding,
            By::Category,
        ]
    } else {
        vec![By::Run, By::Function, By::Finding, By::Category]
    };
    let text = render_stats(&report, args.format, &by, args.top)?;
    let mut out = writer(args.input.output.as_deref())?;
    // Notes are about the run of the command, not the figures: stderr, in every format.
    for note in &report.notes {
        crate::warnln!("note: {note}");
    }
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
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
    let session = args.input.session("compare", &files, |inputs| {
        if inputs.runs.is_empty() {
            bail!(
                "`sebx compare` needs two runs: {}",
                crate::session::setup::no_runs(inputs)
            );
        }
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
        Ok(())
    })?;
    let loaded = load_runs(&session, &args.input.options())?;
    let report = compare_report(&loaded, 0, 1, args.input.seed, cell);
    let text = render_compare(&report, args.format, args.top)?;
    for note in &report.notes {
        crate::warnln!("note: {note}");
    }
    let mut out = writer(args.input.output.as_deref())?;
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
