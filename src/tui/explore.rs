//! `sebx [PATHS]...`: starting the terminal explorer over rollout files, scored results, dataset
//! files and an API doc; the bundled demo when no path is given.

use crate::model::discovery::ContextArgs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use serde::Deserialize;
use serde_json::Value;

use crate::grade::backend::{GradeBackend, Grader, Unavailable};
use crate::grade::score_cache::{self, ScoreCache};
use crate::model::discovery::discover;
use crate::model::verl::{JoinIndex, find_runs};
use crate::model::{ApiMap, Dataset, DatasetItem, TestCase};
use crate::tui::app::{App, Context, Grading};
use crate::tui::load::{FileKind, Source, SourceData, classify_file};
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
    /// Neither show remembered verdicts nor remember new ones (the score cache; see
    /// `sebx cache`).
    #[arg(long)]
    pub no_cache: bool,
    /// The order `N` (next unlabelled failure) walks: `file`, or `random` (seeded) so the
    /// labelled failures are a random sample and their prevalence intervals mean something
    /// (`O` toggles in the explorer).
    #[arg(long, value_enum, default_value_t = crate::model::sampling::LabelOrder::File)]
    pub label_order: crate::model::sampling::LabelOrder,
    /// Seed of the random labelling order (default: the same as `sebx stats --seed`).
    #[arg(long)]
    pub label_seed: Option<u64>,
    /// Open the bundled demo's training run (verl step dumps of a made-up GRPO run) instead
    /// of its evaluation runs: `T` shows the Training screen.
    #[arg(long)]
    pub demo_training: bool,
}

/// The user's config file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserConfig {
    pub theme: Option<String>,
    /// The annotator name written on labels.
    pub annotator: Option<String>,
    /// `"key" = "action"` (snake_case action names; `"none"` unbinds).
    #[serde(default)]
    pub keys: BTreeMap<String, String>,
}

/// The config folder: `<config dir>/sebx`.
pub fn config_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("sebx"))
}

/// Reads the config file; a missing default file is an empty config.
pub fn load_config(explicit: Option<&Path>) -> Result<UserConfig> {
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match config_dir() {
            Some(d) => d.join("config.toml"),
            None => return Ok(UserConfig::default()),
        },
    };
    if !path.is_file() {
        if explicit.is_some() {
            bail!("no config file {}", path.display());
        }
        return Ok(UserConfig::default());
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("in {}", path.display()))
}

/// An explorer ready to run: its state and what to load.
pub struct Session {
    pub app: App,
    pub sources: Vec<Source>,
}

/// Files named on the command line, and the `.jsonl` files of folders named there
/// (`true`: found in a folder, so skipped when not recognisable).
fn expand(paths: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot read folder {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                // Label and bookmark sidecars (`x.jsonl.labels.jsonl`) belong to their rollout file.
                .filter(|f| {
                    let name = f.to_string_lossy();
                    !name.ends_with(".labels.jsonl") && !name.ends_with(".bookmarks.jsonl")
                })
                .collect();
            files.sort();
            out.extend(files.into_iter().map(|f| (f, true)));
        } else if p.is_file() {
            out.push((p.clone(), false));
        } else {
            bail!("no such file or folder: {}", p.display());
        }
    }
    Ok(out)
}

