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

/// Quitting while the background grading is still running leaves no pool folder behind:
/// the pool is still in use on a grading thread, so it is never dropped, and sebx removes
/// its folder on the way out (it was left in the temp folder until the next sebx started).
#[test]
fn quitting_mid_grading_leaves_no_pool_folder() {
    if tmux_missing() {
        return;
    }
    let python = sebx::grade::runtime::find_runtime()
        .expect("the runtime is installed (sebx runtime install)")
        .python;
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&tmp).expect("tmp");
    // The demo's second run, each program made distinct 40 times over: far more than
    // grade before the key is pressed.
    let demo = std::fs::read_to_string(tmux_support::demo_file("rollouts_run2.jsonl"))
        .expect("the demo run");
    let mut lines = String::new();
    for k in 0..40 {
        for line in demo.lines() {
            let mut row: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let response = row["response"].as_str().expect("a response").replacen(
                "```python\n",
                &format!("```python\n# variant {k}\n"),
                1,
            );
            row["response"] = serde_json::Value::String(response);
            lines.push_str(&row.to_string());
            lines.push('\n');
        }
    }
    let file = dir.path().join("many.jsonl");
    std::fs::write(&file, lines).expect("write the run");
    let args = format!(
        "{} --api-doc {}",
        tmux_support::quoted(&file),
        tmux_support::quoted(&tmux_support::demo_file("api_doc.jsonl"))
    );
    let cmd = format!(
        "env TMPDIR={} SEBX_PYTHON={} {}",
        tmux_support::quoted(&tmp),
        tmux_support::quoted(&python),
        sebx_command(&home, &args)
    );
    let name = session_name("sebx-quit-grading");
    let _session = start_session(&name, (120, 40), Some(dir.path()), &cmd);
    let pools = || -> Vec<String> {
        std::fs::read_dir(&tmp)
            .expect("the temp folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("sebx-pool-"))
            .collect()
    };
    wait_for(&name, "grading under way", |s| {
        status_line(s).contains("grading") && !pools().is_empty()
    });
    send(&name, &["q"]);
    wait_closed(&name, "sebx quits mid-grading");
    let screen_gone_at = std::time::Instant::now();
    // The workers end as their stdin closes; the folder must already be gone.
    let left = pools();
    assert!(
        left.is_empty(),
        "pool folders left after quitting ({:?} after exit): {left:?}",
        screen_gone_at.elapsed()
    );
}
