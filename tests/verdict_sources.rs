//! One verdict per rollout in every command: a run whose rollouts get their verdicts from
//! every source of `grade::resolve` (a score stored in the line, a scored file, a
//! correct-trajectories file, a rerun, the score cache), several of them with a weaker
//! source too, and the same verdict for each rollout in the explorer, `sebx stats`,
//! `sebx compare` and `sebx labels export`. No grading happens: every rollout has a source.

use crate::tui_common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use assert_cmd::Command;
use serde_json::{Value, json};

use sebx::grade::report::GradeReport;
use sebx::grade::reruns::{RerunRecord, RerunStore};
use sebx::grade::score_cache::ScoreCache;
use sebx::grade::settings::GradingSettings;
use sebx::model::rollout::load_rollout_file;
use sebx::model::{ApiMap, Rollout, Verdict};
use sebx::tui::app::{App, Context, Grading};
use sebx::tui::entry::Shown;
use sebx::tui::inline::{drain_inline, load_inline};
use sebx::tui::load::{FileKind, Source, SourceData};
use sebx::tui::{Keymap, Theme};
use tui_common::{API_DOC, dataset};

fn report_for(rollout: &Rollout, verdict: Verdict) -> GradeReport {
    let mut r = GradeReport::load_failure(&rollout.source.display().to_string(), rollout.line, "");
    r.load_error = None;
    r.id = Some(rollout.id.clone());
    r.verdict = Some(verdict);
    r.decided_by = "written for the test".to_string();
    r
}

fn line(query: &str, answer: &str, stored: Option<&str>) -> String {
    let mut v = json!({"query": query,
        "response": format!("```python\nimport zwc\ndef f(a):\n    return zwc.kocito(a)\n```\n{answer}"),
        "test_cases": [{"input": "a=[1]", "output": "1"}], "right_exe_result": "1"});
    if let Some(s) = stored {
        v["verdict"] = json!(s);
    }
    v.to_string() + "\n"
}

/// What each rollout of run A should get, and from where.
const EXPECTED_A: [(&str, &str); 5] = [
    ("stored", "result_error"),
    ("scored", "exe_error"),
    ("rerun", "use_numpy"),
    ("cache", "without_zwc"),
    ("scored", "right"),
];

struct Fixture {
    _dir: tempfile::TempDir,
    run: PathBuf,
    correct: PathBuf,
    scored: PathBuf,
    api_doc: PathBuf,
    cache_dir: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run.jsonl");
    let correct = dir.path().join("run_correct.jsonl");
    let scored = dir.path().join("run.scored.jsonl");
    let api_doc = dir.path().join("api_doc.jsonl");
    let cache_dir = dir.path().join("cache");
    std::fs::write(&api_doc, API_DOC).expect("api doc");
    // Run A: q0 stored; q1 stored `right` but a scored file says exe_error; q2 a rerun
    // (and a what-if after it, which does not count); q3 the cache only; q4 a scored file,
    // a rerun and the cache, the scored file winning.
    std::fs::write(
        &run,
        [
            line("q0", "a", Some("result_error")),
            line("q1", "a", Some("right")),
            line("q2", "a", None),
            line("q3", "a", None),
            line("q4", "a", None),
        ]
        .concat(),
    )
    .expect("run");
    // Run B, the official correct-trajectories file: all right, even where a line stores
    // another verdict.
    std::fs::write(
        &correct,
        [
            line("q0", "b", Some("exe_error")),
            line("q1", "b", None),
            line("q2", "b", None),
            line("q3", "b", None),
            line("q4", "b", None),
        ]
        .concat(),
    )
    .expect("correct run");
    let a = load_rollout_file(&run).expect("load").rollouts;
    std::fs::write(
        &scored,
        [
            report_for(&a[1], Verdict::ExeError),
            report_for(&a[4], Verdict::Right),
        ]
        .iter()
        .map(|r| serde_json::to_string(r).expect("json") + "\n")
        .collect::<String>(),
    )
    .expect("scored");
    let (mut reruns, _) = RerunStore::open(&run).expect("reruns");
    reruns
        .append(RerunRecord::now(report_for(&a[2], Verdict::UseNumpy), None))
        .expect("rerun");
    reruns
        .append(RerunRecord::now(
            report_for(&a[2], Verdict::Right),
            Some("edited".into()),
        ))
        .expect("what-if");
    reruns
        .append(RerunRecord::now(
            report_for(&a[4], Verdict::ResultError),
            None,
        ))
        .expect("rerun");
    let api = ApiMap::from_api_doc_jsonl(API_DOC).expect("api");
    let cache = ScoreCache::open(&cache_dir, &api, &GradingSettings::official()).expect("cache");
    cache
        .put(&a[3], &report_for(&a[3], Verdict::WithoutZwc))
        .expect("put");
    cache
        .put(&a[4], &report_for(&a[4], Verdict::UseNumpy))
        .expect("put");
    Fixture {
        _dir: dir,
        run,
        correct,
        scored,
        api_doc,
        cache_dir,
    }
}

