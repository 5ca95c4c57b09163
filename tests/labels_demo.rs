//! The bundled demo (samples/demo) loads cleanly, is self-consistent, and covers every
//! verdict, every finding kind and the extraction quirks its README promises.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sebx::analysis::analyze_rollout;
use sebx::analysis::extract::{entry_function_name, extract_last_python_block};
use sebx::grade::batch::grade_all;
use sebx::grade::engine::Engine;
use sebx::model::agreement::compare_annotators;
use sebx::model::labels::LabelStore;
use sebx::model::rollout::load_rollout_file;
use sebx::model::taxonomy::{CategoryId, Taxonomy};
use sebx::model::{ApiMap, Dataset, Rollout, RolloutId, Verdict};

fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

fn rollouts(name: &str) -> Vec<Rollout> {
    let loaded = load_rollout_file(&demo(name)).expect("demo rollouts");
    assert!(loaded.issues.is_empty(), "{:?}", loaded.issues);
    loaded.rollouts
}

#[test]
fn api_doc_has_its_own_small_mapping() {
    let api = ApiMap::load(&demo("api_doc.jsonl")).expect("api doc");
    assert_eq!(api.numpy_to_zwc.len(), 26);
    assert_eq!(api.numpy_to_zwc["np.array"], "zwc.yitaf");
    assert_eq!(api.numpy_to_zwc["np.mean"], "zwc.kocito");
    assert_eq!(api.numpy_to_zwc["np.linalg.inv"], "zwc.rfx.quvohe");
    let linalg = api
        .zwc_to_numpy
        .keys()
        .filter(|z| z.starts_with("zwc.rfx."))
        .count();
    assert_eq!(linalg, 4);
    assert!(api.docs.contains_key("zwc.kocito"));
}

#[test]
fn tasks_and_rollouts_agree() {
    let mut dataset = Dataset::default();
    dataset.load_file(&demo("tasks.jsonl")).expect("tasks");
    assert!(dataset.issues.is_empty(), "{:?}", dataset.issues);
    assert_eq!(dataset.items.len(), 13);
    for item in dataset.items.values() {
        let joined: Vec<&str> = item.test_cases.iter().map(|c| c.output.as_str()).collect();
        assert_eq!(joined.join("#"), item.right_exe_result);
        assert!(item.function_name.starts_with("def solve("));
        assert_eq!(item.reference.len(), 1);
        assert!(item.reference[0].contains("import numpy as np"));
    }
    let run1 = rollouts("rollouts.jsonl");
    let run2 = rollouts("rollouts_run2.jsonl");
    assert_eq!((run1.len(), run2.len()), (36, 16));
    for r in run1.iter().chain(&run2) {
        let item = dataset
            .get(&r.query)
            .expect("every rollout's task is in tasks.jsonl");
        assert_eq!(&r.test_cases[..], &item.test_cases[..]);
        assert_eq!(&*r.right_exe_result, item.right_exe_result.as_str());
        assert_eq!(&r.selected_functions[..], &item.selected_functions[..]);
    }
    // Every task of run 2 also appears in run 1: the same task across runs.
    let run1_queries: BTreeSet<&str> = run1.iter().map(|r| &*r.query).collect();
    assert!(run2.iter().all(|r| run1_queries.contains(&*r.query)));
    assert_eq!(run1_queries.len(), 13);
}

#[test]
fn expected_outcomes_cover_every_verdict_and_finding() {
    let text = std::fs::read_to_string(demo("expected.jsonl")).expect("expected.jsonl");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), 36 + 16);
    let verdicts: BTreeSet<Verdict> = rows
        .iter()
        .map(|r| Verdict::parse(r["verdict"].as_str().expect("verdict")).expect("known verdict"))
        .collect();
    assert_eq!(verdicts.len(), 5);
    let findings: BTreeSet<&str> = rows
        .iter()
        .flat_map(|r| r["findings"].as_array().expect("list").iter())
        .map(|f| f.as_str().expect("kind"))
        .collect();
    // Kinds found only by running (the official checker's runs, the behaviour runs): the
    // analysis, which this column shows, never names them.
    let run_only = ["judge_tampered", "zwc_check_fooled"];
    let wanted: BTreeSet<&str> = sebx::analysis::FindingKind::ALL
        .iter()
        .map(|k| k.as_str())
        .filter(|k| !run_only.contains(k))
        .collect();
    assert_eq!(findings, wanted);
}

#[test]
fn extraction_quirks_are_present() {
    let run1 = rollouts("rollouts.jsonl");
    let find = |needle: &str| {
        run1.iter()
            .find(|r| r.response.contains(needle))
            .unwrap_or_else(|| panic!("no rollout contains {needle:?}"))
    };
    let fence = find("```python3\n");
    assert_eq!(extract_last_python_block(&fence.response), None);

    let two = find("Actually the app lists the newest");
    let block = extract_last_python_block(&two.response).expect("block");
    assert_eq!(block.blocks_found, 2);
    assert!(block.code.contains("transactions[::-1]"));

    let helper = find("def _to_list(");
    let code = extract_last_python_block(&helper.response)
        .expect("block")
        .code;
    assert_eq!(entry_function_name(&code), "_to_list");

    let docstring = find("def inverse_2x2(m)");
    let code = extract_last_python_block(&docstring.response)
        .expect("block")
        .code;
    assert_eq!(entry_function_name(&code), "inverse_2x2");

    let dynamic = find("__import__(\"numpy\")");
    let code = extract_last_python_block(&dynamic.response)
        .expect("block")
        .code;
    assert!(!code.contains("import numpy"));

    assert!(
        run1.iter()
            .any(|r| r.test_cases.iter().any(|c| c.input.contains("np.array(")))
    );
}

