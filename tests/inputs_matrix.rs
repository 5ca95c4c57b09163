//! Every command with every kind of input, through the binary as a user runs it: each input
//! either works or gives the documented error, naming the file (README, "Inputs in every
//! command"). The inputs are the bundled demo's (a rollout file, its scored file, the tasks,
//! the API doc, a training run of step dumps) and what a test folder builds from them (a
//! correct-trajectories file, a folder of rollout files with their context); the explorer
//! (and `present`, which opens the same way) is checked in-process through `prepare`.

use crate::isolated;

use std::path::{Path, PathBuf};
use std::process::Command;

use sebx::grade::backend::Unavailable;
use sebx::tui::Grading;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo")
}

/// A kind of input, the path standing for it, and whether it is a run (else context or
/// verdicts only).
struct Input {
    kind: &'static str,
    path: PathBuf,
}

/// What a command given one input must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Works,
    /// Exit 1, stderr naming the input and saying this.
    Error(&'static str),
}

/// The inputs: every kind the README lists, built in `dir` where the demo has none.
fn inputs(dir: &Path) -> Vec<Input> {
    let demo = demo();
    // Correct trajectories: named so, lines of a rollout file.
    let run2 = std::fs::read_to_string(demo.join("rollouts_run2.jsonl")).expect("demo run");
    let correct = dir.join("correct_trajectories.jsonl");
    let lines: Vec<&str> = run2.lines().take(3).collect();
    std::fs::write(&correct, format!("{}\n", lines.join("\n"))).expect("write");
    // A folder of rollout files with the API doc and tasks beside them.
    let folder = dir.join("runs");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for name in ["rollouts_run2.jsonl", "api_doc.jsonl", "tasks.jsonl"] {
        std::fs::copy(demo.join(name), folder.join(name)).expect("copy");
    }
    let run = demo.join("training/rollout");
    let step = std::fs::read_dir(&run)
        .expect("the demo's training run")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .min()
        .expect("a step file");
    let step_no = step
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("step name")
        .to_string();
    vec![
        Input {
            kind: "rollout file",
            path: demo.join("rollouts_run2.jsonl"),
        },
        Input {
            kind: "scored file",
            path: demo.join("rollouts.scored.jsonl"),
        },
        Input {
            kind: "correct trajectories",
            path: correct,
        },
        Input {
            kind: "dataset",
            path: demo.join("tasks.jsonl"),
        },
        Input {
            kind: "API doc",
            path: demo.join("api_doc.jsonl"),
        },
        Input {
            kind: "folder",
            path: folder,
        },
        Input {
            kind: "training run",
            path: run.clone(),
        },
        Input {
            kind: "run@step",
            path: PathBuf::from(format!("{}@{step_no}", run.display())),
        },
        Input {
            kind: "step file",
            path: step,
        },
    ]
}

/// The documented answer of a command that reads runs to an input of `kind`.
fn expected(command: &str, kind: &str) -> Expect {
    let names_a_line = matches!(command, "rerun" | "graph" | "export");
    match kind {
        "scored file" => Expect::Error("is a scored file"),
        "dataset" => Expect::Error("is a dataset"),
        "API doc" => Expect::Error("is an API doc"),
        "training run" if names_a_line => Expect::Error("is a training run of"),
        _ => Expect::Works,
    }
}

/// The command lines of each command for `path` (`out`: a folder for outputs); context
/// flags are added by the caller.
fn command_lines(path: &Path, out: &Path) -> Vec<(&'static str, Vec<String>)> {
    let p = path.display().to_string();
    let o = |name: &str| out.join(name).display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        (
            "grade",
            s(&["grade", "-q", "--cached", "-o", &o("graded.jsonl"), &p]),
        ),
        ("analyze", s(&["analyze", "-o", &o("analysis.jsonl"), &p])),
        ("rerun", s(&["rerun", "--no-save", "--line", "1", &p])),
        ("graph", s(&["graph", "--line", "1", &p])),
        ("stats", s(&["stats", "--format", "json", &p])),
        ("compare", s(&["compare", "--format", "json", &p, &p])),
        ("labels progress", s(&["labels", "progress", &p])),
        (
            "labels export",
            s(&["labels", "export", "-o", &o("labels.csv"), &p]),
        ),
        (
            "export",
            s(&[
                "export",
                "--line",
                "1",
                "--format",
                "txt",
                "-o",
                &o("export.txt"),
                &p,
            ]),
        ),
    ]
}

