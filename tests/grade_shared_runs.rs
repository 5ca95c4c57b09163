//! Never the same program twice: rollouts whose code is the same and whose prose differs
//! execute one program in a batch, and each still gets its own report with the verdict
//! the program decides. Through the real engine (Python runtime required: `sebx runtime
//! install`); rollouts written for this test.

use crate::grading;

use std::sync::OnceLock;
use std::time::Duration;

use grading::rollout;
use sebx::grade::backend::{GradeBackend, Grader};
use sebx::grade::batch::grade_all_counted;
use sebx::grade::engine::Engine;
use sebx::grade::reward::Scorer;
use sebx::model::{ApiMap, Verdict};

const API: &str = r#"{"original_name": "mean", "curr_name": "kocito", "rewritten_doc": "", "func_mapping": "{\"np.mean\": \"zwc.kocito\", \"np.array\": \"zwc.yitaf\"}"}"#;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    grading::engine(&ENGINE, API)
}

const RIGHT: &str = "import zwc\n\ndef solve(x):\n    return float(zwc.kocito(x))\n";
const WRONG: &str = "import zwc\n\ndef solve(x):\n    return float(zwc.kocito(x)) + 1\n";

fn response(prose: &str, code: &str) -> String {
    format!("{prose}\n\n```python\n{code}```\n\nThat is all.")
}

#[test]
fn same_code_different_prose_runs_one_program() {
    let cases = [("x=[1, 2, 3]", "2.0"), ("x=[4]", "4.0")];
    let a = rollout(&response("First I think about the mean.", RIGHT), &cases);
    let b = rollout(
        &response(
            "A much longer explanation,\nover lines,\nof the same code.",
            RIGHT,
        ),
        &cases,
    );
    let c = rollout(&response("Off by one.", WRONG), &cases);
    assert_ne!(a.id, b.id, "different prose, different rollouts");
    for jobs in [1, 2] {
        let (reports, counts) = grade_all_counted(
            &[&a, &b, &c, &a],
            engine(),
            jobs,
            Duration::from_secs(3),
            Scorer::Verdict,
            &|_, _| {},
        );
        assert_eq!(counts.programs_run, 2, "{jobs} jobs: {counts:?}");
        assert_eq!(counts.programs_reused, 2, "{jobs} jobs: {counts:?}");
        let verdicts: Vec<_> = reports.iter().map(|r| r.verdict).collect();
        assert_eq!(
            verdicts,
            [
                Some(Verdict::Right),
                Some(Verdict::Right),
                Some(Verdict::ResultError),
                Some(Verdict::Right)
            ]
        );
        // Each report is its rollout's own: its id, and its code where its response has it.
        assert_eq!(reports[0].id.as_ref(), Some(&a.id));
        assert_eq!(reports[1].id.as_ref(), Some(&b.id));
        let span = |i: usize| {
            let (start, end) = reports[i].extraction.span.expect("a span");
            start..end
        };
        assert_ne!(span(0), span(1));
        assert_eq!(&b.response[span(1)], RIGHT);
    }
}

#[test]
fn both_scorers_share_programs_across_rollouts_too() {
    let cases = [("x=[1, 2, 3]", "2.0")];
    let rollouts: Vec<_> = (0..6)
        .map(|i| rollout(&response(&format!("Attempt {i}."), RIGHT), &cases))
        .collect();
    let refs: Vec<_> = rollouts.iter().collect();
    let (reports, counts) = grade_all_counted(
        &refs,
        engine(),
        2,
        Duration::from_secs(3),
        Scorer::Both,
        &|_, _| {},
    );
    // One block, plain inputs: the verdict's run serves the reward, and all six share it.
    assert_eq!(counts.programs_run, 1, "{counts:?}");
    assert!(
        reports
            .iter()
            .all(|r| r.verdict == Some(Verdict::Right) && r.reward == Some(1))
    );
}

