use sebx::grade::backend::Unavailable;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use sebx::cli;
use sebx::tui::{export, present};

/// sebx: explore, grade and label SE-Bench rollouts.
///
/// With no subcommand, opens the explorer on PATHS (rollout files, scored results,
/// dataset files, an API doc), or on the bundled demo when no path is given.
#[derive(Debug, Parser)]
#[command(
    name = "sebx",
    version,
    about,
    long_about,
    args_conflicts_with_subcommands = true,
    after_long_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    explore: sebx::tui::explore::ExploreArgs,
}

/// The exit codes, as `sebx --help` prints them.
const EXIT_CODES: &str = "Exit codes:
  0  success (also when the reader of the output closes the pipe, as in `sebx stats RUN | head`)
  1  an error, named on stderr; among them: no rollout could be loaded from the inputs
     (empty files, files of another schema), so that \"nothing loaded\" never reads as
     \"the model scored 0%\"
  2  the command line itself is wrong (an unknown flag, a missing argument)";

#[derive(Debug, Subcommand)]
enum Command {
    /// Grade rollout files with the official SE-Bench verdicts (sandboxed, parallel).
    Grade(cli::grade::GradeArgs),
    /// Regrade one rollout and print a readable report (verdict, static check, cases, output).
    Rerun(cli::rerun::RerunArgs),
    /// Static analysis: hallucinated NumPy names, misused ZWCArray methods, dependency graphs.
    Analyze(cli::analyze::AnalyzeArgs),
    /// Print one rollout's dependency graph (text, or Graphviz DOT with --dot).
    Graph(cli::analyze::GraphArgs),
    /// Present rollouts to a reading group, stage by stage: task, answer, guess, verdict, why.
    ///
    /// Keys: space or → next stage, ← back, pgdn/pgup next/previous rollout, n speaker
    /// notes, ↑↓ scroll, q quits. High-contrast theme unless --theme says otherwise.
    Present(PresentCmd),
    /// Export a rollout view for slides and papers (svg, html, md, txt), or a playlist's
    /// every stage as one HTML page (--playlist FILE --format html).
    ///
    /// The view is drawn with the explorer's own widgets off screen: a header (file:line,
    /// verdict, task) and the pane (--pane, default code) as tall as its content.
    Export(ExportCmd),
    /// Install or inspect the Python 3.11 + NumPy 2.3.0 runtime the grader uses.
    Runtime(cli::runtime::RuntimeArgs),
    /// Export hand labels (CSV/JSONL joined with verdicts, tasks and findings) and annotator agreement.
    Labels(cli::labels::LabelsArgs),
    /// The score cache: where remembered verdicts live (`path`), and forgetting them (`clear`).
    Cache(cli::cache::CacheArgs),
    /// Run-level figures: accuracy with a task-clustered interval, pass@k, the per-function
    /// internalization map, wrong names and hand-label prevalence.
    Stats(cli::stats::StatsArgs),
    /// Compare two runs: flip matrix, exact McNemar test, per-task and per-function deltas.
    Compare(cli::stats::CompareArgs),
    /// A self-contained HTML page of plots (training curves, loopholes, internalization,
    /// verdicts, pass@k, comparison) from the same report as `sebx stats`; --figures DIR
    /// writes each figure as an SVG.
    Report(cli::report::ReportArgs),
    /// Merge scored shards from `sebx grade --shard I/N` into one file in input order.
    Merge(cli::merge::MergeArgs),
    /// Serve the official sandbox API (POST /run) and grading/reward endpoints over HTTP.
    Serve(sebx::serve::ServeArgs),
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Grade(args)) => cli::grade::run(args),
        Some(Command::Rerun(args)) => cli::rerun::run(args),
        Some(Command::Analyze(args)) => cli::analyze::run_analyze(args),
        Some(Command::Graph(args)) => cli::analyze::run_graph(args),
        Some(Command::Present(cmd)) => run_present(cmd),
        Some(Command::Export(cmd)) => run_export(cmd),
        Some(Command::Runtime(args)) => cli::runtime::run(args),
        Some(Command::Labels(args)) => cli::labels::run(args),
        Some(Command::Cache(args)) => cli::cache::run(args),
        Some(Command::Stats(args)) => cli::stats::run_stats(args),
        Some(Command::Compare(args)) => cli::stats::run_compare(args),
        Some(Command::Report(args)) => {
            cli::report::run(args, &sebx::tui::report_examples::ExportDrawer::default())
        }
        Some(Command::Merge(args)) => cli::merge::run(args),
        Some(Command::Serve(args)) => sebx::serve::run(args),
        None => sebx::tui::explore::run_default(cli.explore),
    };
    // Pools still grading on a thread (the explorer quit mid-run) or kept in a static are
    // never dropped: their folders and cgroups go now.
    sebx::grade::pool::remove_leftovers();
    match result {
        Ok(code) => code,
        // The reader went away (`sebx stats … | head`): what it wanted was written.
        Err(e) if closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            sebx::warnln!("sebx: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Whether an error comes from writing to a pipe whose reader has closed it.
fn closed_pipe(e: &anyhow::Error) -> bool {
    // serde_json's writer errors wrap the io error without exposing it as their source.
    e.chain().any(|cause| {
        let kind = cause
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                cause
                    .downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// `print!` panics when stdout is a closed pipe; sebx then exits quietly with 0, as
/// ripgrep does, instead of printing a panic. Every other panic is reported as usual.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// `sebx present [FILES...] [--playlist FILE]`.
#[derive(Debug, clap::Args)]
struct PresentCmd {
    #[command(flatten)]
    explore: sebx::tui::explore::ExploreArgs,
    #[command(flatten)]
    present: present::PresentArgs,
}

fn run_present(mut cmd: PresentCmd) -> anyhow::Result<ExitCode> {
    let (playlist, issues) = present::resolve_playlist(&cmd.present, &mut cmd.explore.paths)?;
    for issue in &issues {
        sebx::warnln!("sebx: {issue}");
    }
    cmd.explore
        .theme
        .get_or_insert_with(|| "high-contrast".to_string());
    let session = sebx::tui::explore::prepare(
        &cmd.explore,
        sebx::tui::Grading::Unavailable(Unavailable::StoredOnly(
            "the presenter shows stored verdicts".to_string(),
        )),
    )?;
    present::run(session.app, session.sources, playlist, &cmd.present)
}

/// `sebx export FILE --line N --format svg|html|md|txt [--pane PANE] [--width W]`.
#[derive(Debug, clap::Args)]
struct ExportCmd {
    #[command(flatten)]
    explore: sebx::tui::explore::ExploreArgs,
    #[command(flatten)]
    export: export::ExportArgs,
}

fn run_export(mut cmd: ExportCmd) -> anyhow::Result<ExitCode> {
    // `--line N` counts the lines of the file named, or of the step file `RUN@STEP` names.
    let first_file = sebx::session::setup::line_file_of("export", &cmd.explore.paths)?;
    let playlist = match &cmd.export.playlist {
        Some(file) => {
            let args = present::PresentArgs {
                playlist: Some(file.clone()),
                ..present::PresentArgs::default()
            };
            let (playlist, issues) = present::resolve_playlist(&args, &mut cmd.explore.paths)?;
            for issue in &issues {
                sebx::warnln!("sebx: {issue}");
            }
            cmd.explore
                .theme
                .get_or_insert_with(|| "high-contrast".to_string());
            playlist
        }
        None => {
            // No file: the demo, as `--help` says. Paper is light unless --theme says.
            present::add_companions(&mut cmd.explore.paths);
            cmd.explore.theme.get_or_insert_with(|| "light".to_string());
            None
        }
    };
    let session = sebx::tui::explore::prepare(
        &cmd.explore,
        sebx::tui::Grading::Unavailable(Unavailable::StoredOnly(
            "export shows stored verdicts".to_string(),
        )),
    )?;
    export::run(
        session.app,
        session.sources,
        first_file,
        playlist,
        &cmd.export,
    )
}