#[test]
fn every_command_takes_every_kind_of_input_or_names_why_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = isolated::fresh_root();
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    let demo = demo();
    let context = [
        "--api-doc".to_string(),
        demo.join("api_doc.jsonl").display().to_string(),
        "--dataset".to_string(),
        demo.join("tasks.jsonl").display().to_string(),
    ];
    let mut wrong = Vec::new();
    let mut checked = 0;
    for input in inputs(dir.path()) {
        for (command, args) in command_lines(&input.path, &out) {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_sebx"));
            isolated::isolate_in(&mut cmd, &root);
            cmd.args(&args).current_dir(dir.path()).env("NO_COLOR", "1");
            // A dataset or an API doc alone is given as what it is, without the flags.
            if !matches!(input.kind, "dataset" | "API doc") {
                cmd.args(&context);
            }
            let run = cmd.output().expect("sebx runs");
            let stderr = String::from_utf8_lossy(&run.stderr);
            checked += 1;
            let name = input.path.display().to_string();
            match expected(command, input.kind) {
                Expect::Works if run.status.success() => {}
                Expect::Works => wrong.push(format!(
                    "{command} with a {}: failed ({:?}): {stderr}",
                    input.kind,
                    run.status.code()
                )),
                Expect::Error(why) => {
                    let said = stderr
                        .lines()
                        .find(|l| l.starts_with("sebx: "))
                        .unwrap_or_default();
                    if run.status.code() != Some(1) || !said.contains(why) || !said.contains(&name)
                    {
                        wrong.push(format!(
                            "{command} with a {}: want exit 1 and `{why}` naming {name}; got {:?}: {stderr}",
                            input.kind,
                            run.status.code()
                        ));
                    }
                }
            }
        }
    }
    assert!(checked >= 81, "only {checked} command lines run");
    assert!(
        wrong.is_empty(),
        "commands not doing what README's input matrix says:\n{}",
        wrong.join("\n")
    );
}

/// The API doc and dataset among a command's paths are its context, never rollouts: `sebx
/// grade` writes one line per rollout line and no warning about the API doc's lines.
#[test]
fn context_files_among_the_paths_are_context_not_rollouts() {
    let demo = demo();
    let dir = tempfile::tempdir().expect("tempdir");
    let scored = dir.path().join("scored.jsonl");
    let rollouts = demo.join("rollouts_run2.jsonl");
    let mut cmd = isolated::sebx();
    cmd.arg("grade")
        .arg("-q")
        .arg("-o")
        .arg(&scored)
        .arg(&rollouts)
        .arg(demo.join("api_doc.jsonl"))
        .arg(demo.join("tasks.jsonl"));
    let run = cmd.output().expect("sebx runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(!stderr.contains("api_doc.jsonl:1"), "{stderr}");
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .expect("read")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count()
    };
    assert_eq!(lines(&scored), lines(&rollouts));
}

