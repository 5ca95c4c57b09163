//! `sebx labels export` and `sebx labels agreement`, run through their clap arguments on
//! a copy of the bundled demo.

use std::path::{Path, PathBuf};

use clap::Parser;
use sebx::cli::labels::{LabelsArgs, run_to};
use sebx::grade::report::GradeReport;
use sebx::grade::reruns::{RerunRecord, RerunStore};
use sebx::model::labels::{LabelRecord, LabelStore};
use sebx::model::rollout::load_rollout_file;
use sebx::model::taxonomy::CategoryId;
use sebx::model::{Rollout, Verdict};

#[derive(Parser)]
struct TestCli {
    #[command(flatten)]
    labels: LabelsArgs,
}

fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

/// Runs `sebx labels <args>` and returns what it printed.
fn run(args: &[&str]) -> anyhow::Result<String> {
    let mut argv = vec!["labels"];
    argv.extend_from_slice(args);
    let cli = TestCli::try_parse_from(argv)?;
    let mut out = Vec::new();
    run_to(cli.labels, &mut out)?;
    Ok(String::from_utf8(out)?)
}

struct Fixture {
    _dir: tempfile::TempDir,
    rollouts_path: PathBuf,
    rollouts: Vec<Rollout>,
}

/// The demo run copied into a temp dir, with labels by alice and bob on the first four.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let rollouts_path = dir.path().join("rollouts.jsonl");
    std::fs::copy(demo("rollouts.jsonl"), &rollouts_path).expect("copy demo");
    let rollouts = load_rollout_file(&rollouts_path).expect("load").rollouts;
    let (mut store, _) = LabelStore::open(&rollouts_path).expect("open labels");
    let mut label = |i: usize, cats: &[&str], note: &str, who: &str| {
        let categories = cats.iter().map(|c| CategoryId::new(c)).collect();
        store
            .append(LabelRecord::now(
                rollouts[i].id.clone(),
                categories,
                note,
                who,
            ))
            .expect("append");
    };
    label(0, &["logic_error"], "first, \"quoted\" thought", "alice");
    label(0, &["output_format"], "", "alice");
    label(0, &["output_format"], "", "bob");
    label(1, &["numpy_import", "other"], "two\nlines", "alice");
    label(1, &["numpy_import"], "", "bob");
    label(2, &["timeout"], "", "bob");
    Fixture {
        _dir: dir,
        rollouts_path,
        rollouts,
    }
}

#[test]
fn export_csv_has_one_row_per_current_label_with_task_and_quoting() {
    let f = fixture();
    let path = f.rollouts_path.to_str().expect("utf-8 path");
    let csv = run(&["export", path]).expect("export");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "source,line,rollout_id,annotator,categories,category_labels,note,time,verdict,\
verdict_from,query,selected_functions,finding_numpy_import,finding_numpy_attribute,\
finding_numpy_name_on_zwc,finding_unknown_zwc_name,finding_array_method,\
finding_off_task_function,finding_no_code,finding_numpy_backdoor,finding_hollow_zwc,finding_forged_output,finding_grader_eval,finding_judge_tampered,finding_zwc_check_fooled,suggested_category"
        )
    );
    // 5 current labels; the note with a newline spans two physical lines.
    assert_eq!(csv.matches(&format!("{path},")).count(), 5, "{csv}");
    let first_alice = format!(
        "{path},1,{},alice,output_format,Output type/format,,",
        f.rollouts[0].id
    );
    assert!(csv.contains(&first_alice), "latest label wins:\n{csv}");
    assert!(
        csv.contains("numpy_import;other,NumPy import;Other,\"two\nlines\""),
        "{csv}"
    );
    assert!(
        !csv.contains("first, \"\"quoted\"\" thought"),
        "superseded label exported"
    );
    let first_row = csv.lines().nth(1).expect("first row");
    // No API doc: finding counts are empty (one column per finding kind); no verdict: no
    // suggestion.
    let empty = ",".repeat(sebx::analysis::FindingKind::ALL.len() + 1);
    assert!(
        first_row.ends_with(&format!(",mean{empty}")),
        "selected functions, then empty columns: {first_row}"
    );
    assert!(
        first_row.contains(",\"A greenhouse has several sensors, and"),
        "query quoted: {first_row}"
    );
}

