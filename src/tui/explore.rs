//! `sebx [PATHS]...`: starting the terminal explorer over rollout files, scored results, dataset
//! files and an API doc; the bundled demo when no path is given.

use crate::model::discovery::ContextArgs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use serde::Deserialize;

use crate::grade::backend::{GradeBackend, Grader, Unavailable};
use crate::grade::runs::{LearnedAt, OnsetAt};
use crate::model::verl::JoinIndex;
use crate::model::{ApiMap, Dataset};
use crate::session::caches::{CacheFlags, open_score_cache};
use crate::session::inputs::{FolderHolds, GivenFolder, Inputs};
use crate::session::sidecars::SidecarFlags;
use crate::tui::action::KeyEntry;
use crate::tui::app::{App, Context, Grading};
use crate::tui::load::{FileKind, Source, SourceData};
use crate::tui::{Keymap, Theme};

/// The bundled demo, built into the binary so it works from any directory.
pub mod demo {
    pub const API_DOC: &str = include_str!("../../samples/demo/api_doc.jsonl");
    pub const TASKS: &str = include_str!("../../samples/demo/tasks.jsonl");
    pub const ROLLOUTS: &str = include_str!("../../samples/demo/rollouts.jsonl");
    /// A second run on the same tasks (another model).
    pub const ROLLOUTS_RUN2: &str = include_str!("../../samples/demo/rollouts_run2.jsonl");
    pub const SCORED: &str = include_str!("../../samples/demo/rollouts.scored.jsonl");
    /// Example labels of the first run by two annotators (seeded into the demo's sidecar).
    pub const LABELS: &str = include_str!("../../samples/demo/rollouts.jsonl.labels.jsonl");
    /// A small training run (verl step dumps, `build_training.py`): (run, step, text).
    pub const TRAINING: [(&str, u32, &str); 5] = [
        (
            "rollout",
            1,
            include_str!("../../samples/demo/training/rollout/1.jsonl"),
        ),
        (
            "rollout",
            2,
            include_str!("../../samples/demo/training/rollout/2.jsonl"),
        ),
        (
            "rollout",
            3,
            include_str!("../../samples/demo/training/rollout/3.jsonl"),
        ),
        (
            "validation",
            0,
            include_str!("../../samples/demo/training/validation/0.jsonl"),
        ),
        (
            "validation",
            3,
            include_str!("../../samples/demo/training/validation/3.jsonl"),
        ),
    ];
}