#[test]
fn the_explorers_grader_shares_runs_when_grading_in_bulk() {
    let api = ApiMap::from_api_doc_jsonl(API).expect("api");
    let grader = Grader::discover(&api, 1).expect("the runtime is installed");
    let cases = [("x=[1, 2, 3]", "2.0")];
    let a = rollout(&response("One way.", RIGHT), &cases);
    let b = rollout(&response("Another way, same code.", RIGHT), &cases);
    let c = rollout(&response("Off by one.", WRONG), &cases);
    let ra = grader.grade_shared(&a).expect("graded");
    let rb = grader.grade_shared(&b).expect("graded");
    assert_eq!(grader.programs_executed(), 1, "b reused a's run");
    assert_eq!(
        (ra.verdict, rb.verdict),
        (Some(Verdict::Right), Some(Verdict::Right))
    );
    assert_eq!(rb.id.as_ref(), Some(&b.id));
    let rc = grader.grade_shared(&c).expect("graded");
    assert_eq!(grader.programs_executed(), 2);
    assert_eq!(rc.verdict, Some(Verdict::ResultError));
    // A regrade (`grade`) runs again, whatever ran before.
    let again = grader.grade(&a).expect("graded");
    assert_eq!(again.verdict, Some(Verdict::Right));
    assert_eq!(
        grader.programs_executed(),
        2,
        "grade is not counted as shared"
    );
}

#[test]
fn sebx_grade_reports_the_programs_it_really_ran() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = dir.path().join("api.jsonl");
    std::fs::write(&api, API).expect("api");
    let file = dir.path().join("run.jsonl");
    let line = |prose: &str, code: &str| {
        serde_json::json!({"query": "q", "response": response(prose, code),
            "test_cases": [{"input": "x=[1, 2, 3]", "output": "2.0"}], "right_exe_result": "2.0"})
        .to_string()
    };
    let lines = [
        line("First.", RIGHT),
        line("Second, other words.", RIGHT),
        line("Third.", WRONG),
    ];
    std::fs::write(&file, lines.join("\n")).expect("write");
    let out = assert_cmd::Command::cargo_bin("sebx")
        .expect("binary")
        .env_remove("SEBX_API_DOC")
        .env("SEBX_SCORE_CACHE", dir.path().join("cache"))
        .args(["grade", "--scorer", "verdict", "--quiet", "--api-doc"])
        .arg(&api)
        .arg(&file)
        .arg("-o")
        .arg(dir.path().join("out.jsonl"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("programs executed: 2 for 3 rollouts graded (1 more programs answered"),
        "{stderr}"
    );
}

/// Across sessions: a second `sebx grade --cached` on another file, whose rollouts are new
/// (other prose, so the score cache does not know them) but whose programs ran in the
/// first session, executes nothing and gives each the verdict its program decides. Without
/// `--cached` it runs them again, as asked.
#[test]
fn a_program_that_ran_in_an_earlier_session_is_not_run_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = dir.path().join("api.jsonl");
    std::fs::write(&api, API).expect("api");
    let line = |prose: &str, code: &str| {
        serde_json::json!({"query": "q", "response": response(prose, code),
            "test_cases": [{"input": "x=[1, 2, 3]", "output": "2.0"}], "right_exe_result": "2.0"})
        .to_string()
    };
    let grade = |name: &str, lines: &[String], cached: bool| {
        let file = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&file, lines.join("\n")).expect("write");
        let out_file = dir.path().join(format!("{name}.out.jsonl"));
        let mut cmd = assert_cmd::Command::cargo_bin("sebx").expect("binary");
        cmd.env_remove("SEBX_API_DOC")
            .env("SEBX_SCORE_CACHE", dir.path().join("cache"))
            .args(["grade", "--scorer", "verdict", "--quiet", "--api-doc"])
            .arg(&api)
            .arg(&file)
            .arg("-o")
            .arg(&out_file);
        if cached {
            cmd.arg("--cached");
        }
        let out = cmd.output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let verdicts: Vec<String> = std::fs::read_to_string(&out_file)
            .expect("output")
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("report");
                v["verdict"].as_str().unwrap_or("").to_string()
            })
            .collect();
        (stderr, verdicts)
    };
    let (first, verdicts) = grade(
        "first",
        &[line("First.", RIGHT), line("Second.", WRONG)],
        false,
    );
    assert!(first.contains("programs executed: 2 for 2"), "{first}");
    assert_eq!(verdicts, ["right", "result_error"]);
    // New prose around the same two programs, in another file and another order.
    let later = [
        line("Other words entirely.", WRONG),
        line("A new explanation.", RIGHT),
    ];
    let (second, verdicts) = grade("second", &later, true);
    assert!(
        second.contains(
            "programs executed: 0 for 2 rollouts graded (0 more programs answered by an identical one's run, 2 by a run remembered from an earlier session)"
        ),
        "{second}"
    );
    assert_eq!(verdicts, ["result_error", "right"]);
    let (third, _) = grade("third", &later, false);
    assert!(third.contains("programs executed: 2 for 2"), "{third}");
}
