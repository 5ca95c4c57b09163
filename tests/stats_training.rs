//! `sebx stats` on a training run: a small verl dump written here (two steps, GRPO groups,
//! think blocks, role words, a prompt with and one without the zwc docs section, a prompt
//! joined by containment, a task missing from the dataset, a `gts` that differs), graded
//! through the real engine (Python runtime required: `sebx runtime install`). Every figure
//! is computed by hand in the comments.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

use crate::isolated;

const MEAN_Q: &str = "Given a list `values`, return their arithmetic mean as a float.";
const SUM_Q: &str = "Given a list `values`, return their total as an int.";

fn api_doc() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl")
}

fn dataset_line(query: &str, func: &str, cases: &[(&str, &str)]) -> String {
    let expected: Vec<&str> = cases.iter().map(|c| c.1).collect();
    json!({
        "query": query,
        "function_name": "def solve(values):",
        "selected_functions": [func],
        "test_cases": cases.iter().map(|(i, o)| json!({"input": i, "output": o})).collect::<Vec<_>>(),
        "example": {"input": cases[0].0, "output": cases[0].1},
        "right_exe_result": expected.join("#"),
    })
    .to_string()
}

/// An SE-Bench RL prompt (Qwen3 chat template decoded: role words stay as text).
fn prompt(problem: &str, docs: bool) -> String {
    let docs = if docs {
        "### zwc Codebase Functions\n- zwc.kocito(a, axis=None): mean\n- zwc.baluvo(a): sum\n\n"
    } else {
        ""
    };
    format!(
        "user\nSolve with zwc.\n\n{docs}### Problem\n{problem}\n\n### Test Cases\nvalues=[1, 2, 3]\n\n### Function to Complete\ndef solve(values):\nassistant\n"
    )
}

fn code(body: &str) -> String {
    format!("```python\nimport zwc\n\ndef solve(values):\n    {body}\n```")
}

const MEAN_RIGHT: &str = "return float(zwc.kocito(values))";
const MEAN_NUMPY: &str = "return float(zwc.mean(values))";
const SUM_RIGHT: &str = "return int(zwc.baluvo(values))";
const SUM_WRONG: &str = "return int(zwc.baluvo(values)) + 1";

fn sample(input: &str, output: String, gts: &str, score: f64, step: u32) -> String {
    json!({"input": input, "output": output, "gts": gts, "score": score, "step": step,
           "acc": score > 0.5})
    .to_string()
}

/// Writes the dataset and the dump; returns (dataset, run folder).
fn write_run(dir: &Path) -> (PathBuf, PathBuf) {
    let dataset = dir.join("train.jsonl");
    std::fs::write(
        &dataset,
        [
            dataset_line(
                MEAN_Q,
                "mean",
                &[("values=[1, 2, 3]", "2.0"), ("values=[4]", "4.0")],
            ),
            dataset_line(SUM_Q, "sum", &[("values=[1, 2]", "3"), ("values=[5]", "5")]),
        ]
        .join("\n"),
    )
    .expect("dataset");
    let run = dir.join("exp1").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    let (mean_p, sum_p) = (prompt(MEAN_Q, true), prompt(SUM_Q, true));
    // Step 1: the mean group both write `zwc.mean` (exe_error, reward 0, scores 0 and 0:
    // zero variance); the sum group one right (reward 1) and one off by one (result_error).
    let step1 = [
        sample(&mean_p, code(MEAN_NUMPY), "2.0#4.0", 0.0, 1),
        sample(
            &mean_p,
            format!("<think>\nmean?\n</think>\n{}", code(MEAN_NUMPY)),
            "2.0#4.0",
            0.0,
            1,
        ),
        sample(&sum_p, code(SUM_RIGHT), "3#5", 1.0, 1),
        sample(&sum_p, code(SUM_WRONG), "3#5", 0.0, 1),
    ];
    std::fs::write(run.join("1.jsonl"), step1.join("\n") + "\n").expect("step 1");
    // Step 2, test-style prompts (no docs section):
    let mean_t = prompt(MEAN_Q, false);
    let first_right_last_wrong = format!(
        "{}\n\nOr shorter:\n\n{}",
        code(MEAN_RIGHT),
        code(MEAN_NUMPY)
    );
    let stderr =
        "import sys\n    print('debug', file=sys.stderr)\n    return float(zwc.kocito(values))";
    let step2 = [
        // right, reward 1, stored 1;
        sample(
            &mean_t,
            format!("<think>kocito</think>\n{}", code(MEAN_RIGHT)),
            "2.0#4.0",
            1.0,
            2,
        ),
        // first block right, last `zwc.mean`: exe_error, reward 1, stored 1;
        sample(&mean_t, first_right_last_wrong, "2.0#4.0", 1.0, 2),
        // right, but stderr: reward 0, stored 1 (not the official reward);
        sample(&mean_t, code(stderr), "2.0#4.0", 1.0, 2),
        // no `### Problem` heading: joined by containment, its own group; right, reward 1;
        sample(
            &format!("user\n{MEAN_Q}\nassistant\n"),
            code(MEAN_RIGHT),
            "2.0#4.0",
            1.0,
            2,
        ),
        // a task the dataset lacks: unjoined, not graded, `zwc.mode` (unknown name);
        sample(
            &prompt("Return the mode of `values`.", false),
            code("return zwc.mode(values)"),
            "1",
            0.0,
            2,
        ),
        // the sum task with a gts that is not its expected result: right by the verdict,
        // reward 0 against the gts (5 is not 6), stored 0.
        sample(&prompt(SUM_Q, false), code(SUM_RIGHT), "3#6", 0.0, 2),
    ];
    std::fs::write(run.join("2.jsonl"), step2.join("\n") + "\n").expect("step 2");
    (dataset, run)
}

