//! One label-progress figure everywhere (issue 41): the list's title, the label panel and
//! the Stats screen say the same figure with the same scope ("… failures labelled in 2
//! runs"), and the Stats screen says the shown run's figure naming the run. Driven as a
//! user does: the demo (two runs, ana's seeded labels) opened as `sebx` opens it, graded,
//! keys pressed through the keymap.

use crate::tui_common;

use ratatui::crossterm::event::KeyCode;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, load_inline};
use tui_common::{drawn, press};

use crate::isolated;

#[test]
fn list_panel_and_stats_screen_say_one_figure_with_its_scope() {
    let dir = tempfile::tempdir().expect("tempdir");
    let args = ExploreArgs {
        annotator: Some("ana".into()),
        ..isolated::explore_args()
    };
    let (mut session, backend) = open_default(&args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    let app = &mut session.app;
    // The demo's sidecars (seeded with ana's labels) in a folder of the test's own.
    app.labelling.data_dir = Some(dir.path().to_path_buf());
    load_inline(app, &session.sources);
    drain_inline(app, Some(backend.as_ref()));
    app.service();
    app.update(&sebx::tui::Action::Resize {
        width: 100,
        height: 30,
    });
    assert_eq!(app.corpus.runs.len(), 2, "the demo has two runs");

    // The figure, counted here from what the list shows: failures and ana's labels on them.
    let mut failures = [0usize; 2];
    let mut labelled = [0usize; 2];
    for (i, e) in app.corpus.entries.iter().enumerate() {
        if app.corpus.shown(i).is_failure() {
            failures[e.run] += 1;
            labelled[e.run] += usize::from(app.labelling.is_labelled(e));
        }
    }
    assert!(labelled[0] > 0, "ana's demo labels loaded");
    assert!(
        failures[1] > labelled[1],
        "run 2 has unlabelled failures: one run's figure is not all runs'"
    );
    let figure = format!(
        "{} of {} failures labelled in 2 runs",
        labelled[0] + labelled[1],
        failures[0] + failures[1]
    );
    assert!(
        app.labelling
            .progress_text(app.corpus.runs.len())
            .starts_with(&figure),
        "{} / {figure}",
        app.labelling.progress_text(app.corpus.runs.len())
    );

    // The list's title.
    let screen = drawn(app);
    let title = screen.lines().next().unwrap_or("");
    assert!(title.contains(&figure), "list title: {title}\n{figure}");

    // The label panel (label mode opens it).
    press(app, KeyCode::Char('L'));
    let screen = drawn(app);
    let panel = screen
        .lines()
        .find(|l| l.contains("Labels ·"))
        .unwrap_or_default();
    assert!(panel.contains(&figure), "label panel: {panel}\n{screen}");
    press(app, KeyCode::Esc);
    while app.labelling.mode {
        press(app, KeyCode::Char('L'));
    }

    // The Stats screen: the same figure, then the run shown, named.
    press(app, KeyCode::Char('S'));
    let stats = drawn(app);
    assert!(
        stats.contains(&format!("your labels: {figure}")),
        "stats screen:\n{stats}\n{figure}"
    );
    let run1 = format!(
        "{} of {} failures labelled in run rollouts,",
        labelled[0], failures[0]
    );
    assert!(stats.contains(&run1), "stats screen:\n{stats}\n{run1}");
    press(app, KeyCode::Right);
    let stats = drawn(app);
    assert!(
        stats.contains(&format!("your labels: {figure}")),
        "stats screen, run 2:\n{stats}"
    );
    let run2 = format!(
        "{} of {} failures labelled in run rollouts_run2",
        labelled[1], failures[1]
    );
    assert!(
        stats.contains(&run2),
        "stats screen, run 2:\n{stats}\n{run2}"
    );
}