/// Options of the explorer.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ExploreArgs {
    /// Rollout files, `sebx grade` output, correct-trajectories files, dataset files or an
    /// API doc (folders: their .jsonl files; a folder of verl step dumps, `{step}.jsonl`:
    /// a training run). None: the bundled demo.
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub context: ContextArgs,
    /// Correct-trajectories files (every line `right`, like the official script's output);
    /// files with `correct` in their name are taken as such anyway.
    #[arg(long, value_name = "FILE")]
    pub correct: Vec<PathBuf>,
    /// Theme: dark, light, high-contrast, a name in the config dir's themes/, or a file.
    #[arg(long)]
    pub theme: Option<String>,
    /// Config file (default: sebx/config.toml in the user config dir): `theme = "..."` and a `[keys]` table.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Your name on labels (default: `annotator` in the config, else $SEBX_ANNOTATOR, else $USER).
    #[arg(long)]
    pub annotator: Option<String>,
    /// Label categories (TOML); default: the nearest sebx-taxonomy.toml, else the built-in set.
    #[arg(long, value_name = "FILE")]
    pub taxonomy: Option<PathBuf>,
    #[command(flatten)]
    pub cache: CacheFlags,
    #[command(flatten)]
    pub sidecars: SidecarFlags,
    /// The order `N` (next unlabelled failure) walks: `file`, or `random` (seeded) so the
    /// labelled failures are a random sample and their prevalence intervals mean something
    /// (`O` toggles in the explorer).
    #[arg(long, value_enum, default_value_t = crate::model::sampling::LabelOrder::File)]
    pub label_order: crate::model::sampling::LabelOrder,
    /// Seed of the random labelling order, and of the Stats and Compare screens' figures as
    /// `sebx stats --seed` seeds them (default: the same as `sebx stats --seed`).
    #[arg(long)]
    pub label_seed: Option<u64>,
    /// Open the bundled demo's training run (verl step dumps of a made-up GRPO run) instead
    /// of its evaluation runs: `T` shows the Training screen.
    #[arg(long)]
    pub demo_training: bool,
    /// Training runs: a step solves a task or function when at least this share of its
    /// graded samples is right (0.5, or a percentage such as 75%; in (0, 1]); the Training
    /// screen's course line and its "first step solved" order use it, as `sebx stats
    /// --learned-at` does.
    #[arg(long, value_name = "SHARE", default_value = "0.5", value_parser = LearnedAt::parse)]
    pub learned_at: LearnedAt,
    /// Training runs: the share of a step's graded samples through a loophole from which on
    /// it took off (0.1, or 10%; in (0, 1]); the Training screen marks that step under the
    /// loophole curve, as `sebx stats --onset-at` does.
    #[arg(long, value_name = "SHARE", default_value = "0.1", value_parser = OnsetAt::parse)]
    pub onset_at: OnsetAt,
    /// A HuggingFace tokenizer.json (the trained model's): the Training screen shows the
    /// responses' length in tokens beside characters, as `sebx stats --tokenizer` does.
    #[arg(long, value_name = "FILE")]
    pub tokenizer: Option<PathBuf>,
    /// Read everything once: do not follow it (by default new step files, lines appended to
    /// training runs and rollout files, files rewritten and new runs in the folders given
    /// are read while the explorer is open, as they are written).
    #[arg(long)]
    pub no_follow: bool,
    /// sebx's data folder for this explorer (the demo's sidecars, the fallback for read-only
    /// folders) instead of `$SEBX_DATA_DIR`: for tests, which share one process and so
    /// cannot set the variable. Not a flag.
    #[arg(skip)]
    pub data_dir: Option<PathBuf>,
}

/// The user's config file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    pub theme: Option<String>,
    /// The annotator name written on labels.
    pub annotator: Option<String>,
    /// Where label, rerun and bookmark sidecars go (see `session::sidecars`).
    pub sidecar_dir: Option<PathBuf>,
    /// `"key" = "action"` (snake_case action names; `"none"` unbinds), and a screen's own
    /// keys in `[keys.stats]`, `[keys.compare]`, `[keys.training]`, `[keys.present]`.
    #[serde(default)]
    pub keys: BTreeMap<String, KeyEntry>,
}

pub use crate::session::sidecars::config_dir;

/// Reads the config file; a missing default file is an empty config.
pub fn load_config(explicit: Option<&Path>) -> Result<UserConfig> {
    let file = crate::session::sidecars::ConfigFile::read(explicit)?;
    let at = || {
        file.path
            .as_deref()
            .map_or_else(|| "the config".to_string(), |p| p.display().to_string())
    };
    let mut config: UserConfig = file
        .table
        .clone()
        .try_into()
        .with_context(|| format!("in {}", at()))?;
    // The session's reading of it (relative to the config file, `~/`), as every command's.
    config.sidecar_dir = file.sidecar_dir()?;
    Ok(config)
}

/// An explorer ready to run: its state and what to load.
pub struct Session {
    pub app: App,
    pub sources: Vec<Source>,
    /// Follow the training runs, rollout files and folders among `sources` after loading
    /// them (not `--no-follow`).
    pub follow: bool,
}

/// The bundled demo's tasks, read as any dataset file is.
fn demo_dataset() -> Dataset {
    let mut dataset = Dataset::default();
    dataset.add_text(
        Path::new("samples/demo/tasks.jsonl"),
        demo::TASKS.as_bytes(),
    );
    dataset
}

/// How the explorer looks, read before any input (a bad config, theme, keys or tokenizer
/// is said first).
struct Look {
    config: UserConfig,
    theme: Theme,
    keymap: Keymap,
    tokenizer: Option<Arc<crate::model::tokenizer::TokenCounter>>,
}

