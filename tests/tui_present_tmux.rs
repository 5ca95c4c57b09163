//! `sebx present --playlist samples/demo/playlist.txt` in a real terminal (tmux): space
//! steps through every stage of the six rollouts; each screen shows its stage and position,
//! and no verdict before the verdict stage.

use std::process::Command;

#[path = "common/tmux.rs"]
mod tmux_support;
use tmux_support::{Session, capture, tmux, wait_for};

const VERDICTS: [&str; 5] = [
    "✓ right",
    "result_error",
    "exe_error",
    "use_numpy",
    "without_zwc",
];

#[test]
fn steps_through_the_demo_playlist() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let root = env!("CARGO_MANIFEST_DIR");
    let name = format!("sebx-present-test-{}", std::process::id());
    let cmd = format!(
        "env HOME={d} XDG_CONFIG_HOME={d} XDG_DATA_HOME={d} SEBX_DATA_DIR={d} {bin} present --playlist {root}/samples/demo/playlist.txt",
        d = dir.path().display(),
        bin = env!("CARGO_BIN_EXE_sebx"),
    );
    let out = tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        "80",
        "-y",
        "24",
        &cmd,
    ]);
    assert!(out.status.success());
    let _session = Session(name.clone());
    let stages = ["Task", "Answer", "Your guess?", "Verdict", "Why"];
    let verdicts = [
        "right",
        "exe_error",
        "exe_error",
        "exe_error",
        "result_error",
        "without_zwc",
    ];
    for (k, verdict) in verdicts.iter().enumerate() {
        for (s, stage) in stages.iter().enumerate() {
            let position = format!("{}/6", k + 1);
            let screen = wait_for(&name, &format!("{stage} of {position}"), |sc| {
                let top = sc.lines().next().unwrap_or("");
                top.starts_with(&format!(" {stage} ")) && top.trim_end().ends_with(&position)
            });
            if s < 3 {
                for v in VERDICTS {
                    assert!(!screen.contains(v), "{v} before the verdict:\n{screen}");
                }
            } else {
                assert!(
                    screen.lines().skip(1).any(|l| l.contains(verdict)),
                    "{verdict} at {stage}:\n{screen}"
                );
            }
            if k == 1 && *stage == "Why" {
                assert!(screen.contains("zwc.mean  → use zwc.kocito"), "{screen}");
            }
            tmux(&["send-keys", "-t", &name, "Space"]);
        }
    }
    // Back one stage, then notes, then quit.
    tmux(&["send-keys", "-t", &name, "Left", "n"]);
    let screen = wait_for(&name, "the notes", |sc| sc.contains("speaker notes"));
    assert!(screen.contains("rollouts.jsonl:30"), "{screen}");
    tmux(&["send-keys", "-t", &name, "q"]);
    let start = std::time::Instant::now();
    while tmux(&["has-session", "-t", &name]).status.success() {
        if start.elapsed() > std::time::Duration::from_secs(5) {
            panic!("still running after q:\n{}", capture(&name));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
