//! Bookmarks survive SIGKILL: the real binary in tmux bookmarks three rollouts of a temp copy
//! of the demo (one with a caption, one moved to the front), is killed with `kill -9`, is
//! reopened, and shows the three bookmarks in the playlist order they were given.

use crate::tmux_support;
use tmux_support::{
    DemoCopy, demo_file, kill_9, loaded, quoted, sebx_command, send, send_text, session_name,
    start_session, status_line, temp_home, tmux_missing, wait_for,
};

#[test]
fn bookmarks_survive_sigkill() {
    if tmux_missing() {
        return;
    }
    let demo = DemoCopy::new();

    let name = session_name("sebx-bookmarks-test");
    let session = demo.open(&name);
    // Lines 1, 3 and 5 of the file.
    send(&name, &["b"]);
    wait_for(&name, "bookmark 1", |s| {
        status_line(s).contains(&format!(
            "saved to {}: bookmarked (1 in",
            demo.path("rollouts.jsonl.bookmarks.jsonl").display()
        ))
    });
    send(&name, &["j", "j", "b"]);
    wait_for(&name, "bookmark 2", |s| {
        status_line(s).contains("bookmarked (2 in")
    });
    send(&name, &["B"]);
    wait_for(&name, "the caption box", |s| {
        status_line(s).contains("caption")
    });
    send_text(&name, "bit masks via zwc");
    send(&name, &["Enter"]);
    wait_for(&name, "the caption saved", |s| {
        status_line(s).contains("caption: bit masks via zwc")
    });
    send(&name, &["j", "j", "b"]);
    wait_for(&name, "bookmark 3", |s| {
        status_line(s).contains("bookmarked (3 in")
    });
    // The third one goes to the front of the playlist.
    send(&name, &["{", "{"]);
    wait_for(&name, "the move", |s| {
        status_line(s).contains("bookmark now 1/3")
    });

    kill_9(&name);
    drop(session);

    // On disk, read with the model's own store: the playlist order and the caption.
    let (store, issues) = sebx::model::bookmarks::BookmarkStore::open(&demo.file).expect("opens");
    assert!(issues.is_empty(), "{issues:?}");
    let listed: Vec<(usize, String)> = store
        .list()
        .iter()
        .map(|r| (r.line, r.caption.clone()))
        .collect();
    assert_eq!(
        listed,
        vec![
            (5, String::new()),
            (1, String::new()),
            (3, "bit masks via zwc".to_string())
        ]
    );
    assert_eq!(
        std::fs::read(&demo.file).expect("read"),
        demo.original,
        "rollout file untouched"
    );

    // Reopened: the three rows carry the bookmark mark.
    let name2 = format!("{name}-again");
    let _again = demo.open(&name2);
    send(&name2, &["j"]);
    let screen = wait_for(&name2, "the marks", |s| {
        s.lines()
            .filter(|l| l.starts_with('│') && l.chars().nth(1) == Some('★'))
            .count()
            == 3
    });
    let marked: Vec<&str> = screen
        .lines()
        .filter(|l| l.starts_with('│') && l.chars().nth(1) == Some('★'))
        .collect();
    assert_eq!(marked.len(), 3, "{screen}");
}

/// In the explorer: two bookmarks, `P` presents them (`1/2`, space steps, the verdict only
/// at its stage), `q` comes back; `X` exports the view to an HTML file in the current folder.
#[test]
fn present_and_export_from_the_explorer() {
    if tmux_missing() {
        return;
    }
    let (dir, home) = temp_home();
    // A copy of the demo files: bookmarks are written beside the rollout file.
    let files = dir.path().join("files");
    std::fs::create_dir_all(&files).expect("files");
    for f in [
        "rollouts.jsonl",
        "rollouts_run2.jsonl",
        "rollouts.scored.jsonl",
        "api_doc.jsonl",
    ] {
        std::fs::copy(demo_file(f), files.join(f)).expect("copy a demo file");
    }
    let name = session_name("sebx-present-from-explorer");
    let args = format!(
        "{rollouts} {scored} --api-doc {api}",
        rollouts = quoted(&files.join("rollouts.jsonl")),
        scored = quoted(&files.join("rollouts.scored.jsonl")),
        api = quoted(&files.join("api_doc.jsonl")),
    );
    let cmd = sebx_command(&home, &args);
    let _session = start_session(&name, (110, 34), Some(dir.path()), &cmd);
    wait_for(&name, "the list", |s| {
        s.contains("52 rollouts") && loaded(s)
    });
    // Lines 16 and 1, in that order in the playlist.
    send(&name, &["g"]);
    for _ in 0..15 {
        send(&name, &["j"]);
    }
    send(&name, &["b"]);
    wait_for(&name, "bookmark 1", |s| {
        status_line(s).contains("bookmarked (1 in")
    });
    send(&name, &["g", "b"]);
    wait_for(&name, "bookmark 2", |s| {
        status_line(s).contains("bookmarked (2 in")
    });
    send(&name, &["P"]);
    let first = wait_for(&name, "the presenter", |s| {
        s.lines().next().unwrap_or("").trim_end().ends_with("1/2")
    });
    assert!(first.starts_with(" Task "), "{first}");
    assert!(!first.contains("exe_error"), "{first}");
    send(&name, &["Space", "Space", "Space"]);
    wait_for(&name, "the verdict", |s| {
        s.starts_with(" Verdict ") && s.contains("exe_error")
    });
    send(&name, &["q"]);
    wait_for(&name, "the explorer again", |s| s.contains("52 rollouts"));
    send(&name, &["X"]);
    let screen = wait_for(&name, "the export", |s| {
        status_line(s).contains("exported to")
    });
    let file = dir.path().join("sebx-rollouts-1-response.html");
    assert!(
        status_line(&screen).contains("sebx-rollouts-1-response.html"),
        "{screen}"
    );
    let html = std::fs::read_to_string(&file).expect("the exported page");
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("right"),
        "{html}"
    );
    let marks = std::fs::read_to_string(files.join("rollouts.jsonl.bookmarks.jsonl"))
        .expect("the bookmarks, beside the copy");
    assert_eq!(marks.lines().count(), 2, "{marks}");
}