fn look(args: &ExploreArgs) -> Result<Look> {
    let config = load_config(args.config.as_deref())?;
    let theme_name = args
        .theme
        .clone()
        .or(config.theme.clone())
        .unwrap_or_else(|| "dark".to_string());
    let theme = Theme::resolve(
        &theme_name,
        config_dir().map(|d| d.join("themes")).as_deref(),
    )?;
    let mut keymap = Keymap::default();
    keymap
        .apply_config(&config.keys)
        .context("in the config's [keys]")?;
    // A bad tokenizer is said before anything is read.
    let tokenizer = match &args.tokenizer {
        Some(path) => Some(Arc::new(crate::model::tokenizer::TokenCounter::load(path)?)),
        None => None,
    };
    Ok(Look {
        config,
        theme,
        keymap,
        tokenizer,
    })
}

/// What the explorer opens: the context, the sources to load, what to say about them.
struct Opened {
    api: Arc<ApiMap>,
    dataset: Arc<Dataset>,
    sources: Vec<Source>,
    notes: Vec<String>,
    /// The bundled demo (its labels are seeded).
    demo: bool,
}

/// Resolves files, API doc, dataset, theme and keys into a session (no terminal needed).
pub fn prepare(args: &ExploreArgs, grading: Grading) -> Result<Session> {
    let look = look(args)?;
    let mut notes = Vec::new();
    let (api, dataset, sources) = if args.demo_training {
        let screen = look
            .keymap
            .says(super::Action::TrainingScreen, "opens the Training screen")
            .map_or_else(String::new, |k| format!(" ({k})"));
        notes.push(format!("Showing the bundled demo's training run{screen}."));
        let api = ApiMap::from_api_doc_jsonl(demo::API_DOC).unwrap_or_default();
        let dataset = Arc::new(demo_dataset());
        let join = Arc::new(JoinIndex::new(&dataset));
        let sources = ["rollout", "validation"]
            .into_iter()
            .map(|run| Source {
                kind: FileKind::Rollouts,
                data: SourceData::EmbeddedDump {
                    name: format!("training/{run}"),
                    label: PathBuf::from(format!("samples/demo/training/{run}")),
                    steps: demo::TRAINING
                        .iter()
                        .filter(|(r, _, _)| *r == run)
                        .map(|(r, step, text)| {
                            (
                                *step,
                                PathBuf::from(format!("samples/demo/training/{r}/{step}.jsonl")),
                                *text,
                            )
                        })
                        .collect(),
                    join: join.clone(),
                    dataset: dataset.clone(),
                },
            })
            .collect();
        (Arc::new(api), dataset, sources)
    } else if args.paths.is_empty() && args.correct.is_empty() {
        notes.push("Showing the bundled demo (sebx FILE... opens your own files).".to_string());
        let api = ApiMap::from_api_doc_jsonl(demo::API_DOC).unwrap_or_default();
        let dataset = Arc::new(demo_dataset());
        let sources = vec![
            Source {
                kind: FileKind::Rollouts,
                data: SourceData::Embedded {
                    label: PathBuf::from("samples/demo/rollouts.jsonl"),
                    text: demo::ROLLOUTS,
                },
            },
            Source {
                kind: FileKind::Rollouts,
                data: SourceData::Embedded {
                    label: PathBuf::from("samples/demo/rollouts_run2.jsonl"),
                    text: demo::ROLLOUTS_RUN2,
                },
            },
            Source {
                kind: FileKind::Reports,
                data: SourceData::Embedded {
                    label: PathBuf::from("samples/demo/rollouts.scored.jsonl"),
                    text: demo::SCORED,
                },
            },
        ];
        (Arc::new(api), dataset, sources)
    } else {
        // Every path classified once, as every command does: the session.
        let mut given = crate::session::Session::build_lenient(
            crate::session::SessionArgs {
                command: "explore",
                paths: &args.paths,
                correct: &args.correct,
                context: &args.context,
                cache: &args.cache.choice(),
            },
            &mut notes,
        )?;
        let (api, dataset) = given.take_context();
        let dataset = Arc::new(dataset);
        let sources = sources_of(&given.inputs, &dataset, &mut notes);
        (Arc::new(api), dataset, sources)
    };
    let choice = args.cache.choice();
    let places = args.sidecars.places_with(look.config.sidecar_dir.clone());
    let opened = Opened {
        api,
        dataset,
        sources,
        notes,
        demo: args.paths.is_empty() && args.correct.is_empty(),
    };
    Ok(assemble(args, look, opened, grading, &choice, places))
}

