//! The [`Session`] a command starts from, built once from its command line (ripgrep's
//! `HiArgs` is the model): the paths classified, the API doc and datasets found and read,
//! the cache folder chosen; afterwards the command only asks for what was decided. Every
//! command reads its inputs through it, so a rollout file, a folder, a training run,
//! `run@step` and a step file mean the same in each, and an input a command has no use for
//! is refused with its name ([`Session::runs`], [`Session::refuse_scored`]).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::caches::{CacheChoice, OpenedCache, open_score_cache};
use super::inputs::{Inputs, RunInput};
use super::sidecars::SidecarFlags;
use crate::grade::settings::GradingSettings;
use crate::model::discovery::{ContextArgs, Discovered};
use crate::model::sidecar::SidecarPlaces;
use crate::model::verl::{JoinIndex, RunReader};
use crate::model::{ApiMap, Dataset, LoadedFile};

/// What a command is given: its name (for messages), its paths, and the flags that decide
/// where context and caches are.
#[derive(Debug, Clone, Copy)]
pub struct SessionArgs<'a> {
    /// The command, as the user types it (`grade`, `analyze`, ...).
    pub command: &'static str,
    pub paths: &'a [PathBuf],
    /// Files to take as correct trajectories whatever their name.
    pub correct: &'a [PathBuf],
    pub context: &'a ContextArgs,
    pub cache: &'a CacheChoice,
}

/// One command's session: every decision taken from its command line, once.
#[derive(Debug)]
pub struct Session {
    pub command: &'static str,
    /// The paths, classified.
    pub inputs: Inputs,
    /// Where the API doc and datasets were found.
    pub found: Discovered,
    /// Shared, not copied, with what a command hands them to (a report's examples).
    api: Option<Arc<ApiMap>>,
    pub dataset: Arc<Dataset>,
    pub cache: CacheChoice,
    /// Where sidecars go ([`Session::with_sidecars`]; else beside each file).
    pub sidecars: SidecarPlaces,
}

/// One file of rollouts as read: a rollout file, or one step file of a training run (its
/// samples joined to the session's tasks); `bytes` are the file's, for lines kept unchanged.
#[derive(Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    pub loaded: LoadedFile,
    pub bytes: Vec<u8>,
}

impl Session {
    /// Classifies the paths (a missing one is an error naming it), finds and reads the API
    /// doc and datasets, and says on stderr what was found and which dataset lines were bad.
    /// Nothing is printed: [`Session::say`] tells what was found.
    pub fn build(args: SessionArgs<'_>) -> Result<Session> {
        Session::build_checked(args, |_| Ok(()))
    }

    /// [`Session::build`], with `check` asked about the classified inputs before the API
    /// doc and datasets are read: a command that cannot work with them (no run, or not
    /// the runs it compares) says so first.
    pub fn build_checked(
        args: SessionArgs<'_>,
        check: impl FnOnce(&Inputs) -> Result<()>,
    ) -> Result<Session> {
        let inputs = Inputs::classify(args.paths, args.correct)?;
        check(&inputs)?;
        let found = inputs.discover(args.context);
        let (api, dataset) = found.load()?;
        Ok(Session {
            command: args.command,
            inputs,
            found,
            api: api.map(Arc::new),
            dataset: Arc::new(dataset),
            cache: args.cache.clone(),
            sidecars: SidecarPlaces::default(),
        })
    }

    /// [`Session::build`] for the explorer and its kin, leniently: an API doc or dataset
    /// that cannot be read is a note in `notes` (with the inputs' notes and what was found),
    /// and the rollouts are still shown.
    pub fn build_lenient(args: SessionArgs<'_>, notes: &mut Vec<String>) -> Result<Session> {
        let inputs = Inputs::classify(args.paths, args.correct)?;
        notes.extend(inputs.notes.iter().cloned());
        let found = inputs.discover(args.context);
        let (api, dataset) = inputs.load_context(args.context, notes);
        Ok(Session {
            command: args.command,
            inputs,
            found,
            api: (!api.is_empty()).then(|| Arc::new(api)),
            dataset: Arc::new(dataset),
            cache: args.cache.clone(),
            sidecars: SidecarPlaces::default(),
        })
    }

