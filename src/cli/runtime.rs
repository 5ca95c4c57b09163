//! `sebx runtime install|status`: the Python 3.11 + NumPy 2.3.0 the grader runs programs with.

use std::process::ExitCode;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::grade::pool::status;
use crate::grade::runtime::{InstallStep, install_runtime};

/// Manage the grader's Python runtime.
#[derive(Debug, clap::Args)]
pub struct RuntimeArgs {
    #[command(subcommand)]
    pub action: RuntimeAction,
}

#[derive(Debug, clap::Subcommand)]
pub enum RuntimeAction {
    /// Create a venv with Python 3.11 and NumPy 2.3.0 in sebx's cache dir (SEBX_CACHE_DIR
    /// overrides it); does nothing when it already works. Needs python3.11 on PATH and pip access.
    Install,
    /// Say which Python will run programs and why, and which sandbox protections hold here;
    /// exits 1 when there is no runtime (so a script can test for one).
    Status,
}

pub fn run(args: RuntimeArgs) -> Result<ExitCode> {
    match args.action {
        RuntimeAction::Install => {
            let spinner = ProgressBar::new_spinner();
            spinner.set_style(
                ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            spinner.enable_steady_tick(std::time::Duration::from_millis(120));
            let runtime = install_runtime(&mut |step: InstallStep| {
                spinner.println(format!("  {step}"));
                spinner.set_message(step.to_string());
            });
            spinner.finish_and_clear();
            let runtime = runtime?;
            println!(
                "runtime ready: {} (Python {}, NumPy {})",
                runtime.python.display(),
                runtime.python_version,
                runtime.numpy_version
            );
            Ok(ExitCode::SUCCESS)
        }
        RuntimeAction::Status => {
            let (lines, found) = status();
            for line in lines {
                println!("{line}");
            }
            if found {
                Ok(ExitCode::SUCCESS)
            } else {
                crate::warnln!(
                    "error: no Python runtime for the grader: run `sebx runtime install`"
                );
                Ok(ExitCode::from(1))
            }
        }
    }
}
