//! `sebx cache`: where remembered verdicts live, and emptying it.

use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::grade::score_cache;

/// The score cache: verdicts the explorer and `sebx grade` remember between sessions.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Verdicts are remembered per rollout (its id and test cases), per grader version\n\
and per API doc, in <cache dir>/sebx/scores (override with $SEBX_SCORE_CACHE). Beside them,\n\
program runs are remembered per program (code and inputs) and settings, so a new rollout whose\n\
program ran before is graded without running it. The explorer shows verdicts at once when a\n\
file is reopened; `sebx grade --cached` and `sebx stats` reuse verdicts and runs; `--no-cache`\n\
ignores the cache."
)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CacheCommand {
    /// Print the folder the score cache lives in.
    Path,
    /// Forget every remembered verdict and program run.
    Clear,
}

pub fn run(args: CacheArgs) -> Result<ExitCode> {
    let Some(dir) = crate::session::CacheChoice::Default.dir() else {
        bail!("no cache folder on this system: set SEBX_SCORE_CACHE");
    };
    match args.command {
        CacheCommand::Path => println!("{}", dir.display()),
        CacheCommand::Clear => {
            let removed = score_cache::clear(&dir)?;
            println!(
                "removed {removed} score cache file(s) from {}",
                dir.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
