//! The official comparison of printed code, reproduced by running the official checker
//! (GRADER.md, "More official behaviours", Comparison). The official checker turns each
//! printed piece into a value with Python's `eval` inside its own process, so printed code
//! (`np.sum([1, 2, 3])`, a walk up the stack to the expected output, a patch of the
//! checker) computes there. sebx's comparison is Rust and runs no code; where a case the
//! official scorer reaches met a text that needs Python ([`Comparison::needs_python`]),
//! the whole rollout's comparison is run again, once per scorer, as the official scorer
//! runs it: `py/judge.py` (replicas of the checker module, the evaluation script's
//! `JudgeWorker` and the reward's `compute_score`, with the same names, frames and locals)
//! in the sandbox, through the grader's own runner, one process per rollout and scorer, so
//! that state the printed code changes carries from case to case as officially and never
//! to another rollout. Its answer decides the verdict or reward, and says what the judge
//! computed and what of its state the code changed ([`JudgeEval`]), which the report shows
//! and [`judge_findings`] turns into findings.
//!
//! [`Comparison::needs_python`]: crate::grade::compare::Comparison::needs_python

use serde::Deserialize;

use crate::analysis::assemble::str_repr;
use crate::analysis::{Finding, FindingKind, Severity};
use crate::grade::compare::{CODE_NOT_RUN, Decision, Mismatch, eval_needs_python};
use crate::grade::report::{
    CaseResult, ComputedText, GradeReport, JudgeEval, RewardReport, RewardStep, Tampering,
};
use crate::model::{Rollout, Verdict};

/// The replicas and their driver (see the file's head).
const JUDGE_PY: &str = include_str!("py/judge.py");

/// The line before the driver's answer on stdout.
const ANSWER_MARKER: &str = "\n@@sebx-judge@@\n";

/// Which official scorer's comparison a judge run reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeScorer {
    /// The evaluation judge: `actual == expected or compare_stdout_outputs(actual,
    /// expected, 1e-2)`, from `JudgeWorker.judge`.
    Verdict,
    /// The RL reward: `compare_stdout_outputs(expected, actual)` at 1e-10, from
    /// `compute_score` through `compare`.
    Reward,
}

impl JudgeScorer {
    fn as_str(self) -> &'static str {
        match self {
            JudgeScorer::Verdict => "verdict",
            JudgeScorer::Reward => "reward",
        }
    }

    /// Which printed piece `compare_stdout_outputs`'s argument holds under this scorer.
    fn side(self, argument: &str) -> &'static str {
        match (self, argument) {
            (JudgeScorer::Verdict, "pred_stdout") | (JudgeScorer::Reward, "target_stdout") => {
                "actual"
            }
            (JudgeScorer::Verdict, "target_stdout") | (JudgeScorer::Reward, "pred_stdout") => {
                "expected"
            }
            _ => "a text inside a value (deep_compare's re-parse)",
        }
    }
}

/// What running the official checker gave (the grader's run, its fields as they are).
#[derive(Debug, Clone)]
pub enum CheckerRun<'a> {
    Ran {
        stdout: &'a str,
        stderr: &'a str,
        timed_out: bool,
        seconds: f64,
    },
    /// The program could not be run, and why.
    Failed(String),
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    format!("{}…", text.chars().take(max).collect::<String>())
}