fn sebx(dir: &Path) -> Command {
    // Folders of its own under `dir` (config, data, home, traces), the score cache in
    // `dir/cache`: shared by the commands of one test, never the user's.
    let mut c = Command::cargo_bin("sebx").expect("binary");
    isolated::isolate_in(&mut c, dir);
    c.env("SEBX_SCORE_CACHE", dir.join("cache"))
        .current_dir(dir);
    c
}

fn run_stats(dir: &Path, target: &Path, dataset: &Path, args: &[&str]) -> String {
    let out = sebx(dir)
        .arg("stats")
        .arg(target)
        .arg(dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .arg("--quiet")
        .args(args)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn close(v: &Value, x: f64) -> bool {
    v.as_f64().is_some_and(|y| (y - x).abs() < 1e-9)
}

#[test]
fn every_step_figure_computed_by_hand() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    // The folder holding the run folder: each child is a run, named `exp1/rollout`.
    let text = run_stats(
        dir.path(),
        run.parent().expect("parent"),
        &dataset,
        &["--format", "json"],
    );
    let report: Value = serde_json::from_str(&text).expect("json");
    let steps = report["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "{report:#}");
    let (s1, s2) = (&steps[0], &steps[1]);
    assert_eq!(s1["run"], "exp1/rollout");
    assert_eq!(
        (s1["step"].as_u64(), s2["step"].as_u64()),
        (Some(1), Some(2))
    );

    // Step 1: 4 samples, 2 tasks; stored (0+0+1+0)/4; official the same; right 1 of 4.
    assert_eq!(s1["samples"], 4);
    assert_eq!(s1["graded"], 4);
    assert_eq!(s1["tasks"], 2);
    assert!(close(&s1["reward_mean"], 0.25), "{s1}");
    assert!(close(&s1["official_reward_mean"], 0.25), "{s1}");
    assert!(close(&s1["accuracy"], 0.25), "{s1}");
    assert_eq!(s1["verdicts"]["exe_error"], 2);
    assert_eq!(s1["verdicts"]["result_error"], 1);
    assert_eq!(s1["verdicts"]["right"], 1);
    assert_eq!(
        (
            s1["reward_1_not_right"].as_u64(),
            s1["reward_0_right"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert_eq!(s1["stored_differs_from_official"], 0);
    // Two groups; the mean group scored 0 and 0: zero variance.
    assert_eq!(
        (s1["groups"].as_u64(), s1["zero_variance_groups"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(
        close(&s1["finding_rates"]["numpy_name_on_zwc"], 0.5),
        "{s1}"
    );

    // Step 2: 6 samples (5 graded, 1 unjoined); stored 4/6; official (1+1+0+1+0)/5;
    // right: the first, third, fourth and sixth, 4 of 5.
    assert_eq!(s2["samples"], 6);
    assert_eq!(s2["graded"], 5);
    assert_eq!(s2["unjoined"], 1);
    assert_eq!(s2["tasks"], 2);
    assert!(close(&s2["reward_mean"], 4.0 / 6.0), "{s2}");
    assert!(close(&s2["official_reward_mean"], 0.6), "{s2}");
    assert!(close(&s2["accuracy"], 0.8), "{s2}");
    // Reward 1 not right: the first-block answer; reward 0 right: stderr, and the gts one.
    assert_eq!(s2["reward_1_not_right"], 1);
    assert_eq!(s2["reward_0_right"], 2);
    // Stored 1, official 0: the stderr sample (the gts one was stored 0, as official).
    assert_eq!(s2["stored_differs_from_official"], 1);
    // Groups: the three test-style mean prompts (1,1,1: zero variance), the containment
    // prompt, the unjoined prompt and the sum prompt, each alone.
    assert_eq!(
        (s2["groups"].as_u64(), s2["zero_variance_groups"].as_u64()),
        (Some(4), Some(1))
    );
    assert!(
        close(&s2["finding_rates"]["numpy_name_on_zwc"], 1.0 / 6.0),
        "{s2}"
    );
    assert!(
        close(&s2["finding_rates"]["unknown_zwc_name"], 1.0 / 6.0),
        "{s2}"
    );

    // The heat map: (rollouts, right, reward) per function and step.
    let cell = |numpy: &str, step: u64| {
        report["function_steps"]
            .as_array()
            .expect("cells")
            .iter()
            .find(|c| c["numpy"] == numpy && c["step"] == step)
            .map(|c| {
                assert_eq!(c["run"], "exp1/rollout");
                (
                    c["rollouts"].as_u64(),
                    c["right"].as_u64(),
                    c["reward"].as_u64(),
                )
            })
    };
    assert_eq!(cell("np.mean", 1), Some((Some(2), Some(0), Some(0))));
    assert_eq!(cell("np.sum", 1), Some((Some(2), Some(1), Some(1))));
    assert_eq!(cell("np.mean", 2), Some((Some(4), Some(3), Some(3))));
    assert_eq!(cell("np.sum", 2), Some((Some(1), Some(1), Some(0))));
    let zwc_of = |numpy: &str| {
        report["function_steps"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["numpy"] == numpy))
            .map(|c| c["zwc"].clone())
    };
    assert_eq!(zwc_of("np.mean"), Some(json!("zwc.kocito")));

    // Courses: mean first solved at 2, failed at 2 too (the first-block answer): learned;
    // sum solved at 1, failed at 1 (off by one), right at 2: learned.
    let course = |name: &str| {
        report["task_courses"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["name"] == name))
            .map(|c| {
                (
                    c["first_solved"].clone(),
                    c["last_failed"].clone(),
                    c["status"].clone(),
                )
            })
    };
    assert_eq!(course(MEAN_Q), Some((json!(2), json!(2), json!("learned"))));
    assert_eq!(course(SUM_Q), Some((json!(1), json!(1), json!("learned"))));

    // The unjoined sample, with its file and line.
    let unjoined = report["unjoined"].as_array().expect("unjoined");
    assert_eq!(unjoined.len(), 1);
    assert!(
        unjoined[0]["file"]
            .as_str()
            .is_some_and(|f| f.ends_with("2.jsonl"))
    );
    assert_eq!(unjoined[0]["line"], 5);
    assert_eq!(unjoined[0]["problem"], "Return the mode of `values`.");
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("1 sample has a `gts`")),
        "{notes:?}"
    );
}

#[test]
fn every_format_has_the_steps_and_a_step_alone_compares() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let csv = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "step", "--format", "csv"],
    );
    let mut lines = csv.lines();
    let header = lines.next().expect("header");
    for key in [
        "run",
        "step",
        "samples",
        "reward_mean",
        "official_reward_mean",
        "accuracy",
        "stored_differs_from_official",
        "zero_variance_groups",
        "numpy_name_on_zwc",
        "no_code",
    ] {
        assert!(
            header.split(',').any(|h| h == key),
            "{key} missing from {header}"
        );
    }
    assert!(
        lines.next().is_some_and(|l| l.starts_with("rollout,1,4,")),
        "{csv}"
    );
    // One table (every record as wide as the header), numbers as numbers, the
    // zero-advantage groups as two counts; their table is `--by group`.
    let records = |csv: &str| -> Vec<csv::StringRecord> {
        csv::Reader::from_reader(csv.as_bytes())
            .records()
            .map(|r| r.unwrap_or_else(|e| panic!("not one table ({e}): {csv}")))
            .collect()
    };
    let steps = records(&csv);
    let cols: Vec<&str> = header.split(',').collect();
    let at = |name: &str| cols.iter().position(|h| *h == name).expect(name);
    assert!(!csv.contains('%') && !csv.contains("\n\n"), "{csv}");
    for r in &steps {
        let accuracy: f64 = r[at("accuracy")].parse().expect("a number");
        assert!((0.0..=1.0).contains(&accuracy), "{csv}");
        let groups: usize = r[at("groups")].parse().expect("a count");
        let zero: usize = r[at("zero_variance_groups")].parse().expect("a count");
        assert!(zero <= groups, "{csv}");
    }
    let groups_csv = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "group", "--format", "csv"],
    );
    assert!(
        groups_csv.starts_with("run,step,group,samples,score,right,graded,task\n"),
        "{groups_csv}"
    );
    let zero_total: usize = steps
        .iter()
        .map(|r| {
            r[at("zero_variance_groups")]
                .parse::<usize>()
                .expect("count")
        })
        .sum();
    assert_eq!(records(&groups_csv).len(), zero_total, "{groups_csv}");
    let table = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "step", "--by", "heatmap"],
    );
    assert!(table.contains("Training, step by step"), "{table}");
    assert!(
        table.contains("Accuracy per zwc function and step, run rollout"),
        "{table}"
    );
    let md = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "course", "--format", "md"],
    );
    assert!(
        // At step 2, three of the four mean answers are right.
        md.contains("| rollout | np.mean (zwc.kocito) | 1-2 | 75.0% | 2 | 2 | learned |"),
        "{md}"
    );
    let cells = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "heatmap", "--format", "csv"],
    );
    assert!(
        cells
            .lines()
            .any(|l| l == "np.mean,zwc.kocito,rollout,2,4,3,3,0.75"),
        "{cells}"
    );

    // Two steps of one run pair by task, with the existing paired tests.
    let out = sebx(dir.path())
        .arg("compare")
        .arg(format!("{}@1", run.display()))
        .arg(format!("{}@2", run.display()))
        .arg(&dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--quiet", "--format", "json"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(c["a"], "rollout@1", "{c:#}");
    assert_eq!(c["b"], "rollout@2");
    // Pairs: the mean task's 2 at step 1 with the first 2 of its 4 at step 2; the sum
    // task's 2 with its 1 (the unjoined sample has no verdict, so no pair).
    assert_eq!(c["pairs"].as_array().map(Vec::len), Some(3), "{c:#}");
    assert_eq!(
        (c["unpaired_a"].as_u64(), c["unpaired_b"].as_u64()),
        (Some(1), Some(2))
    );
}

#[test]
fn facts_are_reused_until_a_file_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let parse = |text: String| -> Value { serde_json::from_str(&text).expect("json") };
    let args = ["--by", "step", "--format", "json"];
    let first = parse(run_stats(dir.path(), &run, &dataset, &args));
    let second = parse(run_stats(dir.path(), &run, &dataset, &args));
    let reused = |v: &Value| {
        v["notes"].as_array().is_some_and(|n| {
            n.iter()
                .any(|n| n.as_str().is_some_and(|n| n.contains("figures reused")))
        })
    };
    assert!(!reused(&first) && reused(&second), "{second:#}");
    assert_eq!(first["steps"], second["steps"]);
    assert_eq!(first["function_steps"], second["function_steps"]);
    assert_eq!(first["unjoined"], second["unjoined"]);
    // Training goes on: step 2 gains a sample; the figures are computed anew.
    let step2 = run.join("2.jsonl");
    let mut text = std::fs::read_to_string(&step2).expect("read");
    text.push_str(&sample(
        &prompt(SUM_Q, false),
        code(SUM_RIGHT),
        "3#5",
        1.0,
        2,
    ));
    text.push('\n');
    std::fs::write(&step2, text).expect("write");
    let third = parse(run_stats(dir.path(), &run, &dataset, &args));
    assert!(!reused(&third), "{third:#}");
    assert_eq!(third["steps"][1]["samples"], 7);
}

