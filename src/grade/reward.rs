//! The official RL reward (GRADER.md, "The official RL reward: a second official scorer"):
//! SE-Bench's verl fork's `compute_score`, step by step, beside the verdict. It reuses the
//! judge's checks and comparison but wires them otherwise: the first python block, test
//! inputs as given, a harness without the `test_cases = [...]` line, any stderr → 0, the
//! comparison at 1e-10 with the expected side first, a missing result → 0. Where the two
//! scorers disagree, [`disagreement`] says why in one line, naming the step and the values.

use serde::{Deserialize, Serialize};

use crate::analysis::assemble::{assemble_reward_program, push_reward_harness, rewrite_input};
use crate::analysis::extract::{entry_function_name, extract_first_python_block, response_lines};
use crate::analysis::pyast::parse_suite;
use crate::analysis::static_check::{ParsedCode, check_zwc_usage_split};
use crate::grade::compare::{Rule, TOLERANCE, compare_printed_by, split_actual, split_expected};
use crate::grade::grader::{
    Prepared, RunOutput, describe_numpy_import, describe_static_failure, execution_of,
    last_error_line, numpy_step,
};
use crate::grade::report::{CaseResult, GradeReport, ReasonKind, RewardReport, RewardStep};
use crate::model::{Rollout, Verdict};

/// Which official scorer(s) grade a rollout.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Scorer {
    /// The evaluation judge's five-way verdict (the default).
    #[default]
    Verdict,
    /// The official RL reward (0 or 1) alone.
    Reward,
    /// Both, with the reason wherever they disagree.
    Both,
}

impl Scorer {
    pub fn verdict(self) -> bool {
        self != Scorer::Reward
    }

    pub fn reward(self) -> bool {
        self != Scorer::Verdict
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scorer::Verdict => "verdict",
            Scorer::Reward => "reward",
            Scorer::Both => "both",
        }
    }
}

/// A disagreement between the two scorers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub kind: ReasonKind,
    pub text: String,
}

/// The reward's steps before execution, and its program.
#[derive(Debug, Clone)]
pub struct RewardPrepared {
    pub program: String,
    /// Decided without running (static or NumPy check).
    pub decided: bool,
    /// The verdict's run can serve the reward (see [`shares_run`]).
    pub shared: bool,
    pub report: RewardReport,
}

/// Words whose presence in the code could let it observe the one line by which the
/// reward's program differs from the verdict's (`test_cases = [...]`): the name itself,
/// the program's own frames, globals or source (whose line numbers shift by one), and
/// ways to reach them indirectly.
const OBSERVES_HARNESS: &[&str] = &[
    "test_cases",
    "__file__",
    "__loader__",
    "__spec__",
    "__builtins__",
    "__dict__",
    "inspect",
    "_getframe",
    "_current_frames",
    "f_back",
    "f_lineno",
    "f_globals",
    "f_locals",
    "tb_frame",
    "tb_lineno",
    "co_firstlineno",
    "linecache",
    "traceback",
    "globals",
    "locals",
    "vars",
    "dir",
    "modules",
    "getattr",
    "exec",
    "eval",
    "compile",
    "__import__",
    "importlib",
    "open",
    "read_text",
    "read_bytes",
    "subprocess",
    "system",
    "popen",
    "gc",
    "settrace",
    "setprofile",
];

/// Whether the reward may reuse the verdict's run instead of running its own program.
///
/// Safe when the verdict ran the same code on the same inputs (no `np.array` rewritten):
/// then the two programs differ only in the harness's `test_cases = [...]` line, which
/// binds a literal list of strings that nothing else in the harness reads. Python
/// evaluates it without output, so stdout and stderr, all the reward reads, are the same
/// unless the code can see that line: by naming `test_cases`, or through its frames,
/// globals or its own source file. Code holding any word of [`OBSERVES_HARNESS`] (as an
/// identifier, in a string or a comment) runs on its own. The line also costs a few
/// microseconds, which matters only to a program within a hair of the timeout, whose
/// outcome is not a property of the program anyway.
pub fn shares_run(code: &str) -> bool {
    sharing_allowed()
        && !code
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| OBSERVES_HARNESS.contains(&word))
}