    /// The API map and dataset, taken out of the session (for a front end that owns them
    /// from then on); the session keeps none.
    pub fn take_context(&mut self) -> (ApiMap, Dataset) {
        (
            self.api
                .take()
                .map(Arc::unwrap_or_clone)
                .unwrap_or_default(),
            Arc::unwrap_or_clone(std::mem::take(&mut self.dataset)),
        )
    }

    /// The API map (empty when none was found) and dataset as read, shared with the
    /// session: a front end drawing from the session's inputs reads neither again.
    pub fn context(&self) -> (Arc<ApiMap>, Arc<Dataset>) {
        (
            self.api.clone().unwrap_or_default(),
            Arc::clone(&self.dataset),
        )
    }

    /// Where the label, rerun and bookmark sidecars go, as `flags` (else the config) say.
    pub fn with_sidecars(mut self, flags: &SidecarFlags) -> Result<Session> {
        self.sidecars = flags.places()?;
        Ok(self)
    }

    /// Says on stderr what a headless command should know: the inputs' notes (files of a
    /// folder skipped), where the API doc and datasets were found, the datasets' bad lines.
    pub fn say(self) -> Session {
        self.say_notes();
        for line in self.found.report() {
            crate::warnln!("{line}");
        }
        for issue in &self.dataset.issues {
            crate::warnln!("warning: {issue}");
        }
        self
    }

    /// Says the inputs' notes only.
    pub fn say_notes(&self) {
        for note in &self.inputs.notes {
            crate::warnln!("note: {note}");
        }
    }

    /// The API map, when one was found and read.
    pub fn api_found(&self) -> Option<&ApiMap> {
        self.api.as_deref()
    }

    /// The rollouts of a run as one file: [`Session::files`] joined (a training run's
    /// steps in order; their issues with them).
    pub fn read(&self, run: &RunInput) -> Result<LoadedFile> {
        let mut out = LoadedFile::default();
        for f in self.files(run)? {
            out.rollouts.extend(f.loaded.rollouts);
            out.issues.extend(f.loaded.issues);
            out.lines += f.loaded.lines;
        }
        Ok(out)
    }

    /// The API map; an error naming the flag when none was found (grading and analysis
    /// cannot work without it).
    pub fn require_api(&self) -> Result<&ApiMap> {
        self.api.as_deref().context(
            "no API doc: pass --api-doc FILE (the api_doc.jsonl of your zwc) or set SEBX_API_DOC",
        )
    }

    /// The API map, empty when none was found.
    pub fn api(&self) -> ApiMap {
        self.api.as_deref().cloned().unwrap_or_default()
    }

    /// The runs given; an error saying what each input was when none is a run.
    pub fn runs(&self) -> Result<&[RunInput]> {
        if self.inputs.runs.is_empty() {
            bail!("`sebx {}` needs {}", self.command, no_runs(&self.inputs));
        }
        Ok(&self.inputs.runs)
    }

    /// An error naming the first scored file given, for a command that reads rollouts only.
    /// Scored files found in a folder given are skipped with a note instead.
    pub fn refuse_scored(&self) -> Result<()> {
        let in_folder = |r: &PathBuf| {
            self.inputs
                .folders
                .iter()
                .any(|f| r.parent() == Some(f.path.as_path()))
        };
        for r in self.inputs.reports.iter().filter(|r| in_folder(r)) {
            crate::warnln!(
                "note: skipped {}: a scored file (`sebx {}` reads rollouts)",
                r.display(),
                self.command
            );
        }
        if let Some(r) = self.inputs.reports.iter().find(|r| !in_folder(r)) {
            bail!(
                "{} is a scored file (`sebx grade` output): `sebx {}` reads the rollouts themselves; pass the rollout file it was graded from",
                r.display(),
                self.command
            );
        }
        Ok(())
    }

    /// An error unless exactly one run was given (commands that name a rollout by
    /// `--line`).
    pub fn single_run(&self) -> Result<&RunInput> {
        match self.runs()? {
            [run] => Ok(run),
            runs => bail!(
                "`sebx {}` takes one rollout file; {} were given ({})",
                self.command,
                runs.len(),
                super::inputs::named(&self.inputs.run_paths())
            ),
        }
    }

