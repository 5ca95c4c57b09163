//! The explorer's entry: files classified and discovered, config applied, the demo embedded.

use std::collections::BTreeSet;

use sebx::analysis::FindingKind;
use sebx::tui::Action;
use sebx::tui::action::KeyChord;
use sebx::tui::app::Grading;
use sebx::tui::entry::Shown;
use sebx::tui::explore::{ExploreArgs, prepare};
use sebx::tui::inline::load_inline;
use sebx::tui::load::FileKind;

use crate::isolated;

fn no_runtime() -> Grading {
    Grading::Unavailable(sebx::grade::backend::Unavailable::NoRuntime)
}

#[test]
fn demo_has_every_verdict_and_every_finding_kind() {
    let config = tempfile::tempdir().expect("tempdir");
    let args = ExploreArgs {
        config: Some(config.path().join("none.toml")),
        ..isolated::explore_args()
    };
    // An explicit config that does not exist is an error; no config at all is fine.
    assert!(prepare(&args, no_runtime()).is_err());
    let mut session = prepare(&isolated::explore_args(), no_runtime()).expect("demo session");
    assert!(session.sources.iter().any(|s| s.kind == FileKind::Reports));
    load_inline(&mut session.app, &session.sources);
    let app = &session.app;
    assert!(app.corpus.entries.len() >= 6);
    let verdicts: BTreeSet<Shown> = (0..app.corpus.entries.len())
        .map(|i| app.corpus.shown(i))
        .collect();
    for v in sebx::model::Verdict::ALL {
        assert!(
            verdicts.contains(&Shown::Verdict(v)),
            "demo lacks {v}: {verdicts:?}"
        );
    }
    // The analysis runs in the background once loading is done.
    assert!((0..app.corpus.entries.len()).all(|i| app.corpus.digest(i).is_none()));
    sebx::tui::inline::drain_inline(&mut session.app, None);
    let app = &session.app;
    assert!((0..app.corpus.entries.len()).all(|i| app.corpus.digest(i).is_some()));
    let kinds: BTreeSet<FindingKind> = app
        .corpus
        .entries
        .iter()
        .enumerate()
        .flat_map(|(i, _)| app.corpus.findings(i).iter().map(|f| f.kind))
        .collect();
    // Kinds found only by running (the official checker's runs, the behaviour runs) are
    // never among the analysis's findings.
    let run_only = [FindingKind::JudgeTampered, FindingKind::ZwcCheckFooled];
    for k in FindingKind::ALL
        .into_iter()
        .filter(|k| !run_only.contains(k))
    {
        assert!(kinds.contains(&k), "demo lacks {k:?}: {kinds:?}");
    }
    assert!(!app.corpus.ctx.api.is_empty());
    assert!(
        app.corpus
            .entries
            .iter()
            .all(|e| app.corpus.dataset_item(e).is_some()),
        "every demo rollout joins its task"
    );
}