/// `SEBX_REWARD_SHARE=0` makes the reward run its own program every time (to check that
/// sharing changes nothing: `tests/grade_reward.rs`).
fn sharing_allowed() -> bool {
    static ALLOWED: std::sync::LazyLock<bool> =
        std::sync::LazyLock::new(|| std::env::var_os("SEBX_REWARD_SHARE").is_none_or(|v| v != "0"));
    *ALLOWED
}

/// Steps 1–5 of the reward: the first block (or `code_override`), its entry name, the
/// program with the inputs as given, the static and NumPy checks. `verdict` is the
/// verdict's preparation of the same rollout, when there is one (its run may be shared).
pub fn prepare_reward(
    rollout: &Rollout,
    code_override: Option<&str>,
    verdict: Option<&Prepared>,
) -> RewardPrepared {
    let block = extract_first_python_block(&rollout.response);
    let mut report = RewardReport {
        blocks_found: block.as_ref().map_or(0, |b| b.blocks_found),
        ..RewardReport::default()
    };
    let code = match (code_override, &block) {
        (Some(code), _) => code.to_string(),
        (None, Some(b)) => {
            report.block_lines = Some(response_lines(&rollout.response, &b.span));
            b.code.clone()
        }
        (None, None) => String::new(),
    };
    let entry = entry_function_name(&code);
    report.entry = entry.clone();
    report.inputs_use_np_array = rollout
        .test_cases
        .iter()
        .any(|c| rewrite_input(&c.input) != c.input);
    report.same_code_as_verdict = verdict.is_some_and(|v| v.extraction.code == code);
    let mut harness = String::new();
    push_reward_harness(&mut harness, &entry, &rollout.test_cases);
    let program = assemble_reward_program(&code, &entry, &rollout.test_cases);
    report.cases = expected_cases(rollout);

    let found = code_override.is_some() || block.is_some();
    // The checks read the code and what the harness adds (its `import zwc`, calls and
    // returns); with no input rewritten, the reward's harness differs from the verdict's
    // only by the `test_cases = [...]` line, a literal of strings with no import, call or
    // depth to speak of. So for the same code the verdict's checks are the reward's, and
    // the code is not parsed again (tests/grade_parity.rs holds both on every line).
    let (static_check, numpy) = match verdict
        .filter(|_| report.same_code_as_verdict && !report.inputs_use_np_array)
        .and_then(|v| Some((v.report.static_check.clone()?, v.report.numpy.clone())))
    {
        Some(checks) => checks,
        None => {
            let parsed = parse_suite(&code);
            let given = ParsedCode {
                parse: &parsed,
                walked: None,
            };
            let static_check = check_zwc_usage_split(&code, Some(given), &harness, &entry);
            let numpy = static_check
                .passed
                .then(|| numpy_step(&code, &parsed, &harness, &program));
            (static_check, numpy)
        }
    };
    let mut decided = true;
    match numpy {
        _ if !static_check.passed => {
            let why = describe_static_failure(found, &entry, &static_check);
            report.decide(0, RewardStep::StaticCheck, why);
            if let Some(reason) = static_check
                .recursion
                .as_ref()
                .and_then(|r| r.fragile_reason())
            {
                report.mark_fragile(reason);
            }
        }
        None => decided = false,
        Some(numpy) => {
            if let Some(reason) = numpy.recursion.as_ref().and_then(|r| r.fragile_reason()) {
                report.mark_fragile(reason);
            }
            if let Some(r) = numpy.recursion.as_ref().filter(|r| r.exceeded) {
                let why = format!(
                    "step 5: {}; the NumPy check raises, which gives 0",
                    r.describe()
                );
                report.decide(0, RewardStep::NumpyCheck, why);
            } else if numpy.uses_numpy() {
                report.decide(0, RewardStep::NumpyCheck, describe_numpy_import(&numpy));
            } else {
                decided = false;
            }
        }
    }
    let shared = !decided
        && !report.inputs_use_np_array
        && shares_run(&code)
        && report.same_code_as_verdict
        && verdict.is_some_and(|v| v.early_verdict.is_none());
    report.shared_run = shared;
    RewardPrepared {
        program,
        decided,
        shared,
        report,
    }
}

