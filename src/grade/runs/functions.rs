//! The internalization map: per zwc function the tasks select, how a run did on it, and what
//! it wrote in its place.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Serialize, Serializer};

use crate::model::Verdict;

use super::{RunSet, vi};

/// One row of the internalization map: how a run (or all runs) did on one zwc function.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionRow {
    /// Index into [`RunSet::functions`].
    #[serde(skip)]
    pub function: u32,
    pub numpy: String,
    pub zwc: String,
    /// Tasks selecting it that have rollouts.
    pub tasks: usize,
    pub rollouts: usize,
    /// Rollouts graded `right`.
    pub right: usize,
    pub accuracy: f64,
    /// Rollouts whose code calls the right zwc name.
    #[serde(rename = "called_right_name")]
    pub called_right: usize,
    /// Rollouts where a NumPy name stood in its place.
    pub numpy_name: usize,
    /// Rollouts where an invented name stood in its place.
    pub invented_name: usize,
    /// The wrong names written in its place, most frequent first (occurrences).
    pub wrong_names: Vec<NameCount>,
    /// Count per verdict, indexed by official code; serialized as `{verdict: count}`.
    #[serde(serialize_with = "serialize_verdicts")]
    pub verdicts: [usize; 5],
    /// Verdicts `right` that went through a loophole (a sure finding of that family):
    /// accuracy that is not internalization.
    pub loophole_right: usize,
}

/// A name written in a function's place, and how often.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NameCount {
    pub name: String,
    pub count: usize,
}

/// Counts per verdict (indexed by official code) keyed by verdict name.
fn by_name(verdicts: &[usize; 5]) -> BTreeMap<&'static str, usize> {
    Verdict::ALL
        .iter()
        .map(|v| (v.as_str(), verdicts[vi(*v)]))
        .collect()
}

fn serialize_verdicts<S: Serializer>(verdicts: &[usize; 5], s: S) -> Result<S::Ok, S::Error> {
    by_name(verdicts).serialize(s)
}

impl FunctionRow {
    /// Verdict counts keyed by name, in the official order.
    pub fn verdict_map(&self) -> BTreeMap<&'static str, usize> {
        by_name(&self.verdicts)
    }
}

/// How to sort the internalization map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FunctionSort {
    /// Lowest accuracy first (ties: more rollouts first).
    #[default]
    Accuracy,
    /// Most rollouts first.
    Rollouts,
    /// Most wrong-name stand-ins (NumPy + invented) first.
    WrongNames,
    /// By NumPy name.
    Name,
}

/// The internalization map of `run` (all runs pooled when `None`).
pub fn function_map(set: &RunSet, run: Option<u32>, sort: FunctionSort) -> Vec<FunctionRow> {
    struct Acc {
        tasks: BTreeSet<u32>,
        row: FunctionRow,
        names: HashMap<u32, usize>,
    }
    let mut acc: BTreeMap<u32, Acc> = BTreeMap::new();
    for r in set
        .rollouts
        .iter()
        .filter(|r| run.is_none_or(|x| r.run == x))
    {
        for u in &r.uses {
            let key = &set.functions[u.function as usize];
            let a = acc.entry(u.function).or_insert_with(|| Acc {
                tasks: BTreeSet::new(),
                row: FunctionRow {
                    function: u.function,
                    numpy: key.numpy.clone(),
                    zwc: key.zwc.clone(),
                    tasks: 0,
                    rollouts: 0,
                    right: 0,
                    accuracy: 0.0,
                    called_right: 0,
                    numpy_name: 0,
                    invented_name: 0,
                    wrong_names: Vec::new(),
                    verdicts: [0; 5],
                    loophole_right: 0,
                },
                names: HashMap::new(),
            });
            a.tasks.insert(r.task);
            a.row.rollouts += 1;
            a.row.right += usize::from(r.verdict == Verdict::Right);
            a.row.called_right += usize::from(u.called_right);
            a.row.numpy_name += usize::from(u.numpy_name);
            a.row.invented_name += usize::from(u.invented_name);
            a.row.verdicts[vi(r.verdict)] += 1;
            a.row.loophole_right += usize::from(super::loopholes::right_by_loophole(r));
            for (name, target) in &r.wrong {
                if *target == Some(u.function) {
                    *a.names.entry(*name).or_default() += 1;
                }
            }
        }
    }
    let mut rows: Vec<FunctionRow> = acc
        .into_values()
        .map(|mut a| {
            a.row.tasks = a.tasks.len();
            a.row.accuracy = a.row.right as f64 / a.row.rollouts.max(1) as f64;
            let mut names: Vec<NameCount> = a
                .names
                .into_iter()
                .map(|(n, count)| NameCount {
                    name: set.names[n as usize].name.clone(),
                    count,
                })
                .collect();
            names.sort_by(|x, y| y.count.cmp(&x.count).then_with(|| x.name.cmp(&y.name)));
            a.row.wrong_names = names;
            a.row
        })
        .collect();
    sort_functions(&mut rows, sort);
    rows
}

/// Sorts map rows in place.
pub fn sort_functions(rows: &mut [FunctionRow], sort: FunctionSort) {
    match sort {
        FunctionSort::Accuracy => rows.sort_by(|a, b| {
            a.accuracy
                .total_cmp(&b.accuracy)
                .then(b.rollouts.cmp(&a.rollouts))
                .then_with(|| a.numpy.cmp(&b.numpy))
        }),
        FunctionSort::Rollouts => rows.sort_by(|a, b| {
            b.rollouts
                .cmp(&a.rollouts)
                .then_with(|| a.numpy.cmp(&b.numpy))
        }),
        FunctionSort::WrongNames => rows.sort_by(|a, b| {
            (b.numpy_name + b.invented_name)
                .cmp(&(a.numpy_name + a.invented_name))
                .then_with(|| a.numpy.cmp(&b.numpy))
        }),
        FunctionSort::Name => rows.sort_by(|a, b| a.numpy.cmp(&b.numpy)),
    }
}
