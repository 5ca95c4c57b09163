//! Every shape of dump verl 0.4–0.9 writes (issue 30), written here by a small generator
//! over two zwc tasks of the demo's API doc (`kocito` = np.mean, `yitaf` = np.array):
//!
//! - 0.4: `input`, `output`, `score`, `step` and the reward's extras (`acc`), batch reordered;
//! - 0.5: the same with `request_id`;
//! - 0.6: `gts` (no `request_id`: 0.6–0.7 add it to a dict they no longer dump);
//! - 0.8: extras JSON cannot hold written as strings (`"True"`, `"[1 2 3]"`), `request_id`;
//! - 0.9: `uid` = `{prompt_uid}_{session}_{index}`, rows sorted by it, no extras; one prompt
//!   sampled twice in a batch (two prompt uids: two GRPO groups), an aborted request (empty
//!   output), a torn last line, a `notes.jsonl` beside the step files; and its validation
//!   dump, one line per output with `null` for a missing extra.
//!
//! The CLI runs as a binary (`sebx stats --by step`), the explorer as `sebx FILES` opens it
//! (`open_default`), both grading through the real engine (Python runtime required:
//! `sebx runtime install`). Every expected figure follows from the generator's lines.

use crate::tui_common;

use crate::isolated;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use sebx::tui::Action;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, load_inline};

const MEAN_Q: &str = "Given a list `values`, return their arithmetic mean as a float.";
const ARRAY_Q: &str =
    "Given a list `values`, build an array of them and return its mean as a float.";

fn api_doc() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl")
}

/// A task of the generated dataset: (query, selected NumPy functions, right code, wrong code).
struct Task {
    query: &'static str,
    functions: &'static [&'static str],
    right: &'static str,
    wrong: &'static str,
}

const TASKS: [Task; 2] = [
    Task {
        query: MEAN_Q,
        functions: &["mean"],
        right: "return float(zwc.kocito(values))",
        wrong: "return float(zwc.mean(values))",
    },
    Task {
        query: ARRAY_Q,
        functions: &["array", "mean"],
        right: "return float(zwc.kocito(zwc.yitaf(values)))",
        wrong: "return float(zwc.kocito(zwc.array(values)))",
    },
];

/// Both tasks' cases: values=[1, 2, 3] → 2.0, values=[4] → 4.0.
const EXPECTED: &str = "2.0#4.0";

