//! Agreement between two annotators: Cohen's kappa per category and overall, and the
//! rollouts they disagree on.
//!
//! Only rollouts both annotators currently label are compared. For each category, each
//! rollout is a binary rating (category present or absent in the annotator's label set),
//! and Cohen's kappa is `(p_o - p_e) / (1 - p_e)` with `p_o` the observed agreement and
//! `p_e` the agreement expected by chance from each annotator's own rate.
//!
//! Overall kappa is the **unweighted mean of the per-category kappas that are defined**.
//! A category's kappa is undefined when `p_e = 1` (both annotators gave the same
//! answer on every rollout, e.g. neither ever used it); such categories are left out of
//! the mean. The share of rollouts with identical label sets is reported alongside.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::labels::LabelRecord;
use super::rollout::RolloutId;
use super::taxonomy::CategoryId;

/// Agreement on one category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CategoryAgreement {
    pub category: CategoryId,
    /// Rollouts where both annotators chose it.
    pub both: usize,
    /// Only the first annotator chose it.
    pub only_a: usize,
    /// Only the second annotator chose it.
    pub only_b: usize,
    /// Neither chose it.
    pub neither: usize,
    /// Observed agreement `p_o`.
    pub observed: f64,
    /// Chance agreement `p_e`.
    pub expected: f64,
    /// Cohen's kappa; `None` when undefined (`p_e = 1`) or nothing was compared.
    pub kappa: Option<f64>,
}

/// A rollout the two annotators labelled differently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    pub rollout: RolloutId,
    pub categories_a: Vec<CategoryId>,
    pub categories_b: Vec<CategoryId>,
    pub note_a: String,
    pub note_b: String,
}

/// Agreement between annotators `a` and `b`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    pub annotator_a: String,
    pub annotator_b: String,
    /// Rollouts both annotators label.
    pub compared: usize,
    /// Rollouts only `a` labels, only `b` labels.
    pub only_labelled_by_a: usize,
    pub only_labelled_by_b: usize,
    pub per_category: Vec<CategoryAgreement>,
    /// Mean of the defined per-category kappas (see the module doc).
    pub mean_kappa: Option<f64>,
    /// Share of compared rollouts whose label sets are identical.
    pub exact_set_agreement: Option<f64>,
    pub disagreements: Vec<Disagreement>,
}

/// Compares the current labels of annotators `a` and `b`. `categories` fixes the order of
/// the per-category rows; categories found in the labels but not listed are added after.
pub fn compare_annotators(
    labels: &[&LabelRecord],
    a: &str,
    b: &str,
    categories: &[CategoryId],
) -> Agreement {
    let by = |who: &str| -> BTreeMap<&RolloutId, &LabelRecord> {
        labels
            .iter()
            .filter(|r| r.annotator == who)
            .map(|r| (&r.rollout, *r))
            .collect()
    };
    let labels_a = by(a);
    let labels_b = by(b);
    let shared: Vec<&RolloutId> = labels_a
        .keys()
        .filter(|id| labels_b.contains_key(*id))
        .copied()
        .collect();

    let mut order: Vec<CategoryId> = categories.to_vec();
    let mut seen: BTreeSet<CategoryId> = order.iter().cloned().collect();
    for id in &shared {
        for c in labels_a[id]
            .categories
            .iter()
            .chain(&labels_b[id].categories)
        {
            if seen.insert(c.clone()) {
                order.push(c.clone());
            }
        }
    }

    let sets = |r: &LabelRecord| -> BTreeSet<CategoryId> { r.categories.iter().cloned().collect() };
    let pairs: Vec<(BTreeSet<CategoryId>, BTreeSet<CategoryId>)> = shared
        .iter()
        .map(|id| (sets(labels_a[id]), sets(labels_b[id])))
        .collect();

    let per_category: Vec<CategoryAgreement> = order
        .iter()
        .map(|c| {
            let ratings: Vec<(bool, bool)> = pairs
                .iter()
                .map(|(sa, sb)| (sa.contains(c), sb.contains(c)))
                .collect();
            binary_agreement(c.clone(), &ratings)
        })
        .collect();

    let defined: Vec<f64> = per_category.iter().filter_map(|c| c.kappa).collect();
    let mean_kappa =
        (!defined.is_empty()).then(|| defined.iter().sum::<f64>() / defined.len() as f64);
    let identical = pairs.iter().filter(|(sa, sb)| sa == sb).count();
    let exact_set_agreement = (!pairs.is_empty()).then(|| identical as f64 / pairs.len() as f64);

    let disagreements = shared
        .iter()
        .zip(&pairs)
        .filter(|(_, (sa, sb))| sa != sb)
        .map(|(id, (sa, sb))| Disagreement {
            rollout: (*id).clone(),
            categories_a: sa.iter().cloned().collect(),
            categories_b: sb.iter().cloned().collect(),
            note_a: labels_a[id].note.clone(),
            note_b: labels_b[id].note.clone(),
        })
        .collect();

    Agreement {
        annotator_a: a.to_string(),
        annotator_b: b.to_string(),
        compared: shared.len(),
        only_labelled_by_a: labels_a.len() - shared.len(),
        only_labelled_by_b: labels_b.len() - shared.len(),
        per_category,
        mean_kappa,
        exact_set_agreement,
        disagreements,
    }
}

/// Cohen's kappa over binary ratings `(a says present, b says present)`.
pub fn binary_agreement(category: CategoryId, ratings: &[(bool, bool)]) -> CategoryAgreement {
    let count = |f: fn(&(bool, bool)) -> bool| ratings.iter().filter(|r| f(r)).count();
    let both = count(|r| r.0 && r.1);
    let only_a = count(|r| r.0 && !r.1);
    let only_b = count(|r| !r.0 && r.1);
    let neither = count(|r| !r.0 && !r.1);
    let n = ratings.len() as f64;
    if ratings.is_empty() {
        return CategoryAgreement {
            category,
            both,
            only_a,
            only_b,
            neither,
            observed: f64::NAN,
            expected: f64::NAN,
            kappa: None,
        };
    }
    let observed = (both + neither) as f64 / n;
    let a_yes = (both + only_a) as f64 / n;
    let b_yes = (both + only_b) as f64 / n;
    let expected = a_yes * b_yes + (1.0 - a_yes) * (1.0 - b_yes);
    // p_e = 1 only when both annotators are constant and equal: kappa is 0/0.
    let kappa = ((1.0 - expected).abs() > 1e-12).then(|| (observed - expected) / (1.0 - expected));
    CategoryAgreement {
        category,
        both,
        only_a,
        only_b,
        neither,
        observed,
        expected,
        kappa,
    }
}