/// An evaluation rollout of a dataset task answering with `response` (as `sebx grade`
/// reads it): the same rollout, for the score cache, as a training sample with that task
/// and response.
fn eval_line(query: &str, response: String, cases: &[(&str, &str)]) -> String {
    let expected: Vec<&str> = cases.iter().map(|c| c.1).collect();
    json!({
        "query": query,
        "response": response,
        "test_cases": cases.iter().map(|(i, o)| json!({"input": i, "output": o})).collect::<Vec<_>>(),
        "right_exe_result": expected.join("#"),
    })
    .to_string()
}

#[test]
fn step_figures_do_not_depend_on_what_a_verdict_only_grade_left_in_the_cache() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let step_json = |d: &Path| {
        let text = run_stats(d, &run, &dataset, &["--by", "step", "--format", "json"]);
        serde_json::from_str::<Value>(&text).expect("json")
    };
    // A fresh cache: every figure.
    let fresh = step_json(dir.path());
    assert!(
        fresh["steps"].as_array().is_some_and(|s| !s.is_empty()),
        "{fresh}"
    );

    // Another cache, where evaluation rollouts sharing the samples' code were graded
    // verdict-only first: it knows their verdicts, not their rewards.
    let other = verdict_only_cache(dir.path());
    let after = step_json(&other);
    assert_eq!(
        after["steps"], fresh["steps"],
        "the step figures after a verdict-only grade differ from a fresh run's"
    );
    assert_eq!(after["function_steps"], fresh["function_steps"]);
    assert_eq!(after["runs"][0]["reward"], fresh["runs"][0]["reward"]);
}

