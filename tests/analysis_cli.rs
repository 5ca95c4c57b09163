//! `sebx analyze` through its library entry point (the binary's wiring is tested elsewhere).

use sebx::analysis::analyze_rollout;
use sebx::cli::analyze::{AnalysisSummary, AnalyzeArgs, render_analysis_text, run_analyze};
use sebx::model::ApiMap;
use sebx::model::discovery::ContextArgs;
use sebx::model::rollout::load_rollout_file;
use serde_json::{Value, json};

use crate::isolated;

fn rollout_line(response: &str) -> String {
    json!({
        "query": "Average the values.",
        "response": response,
        "test_cases": [{"input": "a=[1, 2]", "output": "1.5"}],
        "right_exe_result": "1.5",
        "selected_functions": ["mean"],
    })
    .to_string()
}

fn write_fixture(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let api = dir.join("mappings.json");
    std::fs::write(
        &api,
        json!({"main": {"mean": "kocito", "array": "yitaf", "sum": "bapu"}, "linalg": {"inv": "quvohe"}})
            .to_string(),
    )
    .expect("write api");
    let rollouts = dir.join("run.jsonl");
    let lines = [
        rollout_line("Here:\n```python\nimport zwc\ndef f(a):\n    return zwc.kocito(a)\n```\n"),
        "{not json".to_string(),
        rollout_line(
            "Text\n\n```python\nimport zwc\ndef f(a):\n    x = zwc.mean(a)\n    return zwc.yitaf(a).tolist()\n```",
        ),
    ];
    std::fs::write(&rollouts, lines.join("\n") + "\n").expect("write rollouts");
    (api, rollouts)
}

#[test]
fn analyze_writes_one_object_per_line_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (api, rollouts) = write_fixture(dir.path());
    let out = dir.path().join("out.jsonl");
    run_analyze(AnalyzeArgs {
        rollouts: vec![rollouts.clone()],
        output: Some(out.clone()),
        confirm: false,
        cache: Default::default(),
        context: ContextArgs {
            api_doc: Some(api),
            dataset: vec![],
        },
    })
    .expect("analyze runs");
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .expect("output")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines.iter().map(|l| l["line"].as_u64()).collect::<Vec<_>>(),
        vec![Some(1), Some(2), Some(3)]
    );
    assert!(
        lines[0]["findings"]
            .as_array()
            .expect("findings")
            .is_empty()
    );
    assert!(lines[0]["id"].is_string());
    assert!(
        lines[0]["graph"]["nodes"]
            .as_array()
            .is_some_and(|n| !n.is_empty())
    );
    assert!(lines[1]["id"].is_null());
    assert!(lines[1]["error"].is_string());

    let findings = lines[2]["findings"].as_array().expect("findings");
    let kinds: Vec<&str> = findings.iter().filter_map(|f| f["kind"].as_str()).collect();
    assert_eq!(kinds, vec!["numpy_name_on_zwc", "array_method"]);
    let mean = &findings[0];
    assert_eq!(mean["name"], "zwc.mean");
    assert_eq!(mean["suggestion"], "zwc.kocito");
    assert_eq!(
        (mean["line"].as_u64(), mean["col"].as_u64()),
        (Some(3), Some(9))
    );
    // The code starts on response line 4 ("Text", "", fence, code).
    assert_eq!(mean["response_line"].as_u64(), Some(6));
    assert_eq!(findings[1]["name"], "tolist");
    assert!(
        lines[2]["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("run.jsonl"))
    );
    assert_eq!(lines[2]["static_check"]["passed"], true);
}

