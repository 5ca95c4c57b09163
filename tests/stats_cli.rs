//! `sebx stats` and `sebx compare` on the demo and on small hand-written runs whose figures
//! are computed by hand in the comments.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::isolated;

use crate::demo_files;
use demo_files::{demo, demo_copy};

fn sebx() -> Command {
    let mut c = isolated::assert_sebx();
    c.env_remove("SEBX_API_DOC");
    c
}

/// `sebx <command> FILES...`, more arguments to follow.
fn sebx_on(command: &str, files: impl IntoIterator<Item = impl AsRef<OsStr>>) -> Command {
    let mut c = sebx();
    c.arg(command).args(files);
    c
}

/// Runs `cmd`, asserts it succeeded (showing its stderr otherwise) and returns its stdout.
fn stdout_of(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `cmd`, asserts it succeeded and returns its stdout as text.
fn text_of(cmd: &mut Command) -> String {
    String::from_utf8(stdout_of(cmd)).expect("utf-8")
}

/// Runs `cmd`, asserts it succeeded and returns its stdout parsed as JSON.
fn json_from(cmd: &mut Command) -> Value {
    json_of(&stdout_of(cmd))
}

/// Runs `cmd`, asserts it failed and returns its stderr.
fn stderr_of_failure(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run");
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts `text` contains every one of `parts` (showing `text` otherwise).
fn assert_contains_all(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} missing from: {text}");
    }
}

/// The files `names` of the folder `dir`.
fn files_in(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    names.iter().map(|name| dir.join(name)).collect()
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(out)
                .chars()
                .take(400)
                .collect::<String>()
        )
    })
}