#[test]
fn export_jsonl_joins_verdicts_from_scores_reruns_and_filters_annotator() {
    let f = fixture();
    let path = f.rollouts_path.to_str().expect("utf-8 path");

    // Rollout 0 gets a verdict from a scored file, rollout 1 from the rerun sidecar
    // (the what-if rerun after it must not count).
    let scored = f.rollouts_path.with_file_name("scored.jsonl");
    let mut report = GradeReport::load_failure(path, 1, "");
    report.load_error = None;
    report.id = Some(f.rollouts[0].id.clone());
    report.verdict = Some(Verdict::ResultError);
    std::fs::write(
        &scored,
        serde_json::to_string(&report).expect("json") + "\n",
    )
    .expect("write");
    let (mut reruns, _) = RerunStore::open(&f.rollouts_path).expect("reruns");
    let mut rerun = report.clone();
    rerun.id = Some(f.rollouts[1].id.clone());
    rerun.verdict = Some(Verdict::UseNumpy);
    reruns
        .append(RerunRecord::now(rerun.clone(), None))
        .expect("append");
    rerun.verdict = Some(Verdict::Right);
    reruns
        .append(RerunRecord::now(rerun, Some("edited".into())))
        .expect("append what-if");

    let out_file = f.rollouts_path.with_file_name("export.jsonl");
    let printed = run(&[
        "export",
        path,
        "--scores",
        scored.to_str().expect("path"),
        "--format",
        "jsonl",
        "--annotator",
        "bob",
        "-o",
        out_file.to_str().expect("path"),
    ])
    .expect("export");
    assert!(printed.is_empty(), "rows go to -o, not stdout");
    let text = std::fs::read_to_string(&out_file).expect("read export");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json row"))
        .collect();
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r["annotator"] == "bob"));
    assert_eq!(rows[0]["line"], 1);
    assert_eq!(rows[0]["verdict"], "result_error");
    assert_eq!(rows[0]["verdict_from"], "scored");
    assert_eq!(rows[1]["verdict"], "use_numpy");
    assert_eq!(rows[1]["verdict_from"], "rerun");
    assert_eq!(rows[2]["verdict"], serde_json::Value::Null);
    assert_eq!(rows[2]["categories"], serde_json::json!(["timeout"]));
    assert_eq!(rows[2]["query"], &*f.rollouts[2].query);
    assert_eq!(rows[0]["selected_functions"], serde_json::json!(["mean"]));
    // The scored file given among the files, as every other command takes it: the same rows.
    let positional = run(&[
        "export",
        path,
        scored.to_str().expect("path"),
        "--format",
        "jsonl",
        "--annotator",
        "bob",
    ])
    .expect("export");
    assert_eq!(positional.trim_end(), text.trim_end());
}

#[test]
fn export_all_adds_unlabelled_rollouts() {
    let f = fixture();
    let path = f.rollouts_path.to_str().expect("utf-8 path");
    let out = run(&["export", path, "--all", "--format", "jsonl"]).expect("export");
    // 36 rollouts: 3 labelled ones give 5 rows, the other 33 one empty row each.
    assert_eq!(out.lines().count(), 5 + 33);
}

#[test]
fn agreement_prints_kappas_and_disagreements() {
    let f = fixture();
    let path = f.rollouts_path.to_str().expect("utf-8 path");
    let out = run(&["agreement", path, "--annotators", "alice,bob"]).expect("agreement");
    assert!(
        out.starts_with(
            "alice vs bob: 2 rollout(s) labelled by both (0 only by alice, 1 only by bob)"
        ),
        "{out}"
    );
    // `other`: alice on r1 only → p_o = 0.5, p_e = 0.5·0 + 0.5·1 = 0.5, kappa 0.
    assert!(out.contains("identical label sets: 1/2 (50.0%)"), "{out}");
    assert!(
        out.contains("(10 categories used by neither: not shown)"),
        "{out}"
    );
    assert!(
        !out.contains("\ntimeout "),
        "bob's timeout label is on a rollout alice did not label"
    );
    let other_row = out
        .lines()
        .find(|l| l.starts_with("other "))
        .expect("other row");
    assert!(other_row.ends_with("0.500  0.500  0.000"), "{other_row}");
    assert!(
        out.contains("mean kappa over 3 categories with a defined kappa: 0.667"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{path}:2 [{}]  alice: numpy_import, other  |  bob: numpy_import",
            f.rollouts[1].id
        )),
        "{out}"
    );

    let json = run(&["agreement", path, "--annotators", "alice,bob", "--json"]).expect("json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["compared"], 2);
    let other = v["per_category"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|c| c["category"] == "other")
        .expect("other row");
    assert_eq!(other["kappa"], 0.0);
}