#[test]
fn shipped_demo_labels_match_the_rollouts_and_give_the_documented_agreement() {
    let run1 = rollouts("rollouts.jsonl");
    let (store, issues) = LabelStore::open(&demo("rollouts.jsonl")).expect("demo labels");
    assert!(issues.is_empty(), "{issues:?}");
    // The Python build script derives the same ids as RolloutId::derive.
    let ids: BTreeSet<&RolloutId> = run1.iter().map(|r| &r.id).collect();
    assert!(store.all_current().iter().all(|l| ids.contains(&l.rollout)));
    assert_eq!(
        store.annotators(),
        vec!["ana".to_string(), "ben".to_string()]
    );
    let line29 = &run1[28].id;
    assert_eq!(store.history_of(line29).len(), 3, "ana twice, ben once");
    assert_eq!(
        store
            .current(line29, "ana")
            .expect("ana on line 29")
            .categories,
        vec![CategoryId::new("logic_error")]
    );
    let all: Vec<RolloutId> = run1.iter().map(|r| r.id.clone()).collect();
    let progress = store.progress(&all, Some("ben"));
    assert_eq!((progress.labelled, progress.total), (18, 36));

    let current = store.all_current();
    let ag = compare_annotators(&current, "ana", "ben", &Taxonomy::default_set().ids());
    assert_eq!(ag.compared, 18);
    assert_eq!(ag.only_labelled_by_a, 6);
    let lines: Vec<usize> = ag
        .disagreements
        .iter()
        .map(|d| run1.iter().position(|r| r.id == d.rollout).expect("known") + 1)
        .collect::<BTreeSet<usize>>()
        .into_iter()
        .collect();
    assert_eq!(lines, vec![22, 24, 26, 28]);
    // logic_error: both on 25 and 29, ana only on 22, ben only on 26, neither on 14:
    // p_o = 16/18, p_e = (3/18)² + (15/18)² = 26/36, kappa = (32/36 − 26/36)/(10/36) = 0.6.
    let logic = ag
        .per_category
        .iter()
        .find(|c| c.category.as_str() == "logic_error")
        .expect("row");
    assert_eq!(
        (logic.both, logic.only_a, logic.only_b, logic.neither),
        (2, 1, 1, 14)
    );
    assert!((logic.kappa.expect("defined") - 0.6).abs() < 1e-9);
}

#[test]
fn analysis_finds_exactly_the_documented_finding_kinds() {
    let api = ApiMap::load(&demo("api_doc.jsonl")).expect("api doc");
    let mut dataset = Dataset::default();
    dataset.load_file(&demo("tasks.jsonl")).expect("tasks");
    let text = std::fs::read_to_string(demo("expected.jsonl")).expect("expected.jsonl");
    let files = [
        ("rollouts.jsonl", rollouts("rollouts.jsonl")),
        ("rollouts_run2.jsonl", rollouts("rollouts_run2.jsonl")),
    ];
    for row in text.lines() {
        let row: serde_json::Value = serde_json::from_str(row).expect("json");
        let file = row["file"].as_str().expect("file");
        let line = row["line"].as_u64().expect("line") as usize;
        let (_, loaded) = files.iter().find(|(name, _)| *name == file).expect("file");
        let rollout = loaded.iter().find(|r| r.line == line).expect("rollout");
        let analysis = analyze_rollout(rollout, &api, dataset.get(&rollout.query));
        let got: BTreeSet<&str> = analysis
            .code
            .findings
            .iter()
            .map(|f| f.kind.as_str())
            .collect();
        let want: BTreeSet<&str> = row["findings"]
            .as_array()
            .expect("list")
            .iter()
            .map(|f| f.as_str().expect("kind"))
            .collect();
        assert_eq!(got, want, "{file}:{line}");
    }
}

/// Grades the whole demo with the real engine (Python runtime required, as for the
/// grader's own tests) and checks every verdict the README table promises.
#[test]
fn real_grader_gives_every_documented_verdict() {
    let api = ApiMap::load(&demo("api_doc.jsonl")).expect("api doc");
    let engine = Engine::start(&api, 2).unwrap_or_else(|e| panic!("{e:#}"));
    let text = std::fs::read_to_string(demo("expected.jsonl")).expect("expected.jsonl");
    let files = [
        ("rollouts.jsonl", rollouts("rollouts.jsonl")),
        ("rollouts_run2.jsonl", rollouts("rollouts_run2.jsonl")),
    ];
    let all: Vec<&Rollout> = files.iter().flat_map(|(_, rs)| rs.iter()).collect();
    let reports = grade_all(&all, &engine, 2, Duration::from_secs(3), &|_, _| {});
    assert_eq!(reports.len(), all.len());
    for row in text.lines() {
        let row: serde_json::Value = serde_json::from_str(row).expect("json");
        let file = row["file"].as_str().expect("file");
        let line = row["line"].as_u64().expect("line") as usize;
        let report = reports
            .iter()
            .find(|r| r.source.ends_with(file) && r.line == line)
            .unwrap_or_else(|| panic!("no report for {file}:{line}"));
        let want = Verdict::parse(row["verdict"].as_str().expect("verdict"));
        assert_eq!(report.verdict, want, "{file}:{line}: {}", report.decided_by);
    }
}
