//! `sebx rerun`: regrade one rollout headless and print a readable report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::grade::engine::Engine;
use crate::grade::grader::grade_rollout_with;
use crate::grade::render::report_text;
use crate::model::ApiMap;
use crate::model::discovery::discover;
use crate::model::rollout::load_rollout_file;

/// Regrade one rollout and print its verdict, static check, each case and stdout/stderr.
#[derive(Debug, clap::Args)]
pub struct RerunArgs {
    /// The rollout file.
    pub file: PathBuf,
    /// 1-based line of the rollout in FILE.
    #[arg(long)]
    pub line: usize,
    /// Grade this code instead of the response's extracted code (a what-if).
    #[arg(long, value_name = "FILE")]
    pub code: Option<PathBuf>,
    /// The zwc API doc (api_doc.jsonl) or mappings.json.
    #[arg(long, value_name = "FILE")]
    pub api_doc: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Wall-clock timeout in seconds (official: 3).
    #[arg(long, default_value_t = 3.0)]
    pub timeout: f64,
}

pub fn run(args: RerunArgs) -> Result<ExitCode> {
    let loaded = load_rollout_file(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    if let Some(issue) = loaded.issues.iter().find(|i| i.line == args.line) {
        bail!("{issue}");
    }
    let Some(rollout) = loaded.rollouts.iter().find(|r| r.line == args.line) else {
        bail!(
            "{}:{}: no rollout on that line (the file has {} lines)",
            args.file.display(),
            args.line,
            loaded.lines
        );
    };
    let discovered = discover(
        args.api_doc.as_deref(),
        &[],
        std::slice::from_ref(&args.file),
    );
    let Some(api_doc) = &discovered.api_doc else {
        bail!("no API doc: pass --api-doc FILE or set SEBX_API_DOC");
    };
    let api = ApiMap::load(api_doc.path())?;
    let code = match &args.code {
        Some(p) => Some(
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => None,
    };
    let engine = Engine::start(&api, 1)?;
    let report = grade_rollout_with(
        rollout,
        code.as_deref(),
        &engine,
        Duration::from_secs_f64(args.timeout.max(0.01)),
    );
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        if let Some(stored) = &rollout.stored_score {
            let stored_text = stored
                .verdict
                .map(|v| v.as_str().to_string())
                .unwrap_or_else(|| stored.raw.to_string());
            println!("stored {}: {stored_text}", stored.field);
        }
        print!("{}", report_text(&report));
    }
    Ok(ExitCode::SUCCESS)
}