/// The ground truth the reward compares with: the training sample's `gts` when it is not
/// the task's expected result (training scored against it), else `right_exe_result`.
pub fn reward_truth(rollout: &Rollout) -> &str {
    rollout
        .sample
        .as_deref()
        .and_then(|m| m.gts_differs.as_deref())
        .unwrap_or(&rollout.right_exe_result)
}

/// The expected pieces with the inputs as given, before anything ran.
fn expected_cases(rollout: &Rollout) -> Vec<CaseResult> {
    split_expected(reward_truth(rollout))
        .into_iter()
        .enumerate()
        .map(|(index, expected)| CaseResult {
            index,
            input: rollout
                .test_cases
                .get(index)
                .map(|c| c.input.clone())
                .unwrap_or_default(),
            expected,
            ..CaseResult::default()
        })
        .collect()
}

/// The warning or error a stderr text leads with, for a one-line reason: the first
/// `...Warning: message` line, else the traceback's last line, else the first line.
pub fn stderr_headline(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find_map(|l| {
            let at = l.find("Warning: ")?;
            let start = l[..at]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            Some(&l[start..])
        })
        .or_else(|| last_error_line(stderr))
        .unwrap_or("")
        .trim();
    clip(line, 160)
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

/// Steps 6–7 of the reward on the run of its program (or the verdict's, when shared).
pub fn finish_reward(prepared: RewardPrepared, run: &RunOutput) -> RewardReport {
    let mut report = prepared.report;
    if prepared.decided {
        return report;
    }
    if !prepared.shared {
        report.execution = Some(execution_of(run));
    }
    if let Some(why) = &run.contained {
        report.mark_fragile(format!(
            "the sandbox stopped the program ({why}); the official container has no such limit"
        ));
    }
    if run.timed_out {
        report.decide(
            0,
            RewardStep::Timeout,
            format!(
                "step 6: the program ran past the timeout ({:.1} s); the sandbox answers stderr `TLE`, and any stderr gives 0",
                run.elapsed.as_secs_f64()
            ),
        );
        return report;
    }
    if !run.stderr.is_empty() {
        report.decide(
            0,
            RewardStep::Stderr,
            format!("step 6: stderr not empty: {}", stderr_headline(&run.stderr)),
        );
        return report;
    }
    let actual = split_actual(&run.stdout);
    let mut first_failure: Option<usize> = None;
    for case in &mut report.cases {
        case.actual = actual.get(case.index).cloned();
        if let Some(act) = &case.actual {
            let comparison = compare_printed_by(Rule::Reward, &case.expected, act);
            case.matched = comparison.matched;
            case.fragile_reason = comparison.fragile.clone();
            case.fragile = case.fragile_reason.is_some();
            case.comparison = Some(comparison);
        }
        if !case.matched && first_failure.is_none() {
            first_failure = Some(case.index);
        }
    }
    let deciding: Vec<&CaseResult> = match first_failure {
        Some(i) => report.cases.get(i).into_iter().collect(),
        None => report.cases.iter().collect(),
    };
    if let Some((index, reason)) = deciding
        .into_iter()
        .find_map(|c| Some((c.index, c.fragile_reason.clone()?)))
    {
        report.mark_fragile(format!("case {}: {reason}", index + 1));
    }
    let expected = report.cases.len();
    match first_failure {
        None => report.decide(
            1,
            RewardStep::AllMatched,
            format!(
                "step 7: all {expected} expected results matched within {}",
                "1e-10"
            ),
        ),
        Some(i) if report.cases[i].actual.is_none() => report.decide(
            0,
            RewardStep::FewerResults,
            format!(
                "step 7: only {} results were printed for {expected} expected; the reward's IndexError at case {} is caught and gives 0",
                actual.len(),
                i + 1
            ),
        ),
        Some(i) => {
            let detail = case_detail(&report.cases[i]);
            report.decide(
                0,
                RewardStep::Mismatch,
                format!("step 7: case {} differs within 1e-10: {detail}", i + 1),
            );
        }
    }
    report
}

fn case_detail(case: &CaseResult) -> String {
    match case.comparison.as_ref().and_then(|c| c.mismatch.as_ref()) {
        Some(m) if m.path.is_empty() => m.reason.clone(),
        Some(m) => format!("at {}: {}", m.path, m.reason),
        None => "the values differ".to_string(),
    }
}

/// The report for a reward whose program could not be run.
pub fn not_run(prepared: RewardPrepared, why: &str) -> RewardReport {
    let mut report = prepared.report;
    if !prepared.decided {
        report.reward = None;
        report.step = Some(RewardStep::NotRun);
        report.decided_by = format!("not scored: the program could not be run: {why}");
    }
    report
}

fn lines_text((first, last): (usize, usize)) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}–{last}")
    }
}

