//! Loading the runs of `sebx stats`, `sebx compare` and `sebx report` from their
//! [`Session`]: the inputs as the session classified them, its API map and dataset (never
//! read again), every rollout's verdict by the resolver's precedence (grading, with a
//! progress bar, those that have none, and the official RL reward wherever a training run
//! needs it), one analysis per rollout and the hand labels, into a [`RunSet`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

use super::caches::open_score_cache;
use super::inputs::Inputs;
use super::resolve::{Resolved, Resolver, VerdictSource};
use super::setup::Session;
use crate::analysis::{Analysis, analyze_rollout, extract_last_python_block};
use crate::grade::batch::{SharedRuns, grade_all_shared};
use crate::grade::engine::Engine;
use crate::grade::report::GradeReport;
use crate::grade::reward::Scorer;
use crate::grade::run_cache::Remembered;
use crate::grade::runs::{RunSet, SampleFacts, UngradedSample, kinds_of};
use crate::grade::settings::Plan;
use crate::model::bounded::Bounded;
use crate::model::labels::{LABELS_SUFFIX, LabelStore};
use crate::model::rollout::load_rollout_file;
use crate::model::taxonomy::Taxonomy;
use crate::model::tokenizer::TokenCounter;
use crate::model::verl::{DumpRun, JoinIndex, JoinedBy, RunReader};
use crate::model::{ApiMap, Dataset, LoadedFile, Rollout};

use super::facts_cache;

/// What loading runs takes besides its [`Session`] (the inputs, their context, the cache
/// and where the sidecars are come from it): the flags of `stats`, `compare`, `report`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Programs graded in parallel (default: the cores).
    pub jobs: Option<usize>,
    /// Wall-clock timeout per graded program (official: 3 s).
    pub timeout: std::time::Duration,
    /// Whose hand labels count (default: the annotator with the most labels in each file).
    pub annotator: Option<String>,
    /// No progress bars.
    pub quiet: bool,
    /// A HuggingFace `tokenizer.json`: the samples' responses are counted in its tokens too.
    pub tokenizer: Option<PathBuf>,
    /// Ask the behaviour questions of every rollout a scorer pays (its traced runs count
    /// the loopholes the code's look hides); `--no-behaviour` turns it off.
    pub behaviour: bool,
}

pub use super::loaded::{Loaded, LoadedRun};

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

/// An error unless a run is among `inputs` (what the figures are counted over): what a
/// command that loads runs checks before its session reads the API doc and datasets.
pub fn need_runs(inputs: &Inputs) -> Result<()> {
    if inputs.runs.is_empty() {
        bail!("the figures need {}", super::setup::no_runs(inputs));
    }
    Ok(())
}