#[test]
fn files_are_classified_and_config_applies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    std::fs::write(
        d.join("api_doc.jsonl"),
        "{\"func_mapping\": \"{\\\"np.mean\\\": \\\"zwc.kocito\\\"}\"}\n",
    )
    .expect("write");
    std::fs::write(
        d.join("tasks.jsonl"),
        "{\"query\": \"Q1\", \"function_name\": \"def solve(x):\", \"selected_functions\": [\"mean\"], \"example_output\": [\"import numpy as np\"]}\n",
    )
    .expect("write");
    std::fs::write(
        d.join("run.jsonl"),
        "{\"query\": \"Q1\", \"response\": \"```python\\ndef solve(x):\\n    return zwc.kocito(x)\\n```\", \"test_cases\": [], \"right_exe_result\": \"\"}\n{oops\n",
    )
    .expect("write");
    std::fs::write(
        d.join("correct_trajectories.jsonl"),
        "{\"query\": \"Q1\", \"response\": \"r\", \"test_cases\": [], \"right_exe_result\": \"\"}\n",
    )
    .expect("write");
    // In a folder, label sidecars and files sebx does not read are skipped.
    std::fs::write(
        d.join("run.jsonl.labels.jsonl"),
        "{\"id\": \"x\", \"label\": \"y\"}\n",
    )
    .expect("write");
    std::fs::write(d.join("expected.jsonl"), "{\"file\": \"x\", \"line\": 1}\n").expect("write");
    let config = d.join("config.toml");
    std::fs::write(
        &config,
        "theme = \"high-contrast\"\n[keys]\n\"x\" = \"quit\"\n",
    )
    .expect("write");
    let args = ExploreArgs {
        paths: vec![d.to_path_buf()],
        config: Some(config.clone()),
        ..isolated::explore_args()
    };
    let mut session = prepare(&args, no_runtime()).expect("session");
    // The files, classified; the folder itself is watched for files to come (followed).
    let (folders, files): (Vec<_>, Vec<_>) = session
        .sources
        .iter()
        .partition(|s| matches!(s.data, sebx::tui::load::SourceData::Folder { .. }));
    let kinds: Vec<FileKind> = files.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        vec![FileKind::CorrectTrajectories, FileKind::Rollouts]
    );
    assert_eq!(folders.len(), 1, "the folder given is followed");
    assert!(
        session
            .app
            .corpus
            .ctx
            .notes
            .iter()
            .any(|n| n.contains("skipped") && n.contains("expected.jsonl"))
    );
    assert_eq!(session.app.theme.name, "high-contrast");
    // The user's key leads the action's keys (the hints show it first).
    let x = KeyChord::parse("x").expect("chord");
    assert_eq!(
        session.app.keymap.keys_for(Action::Quit)[..],
        [
            x,
            KeyChord::parse("q").expect("q"),
            KeyChord::parse("ctrl-c").expect("c"),
        ][..]
    );
    assert_eq!(
        session.app.corpus.ctx.api.zwc_name("np.mean"),
        Some("zwc.kocito")
    );
    assert!(session.app.corpus.ctx.dataset.get("Q1").is_some());
    load_inline(&mut session.app, &session.sources);
    let app = &session.app;
    assert_eq!(app.corpus.entries.len(), 2);
    assert_eq!(app.corpus.issues.len(), 1);
    assert_eq!(app.corpus.issues[0].line, 2);
    // Every line of a correct-trajectories file is `right`.
    assert_eq!(
        app.corpus.shown(0),
        Shown::Verdict(sebx::model::Verdict::Right)
    );
    assert_eq!(app.corpus.shown(1), Shown::Pending);
    // `--correct FILE` marks a correct-trajectories file whatever its name.
    let plain = d.join("kept.jsonl");
    std::fs::write(&plain, "{\"query\": \"Q1\", \"response\": \"x\", \"test_cases\": [], \"right_exe_result\": \"\"}\n").expect("write");
    let only = ExploreArgs {
        paths: Vec::new(),
        correct: vec![plain.clone()],
        config: Some(config.clone()),
        ..isolated::explore_args()
    };
    let s = prepare(&only, no_runtime()).expect("session");
    assert_eq!(
        s.sources.iter().map(|s| s.kind).collect::<Vec<_>>(),
        vec![FileKind::CorrectTrajectories]
    );
    std::fs::remove_file(&plain).expect("remove");
    // A theme flag beats the config; an unknown theme is an error naming the built-ins.
    let args = ExploreArgs {
        theme: Some("light".into()),
        ..args
    };
    assert_eq!(
        prepare(&args, no_runtime())
            .expect("session")
            .app
            .theme
            .name,
        "light"
    );
    let args = ExploreArgs {
        theme: Some("neon".into()),
        ..args
    };
    let err = prepare(&args, no_runtime()).err().expect("unknown theme");
    assert!(format!("{err:#}").contains("high-contrast"), "{err:#}");
    // A bad action name in the config is reported.
    std::fs::write(&config, "[keys]\n\"x\" = \"explode\"\n").expect("write");
    let args = ExploreArgs {
        theme: None,
        ..args
    };
    let err = prepare(&args, no_runtime()).err().expect("bad key config");
    assert!(
        format!("{err:#}").contains("unknown action `explode`"),
        "{err:#}"
    );
}

#[test]
fn without_a_terminal_the_binary_says_what_to_use_instead() {
    let out = isolated::sebx()
        .stdin(std::process::Stdio::null())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the explorer needs a terminal"), "{err}");
    assert!(err.contains("sebx grade"), "{err}");
    // Nothing was drawn: no escape sequences reached the pipe.
    assert!(
        !out.stdout.contains(&0x1b),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The bundled demo's tasks, embedded in the binary, are read by the one dataset reader:
/// `sebx` with no path holds exactly the items `samples/demo/tasks.jsonl` gives as a file.
#[test]
fn the_embedded_demos_tasks_are_read_as_the_file_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = crate::tui_common::demo_app(&crate::isolated::explore_args(), dir.path(), 80, 24);
    let embedded = &app.corpus.ctx.dataset;
    let mut file = sebx::model::Dataset::default();
    file.load_file(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo/tasks.jsonl"),
    )
    .expect("the demo's tasks");
    assert!(file.issues.is_empty() && embedded.issues.is_empty());
    assert_eq!(embedded.items.len(), file.items.len());
    assert!(!file.items.is_empty());
    for (query, item) in &file.items {
        let got = embedded
            .get(query)
            .unwrap_or_else(|| panic!("{query} embedded"));
        assert_eq!(
            (
                &got.function_name,
                &got.selected_functions,
                &got.reference,
                &got.right_exe_result,
                got.line
            ),
            (
                &item.function_name,
                &item.selected_functions,
                &item.reference,
                &item.right_exe_result,
                item.line
            ),
        );
        assert_eq!(got.test_cases, item.test_cases);
    }
}
