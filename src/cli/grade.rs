//! `sebx grade`: the official verdicts for whole rollout files, headless.

use crate::model::discovery::ContextArgs;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use indicatif::ProgressBar;

use crate::grade::batch::{Summary, grade_all_counted};
use crate::grade::engine::Engine;
use crate::grade::facts::Facts;
use crate::grade::grader::note_entry_mismatch;
use crate::grade::report::GradeReport;
use crate::grade::reward::Scorer;
use crate::grade::settings::{GradingSettings, parse_timeout};
use crate::model::{LoadedFile, Rollout, Verdict};
use crate::session::caches::CacheFlags;
use crate::session::{Session, SessionArgs};

/// Grade rollout files exactly as the official SE-Bench grader does.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Writes one JSON object per input line, in input order, to -o (or stdout):\n\
source, line, id, verdict (right | result_error | exe_error | use_numpy | without_zwc;\n\
null for a line that could not be loaded), the static check, per-case results,\n\
stdout/stderr tails, timed_out and elapsed time. The summary goes to stderr."
)]
pub struct GradeArgs {
    /// Rollout files (JSONL in the official rollout format; each file is one run), folders
    /// of them, training runs (`RUN`, `RUN@STEP`, a step file), with any dataset or API doc
    /// among them (taken as --dataset and --api-doc).
    #[arg(required = true)]
    pub rollouts: Vec<PathBuf>,
    /// Where to write the scored JSONL (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Also write the `right` rollouts, unchanged, to this file (like the official script).
    #[arg(long, value_name = "FILE")]
    pub correct_out: Option<PathBuf>,
    #[command(flatten)]
    pub context: ContextArgs,
    /// Programs run in parallel (default: number of cores).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Wall-clock timeout per program in seconds (official: 3).
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = parse_timeout,
          allow_negative_numbers = true)]
    pub timeout: Duration,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Reuse verdicts the score cache already has for these rollouts (same grader, same
    /// API doc, same test cases, same timeout and scorer) instead of running them again,
    /// and the remembered run of any program that ran before, whichever rollout it came
    /// from (same program and inputs, same timeout and sandbox).
    #[arg(long, conflicts_with = "no_cache")]
    pub cached: bool,
    #[command(flatten)]
    pub cache: CacheFlags,
    /// Grade only shard I of N (0-based): the I-th of N contiguous, near-equal runs of all
    /// input lines, in input order. `sebx merge` joins the N outputs into the unsharded file.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Which official scorer: the evaluation judge's verdict, the RL reward SE-Bench trains
    /// with (`"reward": 0|1` on each line), or both (plus `"reward_reason"` wherever they
    /// disagree). See README, "Two official scorers".
    #[arg(long, value_enum, default_value_t = Scorer::Verdict)]
    pub scorer: Scorer,
    /// Also ask the behaviour questions of every rollout a scorer pays: two more runs under
    /// the tracer each, and a `"behaviour"` object on its line naming the loopholes the run
    /// showed whatever the code looks like (NumPy reached, zwc for show, forged output,
    /// printed code the judge evaluates). See README, "Loopholes by behaviour".
    #[arg(long)]
    pub behaviour: bool,
}

/// One shard of a grading job: `index` of `count`, both from `--shard I/N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// The half-open range of the `total` input lines this shard grades.
    pub fn range(&self, total: usize) -> std::ops::Range<usize> {
        (self.index * total / self.count)..((self.index + 1) * total / self.count)
    }
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    let (i, n) = text
        .split_once('/')
        .ok_or_else(|| format!("expected I/N (e.g. 0/4), found {text:?}"))?;
    let index: usize = i
        .trim()
        .parse()
        .map_err(|_| format!("shard index {i:?} is not a number"))?;
    let count: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("shard count {n:?} is not a number"))?;
    if count == 0 {
        return Err("the shard count must be at least 1".to_string());
    }
    if index >= count {
        return Err(format!(
            "shard index {index} is out of range for {count} shards (0 to {})",
            count - 1
        ));
    }
    Ok(Shard { index, count })
}

pub use crate::session::default_jobs;