#[test]
fn stats_json_on_the_demo() {
    let dir = demo_copy();
    let d = dir.path();
    let v = json_from(
        sebx_on(
            "stats",
            files_in(
                d,
                &[
                    "rollouts.jsonl",
                    "rollouts_run2.jsonl",
                    "rollouts.scored.jsonl",
                ],
            ),
        )
        .arg("--api-doc")
        .arg(d.join("api_doc.jsonl"))
        .arg("--dataset")
        .arg(d.join("tasks.jsonl"))
        .args(["--format", "json", "-k", "1", "-k", "2", "-q"]),
    );
    let run = &v["runs"][0];
    assert_eq!(run["name"], "rollouts");
    assert_eq!(run["rollouts"], 36);
    assert_eq!(run["tasks"], 13);
    // The demo's documented verdicts of run 1 (samples/demo/README.md).
    assert_eq!(
        run["verdicts"],
        json!({"right": 12, "result_error": 6, "exe_error": 8, "use_numpy": 3, "without_zwc": 7})
    );
    let acc = run["accuracy"].as_f64().expect("accuracy");
    assert!((acc - 12.0 / 36.0).abs() < 1e-12);
    let ci = run["accuracy_ci95"].as_array().expect("interval");
    let (lo, hi) = (ci[0].as_f64().expect("lo"), ci[1].as_f64().expect("hi"));
    assert!(lo < acc && acc < hi && lo > 0.0 && hi < 1.0, "{ci:?}");
    assert!(run["pass_at_k"]["1"].is_number() && run["pass_at_k"]["2"].is_number());
    assert_eq!(run["summary"][1], "accuracy (right): 33.33%");
    // pass@1 is the mean of per-task accuracies, not the pooled accuracy.
    let p1 = run["pass_at_k"]["1"].as_f64().expect("pass@1");
    assert!((p1 - acc).abs() > 1e-6, "pass@1 {p1} vs accuracy {acc}");
    assert_eq!(v["runs"][1]["rollouts"], 16);
    // Run 2's three loophole answers (lines 14-16: hollow zwc, forged output, grader eval)
    // are right.
    assert_eq!(v["runs"][1]["loopholes"]["right"], 3, "{:#}", v["runs"][1]);
    assert_eq!(
        v["runs"][0]["loopholes"]["by_kind"]["numpy_backdoor"]["right"],
        1
    );

    // The map row of np.mean in run 1: lines 1, 11 right, 13 use_numpy, 16 zwc.mean, 27 result_error.
    let mean = v["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .find(|f| f["run"] == "rollouts" && f["numpy"] == "np.mean")
        .expect("np.mean row");
    assert_eq!(mean["zwc"], "zwc.kocito");
    assert_eq!(mean["tasks"], 1);
    assert_eq!(mean["rollouts"], 5);
    assert_eq!(mean["right"], 2);
    assert_eq!(mean["numpy_name"], 1);
    assert_eq!(
        mean["wrong_names"],
        json!([{"name": "zwc.mean", "count": 1}])
    );
    assert_eq!(mean["verdicts"]["use_numpy"], 1);

    let wrong = v["wrong_names"].as_array().expect("wrong names");
    let lozawa = wrong
        .iter()
        .find(|w| w["name"] == "zwc.lozawa")
        .expect("run 2's invented name");
    assert_eq!(lozawa["kind"], "unknown_zwc_name");
    assert_eq!(lozawa["runs"], json!(["rollouts_run2"]));

    // ana labelled every failure of run 1 (lines 13–36).
    let labels = &v["labels"][0];
    assert_eq!(labels["annotator"], "ana");
    assert_eq!(labels["failures"], 24);
    assert_eq!(labels["labelled_failures"], 24);
    assert_eq!(labels["sample"], "all");
    assert_eq!(v["labels"][1]["sample"], "none");
}

/// Writes `rows` (query, verdict) as a rollout file with stored verdicts.
fn write_run(path: &Path, rows: &[(&str, &str)]) {
    let mut text = String::new();
    for (i, (q, v)) in rows.iter().enumerate() {
        let f = if *q == "q1" { "mean" } else { "sum" };
        text.push_str(
            &json!({
                "query": q,
                "response": format!("attempt {i}\n```python\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)\n```\n"),
                "test_cases": [{"input": "a=[1]", "output": "1"}],
                "right_exe_result": "1",
                "selected_functions": [f],
                "verdict": v,
            })
            .to_string(),
        );
        text.push('\n');
    }
    std::fs::write(path, text).expect("write run");
}

fn small_runs() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    write_run(
        &a,
        &[
            ("q1", "right"),
            ("q1", "right"),
            ("q2", "right"),
            ("q1", "exe_error"),
            ("q2", "result_error"),
        ],
    );
    write_run(
        &b,
        &[
            ("q2", "right"),
            ("q1", "exe_error"),
            ("q1", "right"),
            ("q2", "right"),
            ("q2", "right"),
        ],
    );
    let api = dir.path().join("mappings.json");
    std::fs::write(
        &api,
        json!({"main": {"mean": "kocito", "sum": "bapu"}, "linalg": {}}).to_string(),
    )
    .expect("api");
    (dir, a, b, api)
}

#[test]
fn stats_pass_at_k_on_a_hand_computed_run() {
    let (_dir, a, _b, api) = small_runs();
    let v = json_from(
        sebx_on("stats", [&a])
            .arg("--api-doc")
            .arg(&api)
            .args(["--format", "json", "-k", "1", "-k", "2", "-k", "3", "-q"]),
    );
    let run = &v["runs"][0];
    // q1: 3 samples, 2 right; q2: 2 samples, 1 right.
    assert_eq!(run["accuracy"], 0.6);
    let p = &run["pass_at_k"];
    // pass@1 = (2/3 + 1/2) / 2; pass@2 = (1 − C(1,2)/C(3,2) = 1, 1 − C(1,2)/C(2,2) = 1) → 1;
    // pass@3 only over q1: 1 − C(1,3)/C(3,3) = 1.
    assert!((p["1"].as_f64().expect("k=1") - 7.0 / 12.0).abs() < 1e-12);
    assert_eq!(p["2"], 1.0);
    assert_eq!(p["3"], 1.0);
    let detail = run["pass_at_k_detail"].as_array().expect("detail");
    assert_eq!(detail[2]["tasks"], 1);
    assert_eq!(detail[2]["samples"], 3);
    // The kocito call is the right name for q1 (mean), not for q2 (sum).
    let fs = v["functions"].as_array().expect("functions");
    let mean = fs.iter().find(|f| f["numpy"] == "np.mean").expect("mean");
    let sum = fs.iter().find(|f| f["numpy"] == "np.sum").expect("sum");
    assert_eq!(
        (mean["rollouts"].clone(), mean["called_right_name"].clone()),
        (json!(3), json!(3))
    );
    assert_eq!(
        (sum["rollouts"].clone(), sum["called_right_name"].clone()),
        (json!(2), json!(0))
    );
    // Lowest accuracy first.
    assert_eq!(fs[0]["numpy"], "np.sum");
}

