//! Sidecars where the user wants them: the explorer (opened as `sebx FILES` opens it,
//! `open_default`) labels a rollout, and `sebx labels` (the binary) finds the label again,
//! with `--sidecar-dir`, with `sidecar_dir` in the config, for two inputs of the same name in
//! different folders, and for a read-only input folder (the fallback in sebx's data folder);
//! `sebx rerun --sidecar-dir` keeps a rerun where `labels export`'s resolver finds it.
//! Every command gets sebx's data folder of this test file, a folder of its own: the
//! explorer as `ExploreArgs::data_dir`, the binaries it starts as `$SEBX_DATA_DIR` (the
//! process's own environment is never changed: tests of other files share the process).

use crate::isolated;
use crate::tui_common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sebx::tui::Action;
use sebx::tui::App;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, load_inline};

/// This file's sebx data folder, given to every explorer and command it starts.
fn data_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = isolated::fresh_root().join("data");
        std::fs::create_dir_all(&dir).expect("data dir");
        dir
    })
}

/// A copy of the demo's first run as `dir/name`.
fn demo_copy(dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let file = dir.join(name);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo/rollouts.jsonl"),
        &file,
    )
    .expect("copy the demo");
    file
}

/// The explorer `sebx FILES` opens with `args`, loaded, the first row labelled with the
/// category on `key`; returns the status line that said where it was saved and the notes.
fn label_first_row(args: ExploreArgs, key: char) -> (String, Vec<String>, App) {
    let args = ExploreArgs {
        data_dir: Some(data_dir().to_path_buf()),
        ..args
    };
    let (mut session, _backend) = open_default(&args).expect("opens");
    let app = &mut session.app;
    load_inline(app, &session.sources);
    drain_inline(app, None);
    app.labelling.annotator = "tester".to_string();
    app.service();
    let notes = app.corpus.ctx.notes.clone();
    app.update(&Action::Top);
    app.update(&Action::LabelMode);
    app.update(&Action::ToggleCategory(key));
    app.service();
    let said = app.message.clone().unwrap_or_default();
    (said, notes, session.app)
}

fn explore(paths: Vec<PathBuf>) -> ExploreArgs {
    ExploreArgs {
        paths,
        ..isolated::explore_args()
    }
}

