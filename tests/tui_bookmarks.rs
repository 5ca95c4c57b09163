//! Bookmarks in the explorer's state: toggled, captioned and reordered across two runs
//! (one playlist over both files), written to each run's sidecar, and handed to the
//! presenter by `P`.

mod tui_common;

use sebx::tui::app::Grading;
use sebx::tui::inline::drain_inline;
use sebx::tui::{Action, App};
use tui_common::*;

fn select(app: &mut App, row: usize) {
    app.update(&Action::Top);
    for _ in 0..row {
        app.update(&Action::Down);
    }
    assert_eq!(app.list.selected, Some(row));
}

#[test]
fn one_playlist_over_two_runs_in_the_order_given() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(Grading::Unavailable(
        sebx::grade::backend::Unavailable::StoredOnly("test".to_string()),
    ));
    app.labelling.data_dir = Some(dir.path().to_path_buf());
    drain_inline(&mut app, None);
    app.service();
    let run_b_first = app
        .corpus
        .entries
        .iter()
        .position(|e| e.run == 1)
        .expect("a row of run B");
    // Run A row 0, run B's first row, run A row 2.
    for row in [0, run_b_first, 2] {
        select(&mut app, row);
        app.update(&Action::ToggleBookmark);
        app.service();
        assert!(
            app.message.as_deref().unwrap_or("").contains("bookmarked"),
            "{:?}",
            app.message
        );
    }
    assert_eq!(
        app.bookmarks
            .playlist_rows(&app.corpus)
            .iter()
            .map(|r| r.0)
            .collect::<Vec<_>>(),
        vec![0, run_b_first, 2]
    );
    // Run A's row 2 moves to the front, past run B's bookmark.
    app.update(&Action::BookmarkEarlier);
    app.service();
    app.update(&Action::BookmarkEarlier);
    app.service();
    assert_eq!(
        app.message.as_deref(),
        Some("saved to run_a.jsonl.bookmarks.jsonl: bookmark now 1/3")
    );
    // A caption, typed.
    app.update(&Action::BookmarkCaption);
    for c in "a typo".chars() {
        app.update(&Action::NoteInput(c));
    }
    app.update(&Action::NoteSubmit);
    app.service();
    let rows = app.bookmarks.playlist_rows(&app.corpus);
    assert_eq!(
        rows,
        vec![
            (2, "a typo".to_string()),
            (0, String::new()),
            (run_b_first, String::new())
        ]
    );
    // Each run's bookmarks are in its own sidecar (the fixtures are built in: data dir).
    let a = std::fs::read_to_string(dir.path().join("demo/run_a.jsonl.bookmarks.jsonl"))
        .expect("run A's bookmarks");
    let b = std::fs::read_to_string(dir.path().join("demo/run_b.jsonl.bookmarks.jsonl"))
        .expect("run B's bookmarks");
    assert!(a.lines().count() >= 3 && b.lines().count() >= 1, "{a}\n{b}");
    // P hands the playlist to the presenter; b again removes a bookmark.
    app.update(&Action::Present);
    assert_eq!(app.bookmarks.present.take(), Some(rows));
    app.update(&Action::ToggleBookmark);
    app.service();
    assert_eq!(app.bookmarks.playlist_rows(&app.corpus).len(), 2);
    // Reopened (a second explorer): the same playlist.
    let mut again = tui_common::app(Grading::Unavailable(
        sebx::grade::backend::Unavailable::StoredOnly("test".to_string()),
    ));
    again.labelling.data_dir = Some(dir.path().to_path_buf());
    again.service();
    assert_eq!(
        again.bookmarks.playlist_rows(&again.corpus),
        vec![(0, String::new()), (run_b_first, String::new())]
    );
    // What the second explorer bookmarks, the first one picks up.
    select(&mut again, 1);
    again.update(&Action::ToggleBookmark);
    again.service();
    app.bookmarks.reload_soon();
    app.service();
    assert_eq!(
        app.bookmarks
            .playlist_rows(&app.corpus)
            .iter()
            .map(|r| r.0)
            .collect::<Vec<_>>(),
        vec![0, run_b_first, 1]
    );
}
