//! The rollouts a report shows as examples: a few for each loophole kind the figures count,
//! each hand-label category, each failing verdict and the wrong names, chosen from the
//! same rollout facts the figures count (an example of a loophole is one the loophole
//! figure counted), in a fixed order so the same inputs give the same page. Where each one
//! lives on disk (the run's file, or its step file) is said here too; the front end that
//! draws them loads only those files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::grade::runs::RolloutFacts;
use crate::model::Verdict;
use crate::model::finding_kinds::{Family, KINDS};
use crate::model::rollout::RolloutId;

use super::inputs::Inputs;
use super::loaded::Loaded;

/// One rollout to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExamplePick {
    /// The run's name.
    pub run: String,
    /// The path to load it from: the run's file, or `RUN@STEP` for a training sample.
    pub load: PathBuf,
    /// The training step, for a sample of a training run.
    pub step: Option<u32>,
    /// 1-based line in its file.
    pub line: usize,
    pub id: RolloutId,
    pub verdict: Verdict,
    pub reward: Option<u8>,
}

/// Examples of one kind of behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleGroup {
    /// Short name, unique on a page (used in ids and file names).
    pub id: String,
    pub title: String,
    /// What the group's rollouts have in common, and how many the figures counted.
    pub about: String,
    pub picks: Vec<ExamplePick>,
}

/// Chooses up to `per_group` rollouts for each group that has any: the loophole kinds, the
/// hand-label categories (the error categories, when any rollout is labelled; else the
/// failing verdicts) and the wrong names, in that order. Paid
/// loopholes (verdict right or reward 1) come first; training samples of later steps first,
/// and of a step already chosen before others (fewer files to load); no rollout is shown
/// twice while another candidate is left. `inputs` are the paths the report was given (to
/// find where each run's rollouts live).
pub fn pick_examples(loaded: &Loaded, inputs: &[PathBuf], per_group: usize) -> Picked {
    if per_group == 0 {
        return Picked::default();
    }
    let classified = Inputs::classify(inputs, &[]).unwrap_or_default();
    let places = run_places(loaded, &classified);
    let set = &loaded.set;
    let mut chosen: BTreeSet<usize> = BTreeSet::new();
    let mut steps: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut groups = Vec::new();
    let mut group = |id: String,
                     title: String,
                     about: String,
                     candidates: Vec<usize>,
                     prefer: &dyn Fn(&RolloutFacts) -> bool| {
        if candidates.is_empty() {
            return;
        }
        let mut order = candidates.clone();
        order.sort_by_key(|&i| {
            let r = &set.rollouts[i];
            let step = r.sample.map(|s| s.step);
            (
                chosen.contains(&i),
                !prefer(r),
                step.is_some_and(|s| !steps.contains(&(r.run, s))),
                std::cmp::Reverse(step),
                i,
            )
        });
        let picks: Vec<ExamplePick> = order
            .into_iter()
            .filter_map(|i| {
                let r = &set.rollouts[i];
                let pick = pick_of(loaded, &places, r)?;
                chosen.insert(i);
                if let Some(s) = r.sample {
                    steps.insert((r.run, s.step));
                }
                Some(pick)
            })
            .take(per_group)
            .collect();
        if !picks.is_empty() {
            groups.push(ExampleGroup {
                id,
                title,
                about: format!("{about} ({} in all)", candidates.len()),
                picks,
            });
        }
    };
    let indices = || 0..set.rollouts.len();
    let paid = |r: &RolloutFacts| r.verdict == Verdict::Right || r.reward == Some(1);
    for spec in KINDS.iter().filter(|s| s.family == Family::Loophole) {
        let bit = spec.kind.bit();
        let candidates: Vec<usize> = indices()
            .filter(|&i| set.rollouts[i].kinds & bit != 0)
            .collect();
        group(
            format!("loophole-{}", spec.name),
            format!("Loophole: {}", spec.name),
            format!(
                "Rollouts the loophole figures count under {} ({}); paid ones first",
                spec.name, spec.label
            ),
            candidates,
            &paid,
        );
    }
    let mut categories: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for i in indices() {
        for c in set.rollouts[i].labels.iter().flatten() {
            categories.entry(c.as_str()).or_default().push(i);
        }
    }
    let order: Vec<&str> = loaded
        .runs
        .iter()
        .flat_map(|r| r.categories.iter().map(String::as_str))
        .chain(categories.keys().copied())
        .collect();
    let mut seen = BTreeSet::new();
    for c in order {
        if !seen.insert(c) {
            continue;
        }
        let Some(candidates) = categories.get(c) else {
            continue;
        };
        group(
            format!("label-{c}"),
            format!("Labelled: {c}"),
            format!("Rollouts labelled {c} by hand"),
            candidates.clone(),
            &|_| true,
        );
    }
    let failing = if categories.is_empty() {
        [
            Verdict::ResultError,
            Verdict::ExeError,
            Verdict::UseNumpy,
            Verdict::WithoutZwc,
        ]
        .as_slice()
    } else {
        &[]
    };
    for &v in failing {
        let candidates: Vec<usize> = indices()
            .filter(|&i| set.rollouts[i].verdict == v)
            .collect();
        group(
            format!("verdict-{}", v.as_str()),
            format!("Verdict: {}", v.as_str()),
            format!("Rollouts the evaluation judged {}", v.as_str()),
            candidates,
            &|r: &RolloutFacts| r.wrong.is_empty(),
        );
    }
    let wrong: Vec<usize> = indices()
        .filter(|&i| !set.rollouts[i].wrong.is_empty())
        .collect();
    group(
        "wrong-names".to_string(),
        "Wrong names".to_string(),
        "Rollouts that call a zwc name the API does not have (a NumPy name, or one made up)"
            .to_string(),
        wrong,
        &|r: &RolloutFacts| r.verdict != Verdict::Right,
    );
    // The picks' files once each, in order, then every input that is not a run (API doc,
    // datasets, scored files).
    let mut paths: Vec<PathBuf> = Vec::new();
    for p in groups.iter().flat_map(|g| &g.picks) {
        if !paths.contains(&p.load) {
            paths.push(p.load.clone());
        }
    }
    paths.extend(classified.reports);
    paths.extend(classified.datasets);
    paths.extend(classified.api_doc);
    Picked { groups, paths }
}