/// The explorer over `inputs` that `session` classified, with the session's API map and
/// dataset as it read them: nothing is found, classified or read again but the rollout
/// lines themselves (a report's examples, drawn from the report's session). The score
/// cache and sidecar places are the session's too.
pub fn prepare_given(
    args: &ExploreArgs,
    session: &crate::session::Session,
    inputs: &Inputs,
    grading: Grading,
) -> Result<Session> {
    let look = look(args)?;
    let mut notes = Vec::new();
    let (api, dataset) = session.context();
    let sources = sources_of(inputs, &dataset, &mut notes);
    let opened = Opened {
        api,
        dataset,
        sources,
        notes,
        demo: false,
    };
    Ok(assemble(
        args,
        look,
        opened,
        grading,
        &session.cache,
        session.sidecars.clone(),
    ))
}

/// The sources of classified inputs: training runs first (with the folders of training
/// runs), then the rollout files, the scored files and the folders of rollout files.
fn sources_of(inputs: &Inputs, dataset: &Arc<Dataset>, notes: &mut Vec<String>) -> Vec<Source> {
    let mut dumps = Vec::new();
    let mut sources = Vec::new();
    for run in &inputs.runs {
        match &run.dump {
            Some(dump) => {
                // What reading the run assumed (TRL: which columns are rewards, weighted
                // how), said once, as `sebx stats` says it.
                notes.extend(dump.reading_notes().iter().map(ToString::to_string));
                dumps.push(dump.clone());
            }
            None => sources.push(Source {
                kind: FileKind::of_rollouts(run.correct),
                data: SourceData::File(run.path.clone()),
            }),
        }
    }
    sources.extend(inputs.reports.iter().map(|r| Source {
        kind: FileKind::Reports,
        data: SourceData::File(r.clone()),
    }));
    // Folders of rollout files: files appearing in them are followed too.
    let folder = |folder: &GivenFolder, join| Source {
        kind: FileKind::Rollouts,
        data: SourceData::Folder {
            folder: folder.clone(),
            join,
        },
    };
    sources.extend(
        inputs
            .folders
            .iter()
            .filter(|f| f.holds == FolderHolds::Files)
            .map(|f| folder(f, None)),
    );
    if !dumps.is_empty() {
        if dataset.is_empty() {
            notes.push("Training runs: no dataset, so no sample joins a task (pass --dataset FILE, e.g. datasets/train/train.jsonl); samples are shown and analysed, not graded.".to_string());
        }
        let shared = Arc::clone(dataset);
        let join = Arc::new(JoinIndex::new(&shared));
        let mut all = Source::dumps(dumps, &join, &shared);
        // Folders of training runs: runs appearing in them are followed too.
        all.extend(
            inputs
                .folders
                .iter()
                .filter(|f| f.holds == FolderHolds::Runs)
                .map(|f| folder(f, Some((join.clone(), shared.clone())))),
        );
        all.extend(sources);
        sources = all;
    }
    sources
}

