//! The official RL reward beside the verdict, through the real engine (Python runtime
//! required: `sebx runtime install`): one small program for each way the two official
//! scorers differ (GRADER.md, "The official RL reward"), each with its reason. Rollouts
//! here are written for these tests.

use crate::grading;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use grading::{block, rollout};
use sebx::grade::engine::Engine;
use sebx::grade::report::{GradeReport, ReasonKind, RewardStep};
use sebx::grade::reward::Scorer;
use sebx::grade::scoring::{Scored, grade_scored};
use sebx::model::Verdict;

use crate::isolated;
use crate::shared_data;

const API: &str = r#"{"original_name": "mean", "curr_name": "kocito", "rewritten_doc": "", "func_mapping": "{\"np.mean\": \"zwc.kocito\", \"np.array\": \"zwc.yitaf\", \"np.sum\": \"zwc.bapuxe\", \"np.arcsin\": \"zwc.sivoru\", \"np.sqrt\": \"zwc.qexuma\"}"}"#;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    grading::engine(&ENGINE, API)
}

fn grade_with(scorer: Scorer, response: &str, cases: &[(&str, &str)]) -> GradeReport {
    grade_scored(
        &rollout(response, cases),
        scorer,
        None,
        engine(),
        Duration::from_secs(3),
    )
}

fn grade(response: &str, cases: &[(&str, &str)]) -> GradeReport {
    grade_with(Scorer::Both, response, cases)
}

fn reason(r: &GradeReport) -> (&str, Option<ReasonKind>) {
    (
        r.reward_reason.as_deref().unwrap_or(""),
        r.reward_reason_kind,
    )
}

fn step(r: &GradeReport) -> Option<RewardStep> {
    r.reward_detail.as_ref().and_then(|d| d.step)
}

#[test]
fn agreeing_scorers_give_no_reason_and_share_one_run() {
    let response = block("import zwc\ndef f(a):\n    return zwc.bapuxe(a)\n");
    let r = grade(&response, &[("a=[1, 2, 3]", "6"), ("a=[4]", "4")]);
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(r.reward, Some(1), "{:?}", r.reward_detail);
    assert_eq!(r.reward_reason, None);
    let detail = r.reward_detail.as_ref().expect("detail");
    assert!(
        detail.shared_run,
        "the same code on the same inputs runs once"
    );
    assert!(detail.execution.is_none());
    // One program to run for both scorers.
    let scored = Scored::prepare(
        &rollout(&response, &[("a=[1, 2, 3]", "6")]),
        Scorer::Both,
        None,
    );
    assert_eq!(scored.programs().len(), 1);
    // A wrong answer: both 0, no reason.
    let r = grade(&response, &[("a=[1, 2, 3]", "7")]);
    assert_eq!(r.verdict, Some(Verdict::ResultError));
    assert_eq!(r.reward, Some(0));
    assert_eq!(r.reward_reason, None);
    assert_eq!(step(&r), Some(RewardStep::Mismatch));
}

#[test]
fn the_reward_scores_the_first_block() {
    let response = "First try:\n```python\nimport zwc\ndef f(a):\n    return zwc.bapuxe(a)\n```\nOr simpler:\n```python\ndef f(a):\n    return sum(a)\n```\n";
    let r = grade(response, &[("a=[1, 2, 3]", "6")]);
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc), "{}", r.decided_by);
    assert_eq!(r.reward, Some(1), "{:?}", r.reward_detail);
    let (text, kind) = reason(&r);
    assert_eq!(kind, Some(ReasonKind::FirstBlock));
    assert!(
        text.starts_with(
            "the reward scored the first python block (response lines 3–5), the verdict the last (lines 9–10)"
        ),
        "{text}"
    );
    let detail = r.reward_detail.as_ref().expect("detail");
    assert_eq!(detail.block_lines, Some((3, 5)));
    assert!(!detail.same_code_as_verdict && !detail.shared_run);
    assert!(detail.execution.is_some(), "the first block ran on its own");
    // The other way round: the first block fails, the last passes.
    let swapped = "```python\ndef f(a):\n    return sum(a)\n```\n```python\nimport zwc\ndef f(a):\n    return zwc.bapuxe(a)\n```\n";
    let r = grade(swapped, &[("a=[1, 2, 3]", "6")]);
    assert_eq!((r.verdict, r.reward), (Some(Verdict::Right), Some(0)));
    assert_eq!(step(&r), Some(RewardStep::StaticCheck));
    let (text, kind) = reason(&r);
    assert_eq!(kind, Some(ReasonKind::FirstBlock));
    assert!(text.contains("the first scores 0: step 4"), "{text}");
}