/// A folder `other` under `dir` whose score cache (`other/cache`) holds verdict-only records
/// of evaluation rollouts that share the training samples' code: their verdicts are known
/// there, their official rewards are not.
fn verdict_only_cache(dir: &Path) -> PathBuf {
    let other = dir.join("other");
    std::fs::create_dir_all(&other).expect("mkdir");
    let mean = [("values=[1, 2, 3]", "2.0"), ("values=[4]", "4.0")];
    let sum = [("values=[1, 2]", "3"), ("values=[5]", "5")];
    let eval = other.join("eval.jsonl");
    std::fs::write(
        &eval,
        [
            eval_line(MEAN_Q, code(MEAN_NUMPY), &mean),
            eval_line(MEAN_Q, code(MEAN_RIGHT), &mean),
            eval_line(SUM_Q, code(SUM_RIGHT), &sum),
            eval_line(SUM_Q, code(SUM_WRONG), &sum),
        ]
        .join("\n")
            + "\n",
    )
    .expect("eval");
    let out = sebx(&other)
        .args(["grade", "--scorer", "verdict", "-q"])
        .arg(&eval)
        .arg("--api-doc")
        .arg(api_doc())
        .arg("-o")
        .arg(other.join("eval.scored.jsonl"))
        .output()
        .expect("grade");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    other
}

