//! The official SE-Bench grading procedure, step by step (GRADER.md), for one rollout.

use std::time::Duration;

use crate::analysis::assemble::{RESULTS_SEPARATOR, assemble_program, rewrite_cases};
use crate::analysis::extract::{entry_function_name, extract_last_python_block};
use crate::analysis::numpy_check::{check_numpy, harness_numpy_free, numpy_imports_in};
use crate::analysis::pyast::parse_suite;
use crate::analysis::static_check::{ParsedCode, StaticCheck, check_zwc_usage_split};
use crate::grade::compare::{compare_printed, split_actual, split_expected};
use crate::grade::report::{CaseResult, Execution, Extraction, GradeReport};
use crate::model::{Rollout, Verdict};

/// The official wall-clock timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// How much of stdout and stderr a report keeps (the tail).
pub const OUTPUT_TAIL_BYTES: usize = 8 * 1024;

/// What running one program produced.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed: Duration,
    pub exit_code: Option<i32>,
    /// Why the sandbox stopped the program, when it did.
    pub contained: Option<String>,
    /// How many times zwc's functions ran in the program's processes (the runtime's own
    /// count, see `py/zwc_core.py`); `None` where nothing counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zwc_calls: Option<u64>,
}

/// Something that runs an assembled program (the sandboxed pool, or a fake in tests).
pub trait ProgramRunner: Send + Sync {
    fn run_program(&self, program: &str, timeout: Duration) -> anyhow::Result<RunOutput>;

    /// A sequence of runs that may be queued ahead of their results (see
    /// [`crate::grade::pool::Session`]), when the runner can do that.
    fn session(&self) -> Option<Box<dyn RunSession + '_>> {
        None
    }
}

/// Runs submitted ahead; results come back in submission order.
pub trait RunSession {
    fn submit(&mut self, program: &str, timeout: Duration);
    /// The oldest submitted program's result; None when nothing is waiting.
    fn next_result(&mut self) -> Option<anyhow::Result<RunOutput>>;
}

/// Everything decided before execution: extraction, assembly, the static checks.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub extraction: Extraction,
    pub entry: String,
    pub program: String,
    /// The verdict if the static steps already decide it.
    pub early_verdict: Option<Verdict>,
    pub report: GradeReport,
}

/// Runs steps 1–5 (no Python): the report is complete when `early_verdict` is set.
pub fn prepare(rollout: &Rollout) -> Prepared {
    prepare_with(rollout, None)
}