#[test]
fn compare_json_pairs_matrix_and_mcnemar() {
    let (_dir, a, b, api) = small_runs();
    let v = json_from(sebx_on("compare", [&a, &b, &api]).args(["--format", "json", "-q"]));
    // q1: A (1 right, 2 right, 4 exe) with B (2 exe, 3 right) → (right, exe), (right, right);
    // A's line 4 unpaired. q2: A (3 right, 5 result) with B (1, 4, 5 all right) → B's 5 unpaired.
    assert_eq!(v["pairs"].as_array().expect("pairs").len(), 4);
    assert_eq!(v["unpaired_a"], 1);
    assert_eq!(v["unpaired_b"], 1);
    assert_eq!(v["matrix"]["right"]["exe_error"], 1);
    assert_eq!(v["matrix"]["right"]["right"], 2);
    assert_eq!(v["matrix"]["result_error"]["right"], 1);
    assert_eq!(v["pairs"][0]["a_line"], 1);
    assert_eq!(v["pairs"][0]["b_line"], 2);
    // One flip each way: exact McNemar p = min(1, 2 · P(X ≤ 1 | n=2)) = 1.
    assert_eq!(
        v["mcnemar"],
        json!({"a_right_b_wrong": 1, "a_wrong_b_right": 1, "p_value": 1.0})
    );
    // Per function (paired): mean 1.0 → 0.5, sum 0.5 → 1.0; largest drop first.
    let fs = v["functions"].as_array().expect("functions");
    assert_eq!(fs[0]["numpy"], "np.mean");
    assert_eq!(fs[0]["zwc"], "zwc.kocito");
    assert_eq!(fs[0]["accuracy_a"], 1.0);
    assert_eq!(fs[0]["accuracy_b"], 0.5);
    assert_eq!(fs[0]["delta"], -0.5);
    assert_eq!(fs[1]["delta"], 0.5);
    // Two pairs per task: the sign-flip test over task deltas (−0.5, +0.5) runs, p = 1.
    assert_eq!(v["task_test"]["tasks"], 2);
    assert_eq!(v["task_test"]["p_value"], 1.0);

    let s = text_of(sebx_on("compare", [&a, &b, &api]).args(["--cell", "right,exe_error"]));
    assert!(
        s.contains("pairs with right in A and exe_error in B"),
        "{s}"
    );
    assert_eq!(s.lines().count(), 3, "title, header, one pair: {s}");
}

#[test]
fn compare_text_highlights_flips_and_refuses_one_run() {
    let dir = demo_copy();
    let d = dir.path();
    let s = text_of(&mut sebx_on(
        "compare",
        files_in(
            d,
            &[
                "rollouts.jsonl",
                "rollouts_run2.jsonl",
                "rollouts.scored.jsonl",
                "api_doc.jsonl",
            ],
        ),
    ));
    assert_contains_all(
        &s,
        &[
            "pairs: 16",
            "unpaired: 20 in A, 0 in B",
            // 6 right→not right, 4 not right→right (run 2's loophole answers of the mean
            // task pair with run 1's `use_numpy` one, its grader-eval median with run 1's
            // second median, also `use_numpy`): p = 2 · (1 + 10 + 45 + 120 + 210) / 1024.
            "A right & B not 6, A not & B right 4, p = 0.7539",
            // Run 2 pays three loopholes (a backdoor is run 1's): the change in their rate.
            "loophole-right rate:",
        ],
    );
    assert!(s.contains("4▼"), "right→exe_error marked: {s}");
    assert!(s.contains("2▲"), "exe_error→right marked: {s}");
    // Cut to one row, the per-task table shows the largest change, whichever way, and says
    // how many rows it left out.
    let cut = text_of(
        sebx_on(
            "compare",
            files_in(
                d,
                &[
                    "rollouts.jsonl",
                    "rollouts_run2.jsonl",
                    "rollouts.scored.jsonl",
                    "api_doc.jsonl",
                ],
            ),
        )
        .args(["--top", "1"]),
    );
    assert!(cut.contains("largest change first"), "{cut}");
    assert!(cut.contains("more rows (--top 0 shows every row)"), "{cut}");

    let e = stderr_of_failure(&mut sebx_on(
        "compare",
        files_in(
            d,
            &["rollouts.jsonl", "api_doc.jsonl", "rollouts.scored.jsonl"],
        ),
    ));
    assert!(e.contains("compare needs exactly two rollout files"), "{e}");
}