/// The examples chosen, and the paths to load to draw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picked {
    pub groups: Vec<ExampleGroup>,
    pub paths: Vec<PathBuf>,
}

/// Where a run's rollouts are read from: its file, or its training folder.
enum Place {
    File(PathBuf),
    Training(PathBuf),
}

fn run_places(loaded: &Loaded, classified: &Inputs) -> Vec<Option<Place>> {
    loaded
        .runs
        .iter()
        .map(|run| {
            let input = classified
                .runs
                .iter()
                .find(|i| i.path == run.path || i.dump.as_ref().is_some_and(|d| d.dir == run.path));
            match input {
                Some(i) => Some(match &i.dump {
                    Some(d) => Place::Training(d.dir.clone()),
                    None => Place::File(i.path.clone()),
                }),
                None if run.path.is_file() => Some(Place::File(run.path.clone())),
                None => None,
            }
        })
        .collect()
}

fn pick_of(loaded: &Loaded, places: &[Option<Place>], r: &RolloutFacts) -> Option<ExamplePick> {
    let run = loaded.runs.get(r.run as usize)?;
    let (load, step) = match (places.get(r.run as usize)?.as_ref()?, r.sample) {
        (Place::File(p), _) => (p.clone(), None),
        (Place::Training(dir), Some(s)) => (
            PathBuf::from(format!("{}@{}", dir.display(), s.step)),
            Some(s.step),
        ),
        (Place::Training(_), None) => return None,
    };
    Some(ExamplePick {
        run: run.name.clone(),
        load,
        step,
        line: r.line,
        id: r.id.clone(),
        verdict: r.verdict,
        reward: r.reward,
    })
}

/// One example drawn: the view as HTML (a `<pre>` with inline styles) and as SVG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnExample {
    pub html: String,
    pub svg: String,
}

/// Draws the examples of a report (the explorer's export does it): for each pick, its view,
/// or `None` when it was not found in the files loaded.
pub trait ExampleDrawer {
    fn draw(&self, request: &ExampleRequest) -> anyhow::Result<Vec<Option<DrawnExample>>>;
}

/// What drawing a report's examples needs: the paths to load (the picks' files and the
/// context given with the runs), the options the inputs were read with, and the picks.
#[derive(Debug, Clone)]
pub struct ExampleRequest {
    pub paths: Vec<PathBuf>,
    pub context: crate::model::discovery::ContextArgs,
    pub cache: super::caches::CacheFlags,
    pub sidecars: super::sidecars::SidecarFlags,
    pub picks: Vec<ExamplePick>,
    /// Columns of each view.
    pub width: u16,
}