/// The explorer, opened on the training run the way `sebx RUN DATASET` opens it, with a score
/// cache that knows verdicts but not rewards: the rows it remembers still get their official
/// reward (graded for it), and the Training screen's step figures are `stats --by step`'s on
/// a fresh cache.
#[test]
fn the_training_screen_has_every_reward_after_a_verdict_only_grade() {
    use sebx::session::caches::CacheFlags;
    use sebx::tui::Action;
    use sebx::tui::explore::{ExploreArgs, open_default};
    use sebx::tui::inline::{drain_inline, load_inline};

    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let fresh: Value = serde_json::from_str(&run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "step", "--format", "json"],
    ))
    .expect("json");
    let other = verdict_only_cache(dir.path());

    let mut args = ExploreArgs {
        paths: vec![run.clone(), dataset.clone()],
        cache: CacheFlags {
            no_cache: false,
            cache_dir: Some(other.join("cache")),
        },
        ..isolated::explore_args()
    };
    args.context.api_doc = Some(api_doc());
    let (mut session, backend) = open_default(&args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, Some(backend.as_ref()));
    let app = &mut session.app;
    let remembered = (0..app.corpus.entries.len())
        .filter(|&i| app.corpus.scores[i].report_elsewhere())
        .count();
    let rewarded = (0..app.corpus.entries.len())
        .filter(|&i| {
            app.corpus.scores[i]
                .facts()
                .is_some_and(|f| f.reward.is_some())
        })
        .count();
    let joined = app
        .corpus
        .entries
        .iter()
        .filter(|e| {
            e.rollout
                .sample
                .as_deref()
                .is_some_and(|m| m.joined != sebx::model::verl::JoinedBy::Unjoined)
        })
        .count();
    assert!(joined > 0);
    assert_eq!(
        rewarded, joined,
        "every joined sample has its official reward ({remembered} rows were left with facts only)"
    );

    app.update(&Action::TrainingScreen);
    drain_inline(app, None);
    let result = app.training.result.as_ref().expect("training figures");
    assert_eq!(
        serde_json::to_value(&result.report.figures.steps).expect("json"),
        fresh["steps"],
        "the Training screen's step figures differ from a fresh `stats --by step`"
    );
}

