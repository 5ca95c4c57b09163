//! Every path of a command line classified once, the same way for every command: rollout
//! files (each one run), `sebx grade` output, correct-trajectories files, dataset files, an
//! API doc, folders of rollout files (their `.jsonl` files, sidecars left out) and training
//! runs (folders of verl step dumps, `folder@step`). Then the API doc and datasets are found
//! ([`discover`]: flags, `$SEBX_API_DOC`, an SE-Bench checkout).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::model::discovery::{ContextArgs, Discovered, discover};
use crate::model::files::{FileKind, classify_file};
use crate::model::verl::{DumpRun, find_runs};
use crate::model::{ApiMap, Dataset, LoadedFile};

/// A run given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunInput {
    pub path: PathBuf,
    /// The official correct-trajectories file: every rollout in it is `right`.
    pub correct: bool,
    /// A training run (a folder of verl step dumps, `path` its folder).
    pub dump: Option<DumpRun>,
}

/// The command line's paths, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Runs in the order given (a folder's files in name order).
    pub runs: Vec<RunInput>,
    pub reports: Vec<PathBuf>,
    pub datasets: Vec<PathBuf>,
    /// The first API doc among the paths.
    pub api_doc: Option<PathBuf>,
    /// What the user should know (files of a folder skipped as unreadable kinds).
    pub notes: Vec<String>,
    /// The folders given that stand for what they hold (runs appearing in them later are
    /// theirs too: the explorer follows them).
    pub folders: Vec<GivenFolder>,
}

/// A folder given on the command line that stands for what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenFolder {
    pub path: PathBuf,
    pub holds: FolderHolds,
    /// What it held when classified (files, or subfolders), run or not.
    pub present: Vec<PathBuf>,
}

/// A run that appeared in a given folder after it was classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appeared {
    /// A rollout file.
    Rollouts(PathBuf),
    /// A training run (a subfolder of step files).
    Run(DumpRun),
}

impl GivenFolder {
    /// The runs the folder holds now and `seen` does not (every path looked at is added to
    /// it), classified as [`Inputs::classify`] classifies a folder's entries: a rollout file,
    /// or a subfolder of step files. An entry not recognisable yet (a file with no whole
    /// first line, a folder with no step file) is looked at again next time; one of another
    /// kind (a scored file, a dataset) is not opened.
    pub fn appeared(&self, seen: &mut std::collections::HashSet<PathBuf>) -> Vec<Appeared> {
        let mut found = Vec::new();
        match self.holds {
            FolderHolds::Files => {
                for f in folder_files(&self.path).unwrap_or_default() {
                    if seen.contains(&f) {
                        continue;
                    }
                    match classify_file(&f) {
                        Ok(Some(FileKind::Rollouts)) => {
                            seen.insert(f.clone());
                            found.push(Appeared::Rollouts(f));
                        }
                        Ok(Some(_)) => {
                            seen.insert(f);
                        }
                        // Its first line is still being written, or it is empty yet.
                        Ok(None) | Err(_) if !has_whole_line(&f) => {}
                        Ok(None) | Err(_) => {
                            seen.insert(f);
                        }
                    }
                }
            }
            FolderHolds::Runs => {
                for dir in subfolders(&self.path) {
                    if seen.contains(&dir) {
                        continue;
                    }
                    match find_runs(&dir) {
                        Ok(Some(runs)) => {
                            seen.insert(dir);
                            let parent = self.path.file_name().map_or_else(
                                || self.path.display().to_string(),
                                |n| n.to_string_lossy().into_owned(),
                            );
                            found.extend(runs.into_iter().map(|mut run| {
                                run.name = format!("{parent}/{}", run.name);
                                Appeared::Run(run)
                            }));
                        }
                        // No step file yet.
                        Ok(None) => {}
                        Err(_) => {
                            seen.insert(dir);
                        }
                    }
                }
            }
        }
        found
    }
}

