use std::process::ExitCode;

use clap::{Parser, Subcommand};

use sebx::cli;

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
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    explore: cli::explore::ExploreArgs,
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
    /// Merge scored shards from `sebx grade --shard I/N` into one file in input order.
    Merge(cli::merge::MergeArgs),
    /// Serve the official sandbox API (POST /run) and grading/reward endpoints over HTTP.
    Serve(sebx::serve::ServeArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Grade(args)) => cli::grade::run(args),
        Some(Command::Rerun(args)) => cli::rerun::run(args),
        Some(Command::Analyze(args)) => cli::analyze::run_analyze(args),
        Some(Command::Graph(args)) => cli::analyze::run_graph(args),
        Some(Command::Runtime(args)) => cli::runtime::run(args),
        Some(Command::Labels(args)) => cli::labels::run(args),
        Some(Command::Cache(args)) => cli::cache::run(args),
        Some(Command::Stats(args)) => cli::stats::run_stats(args),
        Some(Command::Compare(args)) => cli::stats::run_compare(args),
        Some(Command::Merge(args)) => cli::merge::run(args),
        Some(Command::Serve(args)) => sebx::serve::run(args),
        None => cli::explore::run_default(cli.explore),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sebx: {e:#}");
            ExitCode::from(1)
        }
    }
}