/// Dataset items from JSONL text (for the embedded demo; files go through `Dataset::load_file`).
fn dataset_from_text(label: &Path, text: &str) -> Dataset {
    let mut ds = Dataset::default();
    for (i, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(query) = v.get("query").and_then(Value::as_str) else {
            continue;
        };
        let strs = |k: &str| -> Vec<String> {
            v.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let cases = v
            .get("test_cases")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|c| {
                        Some(TestCase {
                            input: c.get("input")?.as_str()?.to_string(),
                            output: c.get("output")?.as_str()?.to_string(),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        ds.items.insert(
            query.to_string(),
            DatasetItem {
                query: query.to_string(),
                function_name: s("function_name"),
                selected_functions: strs("selected_functions"),
                reference: strs("example_output"),
                test_cases: cases,
                right_exe_result: s("right_exe_result"),
                source: label.to_path_buf(),
                line: i + 1,
            },
        );
    }
    ds.files.push(label.to_path_buf());
    ds
}

/// Resolves files, API doc, dataset, theme and keys into a session (no terminal needed).
pub fn prepare(args: &ExploreArgs, grading: Grading) -> Result<Session> {
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
        .apply_overrides(&config.keys)
        .context("in the config's [keys]")?;

    let mut notes = Vec::new();
    let (api, dataset, sources) = if args.demo_training {
        notes.push("Showing the bundled demo's training run (T: the Training screen).".to_string());
        let api = ApiMap::from_api_doc_jsonl(demo::API_DOC).unwrap_or_default();
        let dataset = Arc::new(dataset_from_text(
            Path::new("samples/demo/tasks.jsonl"),
            demo::TASKS,
        ));
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
        (api, Arc::unwrap_or_clone(dataset), sources)
    } else if args.paths.is_empty() && args.correct.is_empty() {
        notes.push("Showing the bundled demo (sebx FILE... opens your own files).".to_string());
        let api = ApiMap::from_api_doc_jsonl(demo::API_DOC).unwrap_or_default();
        let dataset = dataset_from_text(Path::new("samples/demo/tasks.jsonl"), demo::TASKS);
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
        (api, dataset, sources)
    } else {
        // Training runs (folders of verl step dumps) first; the rest are files.
        let mut dumps = Vec::new();
        let mut paths = Vec::new();
        for p in &args.paths {
            match find_runs(p)? {
                Some(runs) => dumps.extend(runs),
                None => paths.push(p.clone()),
            }
        }
        let mut files = expand(&paths)?;
        files.extend(args.correct.iter().map(|f| (f.clone(), false)));
        let mut sources = Vec::new();
        let mut api_doc = args.context.api_doc.clone();
        let mut dataset_files = args.context.dataset.clone();
        for (f, from_folder) in files {
            let kind =
                match classify_file(&f).with_context(|| format!("cannot read {}", f.display()))? {
                    Some(kind) => kind,
                    None if from_folder => {
                        notes.push(format!("skipped {}: not a file sebx reads", f.display()));
                        continue;
                    }
                    // A file named on purpose loads as rollouts, so its bad lines are shown.
                    None => FileKind::Rollouts,
                };
            let kind = if args.correct.contains(&f) && kind == FileKind::Rollouts {
                FileKind::CorrectTrajectories
            } else {
                kind
            };
            match kind {
                FileKind::ApiDoc => {
                    api_doc.get_or_insert(f);
                }
                FileKind::Dataset => dataset_files.push(f),
                kind => sources.push(Source {
                    kind,
                    data: SourceData::File(f),
                }),
            }
        }
        let mut rollout_files: Vec<PathBuf> = sources
            .iter()
            .map(|s| s.data.path().to_path_buf())
            .collect();
        rollout_files.extend(dumps.iter().map(|d| d.dir.clone()));
        let found = discover(api_doc.as_deref(), &dataset_files, &rollout_files);
        notes.extend(found.report());
        let api = match &found.api_doc {
            Some(f) => match ApiMap::load(f.path()) {
                Ok(a) => a,
                Err(e) => {
                    notes.push(format!("API doc unusable: {e:#}"));
                    ApiMap::default()
                }
            },
            None => ApiMap::default(),
        };
        let mut dataset = Dataset::default();
        for d in &found.datasets {
            if let Err(e) = dataset.load_file(d.path()) {
                notes.push(format!("dataset {}: {e}", d.path().display()));
            }
        }
        if !dumps.is_empty() {
            if dataset.is_empty() {
                notes.push("Training runs: no dataset, so no sample joins a task (pass --dataset FILE, e.g. datasets/train/train.jsonl); samples are shown and analysed, not graded.".to_string());
            }
            let shared = Arc::new(dataset.clone());
            let join = Arc::new(JoinIndex::new(&shared));
            let mut all = dumps
                .into_iter()
                .map(|run| Source {
                    kind: FileKind::Rollouts,
                    data: SourceData::Dump {
                        run,
                        join: join.clone(),
                        dataset: shared.clone(),
                    },
                })
                .collect::<Vec<_>>();
            all.extend(sources);
            sources = all;
        }
        (api, dataset, sources)
    };
    if let Grading::Unavailable(why) = &grading {
        notes.push(format!("Grading: {why}"));
    }
    let ctx = Context {
        api: Arc::new(api),
        dataset: Arc::new(dataset),
        grading,
        notes,
    };
    let mut app = App::new(ctx, theme, keymap);
    app.labelling.annotator = crate::model::labels::resolve_annotator(
        args.annotator.as_deref().or(config.annotator.as_deref()),
    );
    app.labelling.taxonomy_path = args.taxonomy.clone();
    app.labelling.order = args.label_order;
    app.labelling.order_seed = args
        .label_seed
        .unwrap_or(crate::model::sampling::DEFAULT_SEED);
    if args.paths.is_empty() && args.correct.is_empty() {
        app.labelling
            .seeds
            .insert(PathBuf::from("samples/demo/rollouts.jsonl"), demo::LABELS);
    }
    Ok(Session { app, sources })
}

/// Opens the explorer; `backend` grades unscored rollouts (absent: no Python runtime).
pub fn run(args: ExploreArgs, backend: Option<Box<dyn GradeBackend>>) -> Result<ExitCode> {
    let grading = match backend {
        Some(_) => Grading::Available,
        None => Grading::Unavailable(Unavailable::NoRuntime),
    };
    let session = prepare(&args, grading)?;
    let backend: Option<Arc<dyn GradeBackend>> = backend.map(Arc::from);
    crate::tui::run::run_terminal(session.app, session.sources, backend)?;
    Ok(ExitCode::SUCCESS)
}

/// Opens the explorer with the embedded grader when a Python runtime is installed
/// (what `sebx` with no subcommand runs).
pub fn run_default(args: ExploreArgs) -> Result<ExitCode> {
    let mut session = prepare(&args, Grading::Available)?;
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let grader = Grader::discover(&session.app.corpus.ctx.api, workers);
    let grading = match &grader {
        Ok(_) => Grading::Available,
        Err(why) => Grading::Unavailable(why.clone()),
    };
    if let Grading::Unavailable(why) = &grading {
        session.app.corpus.ctx.notes.push(format!("Grading: {why}"));
    }
    let cache = if args.no_cache || session.app.corpus.ctx.api.is_empty() {
        None
    } else {
        // The settings the grader grades with; a row asks the cache for its verdict (the
        // reward shows when the remembered report has it too).
        let settings = grader
            .as_ref()
            .map_or_else(|_| Grader::default_settings(), |g| g.settings().clone())
            .with_scorer(crate::grade::reward::Scorer::Verdict);
        match score_cache::default_dir()
            .map(|dir| ScoreCache::open(&dir, &session.app.corpus.ctx.api, &settings))
        {
            Some(Ok(cache)) => Some(Arc::new(cache)),
            Some(Err(e)) => {
                session
                    .app
                    .corpus
                    .ctx
                    .notes
                    .push(format!("Score cache: unavailable ({e:#})"));
                None
            }
            None => None,
        }
    };
    if let Some(cache) = &cache {
        session.app.corpus.ctx.notes.push(format!(
            "Score cache: {} ({} verdicts remembered; --no-cache to ignore)",
            cache.path().display(),
            cache.len()
        ));
    }
    session.app.corpus.score_cache = cache.clone();
    let backend = grader
        .ok()
        .map(|g| Arc::new(g.with_cache(cache)) as Arc<dyn GradeBackend>);
    session.app.corpus.ctx.grading = grading;
    // After `I` installs the runtime from the explorer, reruns grade with the embedded grader.
    let factory_workers = 2;
    session.app.reruns.backend_factory = Some(Arc::new(move |api: &ApiMap| {
        Arc::new(Grader::new(api.clone(), factory_workers)) as Arc<dyn GradeBackend>
    }));
    crate::tui::run::run_terminal(session.app, session.sources, backend)?;
    Ok(ExitCode::SUCCESS)
}
