//! Hand-label figures: per category, its prevalence among labelled failures with a Wilson
//! interval, and whether the labelled failures are a random sample.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Verdict;
use crate::model::sampling::label_order_key;

use super::statistics::wilson_ci95;
use super::{RolloutFacts, RunSet};

/// How the labelled failures of a run were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LabelSample {
    /// No failure is labelled.
    None,
    /// Every failure is labelled (a census: no sampling error).
    All,
    /// The labelled failures are exactly the first ones of the seeded random order.
    Random,
    /// Anything else: chosen by a person or by file order; an interval would assume a
    /// random sample it is not.
    Picked,
}

/// One category's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryStats {
    pub category: String,
    /// Labelled rollouts (any verdict) carrying it.
    pub count: usize,
    /// Labelled failures carrying it.
    pub failures: usize,
    /// `failures` over the labelled failures.
    pub prevalence: Option<f64>,
    /// Wilson 95% interval of the prevalence.
    pub prevalence_ci95: Option<(f64, f64)>,
}

/// Hand-label figures of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LabelStats {
    pub run: String,
    pub labelled: usize,
    pub failures: usize,
    pub labelled_failures: usize,
    pub sample: LabelSample,
    pub seed: u64,
    pub categories: Vec<CategoryStats>,
}

/// Label counts and prevalence among failures for one run. `order` fixes the category
/// order (taxonomy order); categories not in it follow, sorted.
pub fn label_stats(set: &RunSet, run: u32, order: &[String], seed: u64) -> LabelStats {
    let rollouts: Vec<&RolloutFacts> = set.rollouts.iter().filter(|r| r.run == run).collect();
    let mut failures: Vec<&RolloutFacts> = rollouts
        .iter()
        .copied()
        .filter(|r| r.verdict != Verdict::Right)
        .collect();
    let labelled = rollouts.iter().filter(|r| r.labels.is_some()).count();
    let labelled_failures = failures.iter().filter(|r| r.labels.is_some()).count();
    failures.sort_by_cached_key(|r| label_order_key(seed, &r.id));
    let sample = if labelled_failures == 0 {
        LabelSample::None
    } else if labelled_failures == failures.len() {
        LabelSample::All
    } else if failures[..labelled_failures]
        .iter()
        .all(|r| r.labels.is_some())
    {
        LabelSample::Random
    } else {
        LabelSample::Picked
    };
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for r in &rollouts {
        for c in r.labels.iter().flatten() {
            let e = counts.entry(c.as_str()).or_default();
            e.0 += 1;
            if r.verdict != Verdict::Right {
                e.1 += 1;
            }
        }
    }
    let mut names: Vec<String> = order
        .iter()
        .filter(|c| counts.contains_key(c.as_str()))
        .cloned()
        .collect();
    names.extend(
        counts
            .keys()
            .filter(|c| !order.iter().any(|o| o == *c))
            .map(|c| c.to_string()),
    );
    let categories = names
        .into_iter()
        .map(|c| {
            let (count, fails) = counts.get(c.as_str()).copied().unwrap_or_default();
            CategoryStats {
                prevalence: (labelled_failures > 0)
                    .then(|| fails as f64 / labelled_failures as f64),
                prevalence_ci95: wilson_ci95(fails, labelled_failures),
                category: c,
                count,
                failures: fails,
            }
        })
        .collect();
    LabelStats {
        run: set.runs[run as usize].clone(),
        labelled,
        failures: failures.len(),
        labelled_failures,
        sample,
        seed,
        categories,
    }
}