fn write_dataset(dir: &Path) -> PathBuf {
    let path = dir.join("train.jsonl");
    let lines: Vec<String> = TASKS
        .iter()
        .map(|t| {
            json!({
                "query": t.query,
                "function_name": "def solve(values):",
                "selected_functions": t.functions,
                "test_cases": [{"input": "values=[1, 2, 3]", "output": "2.0"},
                               {"input": "values=[4]", "output": "4.0"}],
                "right_exe_result": EXPECTED,
            })
            .to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").expect("dataset");
    path
}

fn prompt(task: usize) -> String {
    format!(
        "user\nSolve with zwc.\n\n### Problem\n{}\n\n### Test Cases\nvalues=[1, 2, 3]\n\n### Function to Complete\ndef solve(values):\nassistant\n",
        TASKS[task].query
    )
}

fn code(body: &str) -> String {
    format!("```python\nimport zwc\n\ndef solve(values):\n    {body}\n```")
}

/// One generated sample: its task, its prompt uid (which sampling of the prompt in the
/// batch), whether it is right (stored score 1) and whether the request was aborted.
#[derive(Clone, Copy)]
struct Sample {
    task: usize,
    prompt_uid: &'static str,
    right: bool,
    aborted: bool,
}

const fn s(task: usize, prompt_uid: &'static str, right: bool) -> Sample {
    Sample {
        task,
        prompt_uid,
        right,
        aborted: false,
    }
}

/// Step 1 of every version: the mean prompt sampled twice in the batch (uids `m1` and `m2`,
/// GRPO n = 2), the array prompt once. By uid: `m1` scored 1, 1 (zero advantage), `m2` 1, 0,
/// `a1` 1, 0: three groups, one with zero advantage. By prompt text: the mean prompt's four
/// samples (1, 1, 1, 0) are one group, so two groups and none with zero advantage.
const STEP1: [Sample; 6] = [
    s(0, "m1", true),
    s(0, "m1", true),
    s(0, "m2", true),
    s(0, "m2", false),
    s(1, "a1", true),
    s(1, "a1", false),
];

/// Step 2 (0.9 only): an aborted request in the array group, then a torn last line.
const STEP2: [Sample; 4] = [
    s(0, "m3", true),
    s(0, "m3", false),
    s(1, "a3", true),
    Sample {
        task: 1,
        prompt_uid: "a3",
        right: false,
        aborted: true,
    },
];

#[derive(Clone, Copy, PartialEq)]
enum Version {
    V04,
    V05,
    V06,
    V08,
    V09,
}

/// The line verl `version` writes for sample `i` of a step (`session`: its index within
/// its prompt's group).
fn line(version: Version, step: u32, x: &Sample, session: usize, i: usize) -> Value {
    let output = if x.aborted {
        String::new()
    } else if x.right {
        code(TASKS[x.task].right)
    } else {
        code(TASKS[x.task].wrong)
    };
    let score = if x.right { 1.0 } else { 0.0 };
    let mut v = json!({"input": prompt(x.task), "output": output, "score": score, "step": step});
    let request_id = format!("req-{step}-{i}");
    match version {
        Version::V04 => v["acc"] = json!(x.right),
        Version::V05 => {
            v["acc"] = json!(x.right);
            v["request_id"] = json!(request_id);
        }
        Version::V06 => {
            v["gts"] = json!(EXPECTED);
            v["acc"] = json!(x.right);
        }
        Version::V08 => {
            v["gts"] = json!(EXPECTED);
            v["acc"] = json!(if x.right { "True" } else { "False" });
            v["pred"] = json!("[1 2 3]");
            v["request_id"] = json!(request_id);
        }
        Version::V09 => {
            v["gts"] = json!(EXPECTED);
            v["uid"] = json!(format!("{}_{session}_0", x.prompt_uid));
        }
    }
    v
}

/// The lines of one step as `version` writes them: 0.9 sorted by uid, older versions in
/// the reordered batch's order (last sample first).
fn step_lines(version: Version, step: u32, samples: &[Sample]) -> Vec<String> {
    let mut lines: Vec<(String, String)> = samples
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let session = samples[..i]
                .iter()
                .filter(|y| y.prompt_uid == x.prompt_uid)
                .count();
            let v = line(version, step, x, session, i);
            (v["uid"].as_str().unwrap_or("").to_string(), v.to_string())
        })
        .collect();
    if version == Version::V09 {
        lines.sort();
    } else {
        lines.reverse();
    }
    lines.into_iter().map(|(_, l)| l).collect()
}

