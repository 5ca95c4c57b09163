//! Drives the real binary in tmux: open the demo → `S` stats screen → pick a function →
//! `enter` lists its failures (as annotator `ana`, whose demo labels show) → `C` compare screen → a cell's pairs → quit.

use std::process::Command;

#[path = "common/tmux.rs"]
mod tmux_support;
use tmux_support::{Session, tmux, wait_for};

#[test]
fn stats_screen_drills_into_a_function() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping");
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let name = format!("sebx-stats-test-{}", std::process::id());
    let _session = Session(name.clone());
    let bin = env!("CARGO_BIN_EXE_sebx");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_DATA_HOME={h} HOME={h} SEBX_DATA_DIR={h}/data {bin} --annotator ana",
        h = home.path().display()
    );
    let cwd = home.path().display().to_string();
    let out = tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        "100",
        "-y",
        "30",
        "-c",
        &cwd,
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    wait_for(&name, "the demo loaded", |s| {
        s.contains("1 Response") && !s.lines().last().unwrap_or("").contains("loading")
    });

    tmux(&["send-keys", "-t", &name, "S"]);
    let stats = wait_for(&name, "the stats screen with the map", |s| {
        s.contains("internalization map of rollouts") && s.contains("np.clip")
    });
    // The demo's run 1: 36 rollouts over 13 tasks; np.clip (0 of 3 right) comes first.
    assert!(stats.contains("36 rollouts · 13 tasks"), "{stats}");
    // ana labelled every failure of run 1 (the demo's seeded labels).
    assert!(
        stats.contains("your labels: 24 of 24 failures, all of them"),
        "{stats}"
    );
    let first_row = stats
        .lines()
        .find(|l| l.contains('▸') && l.contains("np."))
        .unwrap_or("");
    assert!(
        first_row.contains("np.clip"),
        "lowest accuracy first: {stats}"
    );

    tmux(&["send-keys", "-t", &name, "Enter"]);
    let list = wait_for(&name, "the list of np.clip's failures", |s| {
        s.contains("np.clip failures") && !s.contains("internalization map")
    });
    // The title counts the rows shown: np.clip's three failures in run 1.
    let title = list.lines().next().unwrap_or("");
    assert!(title.contains("3 of 49"), "{list}");

    tmux(&["send-keys", "-t", &name, "c"]);
    tmux(&["send-keys", "-t", &name, "C"]);
    wait_for(&name, "the compare screen", |s| {
        s.contains("A: rollouts   B: rollouts_run2") && s.contains("p = 0.2891")
    });
    // Cursor starts on right→right; enter lists its pairs.
    tmux(&["send-keys", "-t", &name, "Enter"]);
    wait_for(&name, "the right→right pairs", |s| {
        s.contains("4 pairs: right in A, right in B")
    });
    tmux(&["send-keys", "-t", &name, "Escape"]);
    tmux(&["send-keys", "-t", &name, "Escape"]);
    tmux(&["send-keys", "-t", &name, "q"]);
}
