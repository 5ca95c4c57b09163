//! `sebx present --playlist samples/demo/playlist.txt` in a real terminal (tmux): space
//! steps through every stage of the six rollouts; each screen shows its stage and position,
//! and no verdict before the verdict stage.

use crate::tmux_support;
use tmux_support::{
    demo_file, quoted, sebx_command, send, session_name, start_session, tmux_missing, wait_closed,
    wait_for,
};

const VERDICTS: [&str; 5] = [
    "✓ right",
    "result_error",
    "exe_error",
    "use_numpy",
    "without_zwc",
];

#[test]
fn steps_through_the_demo_playlist() {
    if tmux_missing() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let name = session_name("sebx-present-test");
    let playlist = quoted(&demo_file("playlist.txt"));
    let cmd = sebx_command(home.path(), &format!("present --playlist {playlist}"));
    let _session = start_session(&name, (80, 24), None, &cmd);
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
            send(&name, &["Space"]);
        }
    }
    // Back one stage, then notes, then quit.
    send(&name, &["Left", "n"]);
    let screen = wait_for(&name, "the notes", |sc| sc.contains("speaker notes"));
    assert!(screen.contains("rollouts.jsonl:30"), "{screen}");
    send(&name, &["q"]);
    wait_closed(&name, "still running after q");
}