/// [`prepare`], optionally grading `code_override` instead of the extracted code (a what-if).
pub fn prepare_with(rollout: &Rollout, code_override: Option<&str>) -> Prepared {
    let block = extract_last_python_block(&rollout.response);
    let extraction = match (&block, code_override) {
        (_, Some(code)) => Extraction {
            found: true,
            blocks_found: 1,
            span: None,
            code: code.to_string(),
        },
        (Some(b), None) => Extraction {
            found: true,
            blocks_found: b.blocks_found,
            span: Some((b.span.start, b.span.end)),
            code: b.code.clone(),
        },
        (None, None) => Extraction::default(),
    };
    let code = extraction.code.as_str();
    let entry = entry_function_name(code);
    let cases = rewrite_cases(&rollout.test_cases);
    let program = assemble_program(code, &entry, &cases);
    let mut warnings = Vec::new();
    if code_override.is_some() {
        warnings.push("what-if: graded edited code, not the response's".to_string());
    }
    if extraction.blocks_found > 1 {
        warnings.push(format!(
            "the response has {} ```python blocks; only the last one is graded",
            extraction.blocks_found
        ));
    }
    if !extraction.found && code_override.is_none() && rollout.response.contains("```") {
        warnings.push(
            "the response has fenced code, but no block opens with exactly ```python and a newline, so the graded code is empty".to_string(),
        );
    }
    if !code.is_empty() && !code.ends_with('\n') {
        warnings.push(
            "the code does not end with a newline, so the harness's `import zwc` is glued onto its last line".to_string(),
        );
    }
    // Parsing is most of this function's time: the code is parsed once for both
    // checks, and the harness (the same for every sample of a task) once per task.
    let harness = &program[code.len()..];
    let code_parsed = parse_suite(code);
    let given = ParsedCode {
        parse: &code_parsed,
        walked: None,
    };
    let static_check = check_zwc_usage_split(code, Some(given), harness, &entry);
    let static_error = static_check.official_error();
    let mut report = GradeReport {
        source: rollout.source.display().to_string(),
        line: rollout.line,
        id: Some(rollout.id.clone()),
        verdict: None,
        load_error: None,
        extraction: extraction.clone(),
        entry: entry.clone(),
        static_check: Some(static_check.clone()),
        static_error: static_error.clone(),
        numpy: None,
        warnings,
        decided_by: String::new(),
        execution: None,
        cases: Vec::new(),
        fragile: false,
        fragile_reason: None,
        reward: None,
        reward_reason: None,
        reward_reason_kind: None,
        reward_detail: None,
        judge_eval: None,
        behaviour: None,
    };
    if let Some(reason) = static_check
        .recursion
        .as_ref()
        .and_then(|r| r.fragile_reason())
    {
        report.mark_fragile(reason);
    }
    let mut early = None;
    if !static_check.passed {
        early = Some(Verdict::WithoutZwc);
        report.decided_by =
            describe_static_failure(report.extraction.found, &report.entry, &static_check);
    } else {
        let numpy = numpy_step(code, &code_parsed, harness, &program);
        for imp in numpy.imports.iter().filter(|i| i.dynamic) {
            report.warnings.push(format!(
                "line {}: `{}` loads numpy dynamically; the official check does not catch it",
                imp.line, imp.text
            ));
        }
        if let Some(reason) = numpy.recursion.as_ref().and_then(|r| r.fragile_reason()) {
            report.mark_fragile(reason);
        }
        if let Some(r) = numpy.recursion.as_ref().filter(|r| r.exceeded) {
            early = Some(Verdict::ExeError);
            report.decided_by = format!(
                "step 5: {}; the official grader reports that as exe_error without running the program",
                r.describe()
            );
        } else if numpy.uses_numpy() {
            early = Some(Verdict::UseNumpy);
            report.decided_by = describe_numpy_import(&numpy);
        }
        report.numpy = Some(numpy);
    }
    report.verdict = early;
    if early.is_some() {
        report.cases = rollout
            .test_cases
            .iter()
            .zip(&cases)
            .enumerate()
            .map(|(index, (_, c))| CaseResult {
                index,
                input: c.input.clone(),
                ..CaseResult::default()
            })
            .collect();
        fill_expected(&mut report.cases, &rollout.right_exe_result);
    }
    Prepared {
        extraction,
        entry,
        program,
        early_verdict: early,
        report,
    }
}

fn fill_expected(cases: &mut [CaseResult], right_exe_result: &str) {
    for (case, exp) in cases.iter_mut().zip(split_expected(right_exe_result)) {
        case.expected = exp;
    }
}

/// Step 5 on `code` + `harness` (= `program`): the code's imports alone when the harness
/// cannot add any (it is checked once per text), else the whole program.
pub fn numpy_step(
    code: &str,
    code_parsed: &Result<crate::analysis::pyast::Suite, crate::analysis::pyast::ParseFailure>,
    harness: &str,
    program: &str,
) -> crate::analysis::numpy_check::NumpyCheck {
    match code_parsed {
        Ok(suite) if (code.is_empty() || code.ends_with('\n')) && harness_numpy_free(harness) => {
            numpy_imports_in(code, suite)
        }
        _ => check_numpy(program),
    }
}

/// Step 5's failure in a sentence: the first import of numpy (both scorers word it so).
pub fn describe_numpy_import(numpy: &crate::analysis::numpy_check::NumpyCheck) -> String {
    match numpy.imports.iter().find(|i| !i.dynamic) {
        Some(i) => format!(
            "step 5: the program imports numpy (`{}`, line {})",
            i.text, i.line
        ),
        None => "step 5: the program imports numpy".to_string(),
    }
}

