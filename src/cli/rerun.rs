//! `sebx rerun`: regrade one rollout headless and print a readable report.

use crate::grade::grader::note_entry_mismatch;
use crate::model::discovery::ContextArgs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::analysis::extract_last_python_block;
use crate::grade::backend::{GradeBackend, Grader};
use crate::grade::render::report_text;
use crate::grade::report::GradeReport;
use crate::grade::reruns::{RERUNS_SUFFIX, RerunRecord, RerunStore};
use crate::grade::reruns::{case_changes, edit_summary};
use crate::grade::settings::parse_timeout;
use crate::model::{Rollout, Verdict};
use crate::session::sidecars::SidecarFlags;
use crate::session::{Session, SessionArgs};

/// Regrade one rollout and print its verdict, static check, each case and stdout/stderr.
#[derive(Debug, clap::Args)]
pub struct RerunArgs {
    /// The rollout file (or a training run's step: `RUN@STEP`, its step file).
    pub file: PathBuf,
    /// 1-based line of the rollout in FILE (the step file for a training run).
    #[arg(long)]
    pub line: usize,
    /// Grade this code instead of the response's extracted code (a what-if).
    #[arg(long, value_name = "FILE")]
    pub code: Option<PathBuf>,
    #[command(flatten)]
    pub context: ContextArgs,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Wall-clock timeout in seconds (official: 3).
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = parse_timeout,
          allow_negative_numbers = true)]
    pub timeout: Duration,
    /// Do not keep the rerun in FILE.reruns.jsonl (or where --sidecar-dir says).
    #[arg(long)]
    pub no_save: bool,
    #[command(flatten)]
    pub sidecars: SidecarFlags,
}

pub fn run(args: RerunArgs) -> Result<ExitCode> {
    let session = Session::build(SessionArgs {
        command: "rerun",
        paths: std::slice::from_ref(&args.file),
        correct: &[],
        context: &args.context,
        cache: &crate::session::CacheChoice::Off,
    })?
    .say();
    session.refuse_scored()?;
    let source = session.line_source()?;
    let loaded = &source.loaded;
    if let Some(issue) = loaded.issues.iter().find(|i| i.line == args.line) {
        bail!("{issue}");
    }
    let Some(rollout) = loaded.rollouts.iter().find(|r| r.line == args.line) else {
        bail!(
            "{}:{}: no rollout on that line (the file has {} lines)",
            source.path.display(),
            args.line,
            loaded.lines
        );
    };
    let (api, dataset) = (session.require_api()?, &session.dataset);
    let code = match &args.code {
        Some(p) => Some(
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        None => None,
    };
    let grader = Grader::discover(api, 1)
        .map_err(|why| anyhow::anyhow!("{why}"))?
        .with_timeout(args.timeout);
    let mut report = match &code {
        Some(code) => grader.grade_code(rollout, code)?,
        None => grader.grade(rollout)?,
    };
    if let Some(item) = dataset.get(&rollout.query) {
        note_entry_mismatch(&mut report, &item.function_name);
    }
    // A what-if is shown beside the rollout's own code, graded the same way.
    let original = code.as_ref().map(|_| grader.grade(rollout)).transpose()?;
    let saved = if args.no_save {
        None
    } else {
        Some(save(&args.sidecars, &source.path, &report, code.clone()))
    };
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
        if let (Some(original), Some(edited)) = (&original, &code) {
            print!("{}", what_if_text(rollout, original, &report, edited));
        }
    }
    match saved {
        Some(Ok(path)) => crate::warnln!("kept in {}", path.display()),
        Some(Err(e)) => crate::warnln!("warning: the rerun was not kept: {e}"),
        None => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// Appends the rerun (or what-if) to the rollout file's rerun sidecar, where the session
/// places it; the rollout file itself is never written.
fn save(
    sidecars: &SidecarFlags,
    file: &Path,
    report: &GradeReport,
    code: Option<String>,
) -> Result<PathBuf> {
    let place = sidecars.places()?.locate(file, RERUNS_SUFFIX);
    if let Some(note) = &place.note {
        crate::warnln!("note: {note}");
    }
    let (mut store, _issues) = RerunStore::open_sidecar(&place.path)?;
    store.append(RerunRecord::now(report.clone(), code))?;
    Ok(store.path().to_path_buf())
}

/// The what-if beside the original: verdicts, what the edit swapped, and the cases that changed.
pub fn what_if_text(
    rollout: &Rollout,
    original: &GradeReport,
    what_if: &GradeReport,
    edited: &str,
) -> String {
    let verdict = |r: &GradeReport| r.verdict.map_or("not graded", |v| v.as_str());
    let own = extract_last_python_block(&rollout.response)
        .map(|b| b.code)
        .unwrap_or_default();
    let passed = what_if.verdict == Some(Verdict::Right);
    let mut out = format!(
        "\nwhat-if: {} → {}\n  original code: {}\n  edited code:   {}\n",
        edit_summary(&own, edited),
        if passed {
            "would have passed"
        } else {
            "would still fail"
        },
        verdict(original),
        verdict(what_if),
    );
    for change in case_changes(original, what_if) {
        out.push_str(&format!("  {change}\n"));
    }
    out
}