/// Why the reward and the verdict disagree, when they do: the first step at which the two
/// programs part, with its values. `None` when they agree (reward 1 exactly when the
/// verdict is `right`) or either is missing.
pub fn disagreement(
    rollout: &Rollout,
    verdict: &GradeReport,
    reward: &RewardReport,
) -> Option<Reason> {
    let v = verdict.verdict?;
    let r = reward.reward?;
    let right = v == Verdict::Right;
    if (r == 1) == right {
        return None;
    }
    let reason = |kind, text| Some(Reason { kind, text });
    if !reward.same_code_as_verdict {
        let first = reward.block_lines.map_or("no block".to_string(), |l| {
            format!("response {}", lines_text(l))
        });
        let last = verdict
            .extraction
            .span
            .map(|(s, e)| lines_text(response_lines(&rollout.response, &(s..e))));
        let last = last.unwrap_or_else(|| "none".to_string());
        let outcome = if r == 1 {
            format!(
                "the first passes every case within 1e-10; the last is {v}: {}",
                verdict.decided_by
            )
        } else {
            format!("the first scores 0: {}", reward.decided_by)
        };
        return reason(
            ReasonKind::FirstBlock,
            format!(
                "the reward scored the first python block ({first}), the verdict the last ({last}); {outcome}"
            ),
        );
    }
    if reward.inputs_use_np_array && r == 0 {
        return reason(
            ReasonKind::NpArrayInputs,
            format!(
                "the test inputs use np.array, which the reward runs as given (the verdict rewrites it to zwc.yitaf): {}",
                reward.decided_by
            ),
        );
    }
    match reward.step {
        Some(RewardStep::Stderr) if right => {
            let stderr = reward
                .execution
                .as_ref()
                .or(verdict.execution.as_ref())
                .map(|e| stderr_headline(&e.stderr))
                .unwrap_or_default();
            return reason(
                ReasonKind::Stderr,
                format!(
                    "stderr not empty: {stderr} (the verdict ignores stderr; the reward gives 0)"
                ),
            );
        }
        Some(RewardStep::Timeout) if right => {
            return reason(
                ReasonKind::Timeout,
                "the reward's run timed out (stderr `TLE`); the verdict's did not".to_string(),
            );
        }
        Some(RewardStep::Mismatch) if right => {
            if let Some(case) = reward.cases.iter().find(|c| !c.matched) {
                let verdict_case = verdict.cases.get(case.index);
                let mismatch = case.comparison.as_ref().and_then(|c| c.mismatch.as_ref());
                if let (Some(m), Some(d)) = (mismatch, mismatch.and_then(|m| m.difference))
                    && d <= TOLERANCE
                {
                    let at = if m.path.is_empty() {
                        String::new()
                    } else {
                        format!(" at {}", m.path)
                    };
                    let digits = case
                        .actual
                        .as_deref()
                        .and_then(|a| eight_digit_note(a, &m.actual, &m.expected))
                        .unwrap_or_default();
                    return reason(
                        ReasonKind::Tolerance,
                        format!(
                            "case {}{at}: {} vs {} — within 1e-2, not within 1e-10{digits}",
                            case.index + 1,
                            m.actual,
                            m.expected
                        ),
                    );
                }
                let shortcut = verdict_case.is_some_and(|c| {
                    c.comparison
                        .as_ref()
                        .is_some_and(|c| c.decided_by == crate::grade::compare::Decision::ExactText)
                });
                let why = if shortcut {
                    "the texts are identical, which the verdict accepts as they are; the reward has no such shortcut"
                } else {
                    "the reward compares the expected value first"
                };
                return reason(
                    ReasonKind::Comparison,
                    format!(
                        "case {}: the reward's comparison fails ({}); {why}",
                        case.index + 1,
                        case_detail(case)
                    ),
                );
            }
        }
        Some(RewardStep::AllMatched) if v == Verdict::ResultError => {
            if let Some(case) = verdict.cases.iter().find(|c| !c.matched) {
                return reason(
                    ReasonKind::Comparison,
                    format!(
                        "case {}: the verdict's comparison fails ({}) but the reward's, which compares the expected value first, passes",
                        case.index + 1,
                        case_detail(case)
                    ),
                );
            }
        }
        _ => {}
    }
    reason(
        ReasonKind::Other,
        format!(
            "reward {r}: {}; verdict {v}: {}",
            reward.decided_by, verdict.decided_by
        ),
    )
}