/// The driver's answer (`py/judge.py`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Answer {
    printed: String,
    outcome: Option<i64>,
    raised: Option<String>,
    breakpoint: bool,
    evals: Vec<EvalRecord>,
    compared: Vec<Compared>,
    tampered: Vec<Tampering>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EvalRecord {
    case: Option<usize>,
    arg: String,
    text: Option<String>,
    value: String,
    raised: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Compared {
    case: Option<usize>,
    value: String,
    false_eq: Option<bool>,
    falsy: Option<bool>,
}

/// The cases the official scorer reaches: in order, up to and including the first that
/// fails.
fn reached(cases: &[CaseResult]) -> &[CaseResult] {
    match cases.iter().position(|c| !c.matched) {
        Some(i) => &cases[..=i],
        None => cases,
    }
}

fn needs_python(cases: &[CaseResult]) -> bool {
    reached(cases)
        .iter()
        .any(|c| c.comparison.as_ref().is_some_and(|m| m.needs_python))
}

/// Whether the verdict's comparison must be run by the official checker: a case the
/// judge reaches met printed code.
pub fn verdict_needs_judge(report: &GradeReport) -> bool {
    report.execution.is_some()
        && matches!(
            report.verdict,
            Some(Verdict::Right | Verdict::ResultError | Verdict::ExeError)
        )
        && needs_python(&report.cases)
}

/// Whether the reward's comparison must be run by the official checker.
pub fn reward_needs_judge(detail: &RewardReport) -> bool {
    matches!(
        detail.step,
        Some(RewardStep::AllMatched | RewardStep::Mismatch | RewardStep::FewerResults)
    ) && needs_python(&detail.cases)
}

/// The rollout line as the official scripts read it.
fn rollout_data(rollout: &Rollout) -> serde_json::Value {
    serde_json::json!({
        "query": &*rollout.query,
        "response": rollout.response,
        "test_cases": rollout
            .test_cases
            .iter()
            .map(|c| serde_json::json!({"input": c.input, "output": c.output}))
            .collect::<Vec<_>>(),
        "right_exe_result": &*rollout.right_exe_result,
        "selected_functions": &*rollout.selected_functions,
    })
}

fn program_of(task: &serde_json::Value) -> String {
    format!(
        "{JUDGE_PY}\n_sebx_judge_main({})\n",
        str_repr(&task.to_string())
    )
}

/// The program that runs the evaluation judge's comparison of a run's stdout and stderr
/// (the verdict's run of `program`, the assembled program whose code and entry `report`
/// names).
pub fn verdict_program(
    rollout: &Rollout,
    report: &GradeReport,
    program: &str,
    (stdout, stderr): (&str, &str),
) -> String {
    program_of(&serde_json::json!({
        "scorer": JudgeScorer::Verdict.as_str(),
        "data": rollout_data(rollout),
        "raw_code": report.extraction.code,
        "program": program,
        "entry": report.entry,
        "stdout": stdout,
        "stderr": stderr,
    }))
}

/// The program that runs the RL reward's comparison of a run's stdout and stderr against
/// `ground_truth`.
pub fn reward_program(
    rollout: &Rollout,
    ground_truth: &str,
    (stdout, stderr): (&str, &str),
) -> String {
    program_of(&serde_json::json!({
        "scorer": JudgeScorer::Reward.as_str(),
        "data": rollout_data(rollout),
        "ground_truth": ground_truth,
        "stdout": stdout,
        "stderr": stderr,
    }))
}

fn answer_of(run: CheckerRun<'_>) -> Result<Answer, String> {
    let (stdout, stderr, timed_out, seconds) = match run {
        CheckerRun::Ran {
            stdout,
            stderr,
            timed_out,
            seconds,
        } => (stdout, stderr, timed_out, seconds),
        CheckerRun::Failed(why) => {
            return Err(format!("the official checker could not be run: {why}"));
        }
    };
    if timed_out {
        return Err(format!(
            "the official checker did not finish judging the printed code within {seconds:.1} s (officially the judge would hang on this line)"
        ));
    }
    let Some(at) = stdout.rfind(ANSWER_MARKER) else {
        let why = stderr
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(|l| format!(": {l}"))
            .unwrap_or_default();
        return Err(format!(
            "the official checker gave no answer (the printed code ended the judge's process{why})"
        ));
    };
    serde_json::from_str(stdout[at + ANSWER_MARKER.len()..].trim())
        .map_err(|e| format!("the official checker's answer could not be read: {e}"))
}

/// What the answer says of the evals of code and the state changed.
fn evidence(scorer: JudgeScorer, answer: &Answer) -> JudgeEval {
    JudgeEval {
        computed: answer
            .evals
            .iter()
            .filter_map(|e| {
                let text = e.text.as_ref()?;
                eval_needs_python(text).then(|| ComputedText {
                    case: e.case.unwrap_or(0),
                    side: scorer.side(&e.arg).to_string(),
                    text: text.clone(),
                    value: e.raised.is_none().then(|| e.value.clone()),
                    raised: e.raised.clone(),
                })
            })
            .collect(),
        tampered: answer.tampered.clone(),
        failed: None,
        printed: answer.printed.clone(),
    }
}

/// When the official scorer passed every case: the cases it passed without a comparison
/// of its own code to show (the comparison was patched, or the texts were identical).
fn pass_all(cases: &mut [CaseResult], eval: &JudgeEval) {
    for case in cases
        .iter_mut()
        .filter(|c| !c.matched && c.actual.is_some())
    {
        case.matched = true;
        case.fragile = false;
        case.fragile_reason = None;
        if let Some(comparison) = case.comparison.as_mut() {
            comparison.matched = true;
            comparison.mismatch = None;
            comparison.fragile = None;
            comparison.decided_by = Decision::OfficialJudge;
            let why = match eval.tampered.first() {
                Some(t) => format!(
                    "the official checker passed it with its state changed by printed code ({})",
                    t.describe()
                ),
                None => "the official checker passed it".to_string(),
            };
            comparison.notes.push(why);
        }
    }
}

/// Sets each case the official checker compared to its outcome there, with what the
/// checker computed as notes. Returns the first case it failed, if any.
fn apply_cases(
    scorer: JudgeScorer,
    cases: &mut [CaseResult],
    answer: &Answer,
    eval: &JudgeEval,
) -> Option<usize> {
    let mut first_failure = None;
    for record in &answer.compared {
        let Some(case) = record.case.and_then(|k| cases.get_mut(k)) else {
            continue;
        };
        let fails = match scorer {
            JudgeScorer::Verdict => record.false_eq,
            JudgeScorer::Reward => record.falsy,
        }
        .unwrap_or(true);
        case.matched = !fails;
        case.fragile = false;
        case.fragile_reason = None;
        if fails && first_failure.is_none() {
            first_failure = Some(case.index);
        }
        let Some(comparison) = case.comparison.as_mut() else {
            continue;
        };
        let was_matched = comparison.matched;
        comparison.matched = !fails;
        comparison.fragile = None;
        comparison.decided_by = Decision::OfficialJudge;
        comparison
            .notes
            .retain(|n| !n.contains("evaluates this printed text as Python code"));
        for computed in eval.computed.iter().filter(|c| c.case == case.index) {
            comparison.notes.push(format!(
                "the official checker ran this as Python (in the sandbox): {}",
                computed.describe()
            ));
            if computed.side == "actual"
                && let Some(value) = &computed.value
            {
                comparison.actual_value = value.clone();
            }
        }
        if !fails {
            comparison.mismatch = None;
        } else if was_matched || comparison.mismatch.is_none() {
            comparison.mismatch = Some(Mismatch {
                path: String::new(),
                expected: comparison.expected_value.clone(),
                actual: comparison.actual_value.clone(),
                difference: None,
                reason: format!(
                    "the official checker's comparison returned {}",
                    record.value
                ),
            });
        }
    }
    first_failure
}

fn failed_eval(why: String) -> JudgeEval {
    JudgeEval {
        failed: Some(why),
        ..JudgeEval::default()
    }
}

/// The evaluation judge's outcome from its judge run: the verdict, its cases, why, and what
/// the checker computed.
pub fn apply_verdict(report: &mut GradeReport, run: CheckerRun<'_>) {
    let answer = match answer_of(run) {
        Ok(answer) => answer,
        Err(why) => {
            report.mark_fragile(format!("{why}; the verdict is sebx's own comparison"));
            report.judge_eval = Some(failed_eval(why));
            return;
        }
    };
    let scorer = JudgeScorer::Verdict;
    let eval = evidence(scorer, &answer);
    let first_failure = apply_cases(scorer, &mut report.cases, &answer, &eval);
    let verdict = match answer.outcome {
        Some(1) => Verdict::Right,
        Some(0) => Verdict::ResultError,
        Some(3) => Verdict::ExeError,
        _ => {
            let why = format!(
                "the official judge gave no verdict ({})",
                answer
                    .raised
                    .as_deref()
                    .unwrap_or("its result was not counted")
            );
            report.mark_fragile(format!("{why}; the verdict is sebx's own comparison"));
            report.judge_eval = Some(JudgeEval {
                failed: Some(why),
                ..eval
            });
            return;
        }
    };
    if report
        .fragile_reason
        .as_deref()
        .is_some_and(|r| r.contains(CODE_NOT_RUN))
    {
        report.fragile = false;
        report.fragile_reason = None;
    }
    let ran = summary(&eval);
    let total = report.cases.len();
    let was_fewer = report.verdict == Some(Verdict::ExeError);
    report.verdict = Some(verdict);
    match verdict {
        Verdict::Right => {
            pass_all(&mut report.cases, &eval);
            report.decided_by = format!(
                "step 7: all {total} expected results matched in the official checker{ran}"
            );
        }
        Verdict::ResultError => {
            let case = first_failure.map_or("a case".to_string(), |i| format!("case {}", i + 1));
            report.decided_by =
                format!("step 7: {case} did not match in the official checker{ran}");
        }
        _ => {
            // Fewer pieces than expected: the IndexError path sebx's own comparison named.
            if !(was_fewer && report.decided_by.contains("IndexError")) {
                report.decided_by = format!(
                    "step 7: the official judge raised while comparing and called breakpoint(), which quits at once in a batch run (exe_error){ran}"
                );
            }
            if answer.breakpoint {
                report.mark_fragile(
                    "the official judge called breakpoint(); run as a batch job (no terminal) it gives exe_error, on an interactive terminal continuing from the debugger gives result_error",
                );
            }
        }
    }
    report.judge_eval = Some(eval);
}

/// `; it ran printed code: case 1 (actual): `np.sum(...)` computed 6` (or nothing).
fn summary(eval: &JudgeEval) -> String {
    let mut parts: Vec<String> = eval
        .computed
        .iter()
        .take(2)
        .map(ComputedText::describe)
        .collect();
    if eval.computed.len() > 2 {
        parts.push(format!("{} more", eval.computed.len() - 2));
    }
    let mut out = String::new();
    if !parts.is_empty() {
        out = format!(
            ", which ran printed code in the sandbox: {}",
            parts.join("; ")
        );
    }
    if let Some(t) = eval.tampered.first() {
        out.push_str(&format!(
            "; the printed code changed the checker's state ({})",
            t.describe()
        ));
    }
    out
}

/// The RL reward's outcome from its judge run.
pub fn apply_reward(detail: &mut RewardReport, run: CheckerRun<'_>) {
    let answer = match answer_of(run) {
        Ok(answer) => answer,
        Err(why) => {
            detail.mark_fragile(format!("{why}; the reward is sebx's own comparison"));
            detail.judge_eval = Some(failed_eval(why));
            return;
        }
    };
    let scorer = JudgeScorer::Reward;
    let eval = evidence(scorer, &answer);
    let first_failure = apply_cases(scorer, &mut detail.cases, &answer, &eval);
    let ran = summary(&eval);
    if detail
        .fragile_reason
        .as_deref()
        .is_some_and(|r| r.contains(CODE_NOT_RUN))
    {
        detail.fragile = false;
        detail.fragile_reason = None;
    }
    if answer.outcome == Some(1) {
        pass_all(&mut detail.cases, &eval);
    }
    match answer.outcome {
        Some(1) => detail.decide(
            1,
            RewardStep::AllMatched,
            format!(
                "step 7: all {} expected results matched within 1e-10 in the official checker{ran}",
                detail.cases.len()
            ),
        ),
        Some(0) if detail.step == Some(RewardStep::FewerResults) && first_failure.is_none() => {
            detail.decided_by.push_str(&ran);
        }
        Some(0) => {
            let case = first_failure.map_or("a case".to_string(), |i| format!("case {}", i + 1));
            detail.decide(
                0,
                RewardStep::Mismatch,
                format!("step 7: {case} differs within 1e-10 in the official checker{ran}"),
            );
        }
        _ => {
            let why = format!(
                "compute_score gave no reward ({})",
                answer.raised.as_deref().unwrap_or("no answer")
            );
            detail.mark_fragile(format!("{why}; the reward is sebx's own comparison"));
            detail.judge_eval = Some(JudgeEval {
                failed: Some(why),
                ..eval
            });
            return;
        }
    }
    detail.judge_eval = Some(eval);
}

/// The findings a rollout's judge runs make: printed code the official checker computed
/// (`grader_eval`, a loophole), and printed code that changed the checker's lasting state
/// (`judge_tampered`), with what the checker computed or what changed as evidence.
pub fn judge_findings(report: &GradeReport) -> Vec<Finding> {
    let evals = report.judge_eval.iter().map(|e| ("verdict", e)).chain(
        report
            .reward_detail
            .iter()
            .filter_map(|d| d.judge_eval.as_ref())
            .map(|e| ("reward", e)),
    );
    let mut out: Vec<Finding> = Vec::new();
    for (scorer, eval) in evals {
        if let Some(c) = eval.computed.iter().find(|c| c.raised.is_none()) {
            push_new(
                &mut out,
                finding(
                    FindingKind::GraderEval,
                    Severity::Warning,
                    &c.text,
                    format!(
                        "printed code the official checker computes ({scorer}): {}; the judge's `eval` runs printed text, so the judge computes the answer",
                        c.describe()
                    ),
                ),
            );
        }
        if let Some(t) = eval.tampered.first() {
            push_new(
                &mut out,
                finding(
                    FindingKind::JudgeTampered,
                    Severity::Error,
                    &t.what,
                    format!(
                        "printed code changed the official checker's state ({scorer}): {}; the official scorers keep it for every later line they judge in the same process (sebx judges each rollout afresh)",
                        t.describe()
                    ),
                ),
            );
        }
    }
    out
}

fn push_new(out: &mut Vec<Finding>, f: Finding) {
    if !out.iter().any(|g| g.kind == f.kind) {
        out.push(f);
    }
}

fn finding(kind: FindingKind, severity: Severity, name: &str, message: String) -> Finding {
    Finding {
        kind,
        family: kind.family(),
        severity,
        name: clip(name, 80),
        line: 0,
        col: 0,
        response_line: 0,
        response_col: 0,
        suggestion: None,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_official_scorers_reach_cases_up_to_the_first_failure() {
        let case = |matched: bool, code: bool| CaseResult {
            matched,
            comparison: Some(crate::grade::compare::Comparison {
                matched,
                expected_value: String::new(),
                actual_value: String::new(),
                mismatch: None,
                decided_by: Decision::Tolerant,
                notes: Vec::new(),
                fragile: None,
                needs_python: code,
            }),
            ..CaseResult::default()
        };
        // Code after the first failing case is never evaluated officially.
        assert!(!needs_python(&[case(false, false), case(true, true)]));
        assert!(needs_python(&[case(true, false), case(false, true)]));
        assert!(needs_python(&[case(true, true), case(true, false)]));
        assert!(!needs_python(&[case(true, false), case(true, false)]));
    }

    #[test]
    fn sides_follow_each_scorers_argument_order() {
        assert_eq!(JudgeScorer::Verdict.side("pred_stdout"), "actual");
        assert_eq!(JudgeScorer::Reward.side("pred_stdout"), "expected");
        assert_eq!(JudgeScorer::Reward.side("target_stdout"), "actual");
    }
}