/// The explorer's state over `opened`, with the score cache `cache` chooses and the
/// sidecars in `places`.
fn assemble(
    args: &ExploreArgs,
    look: Look,
    opened: Opened,
    grading: Grading,
    cache: &crate::session::CacheChoice,
    places: crate::model::sidecar::SidecarPlaces,
) -> Session {
    let Look {
        config,
        theme,
        keymap,
        tokenizer,
    } = look;
    let Opened {
        api,
        dataset,
        sources,
        mut notes,
        demo,
    } = opened;
    if let Grading::Unavailable(why) = &grading {
        notes.push(format!("Grading: {why}"));
    }
    let ctx = Context {
        api,
        dataset,
        grading,
        notes,
    };
    let mut app = App::new(ctx, theme, keymap);
    // The score cache, opened by the session's one rule for every front end on the explorer
    // (the explorer, the presenter, exports): a row asks it for its verdict, and the reward
    // shows when the remembered record has it too.
    let opened = open_score_cache(
        cache,
        &app.corpus.ctx.api,
        &Grader::default_settings().with_scorer(crate::grade::reward::Scorer::Verdict),
    );
    app.corpus.ctx.notes.extend(opened.notes);
    if let Some(cache) = &opened.cache {
        app.corpus.ctx.notes.push(format!(
            "Score cache: {} ({} verdicts remembered; --no-cache to ignore)",
            cache.path().display(),
            cache.len()
        ));
    }
    app.corpus.score_cache = opened.cache;
    app.corpus.trace_dir = cache.trace_dir();
    // Empty when nothing names one: the explorer asks at the first label.
    app.labelling.annotator = crate::model::labels::resolve_annotator(
        args.annotator.as_deref().or(config.annotator.as_deref()),
    )
    .unwrap_or_default();
    app.labelling.taxonomy_path = args.taxonomy.clone();
    if let Some(t) = &tokenizer {
        app.corpus.ctx.notes.push(format!(
            "Tokenizer: {} (the Training screen counts response tokens)",
            t.path().display()
        ));
    }
    app.training.tokenizer = tokenizer;
    app.labelling.places = places;
    if let Some(dir) = &args.data_dir {
        app.labelling.places.fallback = Some(dir.join("sidecars"));
        app.labelling.data_dir = Some(dir.clone());
    }
    app.labelling.order = args.label_order;
    app.training.learned_at = args.learned_at;
    app.training.onset_at = args.onset_at;
    app.labelling.order_seed = args
        .label_seed
        .unwrap_or(crate::model::sampling::DEFAULT_SEED);
    if demo {
        app.labelling
            .seeds
            .insert(PathBuf::from("samples/demo/rollouts.jsonl"), demo::LABELS);
    }
    Session {
        app,
        sources,
        follow: !args.no_follow,
    }
}

/// Opens the explorer; `backend` grades unscored rollouts (absent: no Python runtime).
pub fn run(args: ExploreArgs, backend: Option<Box<dyn GradeBackend>>) -> Result<ExitCode> {
    let grading = match backend {
        Some(_) => Grading::Available,
        None => Grading::Unavailable(Unavailable::NoRuntime),
    };
    let session = prepare(&args, grading)?;
    let backend: Option<Arc<dyn GradeBackend>> = backend.map(Arc::from);
    crate::tui::run::run_terminal(session.app, session.sources, backend, session.follow)?;
    Ok(ExitCode::SUCCESS)
}

/// The explorer `sebx FILES...` opens, ready to run: the session (inputs, score cache,
/// notes) and the embedded grader when a Python runtime is installed. Tests drive it with
/// `tui::inline` instead of a terminal.
pub fn open_default(args: &ExploreArgs) -> Result<(Session, Option<Arc<dyn GradeBackend>>)> {
    let mut session = prepare(args, Grading::Available)?;
    let grader = Grader::discover(&session.app.corpus.ctx.api, crate::session::default_jobs());
    let grading = match &grader {
        Ok(_) => Grading::Available,
        Err(why) => Grading::Unavailable(why.clone()),
    };
    if let Grading::Unavailable(why) = &grading {
        session.app.corpus.ctx.notes.push(format!("Grading: {why}"));
    }
    let cache = session.app.corpus.score_cache.clone();
    let backend = grader
        .ok()
        .map(|g| Arc::new(g.with_cache(cache)) as Arc<dyn GradeBackend>);
    session.app.corpus.ctx.grading = grading;
    // After `I` installs the runtime from the explorer, reruns grade with the embedded grader.
    let factory_workers = 2;
    session.app.reruns.backend_factory = Some(Arc::new(move |api: &ApiMap| {
        Arc::new(Grader::new(api.clone(), factory_workers)) as Arc<dyn GradeBackend>
    }));
    Ok((session, backend))
}

/// Opens the explorer with the embedded grader when a Python runtime is installed
/// (what `sebx` with no subcommand runs).
pub fn run_default(args: ExploreArgs) -> Result<ExitCode> {
    // Nothing to show: say so instead of opening an empty explorer.
    if !args.paths.is_empty() {
        let inputs = Inputs::classify(&args.paths, &args.correct)?;
        if let Some(reasons) = inputs.nothing_loadable() {
            bail!("no rollout to show:\n  {}", reasons.join("\n  "));
        }
    }
    let (session, backend) = open_default(&args)?;
    crate::tui::run::run_terminal(session.app, session.sources, backend, session.follow)?;
    Ok(ExitCode::SUCCESS)
}