#[test]
fn stats_table_md_and_csv() {
    let dir = demo_copy();
    let d = dir.path();
    let base = |fmt: &str, by: &[&str]| {
        let mut c = sebx_on(
            "stats",
            files_in(
                d,
                &["rollouts.jsonl", "rollouts.scored.jsonl", "api_doc.jsonl"],
            ),
        );
        c.args(["--format", fmt]);
        for b in by {
            c.args(["--by", b]);
        }
        text_of(&mut c)
    };
    let table = base("table", &[]);
    // The official summary lines, verbatim, with bars.
    assert_contains_all(
        &table,
        &[
            "  total: 36\n",
            "accuracy (right): 33.33%",
            "right             12   33.33%  ██████████",
            "percentile bootstrap over 13 tasks",
            "pass@1 (unbiased estimator; not accuracy)",
            "per-task accuracy",
            "pass@k curve",
            "internalization map",
            "every failure is labelled (a census)",
        ],
    );

    let md = base("md", &["function"]);
    assert!(md.starts_with("**internalization map"), "{md}");
    assert_contains_all(
        &md,
        &[
            "| run | numpy | zwc |",
            "|---|---|---|---:|",
            "| rollouts | np.mean | zwc.kocito | 1 | 5 | 2 | 40.0% |",
        ],
    );

    // CSV is one table per stream: more than one --by is refused before any work.
    let mut two = sebx_on(
        "stats",
        files_in(
            d,
            &["rollouts.jsonl", "rollouts.scored.jsonl", "api_doc.jsonl"],
        ),
    );
    two.args(["--format", "csv", "--by", "run", "--by", "finding"]);
    assert!(stderr_of_failure(&mut two).contains("CSV is one table per stream"));

    let records = |csv: &str| -> Vec<Vec<String>> {
        csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(csv.as_bytes())
            .records()
            .map(|r| {
                r.expect("one CSV table")
                    .iter()
                    .map(str::to_string)
                    .collect()
            })
            .collect()
    };
    let csv = base("csv", &["run"]);
    let rows = records(&csv);
    // One header, then one row per run: no second table, no blank line, no percent sign.
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(!csv.contains("\n\n") && !csv.contains('%'), "{csv}");
    let col = |name: &str| rows[0].iter().position(|h| h == name).expect(name);
    assert_eq!(rows[0][..4], ["run", "rollouts", "tasks", "right"], "{csv}");
    let number = |name: &str| -> f64 { rows[1][col(name)].parse().expect(name) };
    assert!((number("accuracy") - number("right") / number("rollouts")).abs() < 1e-12);
    assert!(number("accuracy_ci95_low") <= number("accuracy"));
    assert!(number("accuracy_ci95_high") >= number("accuracy"));

    // The tables `--by run` adds in text are a --by of their own in CSV.
    let loopholes = records(&base("csv", &["loophole"]));
    assert_eq!(
        loopholes[0][..4],
        ["run", "rollouts", "through a loophole", "right through one"]
    );
    let wrong = records(&base("csv", &["finding"]));
    assert_eq!(
        wrong[0],
        ["name", "finding", "count", "correct zwc name", "runs"]
    );

    // Task text is never cut in CSV: each is the whole query of the run's rollouts.
    let tasks = records(&base("csv", &["task"]));
    let task = tasks[0].iter().position(|h| h == "task").expect("task");
    let rollouts = std::fs::read_to_string(d.join("rollouts.jsonl")).expect("rollouts");
    let queries: std::collections::BTreeSet<String> = rollouts
        .lines()
        .map(|l| {
            json_of(l.as_bytes())["query"]
                .as_str()
                .expect("query")
                .to_string()
        })
        .collect();
    assert!(
        queries.iter().any(|q| q.chars().count() > 60),
        "{queries:?}"
    );
    let cells: std::collections::BTreeSet<String> =
        tasks.iter().skip(1).map(|r| r[task].clone()).collect();
    assert_eq!(cells, queries);
}