/// `sebx labels <args>` (the binary) with this process's data folder and an empty config
/// folder unless `config_home` names one; returns stdout, failing on a non-zero exit.
fn labels(args: &[&str], config_home: Option<&Path>) -> String {
    let empty = isolated::fresh_root().join("config");
    std::fs::create_dir_all(&empty).expect("config home");
    let mut cmd = isolated::sebx();
    cmd.env(isolated::DATA_DIR_ENV, data_dir())
        .env("XDG_CONFIG_HOME", config_home.unwrap_or(&empty))
        .arg("labels")
        .args(args);
    let out = cmd.output().expect("runs sebx");
    assert!(
        out.status.success(),
        "sebx labels {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The `.labels.jsonl` files directly in `dir`.
fn label_files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.retain(|p| p.to_string_lossy().ends_with(".labels.jsonl"));
    found.sort();
    found
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn the_option_keeps_labels_in_its_folder_and_labels_reads_them_there() {
    let root = tempfile::tempdir().expect("tempdir");
    let file = demo_copy(&root.path().join("runs"), "rollouts.jsonl");
    let side = root.path().join("side");
    let mut args = explore(vec![file.clone()]);
    args.sidecars.sidecar_dir = Some(side.clone());
    let (said, _, mut app) = label_first_row(args, '1');
    let written = label_files(&side);
    assert_eq!(
        written.len(),
        1,
        "one label sidecar in the folder: {written:?}"
    );
    // The status line names the sidecar by its whole path, and so does the Labels panel.
    assert!(
        said.starts_with(&format!("saved to {}: ", written[0].display())),
        "{said}"
    );
    app.update(&Action::Resize {
        width: 240,
        height: 50,
    });
    let drawn = tui_common::screen(&tui_common::draw(&app, 240, 50));
    assert!(
        drawn.contains(&format!("labels saved in {}", written[0].display())),
        "{drawn}"
    );
    assert!(
        label_files(&root.path().join("runs")).is_empty(),
        "nothing beside the file"
    );
    let with = labels(&["progress", "--sidecar-dir", s(&side), s(&file)], None);
    assert!(with.contains(": 1/"), "{with}");
    let without = labels(&["progress", s(&file)], None);
    assert!(without.contains(": 0/"), "{without}");
}

#[test]
fn the_config_key_does_what_the_option_does() {
    let root = tempfile::tempdir().expect("tempdir");
    let file = demo_copy(&root.path().join("runs"), "rollouts.jsonl");
    // `<config home>/sebx/config.toml`, its sidecar_dir relative to the config's folder.
    let config_home = root.path().join("config");
    let config = config_home.join("sebx/config.toml");
    std::fs::create_dir_all(config.parent().expect("parent")).expect("mkdir");
    std::fs::write(&config, "sidecar_dir = \"labels-here\"\n").expect("config");
    let side = config_home.join("sebx/labels-here");
    let mut args = explore(vec![file.clone()]);
    args.config = Some(config.clone());
    let (said, _, _) = label_first_row(args, '1');
    let written = label_files(&side);
    assert_eq!(written.len(), 1, "{said}");
    assert!(said.contains(&written[0].display().to_string()), "{said}");
    let found = labels(&["progress", s(&file)], Some(&config_home));
    assert!(found.contains(": 1/"), "{found}");
    // The option beats the config.
    let elsewhere = root.path().join("elsewhere");
    let flagged = labels(
        &["progress", "--sidecar-dir", s(&elsewhere), s(&file)],
        Some(&config_home),
    );
    assert!(flagged.contains(": 0/"), "{flagged}");
}

#[test]
fn two_files_of_one_name_keep_their_own_labels_in_one_folder() {
    let root = tempfile::tempdir().expect("tempdir");
    let a = demo_copy(&root.path().join("a"), "run.jsonl");
    let b = demo_copy(&root.path().join("b"), "run.jsonl");
    let side = root.path().join("side");
    for (file, key) in [(&a, '1'), (&b, '8')] {
        let mut args = explore(vec![file.clone()]);
        args.sidecars.sidecar_dir = Some(side.clone());
        label_first_row(args, key);
    }
    assert_eq!(label_files(&side).len(), 2, "{:?}", label_files(&side));
    let export = |file: &Path| {
        labels(
            &[
                "export",
                "--no-grade",
                "--format",
                "jsonl",
                "--sidecar-dir",
                s(&side),
                s(file),
            ],
            None,
        )
    };
    let (in_a, in_b) = (export(&a), export(&b));
    assert_eq!(in_a.lines().count(), 1, "{in_a}");
    assert_eq!(in_b.lines().count(), 1, "{in_b}");
    assert!(in_a.contains("\"numpy_import\""), "{in_a}");
    assert!(!in_a.contains("\"logic_error\""), "{in_a}");
    assert!(in_b.contains("\"logic_error\""), "{in_b}");
    assert!(!in_b.contains("\"numpy_import\""), "{in_b}");
}

#[test]
fn labels_written_beside_the_file_before_still_count() {
    let root = tempfile::tempdir().expect("tempdir");
    let file = demo_copy(&root.path().join("runs"), "rollouts.jsonl");
    let (said, _, _) = label_first_row(explore(vec![file.clone()]), '1');
    let beside = root.path().join("runs/rollouts.jsonl.labels.jsonl");
    assert_eq!(
        said.split(':').next(),
        Some(format!("saved to {}", beside.display()).as_str())
    );
    // A sidecar folder chosen afterwards: the old labels are found, new ones join them.
    let side = root.path().join("side");
    let mut args = explore(vec![file.clone()]);
    args.sidecars.sidecar_dir = Some(side.clone());
    let (said, _, app) = label_first_row(args, '8');
    assert!(
        said.starts_with(&format!("saved to {}", beside.display())),
        "{said}"
    );
    assert_eq!(app.labelling.progress.labelled, 1);
    assert!(label_files(&side).is_empty());
    let found = labels(&["progress", "--sidecar-dir", s(&side), s(&file)], None);
    assert!(found.contains(": 1/"), "{found}");
}

#[test]
fn a_read_only_folder_keeps_its_labels_in_the_data_folder() {
    let root = tempfile::tempdir().expect("tempdir");
    let folder = root.path().join("read-only");
    let file = demo_copy(&folder, "rollouts.jsonl");
    set_mode(&folder, 0o555);
    // Root writes anyway: then there is nothing to fall back from.
    let probe = folder.join(".probe");
    if std::fs::write(&probe, "").is_ok() {
        let _ = std::fs::remove_file(&probe);
        set_mode(&folder, 0o755);
        eprintln!(
            "note: {} is writable despite mode 0555 (running as root?): the fallback is not checked",
            folder.display()
        );
        return;
    }
    let (said, notes, _) = label_first_row(explore(vec![file.clone()]), '1');
    set_mode(&folder, 0o755);
    let fallback = data_dir().join("sidecars");
    let written = label_files(&fallback);
    let ours: Vec<&PathBuf> = written
        .iter()
        .filter(|p| said.contains(&p.display().to_string()))
        .collect();
    assert_eq!(
        ours.len(),
        1,
        "saved to one file of {}: {said}",
        fallback.display()
    );
    assert!(label_files(&folder).is_empty());
    // Said where and why.
    let why = format!("{} is not writable", folder.display());
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&why) && n.contains(&fallback.display().to_string())),
        "{notes:?}"
    );
    // And found there again by the other commands.
    let found = labels(&["progress", s(&file)], None);
    assert!(found.contains(": 1/"), "{found}");
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Every `sebx labels` subcommand takes the same input flags.
#[test]
fn every_labels_subcommand_takes_the_same_input_flags() {
    let root = tempfile::tempdir().expect("tempdir");
    let file = demo_copy(&root.path().join("runs"), "rollouts.jsonl");
    let demo = |n: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples/demo")
            .join(n)
    };
    let (api, tasks, scored) = (
        demo("api_doc.jsonl"),
        demo("tasks.jsonl"),
        demo("rollouts.scored.jsonl"),
    );
    let taxonomy = root.path().join("taxonomy.toml");
    std::fs::write(
        &taxonomy,
        "[[category]]\nid = \"numpy_import\"\nlabel = \"NumPy import\"\nkey = \"1\"\n",
    )
    .expect("taxonomy");
    let side = root.path().join("side");
    let cache = root.path().join("cache");
    let shared = [
        "--api-doc",
        s(&api),
        "--dataset",
        s(&tasks),
        "--scores",
        s(&scored),
        "--taxonomy",
        s(&taxonomy),
        "--cache-dir",
        s(&cache),
        "--sidecar-dir",
        s(&side),
    ];
    for (sub, own) in [
        ("progress", vec![]),
        ("agreement", vec!["--annotators", "ana,ben"]),
        ("export", vec!["--no-grade"]),
    ] {
        let mut args = vec![sub];
        args.extend(own);
        args.extend(shared);
        args.push(s(&file));
        labels(&args, None);
        // --no-cache too (it conflicts with --cache-dir, so on its own).
        let mut args = vec![sub, "--no-cache", "--api-doc", s(&api)];
        if sub == "agreement" {
            args.extend(["--annotators", "ana,ben"]);
        }
        args.push(s(&file));
        labels(&args, None);
    }
}