#[test]
fn a_warning_on_stderr_gives_zero() {
    let response = block(
        "import zwc\nimport warnings\ndef f(a):\n    warnings.warn('slow path')\n    return zwc.bapuxe(a)\n",
    );
    let r = grade(&response, &[("a=[1, 2]", "3")]);
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(r.reward, Some(0));
    assert_eq!(step(&r), Some(RewardStep::Stderr));
    let (text, kind) = reason(&r);
    assert_eq!(kind, Some(ReasonKind::Stderr));
    assert!(
        text.starts_with("stderr not empty: UserWarning: slow path"),
        "{text}"
    );
    // A NumPy RuntimeWarning through zwc, as the parity corpus has them.
    let response = block("import zwc\ndef f(a):\n    return zwc.bapuxe(zwc.sivoru(a))\n");
    let r = grade(&response, &[("a=[0.0, 2.0]", "nan")]);
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(r.reward, Some(0));
    let (text, _) = reason(&r);
    assert!(
        text.starts_with("stderr not empty: RuntimeWarning: invalid value encountered in arcsin"),
        "{text}"
    );
}

#[test]
fn the_reward_compares_at_1e_10() {
    // A printed array keeps 8 decimals: within 1e-2, not within 1e-10.
    let response = block("import zwc\ndef f(a):\n    return zwc.qexuma(zwc.yitaf(a))\n");
    let r = grade(&response, &[("a=[2.0, 4.0]", "[1.4142135623730951, 2.0]")]);
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(r.reward, Some(0), "{:?}", r.reward_detail);
    let (text, kind) = reason(&r);
    assert_eq!(kind, Some(ReasonKind::Tolerance));
    assert_eq!(
        text,
        "case 1 at [0]: 1.41421356 vs 1.4142135623730951 — within 1e-2, not within 1e-10 (a printed array keeps 8 decimals)"
    );
    // Returned as a list, the full digits print and both pass.
    let response =
        block("import zwc\ndef f(a):\n    return [float(x) for x in zwc.qexuma(zwc.yitaf(a))]\n");
    let r = grade(&response, &[("a=[2.0, 4.0]", "[1.4142135623730951, 2.0]")]);
    assert_eq!((r.verdict, r.reward), (Some(Verdict::Right), Some(1)));
    // A scaled result: no note about digits.
    let response = block("import zwc\ndef f(a):\n    return float(zwc.bapuxe(a)) * 1.0004\n");
    let r = grade(&response, &[("a=[1.0, 2.0]", "3.0")]);
    assert_eq!((r.verdict, r.reward), (Some(Verdict::Right), Some(0)));
    assert_eq!(
        reason(&r).0,
        "case 1: 3.0012 vs 3.0 — within 1e-2, not within 1e-10"
    );
}

#[test]
fn fewer_results_give_zero_not_exe_error() {
    // The second result prints a separator of its own: after the last one, one result
    // stands for two expected.
    let response = block(
        "import zwc\ndef f(a):\n    zwc.bapuxe(a)\n    return '3' if len(a) == 2 else '====================\\n3'\n",
    );
    let r = grade(&response, &[("a=[1, 2]", "3"), ("a=[3]", "3")]);
    assert_eq!(r.verdict, Some(Verdict::ExeError), "{}", r.decided_by);
    assert_eq!(r.reward, Some(0));
    assert_eq!(
        step(&r),
        Some(RewardStep::FewerResults),
        "{:?}",
        r.reward_detail
    );
    assert!(
        r.reward_detail
            .as_ref()
            .is_some_and(|d| d.decided_by.contains("IndexError at case 2 is caught")),
        "{:?}",
        r.reward_detail
    );
}

