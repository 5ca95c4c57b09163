//! The internalization heat map of a training run, laid out from the step figures: rows
//! are zwc functions in a [`HeatSort`] order (name, first step solved, last-step accuracy,
//! loophole rate), columns are step ranges of one round span whose labels fit what the
//! front end has room for ([`even_bins`]). The CLI's tables and the Training screen draw
//! the same map.

use std::collections::BTreeSet;

use super::steps::{FunctionStep, TrainingFigures};

/// The heat map of one run: zwc functions (rows, in a [`HeatSort`] order) × step ranges
/// (columns of equal span: see [`even_bins`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HeatMap {
    pub run: u32,
    /// (function index, zwc name, NumPy name).
    pub rows: Vec<(u32, String, String)>,
    /// Inclusive step ranges.
    pub bins: Vec<(u32, u32)>,
    /// Per row, per bin: (graded samples, right).
    pub cells: Vec<Vec<(usize, usize)>>,
    /// The order of the rows.
    pub sort: HeatSort,
}

impl HeatMap {
    /// The accuracy of a cell, when it has samples.
    pub fn accuracy(&self, row: usize, bin: usize) -> Option<f64> {
        let (n, right) = *self.cells.get(row)?.get(bin)?;
        (n > 0).then(|| right as f64 / n as f64)
    }
}

/// The order of the heat map's rows (ties: by NumPy name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeatSort {
    /// By NumPy name.
    #[default]
    Name,
    /// Earliest first step solved first (never solved last).
    FirstSolved,
    /// Lowest accuracy at the function's last step first.
    LastAccuracy,
    /// Highest share of samples `right` through a loophole first.
    LoopholeRate,
}

impl HeatSort {
    /// The next order (a key cycles through them).
    pub fn next(self) -> HeatSort {
        match self {
            HeatSort::Name => HeatSort::FirstSolved,
            HeatSort::FirstSolved => HeatSort::LastAccuracy,
            HeatSort::LastAccuracy => HeatSort::LoopholeRate,
            HeatSort::LoopholeRate => HeatSort::Name,
        }
    }

    /// In words, for a header.
    pub fn label(self) -> &'static str {
        match self {
            HeatSort::Name => "by NumPy name",
            HeatSort::FirstSolved => "by first step solved (never: last)",
            HeatSort::LastAccuracy => "by last-step accuracy, lowest first",
            HeatSort::LoopholeRate => "by loophole rate, highest first",
        }
    }
}

/// A step range as a column label: `7`, or `1-3`.
pub fn bin_label((lo, hi): (u32, u32)) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}-{hi}")
    }
}

/// Splits the sorted distinct `steps` into at most `max` consecutive ranges of near-equal
/// size (each step alone when they fit): the curves, one character per range.
pub fn step_bins(steps: &[u32], max: usize) -> Vec<(u32, u32)> {
    let max = max.max(1);
    if steps.len() <= max {
        return steps.iter().map(|s| (*s, *s)).collect();
    }
    (0..max)
        .filter_map(|b| {
            let lo = b * steps.len() / max;
            let hi = ((b + 1) * steps.len() / max).max(lo + 1) - 1;
            Some((*steps.get(lo)?, *steps.get(hi)?))
        })
        .collect()
}

/// Spans tried for [`even_bins`], smallest first: round numbers read best as labels.
fn spans() -> impl Iterator<Item = u32> {
    [1u32, 2, 3, 4, 5].into_iter().chain(
        (1..10u32).flat_map(|e| [10u32, 20, 25, 50].map(|m| m.saturating_mul(10u32.pow(e - 1)))),
    )
}

/// Splits the sorted distinct `steps` into ranges of one equal span of steps (`1-3`,
/// `4-6`, …, counted from the first step; a range holding no step is left out, and each
/// range is labelled by the first and last step it holds): the smallest round span whose
/// ranges `fit` (a front end's judgment: how many columns, how wide their labels). Each step
/// alone when they fit.
pub fn even_bins(steps: &[u32], fit: impl Fn(&[(u32, u32)]) -> bool) -> Vec<(u32, u32)> {
    let (Some(&first), Some(&last)) = (steps.first(), steps.last()) else {
        return Vec::new();
    };
    let alone: Vec<(u32, u32)> = steps.iter().map(|s| (*s, *s)).collect();
    if fit(&alone) {
        return alone;
    }
    let of_span = |k: u32| {
        let mut bins: Vec<(u32, u32)> = Vec::new();
        let mut current: Option<(u32, (u32, u32))> = None;
        for &s in steps {
            let b = (s - first) / k;
            match &mut current {
                Some((cb, range)) if *cb == b => range.1 = s,
                _ => {
                    bins.extend(current.map(|c| c.1));
                    current = Some((b, (s, s)));
                }
            }
        }
        bins.extend(current.map(|c| c.1));
        bins
    };
    for k in spans().skip(1) {
        let bins = of_span(k);
        if fit(&bins) || k > last - first {
            return bins;
        }
    }
    vec![(first, last)]
}

