//! Drives the real binary in tmux: open the demo → search → select → Cases pane → quit.

use std::process::Command;
use std::time::{Duration, Instant};

#[path = "common/tmux.rs"]
mod tmux_support;
use tmux_support::{Session, capture, tmux, wait_for};

/// The list's rollout rows: below the column header, down to the list frame's bottom.
fn list_rows(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with('└'))
        .filter(|l| l.chars().nth(2).is_some_and(|c| c != ' '))
        .collect()
}

#[test]
fn open_search_select_cases_quit() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("tmux not installed: skipping");
        return;
    }
    let config = tempfile::tempdir().expect("tempdir");
    let name = format!("sebx-tui-test-{}", std::process::id());
    let session = Session(name.clone());
    let bin = env!("CARGO_BIN_EXE_sebx");
    let cmd = format!(
        "env XDG_CONFIG_HOME={} HOME={} {bin}",
        config.path().display(),
        config.path().display()
    );
    // Started in an empty folder: the demo is built into the binary.
    let cwd = config.path().display().to_string();
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

    // Open: the demo's list appears.
    let first = wait_for(&name, "the loaded rollout list", |s| {
        list_rows(s).len() >= 2 && !s.lines().last().unwrap_or("").contains("loading")
    });
    assert!(first.contains("1 Response"), "{first}");

    // Search: `/` then a word of a demo query; the list narrows and the status bar shows it.
    tmux(&["send-keys", "-t", &name, "/"]);
    tmux(&["send-keys", "-t", &name, "-l", "readings"]);
    let searched = wait_for(&name, "search results", |s| {
        // Every typed character shown and the newest search answered (no pending `…`).
        let status = s.lines().last().unwrap_or("");
        s.lines().next().is_some_and(|title| title.contains(" of "))
            && status.contains("readings")
            && !status.contains('…')
    });
    assert!(
        searched.contains("readings"),
        "the status bar shows the search: {searched}"
    );
    let title = searched.lines().next().unwrap_or("");
    let counts: Vec<usize> = title
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert!(
        counts.len() >= 2 && counts[0] < counts[1] && counts[0] > 0,
        "the title says fewer rollouts are shown: {title}"
    );
    assert!(
        first.lines().next().is_some_and(|t| !t.contains(" of ")),
        "{first}"
    );
    tmux(&["send-keys", "-t", &name, "Enter"]);

    // Select: move to the second match.
    tmux(&["send-keys", "-t", &name, "j"]);
    // (Conditions are checked together: a capture can catch a frame half drawn.)
    wait_for(&name, "the second match selected", |s| {
        s.lines().nth(3).is_some_and(|l| l.starts_with("│▶"))
            && s.lines().nth(2).is_some_and(|l| l.starts_with("│ "))
    });

    // Cases pane: the test-case table of the selected rollout.
    tmux(&["send-keys", "-t", &name, "3"]);
    wait_for(&name, "the Cases pane", |s| {
        s.contains("Case 1") && s.contains("expected")
    });

    // Resize: the screen is laid out again for 80×24.
    tmux(&["resize-window", "-t", &name, "-x", "80", "-y", "24"]);
    wait_for(&name, "the 80×24 layout, still on the Cases pane", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.chars().count() == 80 && l.ends_with('┐'))
            && s.lines().count() == 24
            && s.lines().last().is_some_and(|l| l.contains("help"))
            && s.contains("Case 1")
    });

    // Quit: the program exits and the session closes.
    tmux(&["send-keys", "-t", &name, "q"]);
    let start = Instant::now();
    while tmux(&["has-session", "-t", &name]).status.success() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "sebx did not quit:\n{}",
            capture(&name)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(session);
}