pub fn run(args: GradeArgs) -> Result<ExitCode> {
    // A missing input is named before anything is looked for on its behalf.
    let session = Session::build(SessionArgs {
        command: "grade",
        paths: &args.rollouts,
        correct: &[],
        context: &args.context,
        cache: &args.cache.choice(),
    })?
    .say();
    session.refuse_scored()?;
    session.runs()?;
    let api = session.require_api()?;
    let dataset = &session.dataset;
    let mut files: Vec<(PathBuf, LoadedFile, Vec<u8>)> = Vec::new();
    for run in session.runs()? {
        for f in session.files(run)? {
            for issue in &f.loaded.issues {
                crate::warnln!("warning: {issue}");
            }
            if let Some(warning) = f.loaded.empty_warning(&f.path) {
                crate::warnln!("warning: {warning}");
            }
            files.push((f.path, f.loaded, f.bytes));
        }
    }
    if files.iter().all(|(_, f, _)| f.rollouts.is_empty()) {
        bail!(
            "no rollout loaded from {}: nothing to grade (see the warnings above)",
            crate::session::inputs::named(&args.rollouts)
        );
    }
    // Every input line (good or bad) in input order; a shard keeps a contiguous run.
    let total: usize = files.iter().map(|(_, f, _)| f.entries().len()).sum();
    let keep = match args.shard {
        Some(shard) => shard.range(total),
        None => 0..total,
    };
    if let Some(shard) = args.shard {
        crate::warnln!(
            "shard {}/{}: input lines {} to {} of {total}",
            shard.index,
            shard.count,
            keep.start + 1,
            keep.end
        );
    }
    let mut kept: Vec<Vec<bool>> = Vec::new();
    let mut position = 0;
    for (_, loaded, _) in &files {
        let entries = loaded.entries();
        kept.push(
            (position..position + entries.len())
                .map(|i| keep.contains(&i))
                .collect(),
        );
        position += entries.len();
    }
    let rollouts: Vec<&Rollout> = files
        .iter()
        .zip(&kept)
        .flat_map(|((_, f, _), kept)| {
            f.entries()
                .into_iter()
                .zip(kept.iter().copied())
                .filter_map(|(e, k)| if k { e.ok() } else { None })
                .collect::<Vec<_>>()
        })
        .collect();

    let jobs = args.jobs.unwrap_or_else(default_jobs).max(1);
    // The settings every report is graded (and looked up, and remembered) under.
    let settings = GradingSettings::official()
        .with_timeout(args.timeout)
        .with_scorer(args.scorer)
        .with_behaviour(args.behaviour);
    let opened = session.score_cache(&settings);
    for note in &opened.notes {
        crate::warnln!("note: {note}");
    }
    let cache = opened.cache.clone();
    // With --cached, what the cache knows is not run again.
    let mut cached_reports = Vec::new();
    let rollouts: Vec<&Rollout> = match (&cache, args.cached) {
        (Some(cache), true) => rollouts
            .into_iter()
            .filter(|r| {
                match cache.get(r).filter(|report| {
                    // A paid rollout remembered without the behaviour answers asked for now is
                    // graded again.
                    !(settings.behaviour && Facts::of(report).behaviour_pending())
                }) {
                    Some(report) => {
                        cached_reports.push(report);
                        false
                    }
                    None => true,
                }
            })
            .collect(),
        _ => rollouts,
    };
    if !cached_reports.is_empty() {
        crate::warnln!(
            "score cache: {} verdicts reused from {}",
            cached_reports.len(),
            cache
                .as_ref()
                .map_or(String::new(), |c| c.path().display().to_string())
        );
    }
    let engine = Engine::start_with(api, settings.pool_config(jobs))?;
    // Ctrl-C: the verdicts done so far are written and the pool is dropped on the way out.
    crate::grade::interrupt::install();
    for note in engine.notes() {
        crate::warnln!("sandbox: {note}");
    }
    let by_place: std::collections::HashMap<(String, usize), &Rollout> = rollouts
        .iter()
        .map(|r| ((r.source.display().to_string(), r.line), *r))
        .collect();

    // The time left from the whole pool's rate, once a few programs per worker are in.
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        crate::grade::eta::pool_bar(rollouts.len(), "grading", jobs)
    };
    // Verdicts are remembered as they arrive, in batches (one transaction each, written
    // at least every couple of seconds), so an interrupted run loses only the last batch.
    let batch = opened.batched();
    let graded = rollouts.len();
    // Every run is remembered by program; with --cached, a program that ran before (for any
    // rollout, in any file) is not run again either: its remembered run is graded.
    let runner = opened.runner(&engine, args.cached);
    let (mut reports, counts) = grade_all_counted(
        &rollouts,
        &runner,
        jobs,
        settings.timeout,
        settings.plan(),
        &|n, report| {
            bar.set_position(n as u64);
            // Filed under what the report carries: a reward-only report answers no verdict
            // lookup.
            if let Some(batch) = &batch
                && let Some(rollout) = by_place.get(&(report.source.clone(), report.line))
                && let Err(e) = batch.put(rollout, report)
            {
                bar.suspend(|| crate::warnln!("warning: score cache: {e:#}"));
            }
        },
    );
    if let Some(batch) = &batch
        && let Err(e) = batch.flush()
    {
        bar.suspend(|| crate::warnln!("warning: score cache: {e:#}"));
    }
    // By place: an interrupted run has reports for some rollouts only.
    for report in reports.iter_mut() {
        if let Some(rollout) = by_place.get(&(report.source.clone(), report.line))
            && let Some(item) = dataset.get(&rollout.query)
        {
            note_entry_mismatch(report, &item.function_name);
        }
    }
    bar.finish_and_clear();
    let interrupted = crate::grade::interrupt::requested().then_some(reports.len());
    reports.extend(cached_reports);

    // Reassemble every line, good or bad, in input order per file.
    let mut by_key = std::collections::HashMap::new();
    for r in reports {
        by_key.insert((r.source.clone(), r.line), r);
    }
    let mut all: Vec<GradeReport> = Vec::new();
    let mut correct_lines: Vec<&[u8]> = Vec::new();
    for ((path, loaded, bytes), kept) in files.iter().zip(&kept) {
        let src = path.display().to_string();
        let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        for (entry, _) in loaded.entries().into_iter().zip(kept).filter(|(_, k)| **k) {
            match entry {
                Ok(r) => {
                    if let Some(report) = by_key.remove(&(src.clone(), r.line)) {
                        if report.verdict == Some(Verdict::Right)
                            && let Some(raw) = lines.get(r.line - 1)
                        {
                            correct_lines.push(raw.strip_suffix(b"\r").unwrap_or(raw));
                        }
                        all.push(report);
                    }
                }
                Err(issue) => all.push(GradeReport::load_failure(&src, issue.line, &issue.reason)),
            }
        }
    }

    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    for r in &all {
        serde_json::to_writer(&mut out, r)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    if let Some(p) = &args.correct_out {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        );
        for line in &correct_lines {
            f.write_all(line)?;
            f.write_all(b"\n")?;
        }
        f.flush()?;
    }
    let summary = Summary::from_reports(&all);
    for line in summary.lines() {
        crate::warnln!("{line}");
    }
    if graded > 0 {
        // Rollouts that share their code (whatever the prose) share one run.
        let answered = runner.answered();
        crate::warnln!(
            "programs executed: {} for {graded} rollouts graded ({} more programs answered by an identical one's run{})",
            counts.programs_run - answered,
            counts.programs_reused,
            if answered > 0 {
                format!(", {answered} by a run remembered from an earlier session")
            } else {
                String::new()
            }
        );
    }
    if let Some(done) = interrupted {
        let to = args
            .output
            .as_ref()
            .map_or_else(|| "stdout".to_string(), |p| p.display().to_string());
        crate::warnln!(
            "interrupted: {done} of {graded} rollouts graded, their verdicts written to {to}; run the same command with --cached to grade the rest (the score cache keeps what was done{})",
            if cache.is_some() {
                ""
            } else {
                ": no score cache in this run, so all are graded again"
            }
        );
        // 128 + SIGINT, as a shell reports a command Ctrl-C stopped.
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