/// The explorer (and `present`, which opens the same way) loads every kind of run, with
/// its context among the paths.
#[test]
fn the_explorer_opens_every_kind_of_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = demo();
    for input in inputs(dir.path()) {
        if matches!(input.kind, "scored file" | "dataset" | "API doc") {
            continue;
        }
        let args = sebx::tui::explore::ExploreArgs {
            paths: vec![
                input.path.clone(),
                demo.join("api_doc.jsonl"),
                demo.join("tasks.jsonl"),
            ],
            no_follow: true,
            ..isolated::explore_args()
        };
        let mut session = sebx::tui::explore::prepare(
            &args,
            Grading::Unavailable(Unavailable::StoredOnly("a test".to_string())),
        )
        .unwrap_or_else(|e| panic!("{}: {e:#}", input.kind));
        sebx::tui::inline::load_inline(&mut session.app, &session.sources);
        assert!(
            !session.app.corpus.entries.is_empty(),
            "the explorer shows no rollout of a {} ({})",
            input.kind,
            input.path.display()
        );
        // Only the run's rollouts are rows: the API doc and tasks are its context.
        let sources: std::collections::BTreeSet<String> = session
            .app
            .corpus
            .entries
            .iter()
            .map(|e| e.rollout.source.display().to_string())
            .collect();
        assert!(
            sources
                .iter()
                .all(|s| !s.ends_with("api_doc.jsonl") && !s.ends_with("tasks.jsonl")),
            "{}: {sources:?}",
            input.kind
        );
    }
}

/// `RUN@STEP` and the step file are that step only, in every command that counts lines:
/// `sebx analyze` writes one object per line of the step file, each naming it.
#[test]
fn a_step_of_a_training_run_is_that_step_file() {
    let demo = demo();
    let dir = tempfile::tempdir().expect("tempdir");
    let input = inputs(dir.path())
        .into_iter()
        .find(|i| i.kind == "step file")
        .expect("a step file");
    let step = input.path;
    let spec = inputs(dir.path())
        .into_iter()
        .find(|i| i.kind == "run@step")
        .expect("run@step")
        .path;
    let text = std::fs::read_to_string(&step).expect("read the step");
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    for given in [&spec, &step] {
        let out = dir.path().join("analysis.jsonl");
        let run = isolated::sebx()
            .arg("analyze")
            .arg("-o")
            .arg(&out)
            .arg(given)
            .arg("--api-doc")
            .arg(demo.join("api_doc.jsonl"))
            .arg("--dataset")
            .arg(demo.join("tasks.jsonl"))
            .output()
            .expect("sebx runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{}: {stderr}", given.display());
        assert!(!stderr.contains("missing key"), "{stderr}");
        let written = std::fs::read_to_string(&out).expect("read the analysis");
        let sources: Vec<String> = written
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
                v["source"].as_str().unwrap_or_default().to_string()
            })
            .collect();
        assert_eq!(sources.len(), lines, "{}", given.display());
        assert!(
            sources.iter().all(|s| Path::new(s) == step),
            "{}: {sources:?}",
            given.display()
        );
    }
}

/// `sebx cache --cache-dir DIR` reads and clears the folder every other command's
/// `--cache-dir DIR` fills, not the default one.
#[test]
fn the_cache_command_uses_the_cache_dir_given() {
    let demo = demo();
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("my-cache");
    let sebx = |args: &[&str]| {
        let run = isolated::sebx()
            .args(args)
            .arg("--cache-dir")
            .arg(&cache)
            .output()
            .expect("sebx runs");
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        assert!(
            run.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        stdout
    };
    assert_eq!(sebx(&["cache", "path"]).trim(), cache.display().to_string());
    let rollouts = demo.join("rollouts_run2.jsonl").display().to_string();
    let api_doc = demo.join("api_doc.jsonl").display().to_string();
    let out = dir.path().join("graded.jsonl").display().to_string();
    sebx(&["grade", "-q", "-o", &out, &rollouts, &api_doc]);
    let reports = |size: &str| -> u64 {
        size.lines()
            .find_map(|l| l.strip_prefix("reports: "))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no report count in {size}"))
    };
    assert!(reports(&sebx(&["cache", "size"])) > 0, "nothing remembered");
    let cleared = sebx(&["cache", "clear"]);
    assert!(cleared.contains(&cache.display().to_string()), "{cleared}");
    assert_eq!(reports(&sebx(&["cache", "size"])), 0);
}
