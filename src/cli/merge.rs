//! `sebx merge`: joins the outputs of `sebx grade --shard I/N` into one scored file,
//! in input order, line for line what one unsharded `sebx grade` writes.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::grade::batch::Summary;
use crate::grade::report::GradeReport;

/// Merge scored shard files (from `sebx grade --shard I/N`) into one ordered scored file.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Give the shards in shard order (0, 1, ..., N-1; a shell glob of\n\
zero-padded names does): lines are ordered by input file, in the order the files first\n\
appear, then by line. Each line is copied byte for byte; a (source, line) pair seen twice\n\
is an error. The summary goes to stderr."
)]
pub struct MergeArgs {
    /// Scored shard files, in shard order.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Where to write the merged scored JSONL (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// The two keys that place a report.
#[derive(Deserialize)]
struct Place {
    source: String,
    line: usize,
}

pub fn run(args: MergeArgs) -> Result<ExitCode> {
    let mut source_rank: HashMap<String, usize> = HashMap::new();
    // (source rank, line, raw line, where it came from)
    let mut rows: Vec<(usize, usize, Vec<u8>, String)> = Vec::new();
    let mut seen: HashMap<(String, usize), String> = HashMap::new();
    let mut reports = Vec::new();
    for path in &args.shards {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let at = format!("{}:{}", path.display(), i + 1);
            let place: Place = serde_json::from_slice(raw).with_context(|| {
                format!("{at}: not a scored line of sebx grade (needs `source` and `line`)")
            })?;
            let report: GradeReport = serde_json::from_slice(raw)
                .with_context(|| format!("{at}: not a scored line of sebx grade"))?;
            reports.push(report);
            if let Some(first) = seen.insert((place.source.clone(), place.line), at.clone()) {
                bail!(
                    "{at}: {}:{} was already graded in {first} (a shard given twice, or shards of different runs?)",
                    place.source,
                    place.line
                );
            }
            let next = source_rank.len();
            let rank = *source_rank.entry(place.source).or_insert(next);
            rows.push((rank, place.line, raw.to_vec(), at));
        }
    }
    rows.sort_by_key(|(rank, line, _, _)| (*rank, *line));
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    for (_, _, raw, _) in &rows {
        out.write_all(raw)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    crate::warnln!(
        "merged {} lines from {} shard files",
        rows.len(),
        args.shards.len()
    );
    for line in Summary::from_reports(&reports).lines() {
        crate::warnln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