    /// The files of a run, each read whole: the run's file, or each step file of a training
    /// run (`run@step`: that step's). A file that cannot be read is an error naming it.
    pub fn files(&self, run: &RunInput) -> Result<Vec<SourceFile>> {
        let Some(dump) = &run.dump else {
            let bytes = std::fs::read(&run.path)
                .with_context(|| format!("cannot read {}", run.path.display()))?;
            let loaded = crate::model::rollout::parse_rollout_bytes(&run.path, &bytes);
            return Ok(vec![SourceFile {
                path: run.path.clone(),
                loaded,
                bytes,
            }]);
        };
        if self.dataset.is_empty() {
            crate::warnln!(
                "note: no dataset (pass --dataset FILE): the samples of {} cannot be joined to their tasks, so they have no test cases",
                dump.name
            );
        }
        let join = JoinIndex::new(&self.dataset);
        let mut reader = RunReader::new(&join, &self.dataset);
        let mut out = Vec::new();
        for (i, f) in dump.steps.iter().enumerate() {
            let bytes = std::fs::read(&f.path)
                .with_context(|| format!("cannot read {}", f.path.display()))?;
            let step = reader.read_step(&f.path, f.step, &bytes);
            let mut issues = step.issues;
            if i == 0 {
                issues.extend(dump.skipped_notes());
                issues.extend(dump.reading_notes());
            }
            out.push(SourceFile {
                path: f.path.clone(),
                loaded: LoadedFile {
                    rollouts: step.rollouts,
                    issues,
                    lines: step.lines,
                },
                bytes,
            });
        }
        Ok(out)
    }

    /// The one file a `--line N` of this run counts lines in: the rollout file, or the
    /// step file of a training run given as `run@step` (or as its step file).
    pub fn line_file(&self, run: &RunInput) -> Result<PathBuf> {
        line_file(run)
    }

    /// The file of the single run given, read, for a command naming a rollout by `--line`.
    pub fn line_source(&self) -> Result<SourceFile> {
        let run = self.single_run()?;
        let file = line_file(run)?;
        let mut files = self.files(run)?;
        files
            .drain(..)
            .find(|f| f.path == file)
            .with_context(|| format!("cannot read {}", file.display()))
    }

    /// The score cache chosen on the command line, opened for the API doc and `settings`.
    pub fn score_cache(&self, settings: &GradingSettings) -> OpenedCache {
        match &self.api {
            Some(api) => open_score_cache(&self.cache, api, settings),
            None => OpenedCache::default(),
        }
    }
}

/// What a command lacking runs says: what it needs, and what each input given was.
pub fn no_runs(inputs: &Inputs) -> String {
    let mut given: Vec<String> = Vec::new();
    for r in &inputs.reports {
        given.push(format!("{} is a scored file", r.display()));
    }
    for d in &inputs.datasets {
        given.push(format!("{} is a dataset", d.display()));
    }
    if let Some(a) = &inputs.api_doc {
        given.push(format!("{} is an API doc", a.display()));
    }
    let given = if given.is_empty() {
        String::new()
    } else {
        format!(" ({})", given.join("; "))
    };
    format!("a rollout file, a folder of them or a training run among its inputs{given}")
}

/// The one file a `--line N` of `run` counts lines in (see [`Session::line_file`]).
pub fn line_file(run: &RunInput) -> Result<PathBuf> {
    match &run.dump {
        None => Ok(run.path.clone()),
        Some(dump) => match dump.steps.as_slice() {
            [step] => Ok(step.path.clone()),
            steps => bail!(
                "{} is a training run of {} steps: name one, as {}@STEP (or its step file STEP.jsonl), to count lines in",
                run.path.display(),
                steps.len(),
                run.path.display()
            ),
        },
    }
}

/// The file `--line N` counts lines in among the paths given to `command` (export and
/// present, whose inputs the explorer classifies): the first run's file, or the step file
/// `run@step` names. `None` without paths (the demo); an error when no path is a run.
pub fn line_file_of(command: &str, paths: &[PathBuf]) -> Result<Option<PathBuf>> {
    if paths.is_empty() {
        return Ok(None);
    }
    let inputs = Inputs::classify(paths, &[])?;
    match inputs.runs.first() {
        Some(run) => line_file(run).map(Some),
        None => bail!("`sebx {command}` needs {}", no_runs(&inputs)),
    }
}
