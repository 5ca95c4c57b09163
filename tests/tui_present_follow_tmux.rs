//! Speaker notes on a second terminal (tmux): `sebx present` projects in one session,
//! `sebx present --follow` in another shows the notes of the slide and stage the first one
//! shows, never a stage ahead of it.

use crate::tmux_support;
use tmux_support::{
    sebx_command, send, session_name, start_session, tmux_missing, wait_closed, wait_for,
};

#[test]
fn the_follower_tracks_the_projector() {
    if tmux_missing() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let projector = session_name("sebx-projector");
    let notes = session_name("sebx-notes");
    let _a = start_session(
        &projector,
        (100, 30),
        None,
        &sebx_command(home.path(), "present"),
    );
    wait_for(&projector, "the first slide", |s| {
        s.lines()
            .next()
            .is_some_and(|t| t.trim_end().ends_with("1/6"))
    });
    let _b = start_session(
        &notes,
        (100, 30),
        None,
        &sebx_command(home.path(), "present --follow"),
    );
    let first = wait_for(&notes, "the notes of slide 1", |s| {
        s.contains("1/6") && s.contains("speaker notes") && s.contains(" Task ")
    });
    assert!(first.contains("rollouts.jsonl:1"), "{first}");
    assert!(!first.contains("verdict: "), "{first}");
    // The projector goes to slide 5 (line 26) and walks it; the notes follow.
    send(
        &projector,
        &["PageDown", "PageDown", "PageDown", "PageDown"],
    );
    let task = wait_for(&notes, "slide 5's Task", |s| {
        s.contains("5/6") && s.contains(" Task ")
    });
    assert!(task.contains("rollouts.jsonl:26"), "{task}");
    assert!(!task.contains("ana: "), "labels wait for Why:\n{task}");
    send(&projector, &["Space", "Space", "Space", "Space"]);
    let why = wait_for(&notes, "slide 5's Why", |s| {
        s.contains(" Why ") && s.contains("5/6")
    });
    assert!(why.contains("verdict: result_error"), "{why}");
    assert!(why.contains("ana: Wrong arguments"), "{why}");
    send(&notes, &["q"]);
    wait_closed(&notes, "the follower did not quit");
    send(&projector, &["q"]);
    wait_closed(&projector, "the presenter did not quit");
}
