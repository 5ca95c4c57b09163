//! One verdict and one reward per rollout in every front end, with the explorer opened the
//! way `sebx FILES...` opens it (`tui::explore::open_default`: inputs classified by the
//! session, the score cache it names, the embedded grader) and grading what no source
//! knows. Then `sebx stats`, `sebx compare`, `sebx labels export`, `sebx export` and the
//! presenter, run on the same files with the same cache folder, must say the same of every
//! rollout. The cases: a rollout in two inputs, a run opened with its correct-trajectories
//! file, a line storing only `"score": 1`, a rerun, and verdicts graded by the explorer
//! itself (which the presenter and export read back from the cache).

use crate::tui_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

use sebx::grade::report::GradeReport;
use sebx::grade::reruns::{RerunRecord, RerunStore};
use sebx::model::Verdict;
use sebx::model::rollout::load_rollout_file;
use sebx::session::CacheFlags;
use sebx::tui::entry::Shown;
use sebx::tui::explore::{ExploreArgs, open_default, prepare};
use sebx::tui::inline::{drain_inline, load_inline};
use tui_common::{
    API_DOC, CODE_INV_NUMPY, CODE_INV_TYPO, CODE_MEAN_BAD, CODE_MEAN_OK, CODE_SPREAD_OK,
    CODE_SPREAD_TOLIST, Q_INV, Q_MEAN, Q_SPREAD, fence, rollout_line,
};

struct Fixture {
    dir: tempfile::TempDir,
    run: PathBuf,
    copy: PathBuf,
    correct: PathBuf,
    scored: PathBuf,
    api_doc: PathBuf,
    cache: PathBuf,
}

/// A report a scored file or a rerun carries: a verdict no grading of that code gives, so
/// a front end that graded instead of reading it is caught.
fn written(path: &Path, line: usize, verdict: Verdict) -> GradeReport {
    let rollout = load_rollout_file(path).expect("load").rollouts[line - 1].clone();
    let mut r = GradeReport::load_failure(&path.display().to_string(), line, "");
    r.load_error = None;
    r.id = Some(rollout.id);
    r.verdict = Some(verdict);
    r.decided_by = "written for the test".to_string();
    r
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str| dir.path().join(n);
    let (run, copy, correct, scored, api_doc, cache) = (
        p("run.jsonl"),
        p("copy.jsonl"),
        p("run_correct.jsonl"),
        p("run.scored.jsonl"),
        p("api_doc.jsonl"),
        p("cache"),
    );
    std::fs::write(&api_doc, API_DOC).expect("api doc");
    let inv_typo = rollout_line(Q_INV, &fence(CODE_INV_TYPO), None);
    let inv_numpy = rollout_line(Q_INV, &fence(CODE_INV_NUMPY), None);
    std::fs::write(
        &run,
        [
            // 1: graded by the explorer.
            rollout_line(Q_MEAN, &fence(CODE_MEAN_OK), None),
            // 2: a bare score names no verdict: graded (its answer is wrong).
            rollout_line(Q_MEAN, &fence(CODE_MEAN_BAD), Some(("score", json!(1)))),
            // 3: also in copy.jsonl; the scored file's verdict reaches both.
            inv_typo.clone(),
            // 4: a rerun's verdict.
            rollout_line(Q_SPREAD, &fence(CODE_SPREAD_OK), None),
            // 5: also in the correct-trajectories file; the scored file outranks it.
            inv_numpy.clone(),
        ]
        .join("\n")
            + "\n",
    )
    .expect("run");
    std::fs::write(
        &copy,
        [
            inv_typo,
            rollout_line(Q_SPREAD, &fence(CODE_SPREAD_TOLIST), None),
        ]
        .join("\n")
            + "\n",
    )
    .expect("copy");
    std::fs::write(
        &correct,
        [
            inv_numpy,
            rollout_line(Q_SPREAD, &fence(CODE_SPREAD_OK), Some(("n", json!(2)))),
        ]
        .join("\n")
            + "\n",
    )
    .expect("correct");
    std::fs::write(
        &scored,
        [
            written(&run, 3, Verdict::UseNumpy),
            written(&run, 5, Verdict::WithoutZwc),
        ]
        .iter()
        .map(|r| serde_json::to_string(r).expect("json") + "\n")
        .collect::<String>(),
    )
    .expect("scored");
    let (mut reruns, _) = RerunStore::open(&run).expect("reruns");
    reruns
        .append(RerunRecord::now(
            written(&run, 4, Verdict::ResultError),
            None,
        ))
        .expect("rerun");
    Fixture {
        dir,
        run,
        copy,
        correct,
        scored,
        api_doc,
        cache,
    }
}

fn inputs(f: &Fixture) -> Vec<PathBuf> {
    vec![
        f.run.clone(),
        f.copy.clone(),
        f.correct.clone(),
        f.scored.clone(),
        f.api_doc.clone(),
    ]
}