/// Loads the runs of `session`: verdicts from scored files, stored scores or grading (with
/// a progress bar), then one analysis per rollout and the hand labels. The inputs are the
/// session's as classified, the API map and dataset its own as read.
pub fn load_runs(session: &Session, input: &RunOptions) -> Result<Loaded> {
    let inputs = &session.inputs;
    need_runs(inputs)?;
    let mut notes = inputs.notes.clone();
    let run_files: Vec<(PathBuf, bool)> = inputs
        .runs
        .iter()
        .map(|r| (r.path.clone(), r.correct))
        .collect();
    let dumps: Vec<Option<&DumpRun>> = inputs.runs.iter().map(|r| r.dump.as_ref()).collect();
    let paths: Vec<PathBuf> = run_files.iter().map(|(p, _)| p.clone()).collect();
    let found = &session.found;
    let dataset: &Dataset = &session.dataset;
    let sidecars = &session.sidecars;
    let no_api = ApiMap::default();
    let api = session.api_found().unwrap_or_else(|| {
        notes.push(
            "no API doc (pass --api-doc FILE or set SEBX_API_DOC): the internalization map and wrong names are empty, and rollouts without a verdict cannot be graded".to_string(),
        );
        &no_api
    });
    // Training runs: the facts of an earlier `sebx stats` on the very same files.
    let facts = dumps.iter().any(Option::is_some).then(|| {
        let mut read: Vec<PathBuf> = inputs.run_paths();
        read.extend(inputs.reports.iter().cloned());
        for (path, dump) in paths.iter().zip(&dumps) {
            if let Some(run) = dump {
                read.extend(run.steps.iter().map(|s| s.path.clone()));
            }
            for suffix in [LABELS_SUFFIX, crate::grade::reruns::RERUNS_SUFFIX] {
                read.push(sidecars.locate(path, suffix).path);
            }
        }
        read.extend(found.api_doc.iter().map(|f| f.path().to_path_buf()));
        read.extend(found.datasets.iter().map(|f| f.path().to_path_buf()));
        // The categories stored with the facts come from each run's taxonomy file.
        read.extend(paths.iter().filter_map(|p| Taxonomy::find_for(p)));
        // The token counts: with another tokenizer (or none), other figures.
        read.extend(input.tokenizer.iter().cloned());
        let runs = inputs
            .runs
            .iter()
            .map(|r| match &r.dump {
                Some(d) => (d.name.clone(), d.steps.iter().map(|s| s.step).collect()),
                None => (r.path.display().to_string(), Vec::new()),
            })
            .collect();
        facts_cache::FactsKey::new(
            &read,
            runs,
            api,
            input.timeout,
            input.annotator.as_deref(),
            input.behaviour,
        )
        .with_reading(dumps.iter().flatten().map(|d| d.reading_key()).collect())
        .digest()
    });
    let facts_dir = session.cache.dir();
    if let (Some(key), Some(dir)) = (&facts, &facts_dir)
        && let Some(mut known) = facts_cache::load(dir, key)
    {
        known.notes.push(format!(
            "figures reused from an earlier run on the same files (training cache {key}; `sebx cache clear` forgets it)"
        ));
        return Ok(known);
    }
    let tokenizer = match &input.tokenizer {
        Some(path) => Some(TokenCounter::load(path)?),
        None => None,
    };
    let jobs = input.jobs.unwrap_or_else(super::default_jobs).max(1);
    // Verdicts an earlier `sebx grade` or explorer session remembered are reused.
    // At the timeout the rollouts below are graded with; a lookup asks for the verdict (a
    // record with the reward too is preferred), what is graded carries both.
    let opened = open_score_cache(
        &session.cache,
        api,
        &crate::grade::settings::GradingSettings::official().with_timeout(input.timeout),
    );
    notes.extend(opened.notes);
    let cache = opened.cache;
    let (resolver, issues) = Resolver::new(&inputs.reports, cache.clone())?;
    let resolver = resolver.with_sidecars(sidecars.clone());
    for issue in issues {
        crate::warnln!("warning: {issue}");
    }

    let mut loaded_files: Vec<(LoadedFile, bool)> = Vec::new();
    let join = dumps
        .iter()
        .any(Option::is_some)
        .then(|| JoinIndex::new(dataset));
    if join.as_ref().is_some_and(JoinIndex::is_empty) {
        notes.push("no dataset (pass --dataset FILE, e.g. datasets/train/train.jsonl): the samples of training runs cannot be joined to their tasks, so they have no test cases and are not graded".to_string());
    }
    for ((path, correct), dump) in run_files.iter().zip(&dumps) {
        let loaded = match dump {
            // Training runs are read step by step below, never whole.
            Some(_) => LoadedFile::default(),
            None => load_rollout_file(path)
                .with_context(|| format!("cannot read {}", path.display()))?,
        };
        for issue in &loaded.issues {
            crate::warnln!("warning: {issue}");
        }
        if let Some(warning) = dump.is_none().then(|| loaded.empty_warning(path)).flatten() {
            crate::warnln!("warning: {warning}");
        }
        loaded_files.push((loaded, *correct));
    }
    // Every verdict known without grading, by the resolver's precedence.
    let mut verdicts: Vec<Vec<Option<Resolved>>> = loaded_files
        .iter()
        .map(|(f, correct)| {
            let rollouts: Vec<&Rollout> = f.rollouts.iter().collect();
            resolver.known_many(&rollouts, *correct)
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
    // Whether every rollout that can be graded has a verdict (only then are facts kept).
    let mut complete = true;
    let missing: Vec<(usize, usize)> = verdicts
        .iter()
        .enumerate()
        .flat_map(|(f, vs)| {
            vs.iter()
                .enumerate()
                .filter(|(_, v)| needs_grading(v.as_ref(), false, !api.is_empty(), input.behaviour))
                .map(move |(i, _)| (f, i))
                .filter(|&(f, i)| gradable(&loaded_files[f].0.rollouts[i]))
        })
        .collect();
    if !missing.is_empty() {
        if api.is_empty() {
            bail!(
                "{} rollouts have no verdict and there is no API doc to grade them with (pass --api-doc FILE, or a `sebx grade` output)",
                missing.len()
            );
        }
        let todo: Vec<&Rollout> = missing
            .iter()
            .map(|&(f, i)| &loaded_files[f].0.rollouts[i])
            .collect();
        let graded = grade_missing(
            api,
            cache.as_deref(),
            &todo,
            input.jobs,
            input.timeout,
            input.quiet,
            input.behaviour,
        )?;
        // Said apart: without a verdict; a scored file's verdict without the official RL
        // reward; paid, graded again to ask the behaviour questions.
        let without = missing
            .iter()
            .filter(|&&(f, i)| verdicts[f][i].is_none())
            .count();
        let reward_only = missing
            .iter()
            .filter(|&&(f, i)| {
                verdicts[f][i].as_ref().is_some_and(|k| {
                    k.source == VerdictSource::Scored && scored_without_reward(Some(&k.facts), true)
                })
            })
            .count();
        let again = missing.len() - without - reward_only;
        if without > 0 {
            notes.push(format!("graded {without} rollouts without a verdict"));
        }
        if reward_only > 0 {
            notes.push(format!(
                "graded {reward_only} rollouts with a verdict but no official RL reward (the scored file's verdict kept)"
            ));
        }
        if again > 0 {
            notes.push(format!(
                "graded {again} rollouts a scorer pays again, to ask the behaviour questions"
            ));
        }
        let mut failed = 0;
        for (&(f, i), report) in missing.iter().zip(&graded.reports) {
            verdicts[f][i] = completed(verdicts[f][i], report, false);
            failed += usize::from(report.verdict.is_none());
        }
        notes.extend(graded.notes);
        complete = failed == 0;
    }

    let total: usize = loaded_files.iter().map(|(f, _)| f.rollouts.len()).sum();
    let progress = bar(input.quiet || total < 2000, total, "analyzing");
    // Samples of a training run repeat code: one analysis per (task, code).
    let mut analyses: Bounded<(usize, String), Analysis> = Bounded::new(4096);
    let mut set = RunSet::default();
    let mut runs = Vec::new();
    // Training runs: one engine, and the runs of distinct programs shared across steps.
    let mut engine: Option<Engine> = None;
    let shared = SharedRuns::default();
    let mut streamed = Streamed::default();
    for ((((path, _), (file, _)), vs), dump) in run_files
        .iter()
        .zip(&loaded_files)
        .zip(&verdicts)
        .zip(&dumps)
    {
        let name = dump.map_or_else(|| run_name(path), |d| d.name.clone());
        let run = set.add_run(&name);
        let (store, issues) = LabelStore::open_sidecar(&sidecars.locate(path, LABELS_SUFFIX).path)
            .with_context(|| format!("cannot read the labels of {}", path.display()))?;
        for issue in issues {
            crate::warnln!("warning: skipped a damaged label line: {issue}");
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
        let labels_of = |r: &Rollout| {
            annotator
                .as_deref()
                .and_then(|a| store.current(&r.id, a))
                .map(|rec| rec.categories.iter().map(|c| c.0.clone()).collect())
        };
        if let (Some(dump), Some(join)) = (dump, &join) {
            let cx = StreamCx {
                join,
                dataset,
                api,
                resolver: &resolver,
                cache: cache.as_deref(),
                jobs,
                tokenizer: tokenizer.as_ref(),
                timeout: input.timeout,
                quiet: input.quiet,
                behaviour: input.behaviour,
            };
            let got = stream_dump(dump, &cx, &mut engine, &shared, &mut |r, known, sample| {
                add_one(
                    &mut set,
                    run,
                    r,
                    known,
                    sample,
                    api,
                    dataset,
                    labels_of(r),
                    &mut analyses,
                )
            })?;
            streamed.add(&got);
        }
        let rollouts: Vec<&Rollout> = file.rollouts.iter().collect();
        // Counting tokens takes a while on a big file: a bar of its own.
        let counting = bar(
            input.quiet || tokenizer.is_none() || rollouts.len() < 2000,
            rollouts.len(),
            "counting tokens",
        );
        let samples = SampleFacts::of_all(&rollouts, tokenizer.as_ref(), jobs, &|n| {
            counting.inc(n as u64)
        });
        counting.finish_and_clear();
        for ((r, v), sample) in file.rollouts.iter().zip(vs).zip(samples) {
            progress.inc(1);
            add_one(
                &mut set,
                run,
                r,
                v.as_ref(),
                sample,
                api,
                dataset,
                labels_of(r),
                &mut analyses,
            );
        }
        runs.push(LoadedRun {
            path: path.clone(),
            name,
            annotator,
            categories,
        });
    }
    progress.finish_and_clear();
    // "Nothing loaded" must never read as "the model scored 0%".
    if set.rollouts.is_empty() && set.ungraded.is_empty() {
        let paths: Vec<PathBuf> = run_files.iter().map(|(p, _)| p.clone()).collect();
        bail!(
            "no rollout loaded from {} (see the warnings above)",
            super::inputs::named(&paths)
        );
    }
    streamed.notes(&shared, &mut notes);
    complete &= streamed.failed == 0;
    if !set.unknown_selected.is_empty() {
        let names: Vec<&str> = set.unknown_selected.iter().map(String::as_str).collect();
        notes.push(format!(
            "{} selected functions are not in the API doc and have no row in the map: {}",
            names.len(),
            names.join(", ")
        ));
    }
    let rewarded = set.rollouts.iter().filter(|r| r.reward.is_some()).count();
    if rewarded > 0 && rewarded < set.rollouts.len() {
        notes.push(format!(
            "the official RL reward is known for {rewarded} of {} rollouts (`sebx grade --scorer both` scores it for all)",
            set.rollouts.len()
        ));
    }
    let loaded = Loaded { set, runs, notes };
    if let (Some(key), Some(dir), true) = (&facts, &facts_dir, complete) {
        facts_cache::store(dir, key, &loaded);
    }
    Ok(loaded)
}

/// Whether a rollout must be graded for the figures: it has no verdict; or a scored file
/// gave its verdict without the official RL reward (a verdict-only `sebx grade`): the mean
/// reward is a figure over every rollout, never over those that happen to have one, so
/// what the file lacks is computed, the file's verdict kept; or it is a sample of a
/// training run whose reward is not known (a training run's reward is a headline figure);
/// or, with `behaviour`, a scorer pays it and its grade did not ask the behaviour
/// questions. A verdict from another source (stored in the line, a correct-trajectories
/// file, a rerun, the score cache) keeps what it knows: where the reward is unknown the
/// mean is `–` and says for how many. Without an API doc (`can_grade` false) nothing can
/// be graded, so only a missing verdict counts (and is reported as such).
fn needs_grading(
    known: Option<&Resolved>,
    training: bool,
    can_grade: bool,
    behaviour: bool,
) -> bool {
    known.map_or(wants_grading(None, training, can_grade, behaviour), |k| {
        wants_grading(Some(&k.facts), training, can_grade, behaviour)
            || (k.source == VerdictSource::Scored
                && scored_without_reward(Some(&k.facts), can_grade))
    })
}

/// The rule of [`needs_grading`] on what is known of a rollout (its grade's facts, `None`:
/// no verdict), for a front end that holds its rows' facts itself (the explorer asks it of
/// every remembered row, so its Training screen has the rewards and its Stats screen the
/// loopholes `sebx stats` has). With `behaviour`, a rollout a scorer pays whose grade did
/// not ask the behaviour questions is graded again to ask them.
pub fn wants_grading(
    facts: Option<&crate::grade::facts::Facts>,
    training: bool,
    can_grade: bool,
    behaviour: bool,
) -> bool {
    let Some(f) = facts.filter(|f| f.verdict.is_some()) else {
        return true;
    };
    can_grade && ((training && f.reward.is_none()) || (behaviour && f.behaviour_pending()))
}

/// Whether a verdict a scored file gave (its facts) lacks the official RL reward that can
/// be graded for it (the explorer asks it of its rows from scored files, as
/// [`needs_grading`] does of `sebx stats`').
pub fn scored_without_reward(facts: Option<&crate::grade::facts::Facts>, can_grade: bool) -> bool {
    can_grade && facts.is_some_and(|f| f.verdict.is_some() && f.reward.is_none())
}

/// What [`grade_missing`] graded: a report per rollout, in order, and what to tell the user.
pub struct Graded {
    pub reports: Vec<GradeReport>,
    pub notes: Vec<String>,
}

impl Graded {
    /// Each graded rollout's verdict and reward, as the resolver gives them (source
    /// `graded`; `None` where the grader could not run the rollout).
    pub fn resolved(&self) -> Vec<Option<Resolved>> {
        self.reports
            .iter()
            .map(|r| Resolved::of_report(r, VerdictSource::Graded))
            .collect()
    }
}

/// Grades `todo` (rollouts no source gives a verdict) with both official scorers, in chunks,
/// reusing the runs the score cache remembers and remembering what it grades: the one way
/// every command computes what the cache lacks (`stats`, `compare`, `labels export`).
pub fn grade_missing(
    api: &ApiMap,
    cache: Option<&crate::grade::score_cache::ScoreCache>,
    todo: &[&Rollout],
    jobs: Option<usize>,
    timeout: std::time::Duration,
    quiet: bool,
    behaviour: bool,
) -> Result<Graded> {
    let jobs = jobs.unwrap_or_else(super::default_jobs).max(1);
    let engine = Engine::start(api, jobs).with_context(|| {
        format!(
            "{} rollouts have no verdict and the grader cannot start (run `sebx runtime install`, or pass a `sebx grade` output)",
            todo.len()
        )
    })?;
    let progress = if quiet {
        ProgressBar::hidden()
    } else {
        crate::grade::eta::pool_bar(todo.len(), "grading", jobs)
    };
    // In chunks, so only one chunk's reports are held at a time; the runs of distinct
    // programs are shared across chunks.
    let shared = SharedRuns::default();
    // Programs that ran in an earlier session (for other rollouts) are not run again.
    let runner = Remembered::new(&engine, cache.and_then(|c| c.runs()), true);
    let mut reports = Vec::with_capacity(todo.len());
    for chunk in todo.chunks(GRADE_CHUNK) {
        let done = reports.len();
        // Both official scorers: the reward is shown beside accuracy.
        let graded = grade_all_shared(
            chunk,
            &runner,
            jobs,
            timeout,
            Plan {
                scorer: Scorer::Both,
                behaviour,
            },
            &shared,
            &|n, _| progress.set_position((done + n) as u64),
        );
        if let Some(cache) = cache {
            let pairs: Vec<(&Rollout, &GradeReport)> = chunk.iter().copied().zip(&graded).collect();
            // A cache that cannot be written only costs a regrade next time.
            let _ = cache.put_many(&pairs);
        }
        reports.extend(graded);
    }
    progress.finish_and_clear();
    let counts = shared.counts();
    let answered = runner.answered();
    let mut notes = Vec::new();
    notes.extend(behaviour_note(&reports));
    notes.push(format!(
        "{} programs executed for them ({} runs reused by identical programs, {answered} remembered from earlier sessions)",
        counts.programs_run - answered,
        counts.programs_reused
    ));
    let failed = reports.iter().filter(|r| r.verdict.is_none()).count();
    if failed > 0 {
        notes.push(format!(
            "{failed} rollouts could not be graded and are left out"
        ));
    }
    Ok(Graded { reports, notes })
}

/// What the behaviour questions found on `reports` (none asked: nothing to say).
pub fn behaviour_note(reports: &[GradeReport]) -> Option<String> {
    let traced: Vec<&crate::grade::report::BehaviourRun> = reports
        .iter()
        .filter_map(|r| r.behaviour.as_ref())
        .filter(|b| b.untraced.is_none())
        .collect();
    if traced.is_empty() {
        return None;
    }
    let mut kinds: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in traced.iter().flat_map(|b| &b.found) {
        *kinds.entry(f.kind.as_str()).or_default() += 1;
    }
    let found = if kinds.is_empty() {
        "no loophole found".to_string()
    } else {
        let each: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        format!("loopholes found: {}", each.join(", "))
    };
    Some(format!(
        "behaviour: {} paid rollouts traced ({found}; --no-behaviour skips this)",
        traced.len()
    ))
}

/// What a rollout is known by after grading it: a verdict already known is kept (every
/// front end shows it) with the behaviour questions' answers beside it, and for a sample of
/// a training run (`training`: graded for its reward) or a scored file's verdict without
/// the reward, the graded reward; else the graded report decides all. A report without a verdict (the grader failed) keeps what was known.
fn completed(
    before: Option<Resolved>,
    report: &crate::grade::report::GradeReport,
    training: bool,
) -> Option<Resolved> {
    let graded = Resolved::of_report(report, VerdictSource::Graded);
    match (before, graded) {
        (Some(mut k), Some(g)) => {
            if training || (k.source == VerdictSource::Scored && k.facts.reward.is_none()) {
                k.facts.reward = g.facts.reward;
                k.facts.reward_run = g.facts.reward_run;
                k.facts.reason = g.facts.reason;
                k.facts.judge_kinds = g.facts.judge_kinds;
            }
            k.facts.take_behaviour(&g.facts);
            Some(k)
        }
        (_, Some(g)) => Some(g),
        (before, None) => before,
    }
}

/// Rollouts graded per call, so that only that many reports are held at once.
const GRADE_CHUNK: usize = 4096;

/// Whether a rollout can be graded: a training sample joined to no task has no test cases.
pub fn gradable(r: &Rollout) -> bool {
    r.sample
        .as_deref()
        .is_none_or(|m| m.joined != JoinedBy::Unjoined)
}

/// The code the verdict grades ("" when none).
fn code_of(r: &Rollout) -> String {
    extract_last_python_block(&r.response)
        .map(|b| b.code)
        .unwrap_or_default()
}

/// Adds one rollout to the set: with its verdict and analysis (a training sample's
/// analysis shared by the samples of its task with the same code), or, for a training
/// sample without a verdict, as ungraded. `sample`: its facts when it is a sample
/// ([`SampleFacts::of_all`]).
#[allow(clippy::too_many_arguments)]
fn add_one(
    set: &mut RunSet,
    run: u32,
    r: &Rollout,
    known: Option<&Resolved>,
    sample: Option<SampleFacts>,
    api: &ApiMap,
    dataset: &Dataset,
    labels: Option<Vec<String>>,
    analyses: &mut Bounded<(usize, String), Analysis>,
) {
    let known = known.map(|k| (k.verdict, Some(&k.facts)));
    add_row(set, run, r, known, sample, api, dataset, labels, analyses);
}

/// [`add_one`] for a row known by its verdict and, when at hand, its facts (the reward, the
/// loophole kinds the runs settled): without facts the reward is unknown.
#[allow(clippy::too_many_arguments)]
fn add_row(
    set: &mut RunSet,
    run: u32,
    r: &Rollout,
    known: Option<(crate::model::Verdict, Option<&crate::grade::facts::Facts>)>,
    sample: Option<SampleFacts>,
    api: &ApiMap,
    dataset: &Dataset,
    labels: Option<Vec<String>>,
    analyses: &mut Bounded<(usize, String), Analysis>,
) {
    let Some((v, facts)) = known else {
        if let (Some(meta), Some(sample)) = (r.sample.as_deref(), sample) {
            // A training sample without a verdict is counted, never dropped.
            let kinds = if api.is_empty() {
                0
            } else {
                kinds_of(&analyze_rollout(r, api, None))
            };
            set.ungraded
                .push(UngradedSample::of(run, r, meta, sample, kinds));
        }
        return;
    };
    if api.is_empty() {
        set.add_bare(run, r, v, labels);
    } else if r.sample.is_some() {
        let item = dataset.get(&r.query);
        let key = (Arc::as_ptr(&r.query) as *const u8 as usize, code_of(r));
        if analyses.get(&key).is_none() {
            analyses.insert(key.clone(), analyze_rollout(r, api, item));
        }
        if let Some(analysis) = analyses.peek(&key) {
            set.add_with_analysis(run, r, v, analysis, api, item, labels);
        }
    } else {
        set.add_rollout(run, r, v, api, dataset.get(&r.query), labels);
    }
    match facts {
        Some(f) => set.set_last_facts(f),
        None => set.set_last_reward(None, None),
    }
    set.set_last_sample(sample);
}

/// A row the explorer holds, as a run set takes it: its run, its rollout, the verdict it
/// shows (none: not graded) with its facts when known, its facts as a training sample, its
/// labels.
pub struct HeldRow<'a> {
    /// The row's index in the explorer (what [`set_of_rows`] gives back).
    pub row: usize,
    pub run: u32,
    pub rollout: &'a Rollout,
    pub known: Option<(crate::model::Verdict, Option<crate::grade::facts::Facts>)>,
    pub sample: Option<SampleFacts>,
    pub labels: Option<Vec<String>>,
}

/// The run set of the explorer's rows (the Stats and Training screens), filled as `sebx
/// stats` fills its own ([`load_runs`]): the same analysis, reward, settled loophole kinds
/// and ungraded training samples. Gives the set and the `row` of each row it holds as
/// graded, in order.
pub fn set_of_rows<'a>(
    run_names: &[String],
    rows: impl IntoIterator<Item = HeldRow<'a>>,
    api: &ApiMap,
    dataset: &Dataset,
) -> (RunSet, Vec<usize>) {
    let mut set = RunSet::default();
    for name in run_names {
        set.add_run(name);
    }
    let mut analyses: Bounded<(usize, String), Analysis> = Bounded::new(4096);
    let mut graded = Vec::new();
    for row in rows {
        let known = row.known.as_ref().map(|(v, f)| (*v, f.as_ref()));
        if known.is_some() {
            graded.push(row.row);
        }
        add_row(
            &mut set,
            row.run,
            row.rollout,
            known,
            row.sample,
            api,
            dataset,
            row.labels,
            &mut analyses,
        );
    }
    (set, graded)
}

/// What streaming a training run reads besides the run.
struct StreamCx<'a> {
    join: &'a JoinIndex,
    dataset: &'a Dataset,
    api: &'a ApiMap,
    resolver: &'a Resolver,
    cache: Option<&'a crate::grade::score_cache::ScoreCache>,
    jobs: usize,
    /// Counts the samples' response tokens (`--tokenizer`).
    tokenizer: Option<&'a TokenCounter>,
    timeout: std::time::Duration,
    quiet: bool,
    behaviour: bool,
}

