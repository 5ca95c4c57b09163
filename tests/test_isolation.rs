//! The suite's isolation as a test, as `layers.rs` checks `src/`: every test source that
//! starts the sebx binary (`cargo_bin("sebx")`, `CARGO_BIN_EXE_sebx`, the tmux helpers'
//! `sebx_bin()`) or opens the explorer in-process (`prepare(`, `open_default(`,
//! `run_default(`) must give it a score cache of its own: it uses `common/isolated.rs` or
//! names the cache itself (`SEBX_SCORE_CACHE`, `cache_dir`, `no_cache`, `--no-cache`).
//! Otherwise it reads whatever verdicts other sebx commands left in the user's cache, and
//! leaves its own there. Comment lines count for neither side.
//!
//! The trace cache follows the same flags: a traced run (`y`) in an explorer opened with a
//! cache folder of its own is remembered there, and nothing reaches the home cache folder
//! (checked by running the explorer in a child process whose HOME is a temp folder).

use crate::isolated;
use crate::tui_common;

use std::path::{Path, PathBuf};

/// What starts sebx in a test source.
const STARTS_THE_BINARY: [&str; 3] = ["cargo_bin(\"sebx\")", "CARGO_BIN_EXE_sebx", "sebx_bin()"];

/// The explorer's in-process entries.
const EXPLORER_ENTRIES: [&str; 3] = ["prepare(", "open_default(", "run_default("];

/// What shows a test source keeps sebx off the user's cache.
const ISOLATED_BY: [&str; 6] = [
    "isolated::",
    "isolated_env(",
    "SEBX_SCORE_CACHE",
    "cache_dir",
    "no_cache",
    "--no-cache",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("the folder is readable")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` without its comment lines (`//`, `///`, `//!`).
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `code` calls the explorer entry `entry` (`prepare(` and the like): as a bare
/// name or as `explore::entry(`, not as another type's or module's function of the same
/// name (`present::prepare(`, `Scored::prepare(`) and not where it is defined (`fn prepare(`).
fn calls_entry(code: &str, entry: &str) -> bool {
    code.match_indices(entry).any(|(i, _)| {
        let before = &code[..i];
        let ident_before = before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if ident_before || before.trim_end().ends_with("fn") {
            return false;
        }
        match before.strip_suffix("::") {
            Some(path) => path.ends_with("explore"),
            None => true,
        }
    })
}

/// Why the test source `text` needs a cache of its own, if it does.
fn starts_sebx(text: &str) -> Option<&'static str> {
    let code = code(text);
    STARTS_THE_BINARY
        .into_iter()
        .find(|s| code.contains(s))
        .or_else(|| EXPLORER_ENTRIES.into_iter().find(|e| calls_entry(&code, e)))
}

fn isolated(text: &str) -> bool {
    let code = code(text);
    ISOLATED_BY.iter().any(|m| code.contains(m))
}

/// Every `.rs` file under `dir` that starts sebx without keeping it off the user's cache,
/// with what starts it.
fn unisolated(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut files = Vec::new();
    sources(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(&f).expect("a test source is readable");
            let why = starts_sebx(&text)?;
            (!isolated(&text)).then_some((f, why))
        })
        .collect()
}

#[test]
fn every_test_that_starts_sebx_has_a_cache_of_its_own() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let bad = unisolated(&tests);
    assert!(
        bad.is_empty(),
        "these tests start sebx on the user's score cache; use tests/common/isolated.rs:\n{}",
        bad.iter()
            .map(|(f, why)| format!("  {} ({why})", f.display()))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The check looks at something: many test files start sebx.
    let mut files = Vec::new();
    sources(&tests, &mut files);
    let starting = files
        .iter()
        .filter(|f| starts_sebx(&std::fs::read_to_string(f).expect("read")).is_some())
        .count();
    assert!(starting >= 20, "only {starting} test files start sebx");
}