/// `sebx rerun --sidecar-dir` keeps the rerun in the folder, and the verdict resolver of
/// every other command finds it there (the real grader: needs `sebx runtime install`).
#[test]
fn a_rerun_kept_in_the_folder_gives_other_commands_its_verdict() {
    data_dir();
    let root = tempfile::tempdir().expect("tempdir");
    let (run, api) = (
        root.path().join("run.jsonl"),
        root.path().join("api_doc.jsonl"),
    );
    std::fs::write(&api, tui_common::API_DOC).expect("api doc");
    std::fs::write(
        &run,
        tui_common::rollout_line(
            tui_common::Q_MEAN,
            &tui_common::fence(tui_common::CODE_MEAN_OK),
            None,
        ) + "\n",
    )
    .expect("run");
    let side = root.path().join("side");
    let out = isolated::sebx()
        .env(isolated::DATA_DIR_ENV, data_dir())
        .args(["rerun", s(&run), "--line", "1", "--api-doc", s(&api)])
        .args(["--sidecar-dir", s(&side)])
        .output()
        .expect("runs sebx");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("kept in {}", side.display())),
        "{stderr}"
    );
    assert!(!root.path().join("run.jsonl.reruns.jsonl").exists());
    let export = |flags: &[&str]| {
        let mut args = vec!["export", "--no-grade", "--all", "--format", "jsonl"];
        args.extend(flags);
        args.extend(["--api-doc", s(&api), s(&run)]);
        let row: serde_json::Value =
            serde_json::from_str(labels(&args, None).trim()).expect("one row");
        (row["verdict"].clone(), row["verdict_from"].clone())
    };
    assert_eq!(
        export(&["--sidecar-dir", s(&side)]),
        (serde_json::json!("right"), serde_json::json!("rerun"))
    );
    assert_eq!(
        export(&[]),
        (serde_json::Value::Null, serde_json::Value::Null),
        "without the folder the rerun is not found (and nothing is graded)"
    );
}