/// Writes `exp/v04 … exp/v08` (step 1 each) and `exp/v09/{rollout,validation}`.
fn write_runs(dir: &Path) -> PathBuf {
    let exp = dir.join("exp");
    for (name, version) in [
        ("v04", Version::V04),
        ("v05", Version::V05),
        ("v06", Version::V06),
        ("v08", Version::V08),
    ] {
        let d = exp.join(name);
        std::fs::create_dir_all(&d).expect("mkdir");
        let text = step_lines(version, 1, &STEP1).join("\n") + "\n";
        std::fs::write(d.join("1.jsonl"), text).expect("step 1");
    }
    let rollout = exp.join("v09").join("rollout");
    std::fs::create_dir_all(&rollout).expect("mkdir");
    let text = step_lines(Version::V09, 1, &STEP1).join("\n") + "\n";
    std::fs::write(rollout.join("1.jsonl"), text).expect("step 1");
    // Step 2: the run was stopped while writing its fifth line.
    let mut text = step_lines(Version::V09, 2, &STEP2).join("\n") + "\n";
    let fifth = line(Version::V09, 2, &s(0, "m4", true), 0, 4).to_string();
    text.push_str(&fifth[..fifth.len() / 2]);
    std::fs::write(rollout.join("2.jsonl"), text).expect("step 2");
    std::fs::write(rollout.join("notes.jsonl"), "{\"note\": \"lr 1e-6\"}\n").expect("notes");
    // Validation at step 1: each prompt once; the reward gave `acc` for one batch only, so
    // the other's lines hold `null`.
    let validation = exp.join("v09").join("validation");
    std::fs::create_dir_all(&validation).expect("mkdir");
    let val: Vec<String> = [(0usize, "v1", Some(true)), (1, "v2", None)]
        .iter()
        .map(|(task, uid, acc)| {
            json!({"input": prompt(*task), "output": code(TASKS[*task].right), "gts": EXPECTED,
                   "score": 1.0, "step": 1, "uid": format!("{uid}_0_0"), "acc": acc})
            .to_string()
        })
        .collect();
    std::fs::write(validation.join("1.jsonl"), val.join("\n") + "\n").expect("validation");
    exp
}

/// `sebx stats TARGETS --by step --format json`: (report, stderr).
fn stats(dir: &Path, targets: &[PathBuf], dataset: &Path) -> (Value, String) {
    let out = isolated::sebx()
        .arg("stats")
        .args(targets)
        .arg(dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--quiet", "--by", "step", "--format", "json"])
        .current_dir(dir)
        .output()
        .expect("run sebx");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).expect("json"), stderr)
}

fn step<'a>(report: &'a Value, run: &str, step: u64) -> &'a Value {
    report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|r| r["run"] == run && r["step"] == step)
        .unwrap_or_else(|| panic!("no step {step} of {run} in {report:#}"))
}

/// Each version's step 1 is read as written: six samples, both tasks joined and graded,
/// accuracy 4/6; GRPO groups by prompt text before 0.9 (the two samplings of the mean
/// prompt merge: 2 groups, none with zero advantage), by uid in 0.9 (3 groups, the `m1`
/// group's two 1s have zero advantage). String extras and `request_id` are no load error.
#[test]
fn every_version_is_read_and_grouped_as_it_was_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let exp = write_runs(dir.path());
    let targets: Vec<PathBuf> = ["v04", "v05", "v06", "v08", "v09"]
        .iter()
        .map(|n| exp.join(n))
        .collect();
    let (report, stderr) = stats(dir.path(), &targets, &dataset);
    for run in ["v04", "v05", "v06", "v08", "v09/rollout"] {
        let s1 = step(&report, run, 1);
        assert_eq!(s1["samples"], 6, "{run}: {s1:#}");
        assert_eq!(s1["graded"], 6, "{run}: {s1:#}");
        assert_eq!(s1["unjoined"], 0, "{run}");
        assert_eq!(s1["tasks"], 2, "{run}");
        assert_eq!(s1["verdicts"]["right"], 4, "{run}: {s1:#}");
        assert_eq!(s1["empty_outputs"], 0, "{run}");
        let (groups, zero) = if run == "v09/rollout" { (3, 1) } else { (2, 0) };
        assert_eq!(s1["groups"], groups, "{run}: {s1:#}");
        assert_eq!(s1["zero_variance_groups"], zero, "{run}: {s1:#}");
    }
    let detail = &step(&report, "v09/rollout", 1)["zero_variance_detail"];
    assert_eq!(detail.as_array().map(Vec::len), Some(1), "{detail:#}");
    assert_eq!(detail[0]["samples"], 2);
    assert_eq!(detail[0]["score"], 1.0);
    assert_eq!(detail[0]["right"], 2);
    assert!(
        detail[0]["task"]
            .as_str()
            .is_some_and(|t| t.starts_with("Given a list `values`, return their arithmetic")),
        "{detail:#}"
    );
    // No line of any version is a load problem but the torn one (v09's step 2).
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("2.jsonl:5: torn last line"),
        "{stderr}"
    );
}