/// What streaming the training runs did, for the notes.
#[derive(Default)]
struct Streamed {
    samples: usize,
    from_cache: usize,
    graded: usize,
    failed: usize,
    /// Samples whose `gts` is not their task's expected result.
    gts_differs: usize,
    /// Programs answered by runs remembered from earlier sessions (none of them ran).
    remembered: usize,
}

impl Streamed {
    fn add(&mut self, other: &Streamed) {
        self.samples += other.samples;
        self.from_cache += other.from_cache;
        self.graded += other.graded;
        self.failed += other.failed;
        self.gts_differs += other.gts_differs;
    }

    fn notes(&self, shared: &SharedRuns, notes: &mut Vec<String>) {
        if self.from_cache > 0 {
            notes.push(format!(
                "{} verdicts of training samples reused from the score cache",
                self.from_cache
            ));
        }
        if self.graded > 0 {
            let counts = shared.counts();
            notes.push(format!(
                "graded {} training samples without a verdict ({} programs executed; {} runs reused by identical programs, {} remembered from earlier sessions)",
                self.graded,
                counts.programs_run - self.remembered,
                counts.programs_reused,
                self.remembered
            ));
        }
        if self.failed > 0 {
            notes.push(format!(
                "{} training samples could not be graded and are left out",
                self.failed
            ));
        }
        // The grader scores their reward against the `gts`, as training did
        // (`grade::reward::reward_truth`); the verdict stays the task's.
        match self.gts_differs {
            0 => {}
            1 => notes.push("1 sample has a `gts` that is not its task's right_exe_result; its official reward is computed against the `gts`, as in training".to_string()),
            n => notes.push(format!("{n} samples have a `gts` that is not their task's right_exe_result; their official reward is computed against the `gts`, as in training")),
        }
    }
}

