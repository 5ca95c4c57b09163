//! What every view keeps of one rollout's analysis (findings, zwc functions called, whether
//! the code parses), small enough to hold for 100,000 rows; and the one error-category
//! suggestion that the explorer and `sebx labels export` both show.

use std::collections::BTreeSet;
use std::sync::Arc;

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
    /// Distinct NumPy names of the zwc functions called (the zwc name where there is none),
    /// sorted. Shared: rows that call the same functions can hold one list (see
    /// [`crate::model::rollout::Interner::names`]).
    pub functions: Arc<[String]>,
    /// Distinct zwc names called (`zwc.kocito`), sorted; shared like `functions`.
    pub zwc_calls: Arc<[String]>,
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
            functions: functions.into_iter().collect::<Vec<_>>().into(),
            zwc_calls: zwc_calls.into_iter().collect::<Vec<_>>().into(),
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
    /// The loophole kinds the grade's own runs showed (the official checker's, `Facts::judge_kinds`): a
    /// loophole the code's look hides is suggested all the same.
    pub loopholes: crate::model::finding_kinds::KindSet,
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
    for spec in crate::model::finding_kinds::KINDS.iter() {
        if grade.loopholes & spec.kind.bit() != 0 && !kinds.contains(&spec.name) {
            kinds.push(spec.name);
        }
    }
    taxonomy.suggest(grade.verdict, &kinds, grade.timed_out, code_found)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::analysis::analyze_rollout;
    use crate::model::ApiMap;
    use crate::model::rollout::parse_rollout_bytes;

    fn api() -> ApiMap {
        ApiMap::from_api_doc_jsonl(
            r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf"}}"#,
        )
        .expect("api")
    }

    fn digest(response: &str) -> AnalysisDigest {
        let line = serde_json::json!({"query": "q", "response": response, "test_cases": [], "right_exe_result": ""}).to_string();
        let loaded = parse_rollout_bytes(Path::new("t.jsonl"), line.as_bytes());
        assert!(loaded.issues.is_empty(), "{:?}", loaded.issues);
        AnalysisDigest::of(&analyze_rollout(&loaded.rollouts[0], &api(), None))
    }

    #[test]
    fn digest_names_calls_by_numpy_name_and_flags_missing_code() {
        let d = digest(
            "```python\nimport zwc\ndef f(x):\n    return zwc.kocito(zwc.yitaf(x)) + zwc.kocitoo(x)\n```",
        );
        assert_eq!(d.functions[..], ["array", "mean", "zwc.kocitoo"]);
        assert_eq!(d.zwc_calls[..], ["zwc.kocito", "zwc.kocitoo", "zwc.yitaf"]);
        assert_eq!(
            d.kinds().into_iter().collect::<Vec<_>>(),
            [FindingKind::UnknownZwcName]
        );
        assert!(d.code_found && !d.parse_error);

        let none = digest("No code today.");
        assert!(!none.code_found);
        assert_eq!(none.findings.len(), 1);
        assert_eq!(none.findings[0].kind, FindingKind::NoCode);
        assert_eq!(none.findings[0].severity, crate::analysis::Severity::Error);
    }

    #[test]
    fn suggestion_reads_kinds_parse_errors_and_the_grade() {
        let taxonomy = Taxonomy::default_set();
        let id = |grade, code_found, d: Option<&AnalysisDigest>| {
            suggested_category(&taxonomy, grade, code_found, d).map(|c| c.id.0.clone())
        };
        let exe = GradeFacts {
            verdict: Some(Verdict::ExeError),
            ..GradeFacts::default()
        };
        let invented = digest("```python\ndef f(x):\n    return zwc.kocitoo(x)\n```");
        assert_eq!(
            id(exe, true, Some(&invented)).as_deref(),
            Some("invented_zwc_name")
        );
        // Without an analysis only the grade counts.
        assert_eq!(id(exe, true, None), None);
        let broken = digest("```python\ndef f(x:\n```");
        let without = GradeFacts {
            verdict: Some(Verdict::WithoutZwc),
            ..GradeFacts::default()
        };
        assert_eq!(id(without, true, Some(&broken)).as_deref(), Some("no_code"));
        let program_broken = GradeFacts {
            program_syntax_error: true,
            ..without
        };
        assert_eq!(id(program_broken, true, None).as_deref(), Some("no_code"));
        assert_eq!(id(without, true, None).as_deref(), Some("not_using_zwc"));
        // A right answer whose behaviour runs confirmed a loophole its code does not show.
        let right = GradeFacts {
            verdict: Some(Verdict::Right),
            ..GradeFacts::default()
        };
        let genuine = digest(
            "```python
import zwc
def f(x):
    return zwc.kocito(x)
```",
        );
        assert_eq!(id(right, true, Some(&genuine)), None);
        let hidden = GradeFacts {
            loopholes: FindingKind::NumpyBackdoor.bit(),
            ..right
        };
        assert_eq!(
            id(hidden, true, Some(&genuine)).as_deref(),
            Some("loophole")
        );
        // The no_code finding is not a kind the rules know: missing code counts through
        // `code_found`.
        let none = digest("No code today.");
        assert_eq!(
            id(GradeFacts::default(), false, Some(&none)).as_deref(),
            Some("no_code")
        );
    }
}