#[test]
fn the_check_catches_planted_tests() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plant = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("plant");
    };
    // Caught.
    plant(
        "binary.rs",
        "fn f() { Command::new(env!(\"CARGO_BIN_EXE_sebx\")).output(); }",
    );
    plant(
        "assert.rs",
        "fn f() { Command::cargo_bin(\"sebx\").expect(\"binary\").assert(); }",
    );
    plant(
        "explorer.rs",
        "fn f() { let s = prepare(&ExploreArgs::default(), g); }",
    );
    plant(
        "nested/common/helper.rs",
        "fn f() { sebx::tui::explore::open_default(&args); }",
    );
    plant(
        "tmux.rs",
        "fn f() -> String { format!(\"env HOME=h {} FILE\", sebx_bin()) }",
    );
    plant(
        "comment_only.rs",
        "// SEBX_SCORE_CACHE is not set here.\nfn f() { Command::new(env!(\"CARGO_BIN_EXE_sebx\")); }",
    );
    // Passed: isolated, or not starting sebx at all.
    plant(
        "helper.rs",
        "fn f() { isolated::sebx().arg(\"grade\").output(); let e = env!(\"CARGO_BIN_EXE_sebx\"); }",
    );
    plant(
        "own_cache.rs",
        "fn f() { Command::cargo_bin(\"sebx\").unwrap().env(\"SEBX_SCORE_CACHE\", d); }",
    );
    plant(
        "flags.rs",
        "fn f() { prepare(&ExploreArgs { cache: CacheFlags { no_cache: true, cache_dir: None }, ..ExploreArgs::default() }, g); }",
    );
    plant(
        "others.rs",
        "fn prepare(x: u8) {}\nfn f() { present::prepare(app, s, None); Scored::prepare(r, s, None); prepare_reward(x); }",
    );
    plant(
        "docs.rs",
        "//! Unlike tests that run `sebx` via CARGO_BIN_EXE_sebx or call prepare(...).\nfn f() {}",
    );
    let caught: Vec<(String, &str)> = unisolated(dir.path())
        .into_iter()
        .map(|(f, why)| {
            let rel = f.strip_prefix(dir.path()).expect("under the folder");
            (rel.display().to_string(), why)
        })
        .collect();
    assert_eq!(
        caught,
        vec![
            ("assert.rs".to_string(), "cargo_bin(\"sebx\")"),
            ("binary.rs".to_string(), "CARGO_BIN_EXE_sebx"),
            ("comment_only.rs".to_string(), "CARGO_BIN_EXE_sebx"),
            ("explorer.rs".to_string(), "prepare("),
            ("nested/common/helper.rs".to_string(), "open_default("),
            ("tmux.rs".to_string(), "sebx_bin()"),
        ]
    );
}