/// The subfolders of a folder (none when it cannot be read).
fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|l| {
            l.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The file has a newline: its first line is whole.
fn has_whole_line(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(1 << 20).read_to_end(&mut head))
        .is_ok_and(|_| head.contains(&b'\n'))
}

/// What a given folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderHolds {
    /// Training runs, one per subfolder.
    Runs,
    /// Rollout files (its `.jsonl` files, sidecars left out).
    Files,
}

/// The sidecars a rollout file keeps beside it: never runs of their own.
fn is_sidecar(path: &Path) -> bool {
    let name = path.to_string_lossy();
    [".labels.jsonl", ".bookmarks.jsonl", ".reruns.jsonl"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// The `.jsonl` files of a folder, sidecars left out, in name order.
fn folder_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "jsonl"))
        .filter(|f| !is_sidecar(f))
        .collect();
    files.sort();
    Ok(files)
}

/// How much of a file [`Inputs::nothing_loadable`] reads to tell whether it holds anything.
const PEEK_BYTES: usize = 256 * 1024;

/// Why the file at `path` holds no rollout a loader could show, judged from its first
/// [`PEEK_BYTES`]: empty, binary (a NUL byte, or not UTF-8), or (when that is the whole
/// file) no line that reads as a rollout. `None` when it may hold one.
pub fn unloadable(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    let file = std::fs::File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    file.take(PEEK_BYTES as u64).read_to_end(&mut head).ok()?;
    let name = path.display();
    if head.iter().all(|b| b.is_ascii_whitespace()) && size as usize <= PEEK_BYTES {
        return Some(format!("{name}: empty file (no rollout lines)"));
    }
    // A cut in the middle of a character at the end of the peek is not binary.
    let valid = match std::str::from_utf8(&head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && size as usize > PEEK_BYTES,
    };
    if head.contains(&0) || !valid {
        return Some(format!("{name}: binary data, not JSON lines"));
    }
    if size as usize > PEEK_BYTES {
        return None;
    }
    let loaded = crate::model::rollout::parse_rollout_bytes(path, &head);
    if !loaded.rollouts.is_empty() {
        return None;
    }
    let first = loaded
        .issues
        .first()
        .map(|i| format!(" (line {}: {})", i.line, i.reason))
        .unwrap_or_default();
    Some(format!("{name}: no line reads as a rollout{first}"))
}

impl Inputs {
    /// When every input is a file and none can hold a rollout (see [`unloadable`]): why,
    /// file by file. A folder or a training run may fill later, so it never counts as
    /// nothing; nor does an explicit correct-trajectories or scored file beside a run.
    pub fn nothing_loadable(&self) -> Option<Vec<String>> {
        if !self.folders.is_empty() || self.runs.iter().any(|r| r.dump.is_some()) {
            return None;
        }
        if self.runs.is_empty() {
            return None;
        }
        let reasons: Vec<String> = self
            .runs
            .iter()
            .map(|r| unloadable(&r.path))
            .collect::<Option<Vec<_>>>()?;
        Some(reasons)
    }