/// Step 4's failure in a sentence: which condition of the static check failed.
pub fn describe_static_failure(found: bool, entry: &str, sc: &StaticCheck) -> String {
    if !found {
        return "step 4: no ```python block was found, so the code is empty and has no entry function".to_string();
    }
    if let Some(err) = &sc.syntax_error {
        return format!(
            "step 4: the assembled program does not parse (line {}, col {}: {})",
            err.line, err.col, err.message
        );
    }
    if let Some(r) = sc.recursion.as_ref().filter(|r| r.exceeded) {
        return format!(
            "step 4: {}; the static check fails on the RecursionError",
            r.describe()
        );
    }
    let mut failed = Vec::new();
    if !sc.entry_found {
        failed.push(format!("no function named `{entry}` was found"));
    } else {
        if sc.library_calls.is_empty() {
            failed.push(format!("`{entry}` makes no zwc call"));
        }
        if !sc.returns_value {
            failed.push(format!("`{entry}` never returns a value"));
        }
        if !sc.meaningful {
            let name = sc
                .library_calls
                .first()
                .map(|c| c.name.as_str())
                .unwrap_or("zwc.yitaf");
            failed.push(format!(
                "its only zwc call is `{name}` (array construction does not count)"
            ));
        }
    }
    format!("step 4: the zwc-usage check failed: {}", failed.join("; "))
}