#[test]
fn np_array_inputs_are_run_as_given() {
    let response = block("import zwc\ndef f(a):\n    return zwc.bapuxe(a)\n");
    let r = grade(&response, &[("a=np.array([1, 2])", "3")]);
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(r.reward, Some(0));
    let detail = r.reward_detail.as_ref().expect("detail");
    assert!(detail.inputs_use_np_array);
    assert!(!detail.shared_run, "the inputs differ, so the programs do");
    assert_eq!(detail.cases[0].input, "a=np.array([1, 2])");
    let (text, kind) = reason(&r);
    assert_eq!(kind, Some(ReasonKind::NpArrayInputs));
    assert!(
        text.contains("NameError: name 'np' is not defined"),
        "{text}"
    );
}

#[test]
fn a_timeout_gives_zero_for_both() {
    let response =
        block("import zwc\ndef f(a):\n    while True:\n        pass\n    return zwc.bapuxe(a)\n");
    let r = grade_scored(
        &rollout(&response, &[("a=[1]", "1")]),
        Scorer::Reward,
        None,
        engine(),
        Duration::from_millis(500),
    );
    assert_eq!(r.verdict, None, "the reward alone was asked for");
    assert_eq!(r.reward, Some(0));
    assert_eq!(step(&r), Some(RewardStep::Timeout));
    let detail = r.reward_detail.as_ref().expect("detail");
    assert!(detail.execution.as_ref().is_some_and(|e| e.timed_out));
}

#[test]
fn static_and_numpy_failures_decide_without_running() {
    let numpy = block("import zwc\nimport numpy as np\ndef f(a):\n    return zwc.bapuxe(a)\n");
    let scored = Scored::prepare(&rollout(&numpy, &[("a=[1]", "1")]), Scorer::Both, None);
    assert!(scored.programs().is_empty());
    let r = grade(&numpy, &[("a=[1]", "1")]);
    assert_eq!((r.verdict, r.reward), (Some(Verdict::UseNumpy), Some(0)));
    assert_eq!(step(&r), Some(RewardStep::NumpyCheck));
    let r = grade("no code here", &[("a=[1]", "1")]);
    assert_eq!((r.verdict, r.reward), (Some(Verdict::WithoutZwc), Some(0)));
    assert_eq!(step(&r), Some(RewardStep::StaticCheck));
}

#[test]
fn verdict_only_reports_are_unchanged() {
    let response = block("import zwc\ndef f(a):\n    return zwc.bapuxe(a)\n");
    let r = grade_with(Scorer::Verdict, &response, &[("a=[1, 2, 3]", "6")]);
    assert_eq!(r.verdict, Some(Verdict::Right));
    let json = serde_json::to_value(&r).expect("json");
    for key in [
        "reward",
        "reward_reason",
        "reward_reason_kind",
        "reward_detail",
    ] {
        assert!(json.get(key).is_none(), "{key} in a verdict-only report");
    }
}

/// `sebx grade --scorer both` on `file`, with the reward's run shared or not.
fn rewards_of(file: &Path, api_doc: &Path, share: bool) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("scored.jsonl");
    let status = isolated::sebx()
        .args(["grade", "-q", "--no-cache", "--scorer", "both", "--api-doc"])
        .arg(api_doc)
        .arg(file)
        .arg("-o")
        .arg(&out)
        .env("SEBX_REWARD_SHARE", if share { "1" } else { "0" })
        .status()
        .expect("sebx grade");
    assert!(status.success());
    std::fs::read_to_string(&out)
        .expect("scored")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            serde_json::json!({"line": v["line"], "verdict": v["verdict"], "reward": v["reward"],
                "reason": v["reward_reason_kind"], "shared": v["reward_detail"]["shared_run"]})
        })
        .collect()
}

