//! `sebx report` reads its context once: the page is drawn from the one session built from
//! its command line (`cli::report::session_of`), figures and examples alike. With the API
//! doc and the dataset deleted once that session is built, the page is byte for byte the
//! page of the same inputs left in place, and it still holds its examples, whose Code pane
//! marks each zwc call with its NumPy name (`‹mean›`) from the API map. A drawer or loader
//! that classified the inputs again, or read the API doc or dataset again, would fail on
//! the missing paths or draw without them. (The runs are graded: Python runtime required,
//! `sebx runtime install`.)

use std::path::{Path, PathBuf};

use clap::Parser;
use sebx::cli::report::{ReportArgs, page_of, session_of};
use sebx::tui::report_examples::ExportDrawer;

use crate::demo_files;
use crate::isolated;

use demo_files::demo_copy_with_training as demo_copy;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    report: ReportArgs,
}

/// `sebx report` of every demo input in `dir`, with a score cache and sidecar folder of its
/// own (nothing remembered: both pages grade alike and say so alike).
fn args(dir: &Path) -> ReportArgs {
    let root = isolated::fresh_root();
    let mut line: Vec<PathBuf> = ["sebx"].iter().map(PathBuf::from).collect();
    line.extend(
        [
            "rollouts.jsonl",
            "rollouts_run2.jsonl",
            "rollouts.scored.jsonl",
            "tasks.jsonl",
            "api_doc.jsonl",
            "training/rollout",
        ]
        .iter()
        .map(|f| dir.join(f)),
    );
    line.push("-q".into());
    line.push("--cache-dir".into());
    line.push(root.join("scores"));
    line.push("--sidecar-dir".into());
    line.push(root.join("sidecars"));
    Cli::try_parse_from(line).expect("report arguments").report
}

fn drawer() -> ExportDrawer {
    ExportDrawer {
        config: Some(isolated::empty_config()),
    }
}

#[test]
fn the_page_is_drawn_from_the_session_without_reading_its_context_again() {
    let dir = demo_copy();
    let kept = args(dir.path());
    let session = session_of(&kept).expect("the session");
    let page = page_of(&kept, &session, &drawer()).expect("the page");

    let deleted = args(dir.path());
    let session = session_of(&deleted).expect("the session");
    std::fs::remove_file(dir.path().join("api_doc.jsonl")).expect("delete the API doc");
    std::fs::remove_file(dir.path().join("tasks.jsonl")).expect("delete the dataset");
    let without = page_of(&deleted, &session, &drawer()).expect("the page without them");

    let examples = page.matches("class=\"example\"").count();
    assert!(examples > 0, "the page has examples");
    let section = page
        .find("<section id=\"examples\">")
        .map(|at| &page[at..])
        .expect("the examples' section");
    assert!(
        section.contains('\u{2039}') && section.contains('\u{203a}'),
        "the examples mark zwc calls with their NumPy names (the API map's)"
    );
    assert_eq!(
        without.matches("class=\"example\"").count(),
        examples,
        "every example is drawn with the context files gone"
    );
    assert!(
        without == page,
        "the page drawn after the API doc and dataset were deleted differs from the page drawn with them"
    );
}
