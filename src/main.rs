use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use sebx::cli;

/// sebx: explore, grade and label SE-Bench rollouts.
///
/// With no subcommand, opens the explorer on PATHS (rollout files, scored results,
/// dataset files, an API doc), or on the bundled demo when no path is given.
#[derive(Debug, Parser)]
#[command(name = "sebx", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Files to explore (when no subcommand is given).
    paths: Vec<PathBuf>,
}

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Grade(args)) => cli::grade::run(args),
        Some(Command::Rerun(args)) => cli::rerun::run(args),
        Some(Command::Analyze(args)) => cli::analyze::run_analyze(args),
        Some(Command::Graph(args)) => cli::analyze::run_graph(args),
        None => {
            eprintln!("the explorer is not wired in yet; try `sebx grade --help`");
            Ok(ExitCode::from(2))
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sebx: {e:#}");
            ExitCode::from(1)
        }
    }
}
