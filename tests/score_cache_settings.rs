//! The score cache is keyed by the grading settings (issue 20, "a cache that cannot lie"): a
//! verdict graded at one timeout is never reused at another. A program that sleeps 0.6 s is
//! `right` at `--timeout 2` and `exe_error` at `--timeout 0.3`, whatever the cache holds;
//! and `--timeout` is checked before anything runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

/// One rollout whose program takes 0.6 s and is otherwise right.
fn slow_rollout(dir: &Path) -> PathBuf {
    let response = "Mean per row, after a pause.\n\n```python\nimport time\nimport zwc\n\n\
def solve(readings):\n    time.sleep(0.6)\n    return zwc.kocito(readings, axis=1)\n```";
    let line = serde_json::json!({
        "query": "Average each row of `readings`, slowly.",
        "response": response,
        "test_cases": [{"input": "readings=[[20, 23], [22.5, 24]]", "output": "[21.5, 23.25]"}],
        "right_exe_result": "[21.5, 23.25]",
    });
    let path = dir.join("slow.jsonl");
    std::fs::write(&path, format!("{line}\n")).expect("write");
    path
}

fn sebx(cache: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sebx"));
    cmd.env("SEBX_SCORE_CACHE", cache);
    cmd
}

/// `sebx grade` on `file` with `extra`: (the one report, stderr).
fn grade(cache: &Path, file: &Path, extra: &[&str]) -> (Value, String) {
    let out = sebx(cache)
        .args(["grade", "-q", "--jobs", "1", "--api-doc"])
        .arg(demo("api_doc.jsonl"))
        .arg(file)
        .args(extra)
        .output()
        .expect("sebx grade runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(stdout.lines().next().expect("one report")).expect("JSON");
    (report, stderr)
}

fn verdict(report: &Value) -> &str {
    report["verdict"].as_str().unwrap_or("none")
}

#[test]
fn a_verdict_graded_at_one_timeout_is_not_reused_at_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("scores");
    let file = slow_rollout(dir.path());

    // Graded at 2 s: right, and remembered.
    let (report, _) = grade(&cache, &file, &["--timeout", "2"]);
    assert_eq!(verdict(&report), "right", "{report}");
    // The same settings reuse it.
    let (report, stderr) = grade(&cache, &file, &["--cached", "--timeout", "2"]);
    assert!(
        stderr.contains("score cache: 1 verdicts reused"),
        "{stderr}"
    );
    assert_eq!(verdict(&report), "right");

    // At 0.3 s the cache has nothing: graded again, and the program times out.
    let (report, stderr) = grade(&cache, &file, &["--cached", "--timeout", "0.3"]);
    assert!(
        !stderr.contains("reused"),
        "served across timeouts: {stderr}"
    );
    assert_eq!(verdict(&report), "exe_error", "{report}");
    assert_eq!(report["execution"]["timed_out"], true, "{report}");
    // The official timeout is another setting again (and the program fits in it).
    let (report, stderr) = grade(&cache, &file, &["--cached"]);
    assert!(!stderr.contains("reused"), "{stderr}");
    assert_eq!(verdict(&report), "right");
    // Another scorer asking for the reward is not served the verdict-only reports.
    let (report, stderr) = grade(&cache, &file, &["--cached", "--scorer", "both"]);
    assert!(!stderr.contains("reused"), "{stderr}");
    assert_eq!(report["reward"], 1, "{report}");
    // Graded with both, it is reused by the next lookup for both.
    let (_, stderr) = grade(&cache, &file, &["--cached", "--scorer", "both"]);
    assert!(
        stderr.contains("score cache: 1 verdicts reused"),
        "{stderr}"
    );

    // `sebx stats` at a timeout nothing was graded at grades: exe_error, though the cache
    // holds `right` at 2 s and 3 s; at 2 s it reuses `right`.
    let stats = |timeout: &str| -> (Value, String) {
        let out = sebx(&cache)
            .arg("stats")
            .arg(&file)
            .arg("--api-doc")
            .arg(demo("api_doc.jsonl"))
            .args([
                "--timeout",
                timeout,
                "--format",
                "json",
                "-q",
                "--jobs",
                "1",
            ])
            .output()
            .expect("sebx stats runs");
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let notes = v["notes"].to_string();
        (v["runs"][0]["verdicts"].clone(), notes)
    };
    let (verdicts, notes) = stats("0.4");
    assert_eq!(verdicts["exe_error"], 1, "{verdicts}");
    assert_eq!(verdicts["right"], 0, "{verdicts}");
    assert!(!notes.contains("reused from the score cache"), "{notes}");
    assert!(notes.contains("graded 1 rollouts"), "{notes}");
    let (verdicts, notes) = stats("2");
    assert_eq!(verdicts["right"], 1, "{verdicts}");
    assert!(
        notes.contains("1 verdicts reused from the score cache"),
        "{notes}"
    );
}

/// The explorer opens its cache with its grader's settings: a grader with another
/// timeout neither reads nor writes the default one's records.
#[test]
fn the_explorers_cache_is_keyed_by_its_graders_settings() {
    use sebx::grade::backend::Grader;
    use sebx::grade::report::GradeReport;
    use sebx::grade::score_cache::ScoreCache;
    use sebx::model::Verdict;

    let dir = tempfile::tempdir().expect("tempdir");
    let file = slow_rollout(dir.path());
    let loaded = sebx::model::rollout::load_rollout_file(&file).expect("load");
    let rollout = &loaded.rollouts[0];
    let api = sebx::model::ApiMap::default();
    let slow = Grader::new(api.clone(), 1).with_timeout(Duration::from_secs(10));
    let cache = ScoreCache::open(dir.path(), &api, slow.settings()).expect("open");
    let mut report = GradeReport::load_failure("slow.jsonl", 1, "");
    report.load_error = None;
    report.verdict = Some(Verdict::Right);
    report.reward = Some(1);
    cache.put(rollout, &report).expect("put");
    assert!(cache.get(rollout).is_some());
    let default = ScoreCache::open(dir.path(), &api, &Grader::default_settings()).expect("open");
    assert!(default.get(rollout).is_none(), "10 s verdict served at 3 s");
    assert!(!default.remembers(slow.settings()));
}