/// What [`stream_dump`] hands each sample to: the sample, its verdict and its facts.
type AddSample<'a> = dyn FnMut(&Rollout, Option<&Resolved>, Option<SampleFacts>) + 'a;

/// Reads a training run one step file at a time: each step's samples get their verdicts
/// (by the resolver, else graded, the runs of identical programs shared through `shared`)
/// and their facts (tokens counted in parallel), and go to `add` before the next step is
/// read, so no more than one step's responses are held.
fn stream_dump(
    run: &DumpRun,
    cx: &StreamCx<'_>,
    engine: &mut Option<Engine>,
    shared: &SharedRuns,
    add: &mut AddSample<'_>,
) -> Result<Streamed> {
    let progress = if cx.quiet {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(run.bytes());
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{} {{bar:40}} {{bytes}}/{{total_bytes}} [{{elapsed_precise}} < {{eta_precise}}] {{msg}}",
                run.name
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    };
    let mut out = Streamed::default();
    for note in run.skipped_notes().into_iter().chain(run.reading_notes()) {
        progress.suspend(|| crate::warnln!("note: {note}"));
    }
    let mut reader = RunReader::new(cx.join, cx.dataset);
    for f in &run.steps {
        let bytes =
            std::fs::read(&f.path).with_context(|| format!("cannot read {}", f.path.display()))?;
        let step = reader.read_step(&f.path, f.step, &bytes);
        drop(bytes);
        for issue in &step.issues {
            progress.suspend(|| crate::warnln!("warning: {issue}"));
        }
        let rollouts: Vec<&Rollout> = step.rollouts.iter().collect();
        let mut known: Vec<Option<Resolved>> = cx.resolver.known_many(&rollouts, false);
        out.samples += step.rollouts.len();
        out.gts_differs += step
            .rollouts
            .iter()
            .filter(|r| r.sample.as_deref().is_some_and(|m| m.gts_differs.is_some()))
            .count();
        out.from_cache += known
            .iter()
            .flatten()
            .filter(|k| k.source == VerdictSource::Cache)
            .count();
        // A training run's official reward is a headline figure: every sample gets it.
        let missing: Vec<usize> = (0..step.rollouts.len())
            .filter(|&i| {
                needs_grading(known[i].as_ref(), true, !cx.api.is_empty(), cx.behaviour)
                    && gradable(&step.rollouts[i])
            })
            .collect();
        if !missing.is_empty() {
            if cx.api.is_empty() {
                bail!(
                    "{}: samples have no verdict and there is no API doc to grade them with (pass --api-doc FILE)",
                    f.path.display()
                );
            }
            if engine.is_none() {
                *engine = Some(Engine::start(cx.api, cx.jobs).context(
                    "training samples have no verdict and the grader cannot start (run `sebx runtime install`)",
                )?);
            }
            let Some(engine) = engine.as_ref() else {
                bail!("the grader did not start");
            };
            let todo: Vec<&Rollout> = missing.iter().map(|&i| &step.rollouts[i]).collect();
            // Programs that ran in an earlier session (for other samples) are not run again.
            let runner = Remembered::new(engine, cx.cache.and_then(|c| c.runs()), true);
            let reports = grade_all_shared(
                &todo,
                &runner,
                cx.jobs,
                cx.timeout,
                Plan {
                    scorer: Scorer::Both,
                    behaviour: cx.behaviour,
                },
                shared,
                &|_, _| {},
            );
            out.remembered += runner.answered();
            if let Some(cache) = cx.cache {
                let pairs: Vec<(&Rollout, &GradeReport)> =
                    todo.iter().copied().zip(&reports).collect();
                // A cache that cannot be written only costs a regrade next time.
                let _ = cache.put_many(&pairs);
            }
            for (&i, report) in missing.iter().zip(&reports) {
                known[i] = completed(known[i], report, true);
                out.failed += usize::from(report.verdict.is_none());
            }
            out.graded += missing.len();
        }
        // With a tokenizer, the step's responses counted so far (most of a step's time).
        let counted = std::sync::atomic::AtomicUsize::new(0);
        let samples = SampleFacts::of_all(&rollouts, cx.tokenizer, cx.jobs, &|n| {
            let done = counted.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n;
            progress.set_message(format!(
                "step {}: counting tokens {done}/{}",
                f.step,
                rollouts.len()
            ));
        });
        progress.set_message("");
        for ((r, k), sample) in step.rollouts.iter().zip(&known).zip(samples) {
            add(r, k.as_ref(), sample);
        }
        progress.inc(f.bytes);
    }
    progress.finish_and_clear();
    Ok(out)
}
