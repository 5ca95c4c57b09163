//! Bookmarks in the explorer's state: toggled, captioned and reordered across two runs
//! (one playlist over both files), written to each run's sidecar, and handed to the
//! presenter by `P`.

use crate::tui_common;

use sebx::tui::action::Edit;
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
    // The sidecar's whole path: it need not be beside the rollout file.
    assert_eq!(
        app.message,
        Some(format!(
            "saved to {}: bookmark now 1/3",
            dir.path()
                .join("demo/run_a.jsonl.bookmarks.jsonl")
                .display()
        ))
    );
    // A caption, typed.
    app.update(&Action::BookmarkCaption);
    for c in "a typo".chars() {
        app.update(&Action::Edit(Edit::Insert(c)));
    }
    app.update(&Action::Edit(Edit::Submit));
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

/// `X` no longer draws or writes on the UI thread: it queues a job holding a copy of the
/// view; the explorer's own detail view is left as it was, and the page the job writes is
/// the one the view draws.
#[test]
fn export_is_a_job_drawing_a_copy_of_the_view() {
    use sebx::tui::Pane;
    use sebx::tui::export::{render_view, request_view, to_html};
    use sebx::tui::jobs::{JobRequest, run_request};

    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = app(Grading::Unavailable(
        sebx::grade::backend::Unavailable::StoredOnly("test".to_string()),
    ));
    app.labelling.data_dir = Some(dir.path().to_path_buf());
    drain_inline(&mut app, None);
    app.service();
    select(&mut app, 1);
    app.update(&Action::PaneCode);
    drain_inline(&mut app, None);
    app.update(&Action::ScrollDown);
    app.update(&Action::ScrollRight);
    let before = (app.detail.pane, app.detail.scroll, app.detail.hscroll);
    assert_eq!(before, (Pane::Code, 1, 8));

    app.update(&Action::ExportView);
    app.service();
    assert!(request_view(&mut app), "the export is queued");
    assert!(!request_view(&mut app), "once");
    assert_eq!(
        (app.detail.pane, app.detail.scroll, app.detail.hscroll),
        before,
        "the explorer's view is not touched"
    );
    assert_eq!(app.message, None, "nothing said before the job is done");
    let requests = app.take_requests();
    let Some(JobRequest::Export { path, shown, page }) = requests
        .into_iter()
        .find(|r| matches!(r, JobRequest::Export { .. }))
    else {
        panic!("no export job queued");
    };
    assert!(path.to_string_lossy().ends_with("-code.html"), "{path:?}");
    assert!(shown.ends_with(&path));
    assert!(!path.exists(), "nothing written on the UI thread");

    // The job's page is the view as drawn from the app, scrolled to its top.
    let width = app.size.0.max(60);
    let title = format!("sebx · {}", path.display());
    // Drawn for paper: in the light theme, whatever the screen's.
    let light = sebx::tui::Theme::builtin("light").expect("light");
    let screen_theme = std::mem::replace(&mut app.theme, light.clone());
    let expected = to_html(&render_view(&app, 1, Pane::Code, width), &light, &title);
    app.theme = screen_theme;
    assert_eq!((page.0)(), expected);
    assert!(expected.contains("zwc."), "the code is on the page");

    let target = dir.path().join("view.html");
    let shown = target.clone();
    let event = run_request(
        JobRequest::Export {
            path: target.clone(),
            shown,
            page,
        },
        None,
    )
    .expect("an answer");
    assert!(app.on_job(event));
    assert_eq!(std::fs::read_to_string(&target).expect("written"), expected);
    let said = app.message.clone().unwrap_or_default();
    assert_eq!(said, format!("exported to {}", target.display()));

    // A folder that cannot be written to is said so.
    let bad = dir.path().join("missing/view.html");
    app.update(&Action::ExportView);
    assert!(request_view(&mut app));
    let Some(JobRequest::Export { page, .. }) = app
        .take_requests()
        .into_iter()
        .find(|r| matches!(r, JobRequest::Export { .. }))
    else {
        panic!("no export job queued");
    };
    let event = run_request(
        JobRequest::Export {
            path: bad.clone(),
            shown: bad.clone(),
            page,
        },
        None,
    )
    .expect("an answer");
    app.on_job(event);
    let said = app.message.clone().unwrap_or_default();
    assert!(
        said.starts_with(&format!("NOT exported to {}: ", bad.display())),
        "{said}"
    );
}