#[test]
fn a_timeout_that_is_not_positive_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("scores");
    let file = slow_rollout(dir.path());
    let out_file = dir.path().join("out.jsonl");
    let fails = |out: Output, value: &str| {
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--timeout"), "{stderr}");
        assert!(stderr.contains(value), "{stderr}");
        stderr.to_string()
    };
    for args in [
        ["--timeout", "-1"].as_slice(),
        &["--timeout=-1"],
        &["--timeout", "0"],
        &["--timeout", "nan"],
        &["--timeout", "soon"],
    ] {
        let out = sebx(&cache)
            .args(["grade", "-q", "--api-doc"])
            .arg(demo("api_doc.jsonl"))
            .arg(&file)
            .arg("-o")
            .arg(&out_file)
            .args(args)
            .output()
            .expect("sebx grade runs");
        let value = args.last().expect("value").trim_start_matches("--timeout=");
        let stderr = fails(out, value);
        if value == "-1" {
            assert!(
                stderr.contains("must be a positive number of seconds"),
                "{stderr}"
            );
        }
    }
    assert!(!out_file.exists(), "graded before the flags were checked");
    assert!(
        !cache.exists(),
        "opened the cache before the flags were checked"
    );
    // Every command with --timeout parses it the same way.
    for cmd in [
        vec!["rerun", "x.jsonl", "--line", "1"],
        vec!["stats", "x.jsonl"],
        vec!["serve"],
    ] {
        let out = sebx(&cache)
            .args(&cmd)
            .args(["--timeout", "-1"])
            .output()
            .expect("sebx runs");
        fails(out, "-1");
    }
}

/// Issue 20's case as a user meets it: a program that needs 3.5 s is `right` under
/// `sebx grade --timeout 10`; at the official 3 s, `sebx grade --cached`, `sebx stats` and
/// the explorer each grade it again (nothing is reused) and say `exe_error`.
#[test]
fn graded_at_10_s_then_every_front_end_at_3_s_regrades() {
    use std::sync::Arc;

    use sebx::grade::backend::Grader;
    use sebx::grade::reward::Scorer;
    use sebx::grade::score_cache::ScoreCache;
    use sebx::model::{ApiMap, Dataset, Verdict};
    use sebx::tui::app::{App, Context, Grading};
    use sebx::tui::entry::Shown;
    use sebx::tui::inline::{drain_inline, load_inline};
    use sebx::tui::load::{FileKind, Source, SourceData};
    use sebx::tui::{Keymap, Theme};

    let dir = tempfile::tempdir().expect("tempdir");
    let cache_dir = dir.path().join("scores");
    let text = std::fs::read_to_string(slow_rollout(dir.path())).expect("read");
    let file = dir.path().join("slower.jsonl");
    std::fs::write(&file, text.replace("time.sleep(0.6)", "time.sleep(3.5)")).expect("write");

    let (report, _) = grade(&cache_dir, &file, &["--timeout", "10"]);
    assert_eq!(verdict(&report), "right", "{report}");
    // Each front end gets its own copy of that cache (a front end that regrades at 3 s
    // remembers its exe_error, which the next one may then rightly reuse).
    let copy = |name: &str| {
        let to = dir.path().join(name);
        std::fs::create_dir_all(&to).expect("mkdir");
        for entry in std::fs::read_dir(&cache_dir).expect("cache dir") {
            let from = entry.expect("entry").path();
            std::fs::copy(&from, to.join(from.file_name().expect("name"))).expect("copy");
        }
        to
    };
    let (for_stats, for_explorer) = (copy("stats-cache"), copy("explorer-cache"));
    // grade --cached at the default timeout.
    let (report, stderr) = grade(&cache_dir, &file, &["--cached"]);
    assert!(!stderr.contains("reused"), "{stderr}");
    assert_eq!(verdict(&report), "exe_error", "{report}");
    // stats at the default timeout.
    let out = sebx(&for_stats)
        .args(["stats", "-q", "--format", "json", "--api-doc"])
        .arg(demo("api_doc.jsonl"))
        .arg(&file)
        .output()
        .expect("stats");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(stats["runs"][0]["verdicts"]["exe_error"], 1, "{stats}");
    assert!(
        !stats["notes"]
            .to_string()
            .contains("reused from the score cache"),
        "{stats}"
    );
    // The explorer, with the cache opened as `sebx FILE` opens it.
    let api = ApiMap::load(&demo("api_doc.jsonl")).expect("api");
    let grader = Grader::discover(&api, 1).expect("the runtime is installed");
    let settings = grader.settings().clone().with_scorer(Scorer::Verdict);
    let ctx = Context {
        api: Arc::new(api.clone()),
        dataset: Arc::new(Dataset::default()),
        grading: Grading::Available,
        notes: Vec::new(),
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    app.corpus.score_cache = Some(Arc::new(
        ScoreCache::open(&for_explorer, &api, &settings).expect("cache"),
    ));
    let sources = [Source {
        kind: FileKind::Rollouts,
        data: SourceData::File(file.clone()),
    }];
    load_inline(&mut app, &sources);
    drain_inline(&mut app, Some(&grader));
    assert_eq!(app.corpus.shown(0), Shown::Verdict(Verdict::ExeError));
}
