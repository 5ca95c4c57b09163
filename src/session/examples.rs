//! The rollouts a report shows as examples: a few for each loophole kind the figures count,
//! each hand-label category, each failing verdict and the wrong names, chosen from the
//! same rollout facts the figures count (an example of a loophole is one the loophole
//! figure counted), in a fixed order so the same inputs give the same page. Where each one
//! lives on disk (the run's file, or its step file) is said here too, as the report's
//! session classified it; the front end that draws them loads only those lines, with the
//! session's API map and dataset (nothing is classified or read twice).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::path::PathBuf;

use crate::grade::runs::RolloutFacts;
use crate::model::Verdict;
use crate::model::finding_kinds::{Family, KINDS};
use crate::model::rollout::RolloutId;

use super::inputs::{Inputs, RunInput};
use super::loaded::Loaded;
use super::setup::Session;

/// One rollout to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExamplePick {
    /// The run's name.
    pub run: String,
    /// Where its line is: the run's file, or the training run's folder (with `step`).
    pub source: PathBuf,
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
/// twice while another candidate is left. `given` are the inputs of the session `loaded`
/// was loaded from (where each run's rollouts live).
pub fn pick_examples(loaded: &Loaded, given: &Inputs, per_group: usize) -> Picked {
    if per_group == 0 {
        return Picked::default();
    }
    let places = run_places(loaded, given);
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
        // The best few of what may be most of a big run (every failing sample): a heap
        // built in one pass, popped only as far as the picks go.
        let mut order: BinaryHeap<_> = candidates
            .iter()
            .map(|&i| {
                let r = &set.rollouts[i];
                let step = r.sample.map(|s| s.step);
                Reverse((
                    chosen.contains(&i),
                    !prefer(r),
                    step.is_some_and(|s| !steps.contains(&(r.run, s))),
                    Reverse(step),
                    i,
                ))
            })
            .collect();
        let picks: Vec<ExamplePick> = std::iter::from_fn(|| order.pop().map(|Reverse(k)| k.4))
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
    // Every group's candidates in one pass over the rollouts (a big run has 200,000).
    let loophole_kinds: Vec<_> = KINDS
        .iter()
        .filter(|s| s.family == Family::Loophole)
        .collect();
    let loophole_bits = loophole_kinds.iter().fold(0, |m, s| m | s.kind.bit());
    let mut by_kind: Vec<Vec<usize>> = vec![Vec::new(); loophole_kinds.len()];
    let mut categories: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut by_verdict: BTreeMap<Verdict, Vec<usize>> = BTreeMap::new();
    let mut wrong: Vec<usize> = Vec::new();
    for (i, r) in set.rollouts.iter().enumerate() {
        if r.kinds & loophole_bits != 0 {
            for (k, spec) in loophole_kinds.iter().enumerate() {
                if r.kinds & spec.kind.bit() != 0 {
                    by_kind[k].push(i);
                }
            }
        }
        for c in r.labels.iter().flatten() {
            categories.entry(c.as_str()).or_default().push(i);
        }
        // Only failing verdicts make groups.
        if r.verdict != Verdict::Right {
            by_verdict.entry(r.verdict).or_default().push(i);
        }
        if !r.wrong.is_empty() {
            wrong.push(i);
        }
    }
    let paid = |r: &RolloutFacts| r.verdict == Verdict::Right || r.reward == Some(1);
    for (spec, candidates) in loophole_kinds.iter().zip(by_kind) {
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
    let order: Vec<&str> = loaded
        .runs
        .iter()
        .flat_map(|r| r.categories.iter().map(String::as_str))
        .chain(categories.keys().copied())
        .collect();
    let labelled = !categories.is_empty();
    let mut seen = BTreeSet::new();
    for c in order {
        if !seen.insert(c) {
            continue;
        }
        let Some(candidates) = categories.remove(c) else {
            continue;
        };
        group(
            format!("label-{c}"),
            format!("Labelled: {c}"),
            format!("Rollouts labelled {c} by hand"),
            candidates,
            &|_| true,
        );
    }
    let failing = if !labelled {
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
        group(
            format!("verdict-{}", v.as_str()),
            format!("Verdict: {}", v.as_str()),
            format!("Rollouts the evaluation judged {}", v.as_str()),
            by_verdict.remove(&v).unwrap_or_default(),
            &|r: &RolloutFacts| r.wrong.is_empty(),
        );
    }
    group(
        "wrong-names".to_string(),
        "Wrong names".to_string(),
        "Rollouts that call a zwc name the API does not have (a NumPy name, or one made up)"
            .to_string(),
        wrong,
        &|r: &RolloutFacts| r.verdict != Verdict::Right,
    );
    // The picks' runs once each, in order (a training run narrowed to the picked step), then
    // the scored files given (their verdicts are shown).
    let mut inputs = Inputs::default();
    for p in groups.iter().flat_map(|g| &g.picks) {
        let Some(run) = pick_input(given, p) else {
            continue;
        };
        if !inputs.runs.contains(&run) {
            inputs.runs.push(run);
        }
    }
    inputs.reports.clone_from(&given.reports);
    Picked { groups, inputs }
}

/// The examples chosen, and the inputs to load to draw them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picked {
    pub groups: Vec<ExampleGroup>,
    /// The picks' runs as the session classified them (a training run: the picked step
    /// alone, as `RUN@STEP` names it) and the scored files given; no context (the drawer
    /// has the session's).
    pub inputs: Inputs,
}

/// The run `pick` is read from, as `given` has it: its rollout file, or its training run's
/// step alone.
fn pick_input(given: &Inputs, pick: &ExamplePick) -> Option<RunInput> {
    let input = given.runs.iter().find(|i| i.path == pick.source);
    match (input, pick.step) {
        (Some(i), Some(step)) => Some(RunInput {
            path: i.path.clone(),
            correct: i.correct,
            dump: Some(i.dump.as_ref()?.at_step(step)?),
        }),
        (Some(i), None) => Some(i.clone()),
        // A run found by its file alone ([`run_places`]).
        (None, None) => Some(RunInput {
            path: pick.source.clone(),
            correct: false,
            dump: None,
        }),
        (None, Some(_)) => None,
    }
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
    let (source, step) = match (places.get(r.run as usize)?.as_ref()?, r.sample) {
        (Place::File(p), _) => (p.clone(), None),
        (Place::Training(dir), Some(s)) => (dir.clone(), Some(s.step)),
        (Place::Training(_), None) => return None,
    };
    Some(ExamplePick {
        run: run.name.clone(),
        source,
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
pub trait ExampleDrawer: Sync {
    fn draw(&self, request: &ExampleRequest<'_>) -> anyhow::Result<Vec<Option<DrawnExample>>>;
}

/// What drawing a report's examples needs: the report's session (its API map and dataset
/// as read, its cache and sidecar places), the picks' inputs ([`Picked::inputs`]) and the
/// picks.
#[derive(Debug, Clone)]
pub struct ExampleRequest<'a> {
    pub session: &'a Session,
    pub inputs: Inputs,
    pub picks: Vec<ExamplePick>,
    /// Columns of each view.
    pub width: u16,
}