    /// Classifies `paths` (by name and first line, [`classify_file`]); `correct` names files
    /// to take as correct trajectories whatever their name (they are inputs too). A folder
    /// of verl step dumps is a training run; any other folder stands for its `.jsonl` files,
    /// of which those sebx does not recognise are skipped with a note. A missing path is an
    /// error naming it; a file named on purpose that is not recognisable is taken as
    /// rollouts (its lines then say what is wrong with them).
    pub fn classify(paths: &[PathBuf], correct: &[PathBuf]) -> Result<Inputs> {
        let mut inputs = Inputs::default();
        let named = paths
            .iter()
            .chain(correct.iter().filter(|c| !paths.contains(c)));
        for p in named {
            if let Some(runs) = find_runs(p)? {
                if p.is_dir() && runs.iter().all(|r| r.dir != *p) {
                    inputs.folders.push(GivenFolder {
                        path: p.clone(),
                        holds: FolderHolds::Runs,
                        present: subfolders(p),
                    });
                }
                inputs.runs.extend(runs.into_iter().map(|run| RunInput {
                    path: run.dir.clone(),
                    correct: false,
                    dump: Some(run),
                }));
                continue;
            }
            if p.is_dir() {
                let files = folder_files(p)?;
                inputs.folders.push(GivenFolder {
                    path: p.clone(),
                    holds: FolderHolds::Files,
                    present: files.clone(),
                });
                let before = inputs.runs.len() + inputs.reports.len() + inputs.datasets.len();
                for f in files {
                    inputs.add_file(&f, correct, true)?;
                }
                let after = inputs.runs.len() + inputs.reports.len() + inputs.datasets.len();
                if after == before && inputs.api_doc.is_none() {
                    bail!(
                        "{} holds no rollout file, scored file or training-run step file ({{step}}.jsonl)",
                        p.display()
                    );
                }
                continue;
            }
            if !p.is_file() {
                bail!("no such file or folder: {}", p.display());
            }
            inputs.add_file(p, correct, false)?;
        }
        Ok(inputs)
    }

    fn add_file(&mut self, f: &Path, correct: &[PathBuf], from_folder: bool) -> Result<()> {
        let kind = match classify_file(f).with_context(|| format!("cannot read {}", f.display()))? {
            Some(kind) => kind,
            None if from_folder => {
                self.notes
                    .push(format!("skipped {}: not a file sebx reads", f.display()));
                return Ok(());
            }
            None => FileKind::Rollouts,
        };
        let kind = if kind == FileKind::Rollouts && correct.iter().any(|c| c == f) {
            FileKind::CorrectTrajectories
        } else {
            kind
        };
        match kind {
            FileKind::Rollouts | FileKind::CorrectTrajectories => self.runs.push(RunInput {
                path: f.to_path_buf(),
                correct: kind.all_right(),
                dump: None,
            }),
            FileKind::Reports => self.reports.push(f.to_path_buf()),
            FileKind::Dataset => self.datasets.push(f.to_path_buf()),
            FileKind::ApiDoc => {
                self.api_doc.get_or_insert(f.to_path_buf());
            }
        }
        Ok(())
    }

    /// The paths of the runs (a training run's folder).
    pub fn run_paths(&self) -> Vec<PathBuf> {
        self.runs.iter().map(|r| r.path.clone()).collect()
    }

    /// Where the API doc and datasets are: the flags first, then the paths given, then
    /// `$SEBX_API_DOC` and an SE-Bench checkout found from the runs' folders.
    pub fn discover(&self, context: &ContextArgs) -> Discovered {
        let api_doc = context.api_doc.clone().or(self.api_doc.clone());
        let mut datasets = context.dataset.clone();
        datasets.extend(self.datasets.iter().cloned());
        discover(api_doc.as_deref(), &datasets, &self.run_paths())
    }

    /// The API map and dataset, leniently: what cannot be read is a note (the explorer and
    /// the presenter still show the rollouts).
    pub fn load_context(
        &self,
        context: &ContextArgs,
        notes: &mut Vec<String>,
    ) -> (ApiMap, Dataset) {
        let found = self.discover(context);
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
        (api, dataset)
    }
}

/// Adds what belongs with the rollout files in `paths`: the API doc and dataset files in
/// their folders, and scored results `X.scored.jsonl` beside each `X.jsonl`.
pub fn add_companions(paths: &mut Vec<PathBuf>) {
    let mut scored = Vec::new();
    // The files' folders may hold the API doc and the tasks (as the demo's does).
    {
        let mut folders: Vec<PathBuf> = paths
            .iter()
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        folders.dedup();
        for dir in folders {
            let Ok(listing) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut found: Vec<PathBuf> = listing
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "jsonl"))
                .filter(|f| {
                    matches!(
                        classify_file(f),
                        Ok(Some(FileKind::ApiDoc | FileKind::Dataset))
                    )
                })
                .collect();
            found.sort();
            scored.extend(found.into_iter().filter(|f| !paths.contains(f)));
        }
    }
    for f in paths.iter() {
        if let Some(name) = f.file_name().and_then(|n| n.to_str())
            && let Some(stem) = name.strip_suffix(".jsonl")
            && !stem.ends_with(".scored")
        {
            let s = f.with_file_name(format!("{stem}.scored.jsonl"));
            if s.is_file() && !paths.contains(&s) {
                scored.push(s);
            }
        }
    }
    paths.extend(scored);
}