/// Set in the child process [`a_traced_run_stays_in_the_tests_cache`] starts.
const CHILD: &str = "SEBX_ISOLATION_CHILD";

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).expect("under").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// `y` on a rollout in an explorer opened with `isolated::explore_args()`: its trace lands in
/// the test's cache folder, and the home cache (HOME and XDG_CACHE_HOME pointed at a temp
/// folder in a child process; the grader's Python named by SEBX_PYTHON) gets no trace.
/// Needs the grader's Python runtime.
#[test]
fn a_traced_run_stays_in_the_tests_cache() {
    if std::env::var_os(CHILD).is_some() {
        return traced_run_in_the_explorer();
    }
    let python = sebx::grade::runtime::find_runtime()
        .expect("the grader's Python runtime (sebx runtime install)")
        .python;
    let home = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            &isolated::test_name(module_path!(), "a_traced_run_stays_in_the_tests_cache"),
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("HOME", home.path())
        .env("XDG_CACHE_HOME", home.path().join(".cache"))
        .env("SEBX_PYTHON", &python)
        .env_remove("SEBX_TRACE_CACHE")
        .env_remove("SEBX_SCORE_CACHE")
        .env_remove("SEBX_CACHE_DIR")
        .output()
        .expect("run the child");
    assert!(
        out.status.success(),
        "the child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let written = files_under(home.path());
    let traces: Vec<_> = written
        .iter()
        .filter(|f| f.components().any(|c| c.as_os_str() == "traces"))
        .collect();
    assert!(
        traces.is_empty(),
        "a test's traced run wrote into the home cache: {traces:?} (all written: {written:?})"
    );
}

/// The child's part: one rollout with a `possible` finding, opened as `sebx FILE` opens it,
/// `y` pressed; the trace is remembered in the test's own cache folder.
fn traced_run_in_the_explorer() {
    use sebx::tui::Action;
    use sebx::tui::inline::drain_inline;

    let dir = tempfile::tempdir().expect("tempdir");
    let api = dir.path().join("api_doc.jsonl");
    std::fs::write(&api, tui_common::API_DOC).expect("write the API doc");
    let file = dir.path().join("run.jsonl");
    let code = "import zwc\n\ndef solve(grid):\n    try:\n        return zwc.kocito(grid, axis=0).tolist()\n    except AttributeError:\n        return 0\n";
    let line = serde_json::json!({
        "query": "Column means of `grid`.",
        "response": tui_common::fence(code),
        "test_cases": [{"input": "grid=[[1, 2], [3, 4]]", "output": "[2.0, 3.0]"}],
        "right_exe_result": "[2.0, 3.0]",
    });
    std::fs::write(&file, format!("{line}\n")).expect("write the run");
    let args = sebx::tui::explore::ExploreArgs {
        paths: vec![file, api],
        ..isolated::explore_args()
    };
    let cache = args
        .cache
        .cache_dir
        .clone()
        .expect("a cache folder of its own");
    let (mut session, backend) = tui_common::open_graded(&args, 110, 36);
    let app = &mut session.app;
    app.update(&Action::PaneCode);
    app.update(&Action::ConfirmFindings);
    drain_inline(app, Some(backend.as_ref()));
    app.service();
    let id = app.corpus.entries[0].rollout.id.clone();
    let confirmation = app
        .reruns
        .confirmation(&id)
        .cloned()
        .expect("the run came back");
    assert!(confirmation.is_ok(), "{confirmation:?}");
    let traces = files_under(&cache.join("traces"));
    assert!(
        !traces.is_empty(),
        "the trace is remembered in the test's cache folder ({})",
        cache.display()
    );
}

/// A command isolated by `common/isolated.rs` reads no user config and signs no labels
/// with the user's name: its config, data and home folders are the test's own, its user
/// is the test user, `$SEBX_ANNOTATOR` is gone, and the user's cache folder (the Python
/// runtime) stays where it was. Checked on the environment a child process receives.
#[test]
fn an_isolated_command_has_its_own_config_home_and_user() {
    let root = isolated::fresh_root();
    let mut cmd = std::process::Command::new("env");
    cmd.env("SEBX_ANNOTATOR", "someone");
    isolated::isolate_in(&mut cmd, &root);
    let out = cmd.output().expect("run env");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let var = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .map(str::to_string)
    };
    for name in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "HOME"] {
        let value = var(name).unwrap_or_else(|| panic!("{name} not set:\n{text}"));
        assert!(Path::new(&value).starts_with(&root), "{name}={value}");
    }
    assert_eq!(var("USER").as_deref(), Some(isolated::TEST_USER));
    assert_eq!(var("SEBX_ANNOTATOR"), None, "{text}");
    if let Some(cache) = dirs::cache_dir() {
        assert_eq!(var("XDG_CACHE_HOME"), Some(cache.display().to_string()));
    }
    // In-process: an empty config file of its own and the test user, as arguments.
    let args = isolated::explore_args();
    let config = args.config.expect("a config file");
    assert!(config.is_file() && std::fs::read_to_string(&config).expect("read").is_empty());
    assert_eq!(args.annotator.as_deref(), Some(isolated::TEST_USER));
}