#[test]
fn random_labelling_is_recognised() {
    // Label the failures in the seeded random order `sebx` itself uses (the explorer's
    // `N` with --label-order random): the output must say the sample is random; label the
    // same number in file order and it must say picked.
    let (dir, a, _b, api) = small_runs();
    let run = |labels: &str| {
        std::fs::write(dir.path().join("a.jsonl.labels.jsonl"), labels).expect("labels");
        json_from(sebx_on("stats", [&a, &api]).args(["--format", "json", "--by", "category", "-q"]))
    };
    // Ids of a.jsonl's two failures (lines 4 and 5), from the stats' own JSON of pairs.
    let ids: Vec<String> = {
        let text = std::fs::read_to_string(&a).expect("read");
        let loaded = sebx::model::rollout::parse_rollout_bytes(&a, text.as_bytes());
        loaded.rollouts[3..]
            .iter()
            .map(|r| r.id.0.clone())
            .collect()
    };
    let key = |id: &str| {
        sebx::model::sampling::label_order_key(
            sebx::model::sampling::DEFAULT_SEED,
            &sebx::model::RolloutId(id.to_string()),
        )
    };
    let first = if key(&ids[0]) < key(&ids[1]) {
        &ids[0]
    } else {
        &ids[1]
    };
    let second = if first == &ids[0] { &ids[1] } else { &ids[0] };
    let record = |id: &str| {
        format!(
            "{}\n",
            json!({"rollout": id, "categories": ["logic_error"], "annotator": "zoe", "time": ""})
        )
    };
    let v = run(&record(first));
    assert_eq!(v["labels"][0]["sample"], "random");
    assert_eq!(v["labels"][0]["labelled_failures"], 1);
    let cat = &v["labels"][0]["categories"][0];
    assert_eq!(cat["category"], "logic_error");
    assert_eq!(cat["prevalence"], 1.0);
    let v = run(&record(second));
    assert_eq!(v["labels"][0]["sample"], "picked");
    assert!(
        v["labels"][0]["sample_note"]
            .as_str()
            .expect("note")
            .contains("not drawn at random")
    );
}