#[test]
fn summary_counts_kinds_and_frequent_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (api, rollouts) = write_fixture(dir.path());
    let api = ApiMap::load(&api).expect("api");
    let loaded = load_rollout_file(&rollouts).expect("load");
    let mut summary = AnalysisSummary::default();
    for r in &loaded.rollouts {
        summary.add(&analyze_rollout(r, &api, None));
    }
    assert_eq!(summary.rollouts, 2);
    let text = summary.render(5);
    assert!(text.contains("numpy_name_on_zwc  1"), "{text}");
    assert!(text.contains("array_method       1"), "{text}");
    assert!(text.contains("zwc.mean → zwc.kocito"), "{text}");
    assert!(text.contains("tolist → (no zwc equivalent)"), "{text}");
}

#[test]
fn graph_text_shows_check_graph_and_findings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (api, rollouts) = write_fixture(dir.path());
    let api = ApiMap::load(&api).expect("api");
    let loaded = load_rollout_file(&rollouts).expect("load");
    let bad = loaded
        .rollouts
        .iter()
        .find(|r| r.line == 3)
        .expect("line 3");
    let text = render_analysis_text(&analyze_rollout(bad, &api, None), 80);
    assert!(text.starts_with("static check: passed\n"), "{text}");
    assert!(text.contains("entry f(a)"), "{text}");
    assert!(text.contains("zwc.mean ‹?›"), "{text}");
    // At `tolist` itself (column 25 of `    return zwc.yitaf(a).tolist()`), not at the
    // start of the expression it ends.
    assert!(text.contains("L4:25 array_method tolist"), "{text}");
    let dot = analyze_rollout(bad, &api, None).code.graph.to_dot();
    assert!(dot.contains("digraph"));
}

/// A 6,000-character invented name is cut where it is printed (summary, `sebx graph` text),
/// its start and end kept, and kept whole in the JSON output.
#[test]
fn long_invented_names_are_cut_where_printed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (api, _) = write_fixture(dir.path());
    let name = format!("kocito{}end", "x".repeat(6000));
    let rollouts = dir.path().join("long.jsonl");
    std::fs::write(
        &rollouts,
        rollout_line(&format!(
            "```python\nimport zwc\ndef f(a):\n    return zwc.{name}(a)\n```\n"
        )) + "\n",
    )
    .expect("write");
    let api_map = ApiMap::load(&api).expect("api");
    let loaded = load_rollout_file(&rollouts).expect("load");
    let a = analyze_rollout(&loaded.rollouts[0], &api_map, None);
    assert!(
        a.code.findings.iter().any(|f| f.name.len() > 6000),
        "the finding keeps the whole name: {:?}",
        a.code
            .findings
            .iter()
            .map(|f| f.name.len())
            .collect::<Vec<_>>()
    );
    let mut summary = AnalysisSummary::default();
    summary.add(&a);
    for text in [summary.render(10), render_analysis_text(&a, 80)] {
        let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        assert!(longest <= 160, "a {longest}-character line:\n{text}");
        assert!(text.contains("zwc.kocitoxxx"), "{text}");
        assert!(text.contains("xxxend"), "{text}");
        assert!(text.contains('…'), "{text}");
    }
    // The binary's summary (stdout when JSON goes to a file), and the JSON kept whole.
    let out = dir.path().join("out.jsonl");
    let assert = isolated::assert_sebx()
        .args(["analyze", "--api-doc"])
        .arg(&api)
        .arg("-o")
        .arg(&out)
        .arg(&rollouts)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.contains("most frequent wrong names"), "{stdout}");
    assert!(stdout.lines().all(|l| l.chars().count() <= 160), "{stdout}");
    let json = std::fs::read_to_string(&out).expect("json");
    assert!(json.contains(&name), "the JSON output keeps the whole name");
}

#[test]
fn shorten_keeps_short_text_and_cuts_long_text_to_width() {
    use sebx::cli::analyze::shorten;
    assert_eq!(shorten("zwc.kocito", 60), "zwc.kocito");
    let long = "é".repeat(100) + "END";
    let cut = shorten(&long, 20);
    assert_eq!(cut.chars().count(), 20);
    assert!(cut.starts_with("éééé") && cut.ends_with("END") && cut.contains('…'));
    assert_eq!(shorten("abc", 1), "…");
}