/// The explorer's Training screen, opened as `sebx FILES` opens the run
/// (`tui::explore::open_default`, grading what no source knows), has the step figures
/// `sebx stats --by step --format json` prints on the same files: one computation.
#[test]
fn the_training_screen_has_the_step_figures_sebx_stats_prints() {
    use sebx::session::CacheFlags;
    use sebx::tui::Action;
    use sebx::tui::explore::{ExploreArgs, open_default};
    use sebx::tui::inline::{drain_inline, load_inline};

    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let folder = run.parent().expect("parent").to_path_buf();
    let args = ExploreArgs {
        paths: vec![folder.clone(), dataset.clone(), api_doc()],
        cache: CacheFlags {
            no_cache: false,
            cache_dir: Some(dir.path().join("cache")),
        },
        ..isolated::explore_args()
    };
    let (mut session, backend) = open_default(&args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, Some(backend.as_ref()));
    let app = &mut session.app;
    app.update(&Action::TrainingScreen);
    drain_inline(app, None);
    let r = app.training.result.clone().expect("step figures computed");
    let screen = serde_json::to_value(&r.report).expect("report serializes");

    let text = run_stats(
        dir.path(),
        &folder,
        &dataset,
        &["--format", "json", "--by", "step"],
    );
    let cli: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(cli["steps"].as_array().map(Vec::len), Some(2), "{cli:#}");
    for field in [
        "steps",
        "function_steps",
        "task_courses",
        "function_courses",
        "unjoined",
        "totals",
    ] {
        assert_eq!(screen[field], cli[field], "the Training screen's {field}");
    }
    // The totals the screen draws are those figures, in the words `RunTotals` has.
    let totals = r.report.figures.totals.first().expect("the run's totals");
    assert_eq!(
        cli["totals"][0]["groups"].as_u64(),
        Some(totals.groups as u64),
        "{cli:#}"
    );
    app.update(&Action::Resize {
        width: 200,
        height: 50,
    });
    let drawn = tui_common_screen(app, 200, 50);
    for line in totals.lines() {
        assert!(drawn.contains(&line), "{line}\n{drawn}");
    }
}

/// The app drawn at `width`×`height`, as text.
fn tui_common_screen(app: &sebx::tui::App, width: u16, height: u16) -> String {
    crate::tui_common::screen(&crate::tui_common::draw(app, width, height))
}

