//! Exit codes scripts can trust (`sebx --help` lists them): no rollout loaded is an error
//! (with a warning naming the file), never a run that "scored 0%"; a missing file is named
//! before anything is looked for on its behalf; a reader closing the pipe early is not an
//! error. The binary runs with its own score cache (`common/isolated.rs`).

use crate::isolated;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;

fn demo(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(file)
}

#[test]
fn nothing_loaded_fails_and_names_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cases: [(&str, &[u8], &str); 3] = [
        ("empty.jsonl", b"", "empty file"),
        ("binary.jsonl", b"\x00\x01\x02\xff binary", "not valid"),
        (
            "schema.jsonl",
            b"{\"prompt\": \"x\", \"answer\": 1}\n",
            "missing key",
        ),
    ];
    for (name, bytes, warning) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        for command in ["grade", "stats", "analyze"] {
            let out = isolated::sebx()
                .arg(command)
                .arg(&path)
                .arg("--api-doc")
                .arg(demo("api_doc.jsonl"))
                .output()
                .expect("runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(1), "{command} {name}: {stderr}");
            assert!(
                stderr.contains(name) && stderr.contains(warning),
                "{command} {name}: {stderr}"
            );
            assert!(
                stderr.contains("no rollout loaded"),
                "{command} {name}: {stderr}"
            );
            assert!(!stdout.contains("0.00%"), "{command} {name}: {stdout}");
        }
    }
    // With one good file beside the empty one, the run is graded and the empty one warned of.
    let out = isolated::sebx()
        .args(["stats", "--format", "json", "-q"])
        .arg(demo("rollouts.jsonl"))
        .arg(dir.path().join("empty.jsonl"))
        .arg("--api-doc")
        .arg(demo("api_doc.jsonl"))
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.jsonl: empty file"));
}

#[test]
fn a_missing_file_is_named_first() {
    let out = isolated::sebx()
        .args(["grade", "no-such-file.jsonl"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no-such-file.jsonl"), "{stderr}");
    assert!(!stderr.contains("API doc"), "{stderr}");
}

/// `sebx CMD | head -1`: the reader leaves after one line; sebx exits 0 without a word.
#[test]
fn a_closed_pipe_is_a_quiet_success() {
    let rollouts = demo("rollouts.jsonl");
    let api = demo("api_doc.jsonl");
    let commands: Vec<Vec<std::ffi::OsString>> = vec![
        vec![
            "graph".into(),
            rollouts.clone().into(),
            "--line".into(),
            "1".into(),
        ],
        vec!["analyze".into(), rollouts.clone().into()],
        vec![
            "stats".into(),
            rollouts.clone().into(),
            "--top".into(),
            "0".into(),
        ],
    ];
    for args in commands {
        let mut child = isolated::sebx()
            .args(&args)
            .arg("--api-doc")
            .arg(&api)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Read one byte, then close the pipe: every later write fails with EPIPE.
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0u8; 1];
        stdout.read_exact(&mut first).expect("some output");
        drop(stdout);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr)
            .expect("stderr");
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("Broken pipe") && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn help_lists_the_exit_codes() {
    let out = isolated::sebx().arg("--help").output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Exit codes:"), "{text}");
    assert!(text.contains("no rollout could be loaded"), "{text}");
}

/// `sebx CMD 2>&1 | head -1`-like: the reader of stderr leaves at once. The command still
/// does its work and writes its output (no panic on the closed pipe, exit 101 before).
#[test]
fn a_closed_stderr_pipe_loses_the_notes_not_the_work() {
    let rollouts = demo("rollouts.jsonl");
    let api = demo("api_doc.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let commands: Vec<(Vec<std::ffi::OsString>, PathBuf)> = vec![
        (
            vec!["stats".into(), rollouts.clone().into()],
            dir.path().join("stats.txt"),
        ),
        (
            vec!["analyze".into(), rollouts.clone().into()],
            dir.path().join("analyze.jsonl"),
        ),
        (
            vec!["grade".into(), rollouts.clone().into()],
            dir.path().join("grade.jsonl"),
        ),
    ];
    for (args, out) in commands {
        let mut child = isolated::sebx()
            .args(&args)
            .arg("--api-doc")
            .arg(&api)
            .arg("-o")
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // Close the read end before sebx writes anything: every write to stderr fails.
        drop(child.stderr.take());
        let status = child.wait().expect("wait");
        assert_eq!(status.code(), Some(0), "{args:?}");
        let written = std::fs::read_to_string(&out).expect("the output file");
        assert!(written.lines().count() > 3, "{args:?}: {written}");
    }
}

/// `sebx runtime status` tells a script whether the grader can run: exit 1 and a hint when
/// no runtime is found (here: `SEBX_PYTHON` names none).
#[test]
fn runtime_status_fails_without_a_runtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = isolated::sebx()
        .args(["runtime", "status"])
        .env("SEBX_PYTHON", dir.path().join("no-python"))
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("sebx runtime install"), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Sandbox: not probed (no runtime)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `sebx FILE` on files with nothing to show says why, file by file, and exits 1 instead
/// of opening an empty explorer (no terminal is needed to see it: it fails before).
#[test]
fn the_explorer_refuses_files_with_nothing_to_show() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.jsonl");
    let binary = dir.path().join("binary.jsonl");
    let schema = dir.path().join("schema.jsonl");
    std::fs::write(&empty, b"").expect("write");
    std::fs::write(&binary, b"\x00\x01\x02\xff binary").expect("write");
    std::fs::write(&schema, b"{\"prompt\": \"x\", \"answer\": 1}\n").expect("write");
    for (files, said) in [
        (vec![&empty], vec!["empty.jsonl: empty file"]),
        (
            vec![&binary, &schema],
            vec![
                "binary.jsonl: binary data",
                "schema.jsonl: no line reads as a rollout (line 1: missing key",
            ],
        ),
    ] {
        let out = isolated::sebx()
            .args(&files)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("no rollout to show"), "{stderr}");
        for s in said {
            assert!(stderr.contains(s), "{s}: {stderr}");
        }
    }
    // One loadable file among them opens as usual (checked without a terminal: the
    // explorer gets as far as asking for one).
    let out = isolated::sebx()
        .arg(&empty)
        .arg(demo("rollouts.jsonl"))
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("no rollout to show"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Notes about the command's run (verdicts graded or reused) go to stderr in every format:
/// the table on stdout is the figures alone, so a script can keep it.
#[test]
fn stats_notes_go_to_stderr() {
    let out = isolated::sebx()
        .arg("stats")
        .arg(demo("rollouts.jsonl"))
        .arg(demo("rollouts_run2.jsonl"))
        .arg(demo("rollouts.scored.jsonl"))
        .arg("--api-doc")
        .arg(demo("api_doc.jsonl"))
        .output()
        .expect("runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("note: "), "{stderr}");
    assert!(!stdout.contains("note: "), "{stdout}");
    assert!(stdout.contains("accuracy"), "{stdout}");
}