fn explore_args(f: &Fixture, paths: Vec<PathBuf>) -> ExploreArgs {
    ExploreArgs {
        paths,
        cache: CacheFlags {
            no_cache: false,
            cache_dir: Some(f.cache.clone()),
        },
        ..ExploreArgs::default()
    }
}

fn sebx(f: &Fixture) -> Command {
    let mut c = Command::cargo_bin("sebx").expect("binary");
    // The explorer names the cache with `--cache-dir`, the commands find it through the
    // environment: both must come to the same folder.
    c.env_remove("SEBX_API_DOC")
        .env("SEBX_SCORE_CACHE", &f.cache)
        .env("SEBX_DATA_DIR", f.dir.path().join("data"))
        .env("SEBX_ANNOTATOR", "tester");
    c
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// What a front end says of one rollout: (file name, line) → verdict.
type Verdicts = BTreeMap<(String, usize), String>;

fn key(path: &Path, line: usize) -> (String, usize) {
    (
        path.file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned(),
        line,
    )
}

#[test]
fn every_front_end_gives_each_rollout_the_explorers_verdict_and_reward() {
    let f = fixture();

    // The explorer, as `sebx FILES...` opens it, grading what no source knows.
    let (mut session, backend) = open_default(&explore_args(&f, inputs(&f))).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, Some(backend.as_ref()));
    let app = &session.app;
    let mut explorer = Verdicts::new();
    // Per run: (rewarded, [reward 1 & right, reward 1 & not, reward 0 & right, reward 0 & not]).
    let mut rewards: BTreeMap<String, (u64, [u64; 4])> = BTreeMap::new();
    for (i, e) in app.corpus.entries.iter().enumerate() {
        let Shown::Verdict(v) = app.corpus.shown(i) else {
            panic!("row {i} has no verdict: {:?}", app.corpus.shown(i));
        };
        explorer.insert(key(&e.rollout.source, e.rollout.line), v.as_str().into());
        let run = key(&e.rollout.source, 0).0;
        let slot = rewards.entry(run).or_default();
        if let Some(reward) = app.corpus.facts(i).and_then(|f| f.reward) {
            slot.0 += 1;
            let right = v == Verdict::Right;
            slot.1[match (reward == 1, right) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => 2,
                (false, false) => 3,
            }] += 1;
        }
    }
    let want = |file: &str, line: usize| explorer[&(file.to_string(), line)].as_str();
    // The sources decided as documented, not by grading.
    assert_eq!(want("run.jsonl", 1), "right", "graded");
    assert_eq!(
        want("run.jsonl", 2),
        "result_error",
        "a bare score is graded"
    );
    assert_eq!(want("run.jsonl", 3), "use_numpy", "scored");
    assert_eq!(
        want("copy.jsonl", 1),
        "use_numpy",
        "scored, in its second input"
    );
    assert_eq!(want("run.jsonl", 4), "result_error", "the rerun");
    assert_eq!(want("run.jsonl", 5), "without_zwc", "scored beats correct");
    assert_eq!(
        want("run_correct.jsonl", 1),
        "without_zwc",
        "in the correct file too"
    );
    assert_eq!(want("run_correct.jsonl", 2), "right", "the correct file");
    // Graded: the standard deviation of a 1-D array is a scalar, whose .tolist() works.
    assert_eq!(want("copy.jsonl", 2), "right", "graded");
    assert_eq!(explorer.len(), 9);

    // labels export: every rollout's verdict.
    let text = stdout(
        sebx(&f)
            .args(["labels", "export", "--all", "--format", "jsonl"])
            .args(inputs(&f)),
    );
    let mut labels = Verdicts::new();
    for l in text.lines() {
        let row: Value = serde_json::from_str(l).expect("row");
        labels.insert(
            key(
                Path::new(row["source"].as_str().expect("source")),
                row["line"].as_u64().expect("line") as usize,
            ),
            row["verdict"].as_str().unwrap_or("none").to_string(),
        );
    }
    assert_eq!(labels, explorer, "labels export");

    // stats: each run's verdict counts and its official RL reward figures.
    let stats: Value = serde_json::from_str(&stdout(
        sebx(&f)
            .args(["stats", "--format", "json", "-q"])
            .args(inputs(&f)),
    ))
    .expect("json");
    for run in stats["runs"].as_array().expect("runs") {
        let name = key(Path::new(run["path"].as_str().expect("path")), 0).0;
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for ((file, _), v) in &explorer {
            if *file == name {
                *counts.entry(v.clone()).or_default() += 1;
            }
        }
        let got: BTreeMap<String, u64> = run["verdicts"]
            .as_object()
            .expect("verdicts")
            .iter()
            .filter(|(_, n)| n.as_u64() != Some(0))
            .map(|(v, n)| (v.clone(), n.as_u64().expect("n")))
            .collect();
        assert_eq!(got, counts, "stats verdicts of {name}");
        let (rewarded, cells) = rewards.get(&name).copied().unwrap_or_default();
        assert_eq!(
            run["reward"]["rewarded"], rewarded,
            "stats: rewards known in {name}: {run}"
        );
        let rv = &run["reward"]["reward_vs_verdict"];
        let got = [
            "reward_1_right",
            "reward_1_not_right",
            "reward_0_right",
            "reward_0_not_right",
        ]
        .map(|k| rv[k].as_u64().expect("count"));
        assert_eq!(got, cells, "stats: reward against verdict in {name}");
    }
    assert!(
        rewards.values().map(|r| r.0).sum::<u64>() >= 3,
        "the explorer's own grading gives the reward: {rewards:?}"
    );

    // compare: run A against the correct file, paired by task.
    let cmp: Value = serde_json::from_str(&stdout(
        sebx(&f)
            .args(["compare", "--format", "json", "-q"])
            .arg(&f.run)
            .arg(&f.correct)
            .arg(&f.scored)
            .arg(&f.api_doc),
    ))
    .expect("json");
    let pairs = cmp["pairs"].as_array().expect("pairs");
    assert!(!pairs.is_empty());
    for p in pairs {
        let a = key(&f.run, p["a_line"].as_u64().expect("a") as usize);
        let b = key(&f.correct, p["b_line"].as_u64().expect("b") as usize);
        assert_eq!(p["verdict_a"], explorer[&a].as_str(), "compare A {a:?}");
        assert_eq!(p["verdict_b"], explorer[&b].as_str(), "compare B {b:?}");
    }

    // export: the header names each rollout's verdict, read from the sources and the cache
    // the explorer graded into (export grades nothing itself).
    for line in 1..=5 {
        let txt = stdout(sebx(&f).arg("export").args(inputs(&f)).args([
            "--line",
            &line.to_string(),
            "--format",
            "txt",
        ]));
        let head = txt.lines().next().unwrap_or("");
        let label = explorer[&key(&f.run, line)].replace('_', " ");
        assert!(
            head.contains(&label) || head.contains(&explorer[&key(&f.run, line)]),
            "export of line {line}: {head:?}, the explorer says {label}"
        );
    }

    // The presenter, as `sebx present FILES` prepares it (stored verdicts only).
    let args = explore_args(&f, inputs(&f));
    let prepared = prepare(
        &args,
        sebx::tui::Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
            "the presenter shows stored verdicts".into(),
        )),
    )
    .expect("presenter session");
    let (presenter, issues) = sebx::tui::present::prepare(prepared.app, &prepared.sources, None);
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(presenter.slides.len(), explorer.len());

    // A second explorer session: every verdict comes from the files and the cache, none is
    // graded, and label progress counts the failures all the same.
    let mut again = prepare(
        &explore_args(&f, inputs(&f)),
        sebx::tui::Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
    )
    .expect("second session");
    load_inline(&mut again.app, &again.sources);
    // Progress is counted while the rows load, before the cache has answered …
    again.app.service();
    drain_inline(&mut again.app, None);
    // … and again once the remembered verdicts arrive.
    again.app.service();
    let failures = explorer.values().filter(|v| *v != "right").count();
    let progress = again
        .app
        .labelling
        .progress_text(again.app.corpus.runs.len());
    assert!(
        progress.starts_with(&format!("0 of {failures} failures labelled")),
        "{progress}"
    );
    for slide in &presenter.slides {
        let k = key(&slide.entry.rollout.source, slide.entry.rollout.line);
        assert_eq!(
            sebx::tui::present::slide_verdict(slide).map(|v| v.as_str().to_string()),
            Some(explorer[&k].clone()),
            "presenter, {k:?}"
        );
    }
}

#[test]
fn a_verdict_only_grade_leaves_the_figures_of_a_full_one() {
    let f = fixture();
    // A fresh cache: stats grades everything unscored with both scorers.
    let fresh: Value = serde_json::from_str(&stdout(
        sebx(&f)
            .args(["stats", "--format", "json", "-q"])
            .args(inputs(&f)),
    ))
    .expect("json");
    // Then `sebx grade` verdict-only on the same rollouts into the same cache.
    stdout(
        sebx(&f)
            .args(["grade", "--scorer", "verdict", "-q"])
            .arg(&f.run)
            .arg(&f.copy)
            .arg("--api-doc")
            .arg(&f.api_doc)
            .arg("-o")
            .arg(f.dir.path().join("verdicts.jsonl")),
    );
    let after: Value = serde_json::from_str(&stdout(
        sebx(&f)
            .args(["stats", "--format", "json", "-q"])
            .args(inputs(&f)),
    ))
    .expect("json");
    for (a, b) in fresh["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .zip(after["runs"].as_array().expect("runs"))
    {
        for field in ["verdicts", "reward"] {
            assert_eq!(a[field], b[field], "{field} of {}", a["path"]);
        }
    }
}