/// Tables are never cut silently: `--top 1` keeps one course row and says how many more
/// there are; a task's multi-line query stands as its first line even with `--top 0`; the
/// CSV holds every course, tasks and functions in one table told apart by a `kind` column.
#[test]
fn course_tables_say_what_they_leave_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (dataset, run) = write_run(dir.path());
    let text = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "course", "--top", "1"],
    );
    // Two tasks were joined (the mean and the sum tasks), and two functions.
    assert!(
        text.contains("… 1 more rows (--top 0 shows every row)"),
        "{text}"
    );
    let all = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "course", "--top", "0"],
    );
    assert!(!all.contains("more rows"), "{all}");
    assert!(
        all.lines().all(|l| !l.trim_start().starts_with("### ")),
        "a query's other lines leak into the table: {all}"
    );
    let csv = run_stats(
        dir.path(),
        &run,
        &dataset,
        &["--by", "course", "--format", "csv", "--top", "1"],
    );
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "run,kind,name,numpy,first_step,last_step,last_accuracy,first_solved,last_failed,status"
        ),
        "{csv}"
    );
    let kinds: Vec<&str> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').nth(1).expect("kind"))
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "task").count(),
        2,
        "every task row despite --top 1: {csv}"
    );
    assert_eq!(
        kinds.iter().filter(|k| **k == "function").count(),
        2,
        "{csv}"
    );
}

/// Issue 39: the per-step loophole figures count what the samples' traced runs show, not
/// only what the code looks like. Step 2 holds two samples both scorers pay whose zwc call
/// never runs (a lambda never called, a dead branch): no finding of the analysis names
/// them; grading's behaviour questions do. By hand: step 1, 0 of 2 through a loophole;
/// step 2, 2 of 3 (hollow_zwc); without the questions (`--no-behaviour`, fresh cache), 0.
#[test]
fn step_loophole_figures_count_what_the_runs_show() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = dir.path().join("train.jsonl");
    std::fs::write(
        &dataset,
        dataset_line(
            MEAN_Q,
            "mean",
            &[("values=[1, 2, 3]", "2.0"), ("values=[4]", "4.0")],
        ),
    )
    .expect("dataset");
    let run = dir.path().join("exp").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    let p = prompt(MEAN_Q, true);
    let lambda = "f = lambda: zwc.kocito(values)\n    return sum(values) / len(values)";
    let dead = "if len(values) < 0:\n        return float(zwc.kocito(values))\n    return sum(values) / len(values)";
    let step1 = [
        sample(&p, code(MEAN_RIGHT), "2.0#4.0", 1.0, 1),
        sample(
            &p,
            code(&format!("{MEAN_RIGHT}  # again")),
            "2.0#4.0",
            1.0,
            1,
        ),
    ];
    let step2 = [
        sample(&p, code(MEAN_RIGHT), "2.0#4.0", 1.0, 2),
        sample(&p, code(lambda), "2.0#4.0", 1.0, 2),
        sample(&p, code(dead), "2.0#4.0", 1.0, 2),
    ];
    std::fs::write(run.join("1.jsonl"), step1.join("\n") + "\n").expect("step 1");
    std::fs::write(run.join("2.jsonl"), step2.join("\n") + "\n").expect("step 2");
    let shares = |args: &[&str]| -> Vec<(f64, f64)> {
        let mut all = vec!["--by", "step", "--format", "json"];
        all.extend_from_slice(args);
        let v: Value =
            serde_json::from_str(&run_stats(dir.path(), &run, &dataset, &all)).expect("json");
        v["training"]["figures"]["steps"]
            .as_array()
            .or_else(|| v["steps"].as_array())
            .unwrap_or_else(|| panic!("steps in {v:#}"))
            .iter()
            .map(|s| {
                let l = &s["loophole_shares"];
                (
                    l["any"].as_f64().unwrap_or(0.0),
                    l["hollow_zwc"].as_f64().unwrap_or(0.0),
                )
            })
            .collect()
    };
    // Without first (what it grades is remembered without the answers); then with: the
    // paid samples remembered without them are graded again to ask them.
    let without = shares(&["--no-behaviour"]);
    assert!(close(&json!(without[1].0), 0.0), "{without:?}");
    let with = shares(&[]);
    assert_eq!(with.len(), 2, "{with:?}");
    assert!(close(&json!(with[0].0), 0.0), "{with:?}");
    assert!(close(&json!(with[1].0), 2.0 / 3.0), "{with:?}");
    assert!(close(&json!(with[1].1), 2.0 / 3.0), "{with:?}");
    // Remembered with the answers, the figures come back without grading anything.
    assert_eq!(shares(&[]), with);
}