/// 0.9's step 2: the aborted request is counted (`empty_outputs`), kept in its group and
/// graded; the torn fifth line is a warning naming the file and line while the four lines
/// before it are read; `notes.jsonl` is skipped with a note; the validation dump's `null`
/// extras load, and a validation step (one sample per prompt uid) has no zero-advantage
/// figure (`null`).
#[test]
fn aborted_torn_skipped_and_validation_nulls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let exp = write_runs(dir.path());
    let (report, stderr) = stats(dir.path(), &[exp.join("v09")], &dataset);
    let s2 = step(&report, "v09/rollout", 2);
    assert_eq!(s2["samples"], 4, "{s2:#}");
    assert_eq!(s2["graded"], 4, "the aborted request is graded too: {s2:#}");
    assert_eq!(s2["empty_outputs"], 1, "{s2:#}");
    assert_eq!(s2["groups"], 2, "{s2:#}");
    assert_eq!(s2["verdicts"]["right"], 2, "{s2:#}");
    let torn = rollout_path(&exp, "2.jsonl");
    assert!(
        stderr.contains(&format!("warning: {}:5: torn last line", torn.display())),
        "{stderr}"
    );
    let notes = rollout_path(&exp, "notes.jsonl");
    assert!(
        stderr.contains(&format!(
            "note: {}: skipped: not a step file of run v09/rollout",
            notes.display()
        )),
        "{stderr}"
    );
    let v1 = step(&report, "v09/validation", 1);
    assert_eq!(v1["samples"], 2, "{v1:#}");
    assert_eq!(v1["graded"], 2, "{v1:#}");
    assert_eq!(v1["groups"], 2, "{v1:#}");
    assert_eq!(v1["zero_variance_groups"], Value::Null, "{v1:#}");
    // The text table has the aborted requests' column.
    let out = isolated::sebx()
        .arg("stats")
        .arg(exp.join("v09/rollout"))
        .arg(&dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--quiet", "--by", "step", "--format", "csv"])
        .current_dir(dir.path())
        .output()
        .expect("run sebx");
    let csv = String::from_utf8_lossy(&out.stdout);
    let header = csv.lines().find(|l| l.starts_with("run,")).expect("header");
    let col = header
        .split(',')
        .position(|h| h == "empty_outputs")
        .expect("an empty_outputs column");
    let row2 = csv
        .lines()
        .find(|l| l.starts_with("rollout,2,"))
        .unwrap_or_else(|| panic!("{csv}"));
    assert_eq!(row2.split(',').nth(col), Some("1"), "{csv}");
}

fn rollout_path(exp: &Path, name: &str) -> PathBuf {
    exp.join("v09").join("rollout").join(name)
}

