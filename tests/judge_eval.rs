//! Printed code judged as the official checker judges it (GRADER.md, "More official
//! behaviours", Comparison): the official comparison `eval`s each printed piece inside its
//! own process, so printed NumPy calls compute, printed code can read the expected output
//! from the checker's frames, and a patch of the checker judges later cases differently.
//! sebx runs the official checker's replica in the sandbox for such rollouts
//! (`grade::judge_eval`), under each scorer's own call path, and flags the line. Each case
//! below is what the official code does with the printed text, as a user runs sebx
//! (`sebx grade --scorer both`, `sebx rerun`). Needs the Python runtime (`sebx runtime
//! install`).

use std::path::Path;

use serde_json::{Value, json};

use crate::isolated;

const API_DOC: &str =
    r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf", "np.sum": "zwc.bapu"}}"#;

/// A rollout whose entry makes a zwc call (so the static check passes) and returns, per
/// input `a`, the text in `returns` (a Python expression of `a`), which the harness prints.
fn rollout(returns: &str, cases: &[(&str, &str)]) -> String {
    let code = format!(
        "import zwc\n\ndef f(a):\n    zwc.kocito(zwc.yitaf([1.0, 2.0]))\n    return {returns}\n"
    );
    let expected: Vec<&str> = cases.iter().map(|(_, out)| *out).collect();
    json!({
        "query": format!("Return what the judge should compute ({returns})."),
        "response": format!("Here it is.\n```python\n{code}```\n"),
        "test_cases": cases
            .iter()
            .map(|(input, output)| json!({"input": input, "output": output}))
            .collect::<Vec<_>>(),
        "right_exe_result": expected.join("#"),
    })
    .to_string()
}

/// A Python string literal of `text` (the entry returns it; printed without quotes).
fn text(text: &str) -> String {
    format!("{text:?}")
}

struct Graded {
    reports: Vec<Value>,
    stderr: String,
}

fn grade(dir: &Path, lines: &[String]) -> Graded {
    let input = dir.join("rollouts.jsonl");
    std::fs::write(&input, lines.join("\n") + "\n").expect("write rollouts");
    let api_doc = dir.join("api_doc.jsonl");
    std::fs::write(&api_doc, API_DOC).expect("write the API doc");
    let scored = dir.join("scored.jsonl");
    let out = isolated::sebx()
        .args(["grade", "--scorer", "both", "--api-doc"])
        .arg(&api_doc)
        .arg(&input)
        .arg("-o")
        .arg(&scored)
        .output()
        .expect("run sebx grade");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let reports = std::fs::read_to_string(&scored)
        .expect("scores written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a report per line"))
        .collect();
    Graded { reports, stderr }
}