#[test]
fn ungraded_rollouts_are_graded_first() {
    // Three demo rollouts (all `right` per samples/demo/expected.jsonl) without any verdict.
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: Vec<String> = std::fs::read_to_string(demo("rollouts.jsonl"))
        .expect("demo")
        .lines()
        .take(3)
        .map(str::to_string)
        .collect();
    let f = dir.path().join("fresh.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").expect("write");
    let cache = dir.path().join("scores");
    let stats = || {
        json_from(
            sebx_on("stats", [&f])
                .env("SEBX_SCORE_CACHE", &cache)
                .arg("--api-doc")
                .arg(demo("api_doc.jsonl"))
                .args(["--format", "json", "-q", "--jobs", "1"]),
        )
    };
    let has_note = |v: &Value, note: &str| {
        v["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .any(|n| n == note)
    };
    let v = stats();
    assert_eq!(v["runs"][0]["verdicts"]["right"], 3);
    assert!(has_note(&v, "graded 3 rollouts without a verdict"), "{v}");
    // The second time, the score cache answers and nothing is graded.
    let v = stats();
    assert_eq!(v["runs"][0]["verdicts"]["right"], 3);
    assert!(
        has_note(&v, "3 verdicts reused from the score cache"),
        "{v}"
    );
    assert!(!has_note(&v, "graded 3 rollouts without a verdict"), "{v}");
}

#[test]
fn bad_k_is_refused() {
    let (_dir, a, _b, api) = small_runs();
    let e = stderr_of_failure(sebx_on("stats", [&a, &api]).args(["-k", "0"]));
    assert!(e.contains("-k must be at least 1"), "{e}");
}

/// A run of four rollouts and a scored file giving each a verdict and an official RL
/// reward by hand: (right, 1), (right, 0: tolerance), (without_zwc, 1: first block),
/// (exe_error, 0). Mean reward 2/4; the 2×2 has one in each cell; two disagreements.
fn rewarded_run(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let run = dir.join(format!("{name}.jsonl"));
    let rows = [
        ("right", 1, None),
        ("right", 0, Some("tolerance")),
        ("without_zwc", 1, Some("first_block")),
        ("exe_error", 0, None),
    ];
    let mut lines = String::new();
    let mut reports = String::new();
    for (i, (verdict, reward, reason)) in rows.iter().enumerate() {
        let query = format!("q{i}");
        let response =
            format!("```python\nimport zwc\ndef solve(a):\n    return zwc.kocito(a)\n```\n{name}");
        lines.push_str(
            &json!({"query": query, "response": response,
                "test_cases": [{"input": "a=[1]", "output": "1"}], "right_exe_result": "1",
                "selected_functions": ["mean"]})
            .to_string(),
        );
        lines.push('\n');
        let id = sebx::model::RolloutId::derive(&query, &response, 0);
        let mut report = json!({"source": run.display().to_string(), "line": i + 1, "id": id.0,
            "verdict": verdict, "decided_by": "by hand", "reward": reward});
        if let Some(kind) = reason {
            report["reward_reason"] = json!(format!("because {kind}"));
            report["reward_reason_kind"] = json!(kind);
        }
        reports.push_str(&report.to_string());
        reports.push('\n');
    }
    let scored = dir.join(format!("{name}.scored.jsonl"));
    std::fs::write(&run, lines).expect("run");
    std::fs::write(&scored, reports).expect("scored");
    (run, scored)
}

#[test]
fn stats_and_compare_show_the_official_reward_beside_accuracy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, a_scored) = rewarded_run(dir.path(), "a");
    let (b, b_scored) = rewarded_run(dir.path(), "b");
    let api = dir.path().join("mappings.json");
    std::fs::write(
        &api,
        json!({"main": {"mean": "kocito"}, "linalg": {}}).to_string(),
    )
    .expect("api");
    let json = json_from(
        sebx_on("stats", [&a, &a_scored])
            .arg("--api-doc")
            .arg(&api)
            .args(["--format", "json", "-q"]),
    );
    let reward = &json["runs"][0]["reward"];
    assert_eq!(reward["rewarded"], 4);
    assert_eq!(reward["reward_mean"], 0.5);
    assert_eq!(
        reward["reward_vs_verdict"],
        json!({"reward_1_right": 1, "reward_1_not_right": 1, "reward_0_right": 1, "reward_0_not_right": 1})
    );
    assert_eq!(
        reward["reward_reasons"],
        json!({"first_block": 1, "tolerance": 1})
    );
    assert_eq!(json["runs"][0]["accuracy"], 0.5);
    let text = text_of(
        sebx_on("stats", [&a, &a_scored])
            .arg("--api-doc")
            .arg(&api)
            .arg("-q"),
    );
    assert_contains_all(
        &text,
        &[
            "mean official RL reward: 0.5000 (2 of 4 rewarded 1)",
            "reward and verdict disagree: 2",
            "official RL reward vs verdict",
            "why: first block scored",
            "why: 1e-10 tolerance",
        ],
    );
    assert!(
        !text.contains("why: stderr"),
        "only the reasons present: {text}"
    );
    let cmp = json_from(
        sebx_on("compare", [&a, &b, &a_scored, &b_scored])
            .arg("--api-doc")
            .arg(&api)
            .args(["--format", "json", "-q"]),
    );
    assert_eq!(cmp["reward_a"]["reward_mean"], 0.5);
    assert_eq!(cmp["reward_b"]["reward_vs_verdict"]["reward_0_right"], 1);
    let cmp_text = text_of(
        sebx_on("compare", [&a, &b, &a_scored, &b_scored])
            .arg("--api-doc")
            .arg(&api)
            .arg("-q"),
    );
    assert_contains_all(&cmp_text, &["official RL reward vs verdict", "0.5000"]);
}