#[test]
fn agreement_needs_exactly_two_different_annotators() {
    let f = fixture();
    let path = f.rollouts_path.to_str().expect("utf-8 path");
    let e = run(&["agreement", path, "--annotators", "alice"]).expect_err("one name");
    assert!(e.to_string().contains("exactly two"), "{e}");
    let e = run(&["agreement", path, "--annotators", "alice,alice"]).expect_err("same");
    assert!(e.to_string().contains("same annotator"), "{e}");
    // Labels an older sebx signed "anonymous" may be several people's: refused, and said why.
    let e = run(&["agreement", path, "--annotators", "alice,anonymous"]).expect_err("unsigned");
    let e = e.to_string();
    assert!(
        e.contains("saved without a name") && e.contains("--annotator NAME"),
        "{e}"
    );
}

#[test]
fn export_with_an_api_doc_counts_findings_and_suggests_a_category() {
    let f = fixture();
    let path = f.rollouts_path.to_str().expect("utf-8 path");
    // Label the rollouts on lines 16 (zwc.mean) and 19 (.tolist()), and give them verdicts.
    let (mut store, _) = LabelStore::open(&f.rollouts_path).expect("labels");
    let scored = f.rollouts_path.with_file_name("scored.jsonl");
    let mut scored_text = String::new();
    for (line, verdict) in [
        (16, Verdict::ExeError),
        (19, Verdict::ExeError),
        (35, Verdict::WithoutZwc),
    ] {
        let r = &f.rollouts[line - 1];
        store
            .append(LabelRecord::now(
                r.id.clone(),
                vec![CategoryId::new("other")],
                "",
                "alice",
            ))
            .expect("append");
        let mut report = GradeReport::load_failure(path, line, "");
        report.load_error = None;
        report.id = Some(r.id.clone());
        report.verdict = Some(verdict);
        scored_text.push_str(&(serde_json::to_string(&report).expect("json") + "\n"));
    }
    std::fs::write(&scored, scored_text).expect("write");
    let out = run(&[
        "export",
        path,
        "--format",
        "jsonl",
        "--annotator",
        "alice",
        "--scores",
        scored.to_str().expect("path"),
        "--api-doc",
        demo("api_doc.jsonl").to_str().expect("path"),
        "--dataset",
        demo("tasks.jsonl").to_str().expect("path"),
    ])
    .expect("export");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let row = |line: usize| {
        rows.iter()
            .find(|r| r["line"] == line)
            .unwrap_or_else(|| panic!("no row for line {line}"))
    };
    assert_eq!(row(16)["findings"]["numpy_name_on_zwc"], 1);
    assert_eq!(row(16)["findings"]["array_method"], 0);
    assert_eq!(row(16)["suggested_category"], "numpy_name_on_zwc");
    assert_eq!(row(19)["findings"]["array_method"], 1);
    assert_eq!(row(19)["suggested_category"], "numpy_method_on_zwcarray");
    // Line 35 has a syntax error: the code does not parse, so "no code" is suggested.
    assert_eq!(row(35)["suggested_category"], "no_code");
    // Line 2 (a right answer, no verdict given): no findings, no suggestion.
    assert_eq!(row(2)["findings"]["numpy_import"], 0);
    assert_eq!(row(2)["suggested_category"], serde_json::Value::Null);
}

#[test]
fn agreement_on_the_shipped_demo_lists_disagreements_in_file_order() {
    let path = demo("rollouts.jsonl");
    let out = run(&[
        "agreement",
        path.to_str().expect("path"),
        "--annotators",
        "ana,ben",
    ])
    .expect("agreement");
    assert!(
        out.starts_with(
            "ana vs ben: 18 rollout(s) labelled by both (6 only by ana, 0 only by ben)"
        ),
        "{out}"
    );
    let lines: Vec<usize> = out
        .lines()
        .skip_while(|l| !l.starts_with("disagreements (4):"))
        .skip(1)
        .map(|l| {
            let location = l.split_whitespace().next().expect("location");
            location
                .rsplit(':')
                .next()
                .expect("line")
                .parse()
                .expect("number")
        })
        .collect();
    assert_eq!(lines, vec![22, 24, 26, 28], "{out}");
    let logic = out
        .lines()
        .find(|l| l.starts_with("logic_error "))
        .expect("row");
    assert!(logic.ends_with("0.889  0.722  0.600"), "{logic}");
}