fn rerun(dir: &Path, line: usize) -> String {
    let out = isolated::sebx()
        .args([
            "rerun",
            "--no-save",
            "--line",
            &line.to_string(),
            "--api-doc",
        ])
        .arg(dir.join("api_doc.jsonl"))
        .arg(dir.join("rollouts.jsonl"))
        .output()
        .expect("run sebx rerun");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn verdict(r: &Value) -> &str {
    r["verdict"].as_str().unwrap_or("none")
}

fn reward(r: &Value) -> i64 {
    r["reward"].as_i64().unwrap_or(-1)
}

fn computed(r: &Value, scorer: &str) -> Vec<Value> {
    let eval = if scorer == "verdict" {
        &r["judge_eval"]
    } else {
        &r["reward_detail"]["judge_eval"]
    };
    eval["computed"].as_array().cloned().unwrap_or_default()
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

#[test]
fn a_printed_numpy_call_and_arithmetic_on_arrays_are_computed_by_both_scorers() {
    let dir = dir();
    let lines = vec![
        rollout(&text("np.sum([1, 2, 3])"), &[("a=1", "6")]),
        rollout(&text("np.ones(3) * 2"), &[("a=1", "[2. 2. 2.]")]),
        // The same print with the wrong number: the judge computes 6, not 7.
        rollout(&text("np.sum([1, 2, 3])"), &[("a=2", "7")]),
    ];
    let g = grade(dir.path(), &lines);
    let [sum, twice, wrong] = &g.reports[..] else {
        panic!("three reports: {:?}", g.reports)
    };
    assert_eq!((verdict(sum), reward(sum)), ("right", 1), "{sum}");
    assert_eq!((verdict(twice), reward(twice)), ("right", 1), "{twice}");
    assert_eq!(
        (verdict(wrong), reward(wrong)),
        ("result_error", 0),
        "{wrong}"
    );
    let c = &computed(sum, "verdict")[0];
    assert_eq!(c["text"], "np.sum([1, 2, 3])");
    assert_eq!(c["side"], "actual");
    assert_eq!(c["value"], "np.int64(6)");
    assert_eq!(computed(twice, "reward")[0]["value"], "array([2., 2., 2.])");
    assert_eq!(sum["cases"][0]["comparison"]["decided_by"], "OfficialJudge");
    assert!(
        sum["decided_by"]
            .as_str()
            .is_some_and(|d| d.contains("computed np.int64(6)")),
        "{sum}"
    );
    // Each: its program (shared by both scorers), then one official checker run per scorer.
    assert!(
        g.stderr.contains("programs executed: 9 for 3"),
        "{}",
        g.stderr
    );

    let text = rerun(dir.path(), 1);
    assert!(text.contains("verdict: right"), "{text}");
    assert!(text.contains("reward:  1"), "{text}");
    assert!(
        text.contains(
            "judge:   the official checker ran printed code (verdict): case 1 (actual): `np.sum([1, 2, 3])` computed np.int64(6)"
        ),
        "{text}"
    );
    assert!(
        text.contains("judge:   the official checker ran printed code (reward): case 1 (actual)"),
        "{text}"
    );
    assert!(
        text.contains("flag:    grader_eval: printed code"),
        "{text}"
    );
}

#[test]
fn printed_code_reads_the_expected_text_from_the_checkers_frames() {
    let dir = dir();
    // Frame 0 is eval's own, 1 `parse_stdout_output`, 2 `compare_stdout_outputs`, whose
    // `target_stdout` is the expected piece in the verdict (`compare_stdout_outputs(actual,
    // expected)`) and the printed piece itself in the reward (`(expected, actual)`).
    let reach = |name: &str| {
        text(&format!(
            "__import__('sys')._getframe(2).f_locals['{name}']"
        ))
    };
    let lines = vec![
        rollout(
            &reach("target_stdout"),
            &[("a=1", "[1, 2]"), ("a=2", "[3, 4]")],
        ),
        rollout(
            &reach("pred_stdout"),
            &[("a=1", "[1, 2]"), ("a=2", "[3, 4]")],
        ),
        // Further up the stack: `judge`'s own `target` in the verdict, `compare`'s
        // `ref_list` in the reward.
        rollout(
            &text("__import__('sys')._getframe(3).f_locals['target']"),
            &[("a=1", "5")],
        ),
        rollout(
            &text("__import__('sys')._getframe(3).f_locals['ref_list'][0]"),
            &[("a=1", "5")],
        ),
    ];
    let g = grade(dir.path(), &lines);
    let [target, pred, judge_local, compare_local] = &g.reports[..] else {
        panic!("four reports")
    };
    assert_eq!((verdict(target), reward(target)), ("right", 0), "{target}");
    assert_eq!((verdict(pred), reward(pred)), ("result_error", 1), "{pred}");
    assert_eq!(
        (verdict(judge_local), reward(judge_local)),
        ("right", 0),
        "{judge_local}"
    );
    assert_eq!(
        (verdict(compare_local), reward(compare_local)),
        ("result_error", 1),
        "{compare_local}"
    );
    // What each computed: the expected text (a string the checker re-reads as a list).
    let c = &computed(target, "verdict")[0];
    assert_eq!(
        (c["case"].as_u64(), c["value"].as_str()),
        (Some(0), Some("'[1, 2]'"))
    );
    assert_eq!(computed(target, "verdict")[1]["value"], "'[3, 4]'");
    assert_eq!(computed(pred, "reward")[0]["value"], "'[1, 2]'");
    assert!(
        target["reward_reason"].is_string(),
        "the scorers disagree and say why: {target}"
    );
    let text = rerun(dir.path(), 2);
    assert!(text.contains("verdict: result_error"), "{text}");
    assert!(text.contains("reward:  1"), "{text}");
}

#[test]
fn a_patch_of_the_checker_in_case_1_passes_a_wrong_case_2_and_no_other_rollout() {
    let dir = dir();
    // Case 1 replaces the checker's comparison by `print` (its `None` is not `== False`,
    // so the verdict's `judge` passes every later case; the reward's `compare` fails on
    // `not None`) and prints 1; case 2 prints the wrong 999.
    let patch = "(setattr(EqulityChecker,'compare_stdout_outputs',print),1)[1]";
    let lines = vec![
        rollout(
            &format!("{} if a == 1 else 999", text(patch)),
            &[("a=1", "1"), ("a=2", "2")],
        ),
        // The same wrong case 2 in the next rollout of the same run: officially judged by
        // the patched checker (right); sebx judges each rollout afresh.
        rollout("1 if a == 1 else 999", &[("a=1", "1"), ("a=2", "2")]),
    ];
    let g = grade(dir.path(), &lines);
    let [patched, next] = &g.reports[..] else {
        panic!("two reports")
    };
    assert_eq!(
        (verdict(patched), reward(patched)),
        ("right", 0),
        "{patched}"
    );
    assert_eq!(patched["cases"][1]["matched"], true);
    let tampered = &patched["judge_eval"]["tampered"][0];
    assert_eq!(tampered["what"], "EqulityChecker.compare_stdout_outputs");
    assert_eq!(tampered["case"], 0);
    assert!(
        patched["reward_detail"]["judge_eval"]["tampered"][0]["what"]
            .as_str()
            .is_some_and(|w| w.ends_with("compare_stdout_outputs")),
        "{patched}"
    );
    assert_eq!((verdict(next), reward(next)), ("result_error", 0), "{next}");
    assert!(next.get("judge_eval").is_none(), "no checker run: {next}");

    let text = rerun(dir.path(), 1);
    assert!(
        text.contains("judge:   the printed code changed the official checker's state (verdict): case 1: EqulityChecker.compare_stdout_outputs replaced"),
        "{text}"
    );
    assert!(text.contains("flag:    judge_tampered:"), "{text}");
}

#[test]
fn printed_code_that_raises_and_inf_inside_code_fall_back_to_text() {
    let dir = dir();
    let lines = vec![
        rollout(&text("len(5)"), &[("a=1", "0")]),
        // Identical texts: the verdict's `actual == expected` decides before any eval; the
        // reward evaluates both, both raise, and the two texts are equal.
        rollout(&text("len(5)"), &[("a=1", "len(5)")]),
        // The cleaning rewrites every `inf` before eval: `np.isfloat("inf")(np.float("inf"))`.
        rollout(&text("np.isinf(np.inf)"), &[("a=1", "True")]),
    ];
    let g = grade(dir.path(), &lines);
    let [raises, same, inf] = &g.reports[..] else {
        panic!("three reports")
    };
    assert_eq!(
        (verdict(raises), reward(raises)),
        ("result_error", 0),
        "{raises}"
    );
    let c = &computed(raises, "verdict")[0];
    assert!(
        c["raised"]
            .as_str()
            .is_some_and(|r| r.starts_with("TypeError")),
        "{c}"
    );
    assert!(c["value"].is_null());
    assert_eq!((verdict(same), reward(same)), ("right", 1), "{same}");
    assert!(same.get("judge_eval").is_none(), "exact text: {same}");
    assert!(same["reward_detail"]["judge_eval"].is_object(), "{same}");
    assert_eq!((verdict(inf), reward(inf)), ("result_error", 0), "{inf}");
    let c = &computed(inf, "verdict")[0];
    assert_eq!(c["text"], "np.isfloat(\"inf\")(np.float(\"inf\"))");
    assert!(
        c["raised"]
            .as_str()
            .is_some_and(|r| r.starts_with("AttributeError")),
        "{c}"
    );
}

#[test]
fn literal_prints_keep_the_rust_comparison_and_run_no_checker() {
    let dir = dir();
    let lines = vec![
        rollout("[1.5, 2.0]", &[("a=1", "[1.5 2. ]")]),
        rollout(&text("hello world"), &[("a=1", "hello world")]),
        rollout("a + 1", &[("a=1", "3")]),
    ];
    let g = grade(dir.path(), &lines);
    let verdicts: Vec<&str> = g.reports.iter().map(verdict).collect();
    assert_eq!(verdicts, ["right", "right", "result_error"]);
    for r in &g.reports {
        assert!(r.get("judge_eval").is_none(), "{r}");
        assert!(r["reward_detail"].get("judge_eval").is_none(), "{r}");
    }
    assert!(
        g.stderr.contains("programs executed: 3 for 3"),
        "{}",
        g.stderr
    );
}
