//! At 160 columns (issue 31) the label-mode footer says its whole message, with the keys
//! as bound, and the list's title keeps its counts (the least important parts go first
//! when it is too narrow) on the demo, two annotators' labels loaded.

use crate::tui_common;

use sebx::tui::explore::ExploreArgs;
use sebx::tui::{Action, App};
use tui_common::{draw, screen};

use crate::isolated;

fn demo(dir: &std::path::Path, config: Option<&str>) -> App {
    demo_as(dir, config, "ana")
}

fn demo_as(dir: &std::path::Path, config: Option<&str>, annotator: &str) -> App {
    let config = config.map(|text| {
        let path = dir.join("config.toml");
        std::fs::write(&path, text).expect("write");
        path
    });
    let args = ExploreArgs {
        annotator: Some(annotator.into()),
        config,
        ..isolated::explore_args()
    };
    tui_common::demo_app(&args, dir, 160, 48)
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

#[test]
fn the_label_mode_footer_is_whole_at_160_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), None);
    for _ in 0..2 {
        app.update(&Action::LabelMode);
        let message = app.message.clone().expect("label mode says its keys");
        let footer = screen(&draw(&app, 160, 48));
        let footer = last_line(&footer);
        assert!(footer.contains(&message), "cut:\n{footer}\n{message}");
    }
    // Unnamed: the "anonymous" note waits for the first label, and fits beside it.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo_as(dir.path(), None, "anonymous");
    app.update(&Action::LabelMode);
    let message = app.message.clone().expect("label mode says its keys");
    let footer = screen(&draw(&app, 160, 48));
    assert!(last_line(&footer).contains(&message), "cut:\n{footer}");
    // The keys said are the keymap's.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), Some("[keys]\n\"z\" = \"edit_note\"\n"));
    app.update(&Action::LabelMode);
    let message = app.message.clone().expect("message");
    assert!(
        message.contains("z note") && !message.contains("w note"),
        "{message}"
    );
}

#[test]
fn the_list_title_keeps_its_counts_at_160_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut app = demo(dir.path(), None);
    app.update(&Action::LabelMode);
    let progress = app.labelling.progress_text(app.corpus.runs.len());
    assert!(progress.contains("failures labelled"), "{progress}");
    for width in [130, 140, 160, 200] {
        app.update(&Action::Resize { width, height: 48 });
        let text = screen(&draw(&app, width, 48));
        let title = text.lines().next().unwrap_or("");
        assert!(title.contains(&progress), "{width}: {title}");
        assert!(
            title.contains("rollouts") && title.contains("row 1/"),
            "{title}"
        );
        // Whole parts only: the title ends on a part's end, not inside one.
        let shown = title
            .trim_start_matches('┌')
            .split('┐')
            .next()
            .unwrap_or("")
            .trim_end_matches(['─', '┐'])
            .trim_end();
        assert!(
            shown.ends_with(progress.trim_end()) || shown.ends_with(')'),
            "{width}: {title}"
        );
    }
}
