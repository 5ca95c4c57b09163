//! Where a training run's step files are: a folder of `{step}.jsonl` files is one run, a
//! folder of such folders one run each, `folder@N` (or `folder/N.jsonl`) step N alone.
//! verl names every dump file `{global_steps}.jsonl` (rollouts in `trainer.rollout_data_dir`,
//! validation in its own `trainer.validation_data_dir`), so any other `.jsonl` in a dump
//! folder (`notes.jsonl`, `val.jsonl`) is not verl's: it is skipped, and named in a note.

use std::path::{Path, PathBuf};

use super::formats::Format;
use crate::model::rollout::LoadIssue;

/// One step file of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepFile {
    pub step: u32,
    pub path: PathBuf,
    pub bytes: u64,
}

/// One training run: a folder of step files, in step order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRun {
    /// The folder's name (`rollout`), or `parent/name` when found inside a folder given,
    /// with `@N` when only step N is read.
    pub name: String,
    pub dir: PathBuf,
    pub steps: Vec<StepFile>,
    /// The folder's other `.jsonl` files (`notes.jsonl`, `val.jsonl`): not verl's, not read.
    pub skipped: Vec<PathBuf>,
    /// `folder@N`: only step N is read (and followed), whatever other steps appear.
    pub single_step: Option<u32>,
    /// Which framework wrote it (where its step files are, how a line is read).
    pub format: Format,
}

impl DumpRun {
    /// Bytes of all its step files.
    pub fn bytes(&self) -> u64 {
        self.steps.iter().map(|s| s.bytes).sum()
    }

    /// Step `step` of this run alone, as `folder@step` names it (`None`: the run has no
    /// such step): what a command given the whole run hands on when it needs one step.
    pub fn at_step(&self, step: u32) -> Option<DumpRun> {
        if self.single_step == Some(step) {
            return Some(self.clone());
        }
        let steps: Vec<StepFile> = self
            .steps
            .iter()
            .filter(|s| s.step == step)
            .cloned()
            .collect();
        (!steps.is_empty()).then(|| DumpRun {
            name: format!("{}@{step}", self.name),
            dir: self.dir.clone(),
            steps,
            skipped: Vec::new(),
            single_step: Some(step),
            format: self.format,
        })
    }

    /// A note per skipped file, for the load warnings (line 0: the file as a whole).
    pub fn skipped_notes(&self) -> Vec<LoadIssue> {
        self.skipped
            .iter()
            .map(|p| LoadIssue {
                source: p.clone(),
                line: 0,
                reason: self.format.skipped_reason(&self.name),
            })
            .collect()
    }
}

impl DumpRun {
    /// What reading the run assumed, to tell the user once (TRL: which columns are its
    /// reward functions', with which weights: [`super::trl::run_notes`]); none for the
    /// formats whose files say it all.
    pub fn reading_notes(&self) -> Vec<LoadIssue> {
        match self.format {
            Format::Trl => {
                super::trl::run_issues(self.steps.first().map(|s| s.path.as_path()), &self.dir)
            }
            _ => Vec::new(),
        }
    }

    /// What decides how the run is read besides its step files, for the caches of figures
    /// (TRL: the reward functions, weights and where they came from); empty for the others.
    pub fn reading_key(&self) -> String {
        match (self.format, self.steps.first()) {
            (Format::Trl, Some(first)) => {
                format!("{:?}", super::trl::RewardConfig::of_step_file(&first.path))
            }
            _ => String::new(),
        }
    }
}

/// The step of a step file's name: `12.jsonl` → 12.
pub fn step_of_file_name(name: &str) -> Option<u32> {
    super::formats::verl_step(Path::new(name))
}

/// The step files of `dir` in step order, if they are a dump of one of the formats sebx
/// reads (its first line says which), its other `.jsonl` files, and the format.
fn step_files(dir: &Path) -> std::io::Result<(Vec<StepFile>, Vec<PathBuf>, Format)> {
    let Some((format, (steps, others))) = super::formats::format_of(dir)? else {
        return Ok((Vec::new(), Vec::new(), Format::Verl));
    };
    let mut files = Vec::new();
    for (step, path) in steps {
        let bytes = std::fs::metadata(&path)?.len();
        files.push(StepFile { step, path, bytes });
    }
    Ok((files, others, format))
}

/// Whether a JSON line is a verl sample: `input` and `output`, and no `query`/`response`.
pub fn looks_like_sample(line: &str) -> bool {
    Format::Verl.is_sample(line)
}

/// `folder@12` → (`folder`, 12), when `folder` exists and `12` is a number.
fn split_step_spec(path: &Path) -> Option<(PathBuf, u32)> {
    let text = path.to_str()?;
    let (dir, step) = text.rsplit_once('@')?;
    let step: u32 = step.parse().ok()?;
    let dir = PathBuf::from(dir);
    dir.is_dir().then_some((dir, step))
}

pub(super) fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// The runs a path names: a dump folder (one run), a folder of dump folders (each one run,
/// named `parent/child`), `folder@N` or a step file `folder/N.jsonl` (step N of that run). `None`: the path is none of
/// these (a file, or a folder of other files). Errors name the path.
pub fn find_runs(path: &Path) -> anyhow::Result<Option<Vec<DumpRun>>> {
    use anyhow::Context;
    if let Some((dir, step)) = split_step_spec(path)
        && !path.exists()
    {
        let Some(mut runs) = find_runs(&dir)? else {
            anyhow::bail!(
                "{}: not a training-run folder (no {{step}}.jsonl files)",
                dir.display()
            );
        };
        if runs.len() != 1 {
            anyhow::bail!(
                "{}: holds {} runs; name one of them with @{step}",
                dir.display(),
                runs.len()
            );
        }
        let run = runs.remove(0);
        let first = run.steps.iter().map(|s| s.step).min();
        let last = run.steps.iter().map(|s| s.step).max();
        let count = run.steps.len();
        let Some(one) = run.at_step(step) else {
            let spec = run.format.spec();
            let have = match (first, last) {
                (Some(a), Some(b)) if a != b => format!("{count} steps, {a} to {b}"),
                (Some(a), _) => format!("step {a} only"),
                _ => "no step".to_string(),
            };
            anyhow::bail!(
                "{}: has no step {step} (it has {have}; a {} run's step files are {})",
                dir.display(),
                spec.framework,
                spec.layout
            );
        };
        return Ok(Some(vec![one]));
    }
    // One step file of a dump folder: that step of the run (export and present name a
    // rollout by its file and line).
    if path.is_file()
        && let Some(step) = super::formats::step_of_single_file(path)
        && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
    {
        let spec = PathBuf::from(format!("{}@{step}", dir.display()));
        if !spec.exists() {
            return find_runs(&spec);
        }
    }
    if !path.is_dir() {
        return Ok(None);
    }
    let (steps, skipped, format) =
        step_files(path).with_context(|| format!("cannot read folder {}", path.display()))?;
    if !steps.is_empty() {
        return Ok(Some(vec![DumpRun {
            name: folder_name(path),
            dir: path.to_path_buf(),
            steps,
            skipped,
            single_step: None,
            format,
        }]));
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot read folder {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    children.sort();
    let mut runs = Vec::new();
    for child in children {
        let (steps, skipped, format) = step_files(&child)
            .with_context(|| format!("cannot read folder {}", child.display()))?;
        if !steps.is_empty() {
            runs.push(DumpRun {
                name: format!("{}/{}", folder_name(path), folder_name(&child)),
                dir: child,
                steps,
                skipped,
                single_step: None,
                format,
            });
        }
    }
    Ok((!runs.is_empty()).then_some(runs))
}