/// The heat map of run `run` from its figures: columns by [`even_bins`] under `fit`, rows
/// in `sort` order.
pub fn heat_map(
    fig: &TrainingFigures,
    run: u32,
    fit: impl Fn(&[(u32, u32)]) -> bool,
    sort: HeatSort,
) -> HeatMap {
    let cells: Vec<&FunctionStep> = fig
        .function_steps
        .iter()
        .filter(|c| c.run_index == run)
        .collect();
    let steps: Vec<u32> = fig
        .steps
        .iter()
        .filter(|s| fig.run_name_index(&s.run) == Some(run))
        .map(|s| s.step)
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .collect();
    let bins = even_bins(&steps, fit);
    let mut rows: Vec<(u32, String, String)> = cells
        .iter()
        .map(|c| (c.function, c.zwc.clone(), c.numpy.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    rows.sort_by(|a, b| a.2.cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    rows.dedup_by_key(|r| r.0);
    sort_rows(fig, run, &cells, &mut rows, sort);
    let grid = rows
        .iter()
        .map(|(f, _, _)| {
            bins.iter()
                .map(|(lo, hi)| {
                    cells
                        .iter()
                        .filter(|c| c.function == *f && c.step >= *lo && c.step <= *hi)
                        .fold((0, 0), |(n, r), c| (n + c.rollouts, r + c.right))
                })
                .collect()
        })
        .collect();
    HeatMap {
        run,
        rows,
        bins,
        cells: grid,
        sort,
    }
}

/// Orders heat-map rows (already by NumPy name, which breaks every tie) by `sort`.
fn sort_rows(
    fig: &TrainingFigures,
    run: u32,
    cells: &[&FunctionStep],
    rows: &mut [(u32, String, String)],
    sort: HeatSort,
) {
    let course = |f: u32| {
        fig.function_courses
            .iter()
            .find(|c| c.run_index == run && c.index == f)
    };
    match sort {
        HeatSort::Name => {}
        HeatSort::FirstSolved => {
            rows.sort_by_key(|r| course(r.0).and_then(|c| c.first_solved).unwrap_or(u32::MAX))
        }
        HeatSort::LastAccuracy => {
            let last = |f: u32| {
                let step = course(f)?.last_step;
                cells
                    .iter()
                    .find(|c| c.function == f && c.step == step)
                    .and_then(|c| c.accuracy())
            };
            rows.sort_by(|a, b| {
                let (x, y) = (last(a.0).unwrap_or(2.0), last(b.0).unwrap_or(2.0));
                x.total_cmp(&y)
            })
        }
        HeatSort::LoopholeRate => {
            let rate = |f: u32| {
                let (n, l) = cells
                    .iter()
                    .filter(|c| c.function == f)
                    .fold((0, 0), |(n, l), c| (n + c.rollouts, l + c.loophole_right));
                if n == 0 { 0.0 } else { l as f64 / n as f64 }
            };
            rows.sort_by(|a, b| rate(b.0).total_cmp(&rate(a.0)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Heat-map columns: equal spans of steps with whole labels, the smallest round span
    /// that fits; every step in exactly one column.
    #[test]
    fn even_bins_have_one_span_and_fit() {
        let fourteen: Vec<u32> = (1..=14).collect();
        assert_eq!(even_bins(&fourteen, |b| b.len() <= 14).len(), 14);
        assert_eq!(
            even_bins(&fourteen, |b| b.len() <= 11),
            [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14)]
        );
        assert_eq!(
            even_bins(&fourteen, |b| b.len() <= 5),
            [(1, 3), (4, 6), (7, 9), (10, 12), (13, 14)]
        );
        // Validation every 10 steps: a range is labelled by the steps it holds.
        let val: Vec<u32> = (0..=20).map(|s| s * 10).collect();
        assert_eq!(even_bins(&val, |b| b.len() <= 6)[..2], [(0, 40), (50, 90)],);
        for n in [1u32, 7, 14, 100, 437, 2000] {
            let steps: Vec<u32> = (1..=n).collect();
            for max in [1, 3, 7, 11, 40] {
                let bins = even_bins(&steps, |b| b.len() <= max);
                assert!(bins.len() <= max, "{n} steps, {max}: {bins:?}");
                let covered: Vec<u32> = bins.iter().flat_map(|(lo, hi)| *lo..=*hi).collect();
                assert_eq!(covered, steps, "{n} steps, {max}");
                // One span: every range but the last is as wide as the first.
                let span = bins[0].1 - bins[0].0;
                assert!(
                    bins[..bins.len() - 1].iter().all(|b| b.1 - b.0 == span),
                    "{bins:?}"
                );
            }
        }
        assert!(even_bins(&[], |_| true).is_empty());
    }

    #[test]
    fn step_bins_cover_every_step_once() {
        let steps: Vec<u32> = (0..500).map(|s| s * 2).collect();
        for max in [1, 7, 12, 499, 500, 600] {
            let bins = step_bins(&steps, max);
            assert_eq!(bins.len(), max.min(500), "{max}");
            assert_eq!(bins[0].0, 0);
            assert_eq!(bins.last().map(|b| b.1), Some(998));
            for w in bins.windows(2) {
                assert!(w[0].1 < w[1].0, "{max}: {w:?}");
            }
        }
    }
}