fn sebx(f: &Fixture) -> Command {
    let mut c = Command::cargo_bin("sebx").expect("binary");
    c.env("SEBX_SCORE_CACHE", &f.cache_dir)
        .env_remove("SEBX_API_DOC")
        .env("SEBX_ANNOTATOR", "tester");
    c
}

fn json_out(cmd: &mut Command) -> Value {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn files(f: &Fixture) -> Vec<&Path> {
    vec![&f.run, &f.correct, &f.scored]
}

#[test]
fn every_command_gives_each_rollout_the_same_verdict() {
    let f = fixture();
    let expected_a: Vec<&str> = EXPECTED_A.iter().map(|(_, v)| *v).collect();

    // compare: the pairs carry each rollout's verdict in A and in B.
    let cmp = json_out(
        sebx(&f)
            .arg("compare")
            .args(files(&f))
            .arg("--api-doc")
            .arg(&f.api_doc)
            .args(["--format", "json", "-q"]),
    );
    let pairs = cmp["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 5);
    let mut by_line: Vec<(u64, String, String)> = pairs
        .iter()
        .map(|p| {
            (
                p["a_line"].as_u64().expect("line"),
                p["verdict_a"].as_str().expect("a").to_string(),
                p["verdict_b"].as_str().expect("b").to_string(),
            )
        })
        .collect();
    by_line.sort();
    assert_eq!(
        by_line.iter().map(|p| p.1.as_str()).collect::<Vec<_>>(),
        expected_a,
        "compare, run A"
    );
    assert!(by_line.iter().all(|p| p.2 == "right"), "compare, run B");

    // stats: the verdict counts of each run.
    let stats = json_out(
        sebx(&f)
            .arg("stats")
            .args(files(&f))
            .arg("--api-doc")
            .arg(&f.api_doc)
            .args(["--format", "json", "-q"]),
    );
    let counts = |run: &Value| -> Vec<(String, u64)> {
        run["verdicts"]
            .as_object()
            .expect("verdicts")
            .iter()
            .filter(|(_, n)| n.as_u64() != Some(0))
            .map(|(v, n)| (v.clone(), n.as_u64().expect("n")))
            .collect()
    };
    let mut want: Vec<(String, u64)> = expected_a.iter().map(|v| (v.to_string(), 1)).collect();
    want.sort();
    want.dedup();
    assert_eq!(counts(&stats["runs"][0]), want, "stats, run A");
    assert_eq!(
        counts(&stats["runs"][1]),
        vec![("right".to_string(), 5)],
        "stats, run B"
    );

    // labels export --all: a row per rollout, with its verdict and where it came from.
    let export = sebx(&f)
        .args(["labels", "export"])
        .args(files(&f))
        .arg("--api-doc")
        .arg(&f.api_doc)
        .args(["--all", "--format", "jsonl"])
        .output()
        .expect("export");
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let rows: Vec<Value> = String::from_utf8_lossy(&export.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert_eq!(rows.len(), 10);
    for (row, (from, verdict)) in rows[..5].iter().zip(EXPECTED_A) {
        assert_eq!(row["verdict"], verdict, "labels export: {row}");
        assert_eq!(row["verdict_from"], from, "labels export: {row}");
    }
    for row in &rows[5..] {
        assert_eq!(row["verdict"], "right");
        assert_eq!(row["verdict_from"], "correct");
    }

    // The explorer, with the same files and the same cache.
    let ctx = Context {
        api: Arc::new(ApiMap::from_api_doc_jsonl(API_DOC).expect("api")),
        dataset: Arc::new(dataset()),
        grading: Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly(
            "no grading in this test".into(),
        )),
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    app.corpus.score_cache = Some(Arc::new(
        ScoreCache::open(
            &f.cache_dir,
            &ApiMap::from_api_doc_jsonl(API_DOC).expect("api"),
            &GradingSettings::official(),
        )
        .expect("cache"),
    ));
    let sources = [
        (FileKind::Rollouts, &f.run),
        (FileKind::CorrectTrajectories, &f.correct),
        (FileKind::Reports, &f.scored),
    ]
    .map(|(kind, path)| Source {
        kind,
        data: SourceData::File(path.clone()),
    });
    load_inline(&mut app, &sources);
    drain_inline(&mut app, None);
    let shown: Vec<String> = (0..10)
        .map(|i| match app.corpus.shown(i) {
            Shown::Verdict(v) => v.as_str().to_string(),
            other => format!("{other:?}"),
        })
        .collect();
    let mut want: Vec<String> = expected_a.iter().map(|v| v.to_string()).collect();
    want.extend(std::iter::repeat_n("right".to_string(), 5));
    assert_eq!(shown, want, "the explorer");
}