/// `(a printed array keeps 8 decimals)` when the printed piece is a NumPy array print
/// (NumPy's default print precision: at most 8 digits after the point) and its number is
/// the expected one rounded to 8 decimals.
fn eight_digit_note(printed: &str, number: &str, expected: &str) -> Option<String> {
    let trimmed = printed.trim_start();
    let what = if trimmed.starts_with("ZWCArray") {
        "a printed ZWCArray"
    } else if trimmed.starts_with("array(") {
        "a printed NumPy array"
    } else if trimmed.starts_with('[') && !trimmed.contains(',') {
        "a printed array"
    } else {
        return None;
    };
    let shown: f64 = number.parse().ok()?;
    let exact: f64 = expected.parse().ok()?;
    let rounded: f64 = format!("{exact:.8}").parse().ok()?;
    (shown != exact && shown == rounded).then(|| format!(" ({what} keeps 8 decimals)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sharing_is_refused_for_code_that_can_see_the_harness() {
        assert!(shares_run(
            "import zwc\ndef f(a):\n    return zwc.kocito(a)\n"
        ));
        for code in [
            "def f(a):\n    return len(test_cases)\n",
            "import inspect\ndef f(a):\n    return inspect.stack()\n",
            "def f(a):\n    return open(__file__).read()\n",
            "import sys\ndef f(a):\n    return sys._getframe(1).f_lineno\n",
            "def f(a):\n    return globals()['x']\n",
        ] {
            assert!(!shares_run(code), "{code}");
        }
        // Words inside other words do not count.
        assert!(shares_run("def f(opened, dirs):\n    return opened\n"));
    }

    #[test]
    fn stderr_headline_picks_the_warning() {
        let stderr = "/sandbox/1/main.py:4: RuntimeWarning: invalid value encountered in arcsin\n  return zwc.x(a)\n";
        assert_eq!(
            stderr_headline(stderr),
            "RuntimeWarning: invalid value encountered in arcsin"
        );
        let tb = "Traceback (most recent call last):\n  File \"main.py\", line 3\nNameError: name 'np' is not defined\n";
        assert_eq!(stderr_headline(tb), "NameError: name 'np' is not defined");
        assert_eq!(stderr_headline("TLE"), "TLE");
    }

    #[test]
    fn eight_digits_are_noted_only_on_array_prints() {
        let exact = "0.7218177375894052";
        assert_eq!(
            eight_digit_note("ZWCArray([0.72181774, 1.5])", "0.72181774", exact).as_deref(),
            Some(" (a printed ZWCArray keeps 8 decimals)")
        );
        assert_eq!(
            eight_digit_note("[0.72181774 1.5]", "0.72181774", exact).as_deref(),
            Some(" (a printed array keeps 8 decimals)")
        );
        // Not an array print, or not the expected value rounded (a scaled result).
        assert_eq!(eight_digit_note("0.72181774", "0.72181774", exact), None);
        assert_eq!(eight_digit_note("[3.0012 1.5]", "3.0012", "3"), None);
        assert_eq!(eight_digit_note("[0.7221 1.5]", "0.7221", exact), None);
    }
}