/// Code no test was tuned on: three seeded mutations of each demo rollout's graded block,
/// drawn from families that move a program between the shared and the separate run and
/// between the scorers' verdicts (a warning at import, output on stderr, a first block
/// scaled by 1.0004, a mention of `test_cases`, a first block that is the last one again).
fn mutated_demo(demo: &Path, seed: u64) -> String {
    let mut rng = sebx::model::sampling::SplitMix64::new(seed);
    let mut out = String::new();
    for line in std::fs::read_to_string(demo).expect("demo").lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("demo line");
        let response = v["response"].as_str().expect("response").to_string();
        let Some(code) = sebx::analysis::extract_last_python_block(&response).map(|b| b.code)
        else {
            continue;
        };
        for _ in 0..3 {
            let mutated = match rng.below(5) {
                0 => response.replace(
                    &code,
                    &format!("import warnings\nwarnings.warn('w')\n{code}"),
                ),
                1 => response.replace(
                    &code,
                    &format!("import sys\nprint('debug', file=sys.stderr)\n{code}"),
                ),
                2 => format!(
                    "```python\n{}```\n{response}",
                    code.replacen("return ", "return 1.0004 * ", 1)
                ),
                3 => response.replace(&code, &format!("{code}# test_cases\n")),
                _ => format!("```python\n{code}```\n{response}"),
            };
            let mut m = v.clone();
            m["response"] = serde_json::json!(mutated);
            out.push_str(&m.to_string());
            out.push('\n');
        }
    }
    out
}

/// Sharing the verdict's run never changes a reward: the demo, seeded mutations of it and
/// the first 300 parity rollouts (bar infinite loops) give the same verdict, reward and reason when every reward program runs on
/// its own (the full parity corpus was checked the same way by hand: benches/README.md).
#[test]
fn sharing_the_run_changes_no_reward() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let parity = dir.path().join("parity_head.jsonl");
    let text = std::fs::read_to_string(shared_data::shared("parity/rollouts.jsonl"))
        .expect("parity corpus");
    let variants = std::fs::read_to_string(shared_data::shared("parity/official_verdicts.jsonl"))
        .expect("official verdicts");
    // The infinite loops only cost 3 s each, twice.
    let head: String = text
        .lines()
        .zip(variants.lines())
        .take(300)
        .filter(|(_, v)| !v.contains("\"infinite_loop\""))
        .map(|(l, _)| format!("{l}\n"))
        .collect();
    std::fs::write(&parity, head).expect("write");
    let mutated = dir.path().join("demo_mutated.jsonl");
    std::fs::write(
        &mutated,
        mutated_demo(&root.join("samples/demo/rollouts.jsonl"), 7),
    )
    .expect("write");
    for (file, api) in [
        (
            root.join("samples/demo/rollouts.jsonl"),
            root.join("samples/demo/api_doc.jsonl"),
        ),
        (mutated, root.join("samples/demo/api_doc.jsonl")),
        (parity, shared_data::shared("se-bench/api_doc.jsonl")),
    ] {
        let shared = rewards_of(&file, &api, true);
        let alone = rewards_of(&file, &api, false);
        let strip = |rows: &[serde_json::Value]| -> Vec<serde_json::Value> {
            rows.iter()
                .map(|r| {
                    let mut r = r.clone();
                    r["shared"] = serde_json::Value::Null;
                    r
                })
                .collect()
        };
        assert_eq!(strip(&shared), strip(&alone), "{}", file.display());
        let n_shared = shared.iter().filter(|r| r["shared"] == true).count();
        assert!(n_shared > 0, "{}: some runs are shared", file.display());
        assert!(alone.iter().all(|r| r["shared"] != true));
    }
}