fn tail(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

/// What a report keeps of a run: the output tails and the run's facts.
pub fn execution_of(run: &RunOutput) -> Execution {
    Execution {
        stdout: tail(&run.stdout, OUTPUT_TAIL_BYTES),
        stderr: tail(&run.stderr, OUTPUT_TAIL_BYTES),
        timed_out: run.timed_out,
        elapsed_ms: run.elapsed.as_secs_f64() * 1000.0,
        exit_code: run.exit_code,
        contained: run.contained.clone(),
        zwc_calls: run.zwc_calls,
    }
}

/// Steps 6–7: decides `exe_error`, `right` or `result_error` from the run output.
pub fn finish(rollout: &Rollout, prepared: Prepared, run: &RunOutput) -> GradeReport {
    let mut report = prepared.report;
    let rewritten = rewrite_cases(&rollout.test_cases);
    report.execution = Some(execution_of(run));
    let expected = split_expected(&rollout.right_exe_result);
    if run.stdout.is_empty() {
        report.verdict = Some(Verdict::ExeError);
        report.decided_by = if run.timed_out {
            "step 6: the program ran past the timeout and was killed, so stdout is empty"
                .to_string()
        } else if let Some(reason) = &run.contained {
            format!("step 6: the sandbox stopped the program ({reason}); stdout is empty")
        } else if let Some(last) = last_error_line(&run.stderr) {
            format!(
                "step 6: the program printed nothing; it failed with `{last}` (one failing case empties stdout for all)"
            )
        } else {
            "step 6: the program printed nothing on stdout".to_string()
        };
        report.cases = rewritten
            .iter()
            .enumerate()
            .map(|(index, c)| CaseResult {
                index,
                input: c.input.clone(),
                expected: expected.get(index).cloned().unwrap_or_default(),
                ..CaseResult::default()
            })
            .collect();
        return report;
    }
    let actual = split_actual(&run.stdout);
    if !run.stdout.contains(RESULTS_SEPARATOR) {
        report.warnings.push(
            "stdout has no ==================== line (the program printed but never reached the harness's output), so all of stdout is compared".to_string(),
        );
    }
    // The official judge goes through the expected pieces in order and stops at the first
    // that does not match; a missing piece raises IndexError there (see below).
    let mut cases = Vec::with_capacity(expected.len());
    let mut first_failure: Option<usize> = None;
    for (index, exp) in expected.iter().enumerate() {
        let input = rewritten
            .get(index)
            .map(|c| c.input.clone())
            .unwrap_or_default();
        let act = actual.get(index).cloned();
        let comparison = act.as_ref().map(|a| compare_printed(exp, a));
        let matched = comparison.as_ref().is_some_and(|c| c.matched);
        let fragile_reason = comparison.as_ref().and_then(|c| c.fragile.clone());
        if !matched && first_failure.is_none() {
            first_failure = Some(index);
        }
        cases.push(CaseResult {
            index,
            input,
            expected: exp.clone(),
            actual: act,
            matched,
            comparison,
            fragile: fragile_reason.is_some(),
            fragile_reason,
        });
    }
    if actual.len() != expected.len() {
        report.warnings.push(format!(
            "stdout has {} result pieces for {} expected (a printed `#` shifts pieces; extra pieces are ignored)",
            actual.len(),
            expected.len()
        ));
    }
    let failed = cases.iter().filter(|c| !c.matched).count();
    report.cases = cases;
    // A case whose outcome another machine could flip makes the verdict fragile when it
    // decides it: the first failing case, or any case of a passing rollout.
    let deciding = match first_failure {
        Some(i) => report.cases.get(i).into_iter().collect::<Vec<_>>(),
        None => report.cases.iter().collect(),
    };
    let fragile_case = deciding
        .into_iter()
        .find_map(|c| Some((c.index, c.fragile_reason.clone()?)));
    if let Some((index, reason)) = fragile_case {
        report.mark_fragile(format!("case {}: {reason}", index + 1));
    }
    match first_failure {
        None => {
            report.verdict = Some(Verdict::Right);
            report.decided_by = format!("step 7: all {} expected results matched", expected.len());
        }
        Some(i) if report.cases[i].actual.is_none() => {
            // Every printed piece before it matched: the official judge indexes past the
            // printed results, catches the IndexError, prints it and calls breakpoint().
            report.verdict = Some(Verdict::ExeError);
            report.decided_by = format!(
                "step 7: only {} results were printed for {} expected, all matching; the official judge raises IndexError at case {} and calls breakpoint(), which quits at once in a batch run (exe_error)",
                actual.len(),
                expected.len(),
                i + 1
            );
            report.mark_fragile(
                "fewer results printed than expected: the official judge calls breakpoint(); run as a batch job (no terminal) it gives exe_error, on an interactive terminal continuing from the debugger gives result_error",
            );
        }
        Some(i) => {
            report.verdict = Some(Verdict::ResultError);
            let c = &report.cases[i];
            let detail = match c.comparison.as_ref().and_then(|m| m.mismatch.as_ref()) {
                Some(m) => format!(
                    "case {} differs at {}: {}",
                    c.index + 1,
                    if m.path.is_empty() {
                        "the top"
                    } else {
                        &m.path
                    },
                    m.reason
                ),
                None => format!("case {} differs", c.index + 1),
            };
            report.decided_by = format!(
                "step 7: {failed} of {} expected results did not match; first: {detail}",
                expected.len()
            );
        }
    }
    report
}

/// The last non-blank stderr line (the exception of a traceback).
pub fn last_error_line(stderr: &str) -> Option<&str> {
    stderr.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

/// Grades one rollout completely; `runner` is only used when the static steps pass.
pub fn grade_rollout(
    rollout: &Rollout,
    runner: &dyn ProgramRunner,
    timeout: Duration,
) -> GradeReport {
    grade_rollout_with(rollout, None, runner, timeout)
}

/// Grades `rollout`, with `code_override` in place of its extracted code when given (a what-if).
pub fn grade_rollout_with(
    rollout: &Rollout,
    code_override: Option<&str>,
    runner: &dyn ProgramRunner,
    timeout: Duration,
) -> GradeReport {
    let prepared = prepare_with(rollout, code_override);
    if prepared.early_verdict.is_some() {
        return prepared.report;
    }
    let run = runner.run_program(&prepared.program, timeout);
    let program = prepared.program.clone();
    let mut report = finish_run(rollout, prepared, &run);
    // Printed code the official `eval` runs: the official checker decides (judge_eval).
    if let Ok(run) = &run
        && crate::grade::judge_eval::verdict_needs_judge(&report)
    {
        let judge = crate::grade::judge_eval::verdict_program(
            rollout,
            &report,
            &program,
            (&run.stdout, &run.stderr),
        );
        let checked = runner.run_program(&judge, timeout);
        crate::grade::judge_eval::apply_verdict(&mut report, checker_run(&checked));
    }
    report
}

/// A run of the official checker (`judge_eval`) as it reads it.
pub fn checker_run(run: &anyhow::Result<RunOutput>) -> crate::grade::judge_eval::CheckerRun<'_> {
    match run {
        Ok(run) => crate::grade::judge_eval::CheckerRun::Ran {
            stdout: &run.stdout,
            stderr: &run.stderr,
            timed_out: run.timed_out,
            seconds: run.elapsed.as_secs_f64(),
        },
        Err(e) => crate::grade::judge_eval::CheckerRun::Failed(format!("{e:#}")),
    }
}

/// [`finish`], or a report saying why the program could not be run.
pub fn finish_run(
    rollout: &Rollout,
    prepared: Prepared,
    run: &anyhow::Result<RunOutput>,
) -> GradeReport {
    match run {
        Ok(run) => finish(rollout, prepared, run),
        Err(e) => {
            let mut report = prepared.report;
            report.verdict = None;
            report.decided_by = format!("not graded: the program could not be run: {e:#}");
            report
        }
    }
}

/// Adds a note when the entry function the grader picked is not the task's own
/// (a helper defined first, or a `def x(` in a docstring): the official rule decided it.
pub fn note_entry_mismatch(report: &mut GradeReport, task_signature: &str) {
    let task_entry = entry_function_name(task_signature);
    if task_entry.is_empty() || report.entry == task_entry || !report.extraction.found {
        return;
    }
    let shown = if report.entry.is_empty() {
        "nothing"
    } else {
        report.entry.as_str()
    };
    report.warnings.push(format!(
        "the graded entry function is `{shown}` (the first `def name(` in the code), not the task's `{task_entry}`"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::static_check::check_zwc_usage;
    use crate::model::rollout::parse_rollout_bytes;

    fn rollout(response: &str, inputs: &[&str]) -> Rollout {
        let cases: Vec<serde_json::Value> = inputs
            .iter()
            .map(|i| serde_json::json!({"input": i, "output": "1"}))
            .collect();
        let line = serde_json::json!({
            "query": "q", "response": response, "test_cases": cases, "right_exe_result": "1",
        })
        .to_string();
        let loaded = parse_rollout_bytes(std::path::Path::new("t.jsonl"), line.as_bytes());
        loaded.rollouts.into_iter().next().expect("rollout loads")
    }

    /// `prepare` parses only the code (the harness once per task); its checks must equal
    /// the checks of the whole assembled program, whatever the code or the harness holds.
    #[test]
    fn prepare_checks_equal_whole_program_checks() {
        let codes = [
            "import zwc\ndef f(a):\n    return zwc.kocito(a)\n",
            "import zwc\nimport numpy as np\ndef f(a):\n    return zwc.kocito(np.array(a))\n",
            "import zwc\ndef f(a):\n    np = __import__('numpy')\n    return zwc.kocito(a)\n",
            "import zwc\ndef f(a):\n    from numpy.linalg import inv\n    return zwc.kocito(a)\n",
            // No final newline: the harness's first line joins the code's last one.
            "import zwc\ndef f(a):\n    return zwc.kocito(a)",
            "import zwc\nimport numpy\ndef f(a):\n    return a +",
            "def f(a):\n    return a\n",
            "import zwc\ndef f(a):\n    if a:\n        return zwc.kocito(a\n",
            "",
        ];
        let inputs: [&[&str]; 3] = [
            &["a=[1, 2]"],
            &["a=np.array([1, 2])", "a=[3]"],
            &["a=__import__('numpy').ones(2)"],
        ];
        let mut numpy_checked = 0;
        for code in codes {
            for case_inputs in inputs {
                let r = rollout(&format!("```python\n{code}```\n"), case_inputs);
                let prepared = prepare(&r);
                let whole = check_zwc_usage(&prepared.program, &prepared.entry);
                assert_eq!(
                    prepared.report.static_check.as_ref(),
                    Some(&whole),
                    "static check of {code:?} with {case_inputs:?}"
                );
                if whole.passed {
                    numpy_checked += 1;
                    assert_eq!(
                        prepared.report.numpy,
                        Some(check_numpy(&prepared.program)),
                        "numpy check of {code:?} with {case_inputs:?}"
                    );
                }
            }
        }
        assert!(
            numpy_checked >= 9,
            "only {numpy_checked} programs passed the static check"
        );
    }
}