/// The explorer on 0.9's rollout folder, as `sebx exp/v09/rollout train.jsonl api_doc`
/// opens it: `=` on a sample of the `m1` group shows its two samples (not the mean
/// prompt's four), says its uid and zero advantage; the Training screen counts one
/// zero-advantage group at step 1 and the aborted request; the torn line and the skipped
/// file are load issues naming their file; the aborted request is a row that draws.
#[test]
fn the_explorer_groups_by_uid_and_shows_what_it_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let exp = write_runs(dir.path());
    let args = ExploreArgs {
        paths: vec![exp.join("v09/rollout"), dataset, api_doc()],
        ..isolated::explore_args()
    };
    let (mut session, _backend) = tui_common::open_graded(&args, 160, 40);
    let app = &mut session.app;
    assert_eq!(app.corpus.entries.len(), 10, "6 + 4 samples");

    let issues: Vec<String> = app.corpus.issues.iter().map(ToString::to_string).collect();
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(
        issues
            .iter()
            .any(|i| i.contains("2.jsonl:5: torn last line")),
        "{issues:?}"
    );
    assert!(
        issues
            .iter()
            .any(|i| i.contains("notes.jsonl: skipped: not a step file")),
        "{issues:?}"
    );

    // The first row of the file is `m1_0_0` (0.9 sorts by uid).
    let m1 = app
        .corpus
        .entries
        .iter()
        .position(|e| {
            e.rollout
                .sample
                .as_deref()
                .is_some_and(|m| m.group_uid.as_deref() == Some("m1"))
        })
        .expect("an m1 sample");
    app.update(&Action::Top);
    while app.list.selected != Some(m1) {
        let before = app.list.selected;
        app.update(&Action::Down);
        assert_ne!(before, app.list.selected, "row {m1} is in the list");
    }
    app.update(&Action::GroupView);
    let rows: Vec<usize> = app.list.rows().collect();
    assert_eq!(rows.len(), 2, "the m1 group, not the prompt's four samples");
    assert!(rows.iter().all(|i| {
        app.corpus.entries[*i]
            .rollout
            .sample
            .as_deref()
            .is_some_and(|m| m.group_uid.as_deref() == Some("m1") && m.step == 1)
    }));
    let label = app
        .list
        .filters
        .rows
        .as_ref()
        .map(|f| f.label.clone())
        .unwrap_or_default();
    assert!(label.contains("uid m1"), "{label}");
    assert!(label.contains("zero advantage"), "{label}");
    app.update(&Action::GroupView);

    app.update(&Action::TrainingScreen);
    drain_inline(app, None);
    let result = app.training.result.clone().expect("training figures");
    let steps = &result.report.figures.steps;
    assert_eq!(steps[0].zero_variance_groups, Some(1));
    assert_eq!(steps[0].groups, 3);
    assert_eq!(steps[1].lengths.empty_outputs, 1);
    let screen = tui_common::screen(&tui_common::draw(app, 160, 40));
    assert!(screen.contains("empty outputs 1 (last step 1)"), "{screen}");
    app.update(&Action::CloseScreen);

    // The aborted request is a row of its own, and its detail draws.
    let aborted = app
        .corpus
        .entries
        .iter()
        .position(|e| e.rollout.response.is_empty())
        .expect("the aborted request's row");
    app.update(&Action::Top);
    while app.list.selected != Some(aborted) {
        app.update(&Action::Down);
    }
    let screen = tui_common::screen(&tui_common::draw(app, 160, 40));
    assert!(
        screen.contains("(empty output: verl dumps an aborted request this way)"),
        "{screen}"
    );
}

/// 0.8's string extras are shown with the sample as verl wrote them (`acc=True`,
/// `pred=[1 2 3]`, its `request_id`), in the Response pane.
#[test]
fn string_extras_are_shown_as_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dataset = write_dataset(dir.path());
    let exp = write_runs(dir.path());
    let args = ExploreArgs {
        paths: vec![exp.join("v08"), dataset, api_doc()],
        ..isolated::explore_args()
    };
    let (mut session, backend) = open_default(&args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, Some(backend.as_ref()));
    let app = &mut session.app;
    assert!(app.corpus.issues.is_empty(), "{:?}", app.corpus.issues);
    app.update(&Action::Top);
    let row = app.list.selected.expect("a row");
    let right = app.corpus.entries[row]
        .rollout
        .sample
        .as_deref()
        .and_then(|m| m.score)
        .expect("a score")
        == 1.0;
    let screen = tui_common::screen(&tui_common::draw(app, 160, 40));
    let acc = if right { "True" } else { "False" };
    assert!(
        screen.contains(&format!(
            "extras: acc={acc} · pred=[1 2 3] · request_id=req-1-"
        )),
        "{screen}"
    );
}
