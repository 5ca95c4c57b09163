//! Every screen of the explorer over the fixtures at the two sizes issue 41 names, 80×24 and
//! 160×45: the list with each pane, the help, the Stats and Compare screens and the label
//! popups, as snapshots (the Training screen and the presenter have their own, in
//! tui_training and tui_present).

use crate::tui_common;

use insta::assert_snapshot;
use sebx::tui::app::Grading;
use sebx::tui::inline::drain_inline;
use sebx::tui::{Action, App};
use tui_common::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// Every row graded (reports for run A, the fake backend for the rest), at `w`×`h`, on the
/// second row (a failure).
fn graded(w: u16, h: u16) -> App {
    let backend = FakeBackend::default();
    let mut app = app(Grading::Available);
    // Signed, so that a label key opens its popup rather than asking who labels.
    app.labelling.annotator = "tester".to_string();
    drain_inline(&mut app, Some(&backend));
    run_analysis(&mut app);
    app.update(&Action::Resize {
        width: w,
        height: h,
    });
    app.update(&Action::Top);
    app.update(&Action::Down);
    drain_inline(&mut app, None);
    app
}

fn shot(app: &App, w: u16, h: u16) -> String {
    screen(&draw(app, w, h))
}

#[test]
fn the_list_with_each_pane() {
    for (w, h) in SIZES {
        let mut app = graded(w, h);
        for (action, name) in [
            (Action::PaneResponse, "response"),
            (Action::PaneCode, "code"),
            (Action::PaneCases, "cases"),
            (Action::PaneOutput, "output"),
            (Action::PaneGraph, "graph"),
            (Action::PaneTask, "task"),
        ] {
            app.update(&action);
            // What the pane asks for (its analysis, its highlighting) is done first.
            drain_inline(&mut app, None);
            let text = shot(&app, w, h);
            assert!(text.contains("rollouts"), "{text}");
            assert_snapshot!(format!("list_{name}_{w}x{h}"), text);
        }
    }
}

/// At each size, the graded fixture after `actions` (the work each asks for done), its
/// screen holding each of `shows`, snapshotted as `{name}_{w}x{h}`.
fn each_size(name: &str, actions: &[Action], shows: &[&str]) {
    for (w, h) in SIZES {
        let mut app = graded(w, h);
        for action in actions {
            app.update(action);
            drain_inline(&mut app, None);
        }
        let text = shot(&app, w, h);
        for s in shows {
            assert!(text.contains(s), "{name} at {w}x{h} shows {s:?}:\n{text}");
        }
        assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
}

#[test]
fn the_help() {
    each_size("help", &[Action::Help], &["Help — keys"]);
}

#[test]
fn the_stats_and_compare_screens() {
    each_size("stats", &[Action::StatsScreen], &["internalization map"]);
    each_size(
        "compare",
        &[Action::StatsScreen, Action::CompareScreen],
        &["McNemar"],
    );
}

#[test]
fn the_label_popups() {
    each_size(
        "category_picker",
        &[Action::CategoryPicker],
        &["Categories"],
    );
}

#[test]
fn the_whole_text_over_the_cases_pane() {
    each_size(
        "full_text_cases",
        &[Action::PaneCases, Action::FullText],
        &["case 1 of 2"],
    );
}

#[test]
fn the_whole_map_row_over_the_stats_screen() {
    each_size(
        "stats_whole_row",
        &[Action::StatsScreen, Action::FullText],
        &[", whole", "wrong names written instead"],
    );
}

#[test]
fn the_issues_popup() {
    each_size(
        "issues",
        &[Action::Issues],
        &["lines could not be loaded", "not valid JSON"],
    );
}

#[test]
fn the_runtime_offer() {
    for (w, h) in SIZES {
        let mut app = app(Grading::Unavailable(
            sebx::grade::backend::Unavailable::NoRuntime,
        ));
        app.labelling.annotator = "tester".to_string();
        app.update(&Action::Resize {
            width: w,
            height: h,
        });
        app.update(&Action::Down);
        app.update(&Action::Rerun);
        let text = shot(&app, w, h);
        assert_eq!(app.popup, Some(sebx::tui::state::Popup::Runtime), "{text}");
        assert_snapshot!(format!("runtime_offer_{w}x{h}"), text);
    }
}