/// Input paths for a message: `a.jsonl`, `a.jsonl and b.jsonl`, `a.jsonl, b.jsonl and 3 more`.
pub fn named(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths
        .iter()
        .take(2)
        .map(|p| p.display().to_string())
        .collect();
    match paths.len() {
        0 => "no input".to_string(),
        1 | 2 => shown.join(" and "),
        n => format!("{} and {} more", shown.join(", "), n - 2),
    }
}

/// The rollouts of a run file, or of a training run's folder (its samples joined to the
/// tasks of `dataset`, as the explorer joined them when they were labelled).
pub fn read_run(path: &Path, dataset: Option<&Dataset>) -> Result<LoadedFile> {
    if path.is_dir()
        && let Some(runs) = find_runs(path)?
        && let [run] = runs.as_slice()
    {
        let empty = Dataset::default();
        let dataset = dataset.unwrap_or(&empty);
        let join = crate::model::verl::JoinIndex::new(dataset);
        let mut reader = crate::model::verl::RunReader::new(&join, dataset);
        let mut loaded = LoadedFile {
            issues: [run.skipped_notes(), run.reading_notes()].concat(),
            ..LoadedFile::default()
        };
        for f in &run.steps {
            let bytes = std::fs::read(&f.path)
                .with_context(|| format!("cannot read {}", f.path.display()))?;
            let step = reader.read_step(&f.path, f.step, &bytes);
            loaded.rollouts.extend(step.rollouts);
            loaded.issues.extend(step.issues);
            loaded.lines += step.lines;
        }
        return Ok(loaded);
    }
    crate::model::rollout::load_rollout_file(path)
        .with_context(|| format!("cannot read {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_stands_for_its_rollout_files_without_sidecars() {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = r#"{"query": "q", "response": "r", "test_cases": [], "right_exe_result": "1"}"#;
        for name in ["b.jsonl", "a.jsonl"] {
            std::fs::write(dir.path().join(name), format!("{line}\n")).expect("write");
        }
        std::fs::write(dir.path().join("a.jsonl.labels.jsonl"), "{}\n").expect("write");
        std::fs::write(dir.path().join("notes.txt"), "x").expect("write");
        let inputs = Inputs::classify(&[dir.path().to_path_buf()], &[]).expect("classify");
        let names: Vec<String> = inputs
            .runs
            .iter()
            .map(|r| {
                r.path
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(names, ["a.jsonl", "b.jsonl"]);
        let empty = tempfile::tempdir().expect("tempdir");
        let err = Inputs::classify(&[empty.path().to_path_buf()], &[]).expect_err("empty");
        assert!(err.to_string().contains("holds no rollout file"), "{err}");
        let missing = Inputs::classify(&[dir.path().join("nope.jsonl")], &[]).expect_err("missing");
        assert!(missing.to_string().contains("no such file"), "{missing}");
    }

    #[test]
    fn correct_files_are_inputs_and_correct_whatever_their_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let line = r#"{"query": "q", "response": "r", "test_cases": [], "right_exe_result": "1"}"#;
        let f = dir.path().join("picked.jsonl");
        std::fs::write(&f, format!("{line}\n")).expect("write");
        let inputs = Inputs::classify(&[], std::slice::from_ref(&f)).expect("classify");
        assert_eq!(inputs.runs.len(), 1);
        assert!(inputs.runs[0].correct);
        let plain = Inputs::classify(std::slice::from_ref(&f), &[]).expect("classify");
        assert!(!plain.runs[0].correct);
    }
}
