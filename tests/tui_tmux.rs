//! Drives the real binary in tmux: open the demo → search → select → Cases pane → quit.

use crate::tmux_support;
use tmux_support::{
    loaded, sebx_command, send, send_text, session_name, start_session, status_line, tmux,
    tmux_missing, wait_closed, wait_for,
};

/// The list's rollout rows: below the column header, down to the list frame's bottom.
fn list_rows(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with('└'))
        .filter(|l| l.chars().nth(2).is_some_and(|c| c != ' '))
        .collect()
}

/// `N of M rollouts` in a list title: the list is narrowed to N of the M.
fn narrowed(title: &str) -> Option<(usize, usize)> {
    let end = title.find(" rollouts")?;
    let (head, total) = title[..end].rsplit_once(" of ")?;
    let shown = head.rsplit(' ').next()?.parse().ok()?;
    Some((shown, total.parse().ok()?))
}

#[test]
fn open_search_select_cases_quit() {
    if tmux_missing() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let name = session_name("sebx-tui-test");
    let cmd = sebx_command(home.path(), "");
    // Started in an empty folder: the demo is built into the binary.
    let session = start_session(&name, (100, 30), Some(home.path()), &cmd);

    // Open: the demo's list appears.
    let first = wait_for(&name, "the loaded rollout list", |s| {
        list_rows(s).len() >= 2 && loaded(s)
    });
    assert!(first.contains("1 Response"), "{first}");

    // Search: `/` then a word of a demo query; the list narrows and the status bar shows it.
    send(&name, &["/"]);
    send_text(&name, "readings");
    let searched = wait_for(&name, "search results", |s| {
        // Every typed character shown and the newest search answered (no pending `…`).
        let status = status_line(s);
        // (`N of M rollouts`: the labelling progress says "of" too.)
        s.lines()
            .next()
            .is_some_and(|title| narrowed(title).is_some())
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
        first.lines().next().is_some_and(|t| narrowed(t).is_none()),
        "{first}"
    );
    send(&name, &["Enter"]);

    // Select: move to the second match.
    send(&name, &["j"]);
    // (Conditions are checked together: a capture can catch a frame half drawn.)
    wait_for(&name, "the second match selected", |s| {
        s.lines().nth(3).is_some_and(|l| l.starts_with("│▶"))
            && s.lines().nth(2).is_some_and(|l| l.starts_with("│ "))
    });

    // Cases pane: the test-case table of the selected rollout.
    send(&name, &["3"]);
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
            && status_line(s).contains("help")
            && s.contains("Case 1")
    });

    // Quit: the program exits and the session closes.
    send(&name, &["q"]);
    wait_closed(&name, "sebx did not quit");
    drop(session);
}
