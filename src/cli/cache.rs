//! `sebx cache`: where remembered verdicts live, how big the store is, pruning and emptying it.

use std::process::ExitCode;

use std::path::PathBuf;

use anyhow::Result;

use crate::session::CacheChoice;
use crate::session::caches::{CacheAdmin, Size, human_bytes};

/// The score cache: verdicts the explorer and `sebx grade` remember between sessions.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Verdicts are remembered per rollout (its id and test cases), per grader version\n\
and per API doc, in one SQLite database, <cache dir>/sebx/scores/cache.sqlite3 (override the\n\
folder with --cache-dir DIR or $SEBX_SCORE_CACHE). Beside them, program runs are remembered per program (code and\n\
inputs) and settings, so a new rollout whose program ran before is graded without running it.\n\
The explorer shows verdicts at once when a file is reopened; `sebx grade --cached` and\n\
`sebx stats` reuse verdicts and runs; `--no-cache` ignores the cache. Several sebx processes\n\
may use the cache at once.\n\
\n\
The store is bounded: past 1 GiB of records ($SEBX_CACHE_MAX_MB sets another limit, in MiB)\n\
the least recently used go until it is under 90% of the limit, report bodies and program runs\n\
first. Those two (kept compressed) also have a budget of their own, 4 MiB ($SEBX_CACHE_BODIES_MB\n\
sets another): a report whose body went is graded again when its row is opened, while every\n\
rollout's verdict, reward and flags stay. Caches of earlier sebx\n\
versions (*.jsonl files in the folder) are removed when the cache is opened."
)]
pub struct CacheArgs {
    #[command(subcommand)]
    pub command: CacheCommand,
    /// The score cache's folder, as every command's `--cache-dir` names it (default:
    /// $SEBX_SCORE_CACHE, else <cache dir>/sebx/scores).
    #[arg(long, value_name = "DIR", global = true)]
    pub cache_dir: Option<PathBuf>,
}

#[derive(Debug, clap::Subcommand)]
pub enum CacheCommand {
    /// Print the folder the score cache lives in.
    Path,
    /// Print the database's path, its size on disk, records and bytes by kind, and the limit.
    Size,
    /// Evict the least recently used records down to a size (default: the limit).
    Prune {
        /// The size to prune down to, in MiB.
        #[arg(long, value_name = "N")]
        max_mb: Option<u64>,
    },
    /// Forget every remembered verdict and program run.
    Clear,
}

pub fn run(args: CacheArgs) -> Result<ExitCode> {
    let choice = match &args.cache_dir {
        Some(dir) => CacheChoice::Dir(dir.clone()),
        None => CacheChoice::Default,
    };
    let cache = CacheAdmin::new(&choice)?;
    match args.command {
        CacheCommand::Path => println!("{}", cache.dir().display()),
        CacheCommand::Size => print_size(&cache.size()?),
        CacheCommand::Prune { max_mb } => {
            let p = cache.prune(max_mb)?;
            println!(
                "evicted {} least recently used record(s), {} of records (down to at most {}); \
                 {} now holds {} of records, {} on disk (was {})",
                p.evicted.records,
                human_bytes(p.evicted.bytes),
                human_bytes(p.max),
                p.after.path.display(),
                human_bytes(p.after.bytes),
                human_bytes(p.after.on_disk),
                human_bytes(p.before_on_disk),
            );
        }
        CacheCommand::Clear => {
            let cleared = cache.clear()?;
            println!(
                "removed {} record(s) ({}) from {} and {} JSONL file(s) beside it",
                cleared.records.records,
                human_bytes(cleared.records.bytes),
                cache.database().display(),
                cleared.files,
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What the store holds, by kind: reports (`<grader>-<api>`: a record per rollout), the
/// report bodies they share by program (`...-bodies`) and program runs (`...-runs`).
fn print_size(size: &Size) {
    println!("database: {}", size.path.display());
    println!("on disk:  {}", human_bytes(size.on_disk));
    let mut kinds = [
        ("reports", 0u64, 0u64, 0usize),
        ("report bodies (shared by program)", 0, 0, 0),
        ("program runs", 0, 0, 0),
    ];
    for ns in &size.namespaces {
        let kind = &mut kinds[if ns.name.ends_with("-runs") {
            2
        } else if ns.name.ends_with("-bodies") {
            1
        } else {
            0
        }];
        kind.1 += ns.records;
        kind.2 += ns.bytes;
        kind.3 += 1;
    }
    for (kind, records, bytes, namespaces) in kinds {
        println!(
            "{kind}: {records} record(s), {} in {namespaces} grader version(s) and mapping(s)",
            human_bytes(bytes)
        );
    }
    let regradable: u64 = size
        .namespaces
        .iter()
        .filter(|ns| crate::session::caches::regradable(&ns.name))
        .map(|ns| ns.bytes)
        .sum();
    println!(
        "report bodies and program runs (packed; evicted first, graded again when needed): {} of a {} budget",
        human_bytes(regradable),
        human_bytes(size.regradable_budget)
    );
    println!(
        "sets of facts (opened runs' loading batches, each read at once on reopening): {} set(s), {}",
        size.sets.0,
        human_bytes(size.sets.1)
    );
    println!(
        "records: {} of a {} limit ({:.0}%)",
        human_bytes(size.bytes),
        human_bytes(size.limit),
        100.0 * size.bytes as f64 / size.limit.max(1) as f64
    );
}
