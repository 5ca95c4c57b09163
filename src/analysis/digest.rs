//! What every view keeps of one rollout's analysis (findings, zwc functions called, whether
//! the code parses), small enough to hold for 100,000 rows; and the one error-category
//! suggestion that the explorer and `sebx labels export` both show.

use std::collections::BTreeSet;

use super::graph::NodeKind;
use super::names::{Finding, FindingKind};
use super::solution::Analysis;
use crate::model::Verdict;
use crate::model::taxonomy::{Category, Taxonomy};

/// The parts of an [`Analysis`] that lists, filters, search and suggestions use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisDigest {
    /// The analysis's findings, in its order (with `no_code` when there is no python block).
    pub findings: Vec<Finding>,
    /// Distinct NumPy names of the zwc functions called (the zwc name where there is none), sorted.
    pub functions: Vec<String>,
    /// Distinct zwc names called (`zwc.kocito`), sorted.
    pub zwc_calls: Vec<String>,
    /// A python block was found.
    pub code_found: bool,
    /// The extracted code does not parse.
    pub parse_error: bool,
}

impl AnalysisDigest {
    /// The digest of `a`.
    pub fn of(a: &Analysis) -> AnalysisDigest {
        let calls = || {
            a.code
                .graph
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::ZwcCall)
                .filter_map(|n| n.zwc.as_ref().map(|z| (z, n.numpy.as_ref())))
        };
        let functions: BTreeSet<String> = calls()
            .map(|(zwc, numpy)| numpy.unwrap_or(zwc).clone())
            .collect();
        let zwc_calls: BTreeSet<String> = calls().map(|(zwc, _)| zwc.clone()).collect();
        AnalysisDigest {
            findings: a.code.findings.clone(),
            functions: functions.into_iter().collect(),
            zwc_calls: zwc_calls.into_iter().collect(),
            code_found: a.code_found,
            parse_error: a.code.parse_error.is_some(),
        }
    }

    /// Distinct finding kinds present.
    pub fn kinds(&self) -> BTreeSet<FindingKind> {
        self.findings.iter().map(|f| f.kind).collect()
    }
}

/// What a grade says that the category suggestion looks at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GradeFacts {
    /// `None`: not graded (or stored as failed without naming a verdict).
    pub verdict: Option<Verdict>,
    pub timed_out: bool,
    /// The grader's static check found that the assembled program does not parse.
    pub program_syntax_error: bool,
}

/// The category to pre-select for a rollout: [`crate::model::taxonomy::suggest_category`]'s rules over the analysis's
/// finding kinds, kept only when `taxonomy` has it. `digest` is `None` when no analysis could
/// be made (no API doc): then only the grade and `code_found` count. The explorer and
/// `sebx labels export` both call this, so they suggest the same.
pub fn suggested_category<'t>(
    taxonomy: &'t Taxonomy,
    grade: GradeFacts,
    code_found: bool,
    digest: Option<&AnalysisDigest>,
) -> Option<&'t Category> {
    let mut kinds: Vec<&str> = digest
        .map(|d| {
            d.kinds()
                .into_iter()
                .filter(|k| *k != FindingKind::NoCode)
                .map(FindingKind::as_str)
                .collect()
        })
        .unwrap_or_default();
    if grade.program_syntax_error || digest.is_some_and(|d| d.parse_error) {
        kinds.push("syntax_error");
    }
    taxonomy.suggest(grade.verdict, &kinds, grade.timed_out, code_found)
}
