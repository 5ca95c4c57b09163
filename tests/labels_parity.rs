//! The explorer's suggested label category equals `sebx labels export`'s for every rollout of
//! the parity corpus (../shared/data/parity), with the official verdicts given to both and
//! with no verdict at all: both front ends call `sebx::analysis::suggested_category`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sebx::grade::report::GradeReport;
use sebx::model::Verdict;
use sebx::model::rollout::load_rollout_file;
use sebx::tui::app::Grading;
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::inline::{drain_inline, load_inline};
use serde_json::Value;

use crate::isolated;
use crate::shared_data;

fn shared() -> PathBuf {
    shared_data::shared_data()
}

/// `sebx labels export --all` as JSON lines: suggested category by rollout id.
fn exported(rollouts: &Path, scores: Option<&Path>) -> HashMap<String, Option<String>> {
    exported_with(rollouts, scores, &[])
}

/// [`exported`] with more flags.
fn exported_with(
    rollouts: &Path,
    scores: Option<&Path>,
    flags: &[&str],
) -> HashMap<String, Option<String>> {
    let data = shared();
    let mut cmd = isolated::sebx();
    // No score cache, as the explorer below: both front ends judge from the same verdicts
    // whatever this machine's cache holds.
    cmd.args([
        "labels",
        "export",
        "--all",
        "--no-cache",
        "--format",
        "jsonl",
    ])
    .arg(rollouts)
    .arg("--api-doc")
    .arg(data.join("se-bench/api_doc.jsonl"))
    .arg("--dataset")
    .arg(data.join("se-bench/single_test.jsonl"))
    .args(flags);
    if let Some(s) = scores {
        cmd.arg("--scores").arg(s);
    }
    let out = cmd.output().expect("runs sebx");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| {
            let row: Value = serde_json::from_str(l).expect("a JSON row");
            (
                row["rollout_id"].as_str().expect("id").to_string(),
                row["suggested_category"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// The explorer opened on `paths` as `sebx explore` opens them, after its background
/// analysis: suggested category by rollout id.
fn explorer(paths: Vec<PathBuf>) -> HashMap<String, Option<String>> {
    let data = shared();
    let args = ExploreArgs {
        paths,
        context: sebx::model::discovery::ContextArgs {
            api_doc: Some(data.join("se-bench/api_doc.jsonl")),
            dataset: vec![data.join("se-bench/single_test.jsonl")],
        },
        cache: sebx::session::CacheFlags {
            no_cache: true,
            cache_dir: None,
        },
        ..ExploreArgs::default()
    };
    let mut session = prepare(
        &args,
        Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime),
    )
    .expect("explorer session");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, None);
    let app = &session.app;
    assert!((0..app.corpus.entries.len()).all(|i| app.corpus.digest(i).is_some()));
    app.corpus
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                e.rollout.id.0.clone(),
                app.labelling
                    .suggestion(&app.corpus, i)
                    .map(|c| c.id.0.clone()),
            )
        })
        .collect()
}

fn assert_same(
    explorer: &HashMap<String, Option<String>>,
    cli: &HashMap<String, Option<String>>,
    what: &str,
) {
    assert_eq!(explorer.len(), cli.len(), "{what}: row counts");
    let mut differ: Vec<String> = explorer
        .iter()
        .filter(|(id, s)| cli.get(*id) != Some(s))
        .map(|(id, s)| format!("{id}: explorer {s:?}, export {:?}", cli.get(id)))
        .collect();
    differ.sort();
    assert!(
        differ.is_empty(),
        "{what}: {} differ, e.g. {:?}",
        differ.len(),
        &differ[..differ.len().min(10)]
    );
}

#[test]
fn explorer_and_export_suggest_the_same_category_for_every_parity_rollout() {
    let rollouts = shared().join("parity/rollouts.jsonl");
    let loaded = load_rollout_file(&rollouts).expect("parity rollouts");
    let official: Vec<Value> =
        std::fs::read_to_string(shared().join("parity/official_verdicts.jsonl"))
            .expect("official verdicts")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
    assert_eq!(loaded.rollouts.len(), official.len());

    // The official verdicts as `sebx grade` output, which both front ends read.
    let dir = tempfile::tempdir().expect("tempdir");
    let scores = dir.path().join("parity.scored.jsonl");
    let source = rollouts.display().to_string();
    let mut text = String::new();
    for (r, o) in loaded.rollouts.iter().zip(&official) {
        let mut report = GradeReport::load_failure(&source, r.line, "");
        report.load_error = None;
        report.id = Some(r.id.clone());
        report.verdict = o["verdict"].as_str().and_then(Verdict::parse);
        assert!(report.verdict.is_some(), "line {}: {o}", r.line);
        text.push_str(&(serde_json::to_string(&report).expect("json") + "\n"));
    }
    std::fs::write(&scores, text).expect("write scores");

    let graded = explorer(vec![rollouts.clone(), scores.clone()]);
    let cli = exported(&rollouts, Some(&scores));
    assert_eq!(graded.len(), loaded.rollouts.len());
    assert_same(&graded, &cli, "with the official verdicts");
    // Not a trivial agreement: the suggestions cover several categories.
    let mut categories: Vec<&str> = graded.values().flatten().map(String::as_str).collect();
    categories.sort_unstable();
    categories.dedup();
    assert!(categories.len() >= 5, "{categories:?}");

    // Without verdicts (an explorer without a Python runtime, an export told not to grade)
    // both judge from the analysis alone.
    let ungraded = explorer(vec![rollouts.clone()]);
    assert_same(
        &ungraded,
        &exported_with(&rollouts, None, &["--no-grade"]),
        "without verdicts",
    );
    assert!(ungraded.values().any(Option::is_some));
}
