//! Finding the API doc and dataset files: flags, then `SEBX_API_DOC`, then an
//! `api_doc.jsonl` beside the rollouts (in a rollout file's folder, or in a folder given as
//! input), then an SE-Bench checkout layout found from the rollout file's folder upwards or
//! the working directory.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

use super::{ApiMap, Dataset};

/// Where a file was found, so the user can be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Flag(PathBuf),
    Env(PathBuf),
    /// `api_doc.jsonl` in a rollout file's folder (or a folder given as input).
    Beside(PathBuf),
    Checkout(PathBuf),
}

impl Found {
    pub fn path(&self) -> &Path {
        match self {
            Found::Flag(p) | Found::Env(p) | Found::Beside(p) | Found::Checkout(p) => p,
        }
    }

    /// A one-line description for the user.
    pub fn describe(&self) -> String {
        match self {
            Found::Flag(p) => format!("{} (from the command line)", p.display()),
            Found::Env(p) => format!("{} (from SEBX_API_DOC)", p.display()),
            Found::Beside(p) => format!("{} (beside the rollouts)", p.display()),
            Found::Checkout(p) => format!("{} (found in an SE-Bench checkout)", p.display()),
        }
    }
}

/// The flags every command that reads rollouts takes to find its API doc and datasets
/// (flattened into each command's arguments, so they read and behave the same everywhere).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ContextArgs {
    /// The zwc API doc (api_doc.jsonl) or mappings.json: the names findings are checked
    /// against and the zwc runtime is generated from. Default: $SEBX_API_DOC, else an
    /// api_doc.jsonl beside the rollouts, else an SE-Bench checkout found from the rollout
    /// file's folder upwards.
    #[arg(long, value_name = "FILE")]
    pub api_doc: Option<PathBuf>,
    /// Dataset files to join rollouts to their tasks (repeatable); default: discovered
    /// like the API doc.
    #[arg(long, value_name = "FILE")]
    pub dataset: Vec<PathBuf>,
}

impl ContextArgs {
    /// What discovery finds for `files` with these flags (see [`discover`]).
    pub fn discover(&self, files: &[PathBuf]) -> Discovered {
        discover(self.api_doc.as_deref(), &self.dataset, files)
    }

    /// [`load_context`] with these flags.
    pub fn load(&self, files: &[PathBuf], required: bool) -> Result<(Option<ApiMap>, Dataset)> {
        load_context(self.api_doc.as_deref(), &self.dataset, files, required)
    }

    /// [`load_required`] with these flags.
    pub fn load_required(&self, files: &[PathBuf]) -> Result<(ApiMap, Dataset)> {
        load_required(self.api_doc.as_deref(), &self.dataset, files)
    }
}

/// What discovery found for a set of rollout files.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    pub api_doc: Option<Found>,
    pub datasets: Vec<Found>,
}

impl Discovered {
    /// Lines telling what was found and what is missing.
    pub fn report(&self) -> Vec<String> {
        let mut lines = Vec::new();
        match &self.api_doc {
            Some(f) => lines.push(format!("API doc: {}", f.describe())),
            None => lines.push(
                "API doc: not found (pass --api-doc FILE or set SEBX_API_DOC); grading needs it to build the zwc runtime".to_string(),
            ),
        }
        if self.datasets.is_empty() {
            lines.push(
                "dataset: none (pass --dataset FILE to join rollouts to their tasks)".to_string(),
            );
        }
        for d in &self.datasets {
            lines.push(format!("dataset: {}", d.describe()));
        }
        lines
    }
}

impl Discovered {
    /// The API map (`None` when no API doc was found) and every dataset found, loaded;
    /// a dataset's bad lines are in its `issues`.
    pub fn load(&self) -> Result<(Option<ApiMap>, Dataset)> {
        let api = match &self.api_doc {
            Some(found) => Some(ApiMap::load(found.path())?),
            None => None,
        };
        let mut dataset = Dataset::default();
        for found in &self.datasets {
            dataset
                .load_file(found.path())
                .with_context(|| format!("cannot read dataset {}", found.path().display()))?;
        }
        Ok((api, dataset))
    }
}

/// What every headless command does first: find the API doc and datasets for `files` (see
/// [`discover`]), say on stderr what was found and which dataset lines were bad, and load
/// them. Without an API doc: `None`, or an error naming the flag when `required`.
pub fn load_context(
    api_doc_flag: Option<&Path>,
    dataset_flags: &[PathBuf],
    files: &[PathBuf],
    required: bool,
) -> Result<(Option<ApiMap>, Dataset)> {
    let discovered = discover(api_doc_flag, dataset_flags, files);
    for line in discovered.report() {
        crate::warnln!("{line}");
    }
    if required && discovered.api_doc.is_none() {
        bail!(
            "no API doc: pass --api-doc FILE (the api_doc.jsonl of your zwc) or set SEBX_API_DOC"
        );
    }
    let (api, dataset) = discovered.load()?;
    for issue in &dataset.issues {
        crate::warnln!("warning: {issue}");
    }
    Ok((api, dataset))
}

/// [`load_context`] for commands that cannot work without the API doc.
pub fn load_required(
    api_doc_flag: Option<&Path>,
    dataset_flags: &[PathBuf],
    files: &[PathBuf],
) -> Result<(ApiMap, Dataset)> {
    let (api, dataset) = load_context(api_doc_flag, dataset_flags, files, true)?;
    Ok((api.unwrap_or_default(), dataset))
}