#[test]
fn progress_counts_labelled_rollouts_and_categories() {
    let path = demo("rollouts.jsonl");
    let path = path.to_str().expect("path");
    let out = run(&["progress", path]).expect("progress");
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some(format!("{path}: 24/36 labelled by anyone (66.7%)").as_str())
    );
    assert_eq!(lines.next(), Some("  annotators: ana 24, ben 18"));
    // numpy_method_on_zwcarray: ana on 19, 20, 21, 28 (ben agrees on 19-21).
    assert!(
        out.contains("\n      4  NumPy method on ZWCArray\n"),
        "{out}"
    );
    let ben = run(&["progress", path, "--annotator", "ben"]).expect("progress");
    assert!(
        ben.starts_with(&format!("{path}: 18/36 labelled by ben (50.0%)\n")),
        "{ben}"
    );
    assert!(
        ben.contains("\n      3  NumPy method on ZWCArray\n"),
        "{ben}"
    );
    assert!(!ben.contains("annotators:"));
}

#[test]
fn a_training_runs_labels_export_with_its_samples() {
    use sebx::model::Dataset;
    use sebx::model::verl::{JoinIndex, RunReader};
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("rollout");
    std::fs::create_dir(&folder).expect("mkdir");
    for step in [1, 2, 3] {
        std::fs::copy(
            demo(&format!("training/rollout/{step}.jsonl")),
            folder.join(format!("{step}.jsonl")),
        )
        .expect("copy");
    }
    // The sample's id as the explorer gives it (joined to the demo's tasks).
    let mut dataset = Dataset::default();
    dataset.load_file(&demo("tasks.jsonl")).expect("tasks");
    let join = JoinIndex::new(&dataset);
    let mut reader = RunReader::new(&join, &dataset);
    let step3 = folder.join("3.jsonl");
    let bytes = std::fs::read(&step3).expect("read");
    let sample = reader.read_step(&step3, 3, &bytes).rollouts.remove(4);
    let (mut store, _) = LabelStore::open(&folder).expect("open labels");
    store
        .append(LabelRecord::now(
            sample.id.clone(),
            vec![CategoryId::new("wrong_api_usage")],
            "first block right, last block NumPy",
            "ana",
        ))
        .expect("append");
    let out = run(&[
        "export",
        folder.to_str().expect("utf-8"),
        demo("tasks.jsonl").to_str().expect("utf-8"),
        "--api-doc",
        demo("api_doc.jsonl").to_str().expect("utf-8"),
        "--format",
        "jsonl",
    ])
    .expect("export");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert_eq!(rows[0]["rollout_id"], sample.id.0.as_str());
    assert_eq!(rows[0]["line"], 5);
    assert!(
        rows[0]["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("3.jsonl"))
    );
    assert!(
        rows[0]["query"]
            .as_str()
            .is_some_and(|q| q.starts_with("A courier company"))
    );
    assert_eq!(rows[0]["selected_functions"], serde_json::json!(["median"]));
}

/// `labels export` gives every rollout its verdict, as every command does: what no source
/// knows is graded (here: nothing is scored, stored or cached), so the verdict and suggested
/// category columns are never left empty for want of a cache (issue 31).
#[test]
fn export_grades_what_no_source_knows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo");
    let run_file = dir.path().join("rollouts.jsonl");
    std::fs::copy(demo.join("rollouts.jsonl"), &run_file).expect("copy");
    let cache = dir.path().join("cache");
    let api = demo.join("api_doc.jsonl");
    let export = || {
        run(&[
            "export",
            run_file.to_str().expect("utf-8"),
            "--all",
            "--format",
            "jsonl",
            "--api-doc",
            api.to_str().expect("utf-8"),
            "--cache-dir",
            cache.to_str().expect("utf-8"),
        ])
        .expect("export")
    };
    let text = export();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), 36);
    for r in &rows {
        assert!(r["verdict"].is_string(), "{r}");
        assert_eq!(r["verdict_from"], "graded", "{r}");
    }
    // The demo's documented verdicts (samples/demo/README.md): line 1 right, 16 exe_error.
    assert_eq!(rows[0]["verdict"], "right");
    assert_eq!(rows[15]["verdict"], "exe_error");
    assert_eq!(rows[15]["suggested_category"], "numpy_name_on_zwc");
    // A second export finds them in the cache it filled.
    let again = export();
    assert!(
        again
            .lines()
            .all(|l| l.contains("\"verdict_from\":\"cache\"")),
        "{again}"
    );
}