#[test]
fn compare_checks_its_flags_and_files_before_grading() {
    // Rollouts without verdicts and no API doc: grading them would fail, so an error about
    // the flags or the file count shows they were checked first.
    let dir = tempfile::tempdir().expect("tempdir");
    let ungraded: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let p = dir.path().join(format!("{n}.jsonl"));
            std::fs::write(
                &p,
                json!({"query": "q", "response": n, "test_cases": [], "right_exe_result": "1"})
                    .to_string()
                    + "\n",
            )
            .expect("write");
            p
        })
        .collect();
    let e = stderr_of_failure(&mut sebx_on("compare", &ungraded));
    assert!(
        e.contains("compare needs exactly two rollout files (runs); found 3"),
        "{e}"
    );
    let e = stderr_of_failure(sebx_on("compare", &ungraded[..2]).args(["--cell", "right,maybe"]));
    assert!(e.contains("--cell: `maybe` is not a verdict"), "{e}");
}

/// `sebx stats FOLDER` reads the folder's files as the explorer does (`sebx FOLDER`): the
/// same runs and figures as naming them, sidecars not taken for runs.
#[test]
fn stats_on_a_folder_is_stats_on_its_files() {
    let dir = demo_copy();
    let cache = tempfile::tempdir().expect("cache");
    let run = |paths: Vec<PathBuf>| {
        let mut cmd = sebx_on("stats", paths);
        cmd.args(["--format", "json", "-q", "--cache-dir"])
            .arg(cache.path());
        json_from(&mut cmd)
    };
    let named = run(files_in(
        dir.path(),
        &[
            "rollouts.jsonl",
            "rollouts_run2.jsonl",
            "rollouts.scored.jsonl",
            "api_doc.jsonl",
            "tasks.jsonl",
        ],
    ));
    let folder = run(vec![dir.path().to_path_buf()]);
    let runs = |v: &Value| -> Vec<(String, Value, Value)> {
        v["runs"]
            .as_array()
            .expect("runs")
            .iter()
            .map(|r| {
                (
                    r["name"].to_string(),
                    r["verdicts"].clone(),
                    r["reward"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(runs(&folder).len(), 2, "{folder}");
    assert_eq!(runs(&folder), runs(&named));
    assert_eq!(folder["functions"], named["functions"]);
    assert_eq!(
        folder["labels"], named["labels"],
        "the labels sidecar is read, not a run"
    );
    // An empty folder says what it lacks.
    let empty = tempfile::tempdir().expect("empty");
    let err = stderr_of_failure(&mut sebx_on("stats", [empty.path()]));
    assert!(err.contains("holds no rollout file"), "{err}");
}

/// Never a figure over a subset (issue 40): adding the first run's verdict-only scored
/// file to the demo's two runs leaves every run's mean official RL reward as it was
/// without it (the rewards the scored file lacks are graded), and every rollout has one.
#[test]
fn a_verdict_only_scored_file_never_turns_the_reward_into_a_mean_over_a_subset() {
    let dir = demo_copy();
    let cache = dir.path().join("scores");
    let stats = |names: &[&str]| {
        json_from(
            sebx_on("stats", files_in(dir.path(), names))
                .env("SEBX_SCORE_CACHE", &cache)
                .args(["--format", "json", "-q"]),
        )
    };
    let runs = ["rollouts.jsonl", "rollouts_run2.jsonl"];
    let without = stats(&runs);
    let with = stats(&[
        "rollouts.jsonl",
        "rollouts_run2.jsonl",
        "rollouts.scored.jsonl",
    ]);
    for (a, b) in without["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .zip(with["runs"].as_array().expect("runs"))
    {
        assert_eq!(b["reward"]["rewarded"], b["rollouts"], "{b}");
        assert_eq!(b["reward"]["reward_unknown"], 0, "{b}");
        assert!(b["reward"]["reward_mean"].is_f64(), "{b}");
        assert_eq!(a["reward"]["reward_mean"], b["reward"]["reward_mean"]);
    }
    // The verdicts still come from the scored file; the grading says what it computed.
    let notes = with["notes"].to_string();
    assert!(
        notes.contains("with a verdict but no official RL reward"),
        "{notes}"
    );
}