/// Resolves the API doc and datasets for `rollout_files`.
pub fn discover(
    api_doc_flag: Option<&Path>,
    dataset_flags: &[PathBuf],
    rollout_files: &[PathBuf],
) -> Discovered {
    discover_with(
        api_doc_flag,
        dataset_flags,
        rollout_files,
        std::env::var_os("SEBX_API_DOC").map(PathBuf::from),
        std::env::current_dir().ok(),
    )
}

/// [`discover`] with the environment passed in (for tests).
pub fn discover_with(
    api_doc_flag: Option<&Path>,
    dataset_flags: &[PathBuf],
    rollout_files: &[PathBuf],
    env_api_doc: Option<PathBuf>,
    cwd: Option<PathBuf>,
) -> Discovered {
    let mut starts: Vec<PathBuf> = rollout_files
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .filter_map(|f| f.parent().map(Path::to_path_buf))
        .collect();
    starts.extend(cwd);
    let checkout = starts.iter().find_map(|s| find_checkout(s));

    let api_doc = if let Some(p) = api_doc_flag {
        Some(Found::Flag(p.to_path_buf()))
    } else if let Some(p) = env_api_doc.filter(|p| !p.as_os_str().is_empty()) {
        Some(Found::Env(p))
    } else if let Some(p) = rollout_files
        .iter()
        .map(|f| {
            if f.is_dir() {
                f.join(API_DOC_NAME)
            } else {
                f.parent()
                    .map_or_else(|| PathBuf::from(API_DOC_NAME), |d| d.join(API_DOC_NAME))
            }
        })
        .find(|p| p.is_file())
    {
        Some(Found::Beside(p))
    } else {
        checkout
            .as_ref()
            .map(|root| Found::Checkout(root.join("datasets/train/api_doc.jsonl")))
    };

    let datasets = if !dataset_flags.is_empty() {
        dataset_flags.iter().cloned().map(Found::Flag).collect()
    } else if let Some(root) = &checkout {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("datasets/test"))
            .map(|rd| {
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files.into_iter().map(Found::Checkout).collect()
    } else {
        Vec::new()
    };
    Discovered { api_doc, datasets }
}

/// The API doc's file name beside rollouts.
pub const API_DOC_NAME: &str = "api_doc.jsonl";

/// The nearest folder at or above `start` holding `datasets/train/api_doc.jsonl`.
pub fn find_checkout(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join("datasets/train/api_doc.jsonl").is_file())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_beats_env_beats_checkout() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("datasets/train")).expect("mkdir");
        std::fs::create_dir_all(root.join("datasets/test")).expect("mkdir");
        std::fs::create_dir_all(root.join("runs/a")).expect("mkdir");
        std::fs::write(root.join("datasets/train/api_doc.jsonl"), "{}").expect("write");
        std::fs::write(root.join("datasets/test/single_test.jsonl"), "").expect("write");
        let rollouts = vec![root.join("runs/a/r.jsonl")];
        std::fs::write(&rollouts[0], "").expect("write");

        let d = discover_with(None, &[], &rollouts, None, None);
        let canon = std::fs::canonicalize(root).expect("canon");
        assert_eq!(
            d.api_doc,
            Some(Found::Checkout(canon.join("datasets/train/api_doc.jsonl")))
        );
        assert_eq!(d.datasets.len(), 1);

        let d = discover_with(
            None,
            &[],
            &rollouts,
            Some(PathBuf::from("/x/env.jsonl")),
            None,
        );
        assert_eq!(d.api_doc, Some(Found::Env(PathBuf::from("/x/env.jsonl"))));

        let d = discover_with(
            Some(Path::new("flag.jsonl")),
            &[],
            &rollouts,
            Some(PathBuf::from("/x")),
            None,
        );
        assert_eq!(d.api_doc, Some(Found::Flag(PathBuf::from("flag.jsonl"))));

        let d = discover_with(None, &[], &[], None, Some(PathBuf::from("/")));
        assert!(d.api_doc.is_none());
        assert!(d.report()[0].contains("not found"));
    }

    #[test]
    fn an_api_doc_beside_the_rollouts_beats_the_checkout_but_not_the_env() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("datasets/train")).expect("mkdir");
        std::fs::create_dir_all(root.join("runs/a")).expect("mkdir");
        std::fs::write(root.join("datasets/train/api_doc.jsonl"), "{}").expect("write");
        std::fs::write(root.join("runs/a/api_doc.jsonl"), "{}").expect("write");
        let file = root.join("runs/a/r.jsonl");
        std::fs::write(&file, "").expect("write");
        let beside = root.join("runs/a/api_doc.jsonl");
        // A rollout file: its folder; a folder given as input: inside it.
        for input in [file.clone(), root.join("runs/a")] {
            let d = discover_with(None, &[], std::slice::from_ref(&input), None, None);
            assert_eq!(d.api_doc, Some(Found::Beside(beside.clone())), "{input:?}");
            assert!(d.report()[0].contains("beside the rollouts"));
        }
        let env = PathBuf::from("/x/env.jsonl");
        let d = discover_with(None, &[], &[file], Some(env.clone()), None);
        assert_eq!(d.api_doc, Some(Found::Env(env)));
    }
}
