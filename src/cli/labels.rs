//! `sebx labels`: export human labels joined with verdicts and tasks, and measure
//! agreement between annotators. Labels live in `<rollouts>.labels.jsonl` sidecars (where
//! `session::sidecars` places them). Every subcommand takes the same inputs
//! ([`LabelInputs`]), resolved by the session as every command's are.

use crate::model::discovery::ContextArgs;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::analysis::{
    AnalysisDigest, FindingKind, GradeFacts, analyze_rollout, extract_last_python_block,
    suggested_category,
};
use crate::model::agreement::{Agreement, compare_annotators};
use crate::model::labels::{LABELS_SUFFIX, LabelRecord, LabelStore};
use crate::model::rollout::{LoadedFile, Rollout};
use crate::model::taxonomy::{CategoryId, Taxonomy};
use crate::model::{ApiMap, Dataset, RolloutId, Verdict};
use crate::session::caches::CacheFlags;
use crate::session::inputs::RunInput;
use crate::session::sidecars::SidecarFlags;
use crate::session::{Session, SessionArgs};

/// Work with the labels stored next to rollout files.
#[derive(Debug, clap::Args)]
pub struct LabelsArgs {
    #[command(subcommand)]
    pub command: LabelsCommand,
}

/// The `sebx labels` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum LabelsCommand {
    /// Write the current labels joined with verdicts and tasks, as CSV or JSONL.
    Export(ExportArgs),
    /// Cohen's kappa between two annotators, per category and overall, with disagreements.
    Agreement(AgreementArgs),
    /// How many rollouts are labelled, by whom, and how often each category was chosen.
    Progress(ProgressArgs),
}

/// Output format of `sebx labels export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Comma-separated, RFC 4180 quoting, lists joined with `;`.
    Csv,
    /// One JSON object per row.
    Jsonl,
}

/// The inputs every `sebx labels` subcommand takes, resolved as every command resolves
/// them (`session::inputs`): the files, scored files, the API doc and datasets, the
/// taxonomy, the score cache and where the sidecars are.
#[derive(Debug, Clone, clap::Args)]
pub struct LabelInputs {
    /// Rollout files (or folders of them, training runs) whose label sidecars to read, and
    /// any `sebx grade` outputs, correct-trajectories files, datasets or API doc with them
    /// (recognised by their first line).
    #[arg(required = true)]
    pub rollouts: Vec<PathBuf>,
    /// Scored JSONL written by `sebx grade` (repeatable); joined by rollout id (the same as
    /// giving it among the files).
    #[arg(long, value_name = "SCORED.jsonl")]
    pub scores: Vec<PathBuf>,
    /// Taxonomy file for category names and order (default: the nearest
    /// sebx-taxonomy.toml, else the built-in set).
    #[arg(long, value_name = "FILE")]
    pub taxonomy: Option<PathBuf>,
    #[command(flatten)]
    pub context: ContextArgs,
    #[command(flatten)]
    pub cache: CacheFlags,
    #[command(flatten)]
    pub sidecars: SidecarFlags,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "One row per (rollout, annotator) current label, in file order. Columns: \
source, line, rollout_id, annotator, categories, category_labels, note, time, verdict, \
verdict_from (scored | correct | stored | rerun | cache | graded), query, selected_functions, one \
count per analysis finding kind (finding_numpy_import, ...; empty without an API doc) and \
suggested_category. In CSV, lists are joined with ';'. The verdict comes from one \
precedence, as in every command: a `sebx grade` output (given among the files or with \
--scores), a correct-trajectories file, a score stored in the rollout line, the latest rerun \
in <rollouts>.reruns.jsonl, the score cache; what none of them knows is graded (verdict_from \
graded) unless --no-grade."
)]
/// Arguments of `sebx labels export`.
pub struct ExportArgs {
    #[command(flatten)]
    pub inputs: LabelInputs,
    #[arg(long, value_enum, default_value_t = ExportFormat::Csv)]
    pub format: ExportFormat,
    /// Where to write (default: stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Only this annotator's labels.
    #[arg(long)]
    pub annotator: Option<String>,
    /// Also write a row (with empty label fields) for every rollout nobody labelled.
    #[arg(long)]
    pub all: bool,
    /// Leave the verdict of a rollout no source knows empty instead of grading it (by
    /// default it is graded with the API doc found, as every command does, and remembered).
    #[arg(long)]
    pub no_grade: bool,
}

/// Arguments of `sebx labels agreement`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Compares the rollouts both annotators currently label. Per category: Cohen's \
kappa over present/absent. Overall: the unweighted mean of the per-category kappas that are \
defined (a kappa is undefined when both annotators give the same answer on every rollout, \
e.g. a category neither used), plus the share of rollouts with identical label sets."
)]
pub struct AgreementArgs {
    #[command(flatten)]
    pub inputs: LabelInputs,
    /// The two annotators to compare, e.g. `--annotators alice,bob`. `@detector` stands
    /// for sebx's loophole detector (`--annotators alice,@detector`): it labels each rollout
    /// `loophole` when the analysis is sure of a loophole finding, so kappa, precision and
    /// recall say how far it agrees with the annotator's `loophole` labels.
    #[arg(long, value_delimiter = ',', required = true, value_name = "A,B")]
    pub annotators: Vec<String>,
    /// Print the figures as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `sebx labels progress`.
#[derive(Debug, clap::Args)]
pub struct ProgressArgs {
    #[command(flatten)]
    pub inputs: LabelInputs,
    /// Count only this annotator's labels (default: a rollout labelled by anyone counts).
    #[arg(long)]
    pub annotator: Option<String>,
}

impl LabelInputs {
    /// The session of a `sebx labels` subcommand: its inputs classified, their context
    /// found, the cache chosen and where the label sidecars are.
    fn session(&self, command: &'static str) -> Result<Session> {
        let session = Session::build(SessionArgs {
            command,
            paths: &self.rollouts,
            correct: &[],
            context: &self.context,
            cache: &self.cache.choice(),
        })?
        .with_sidecars(&self.sidecars)?;
        session.say_notes();
        for run in session.runs()? {
            if let Some(note) = session.sidecars.locate(&run.path, LABELS_SUFFIX).note {
                crate::warnln!("note: {note}");
            }
        }
        Ok(session)
    }
}

/// The rollouts of a run given to `sebx labels`, with the labels of its sidecar.
fn open_labelled(session: &Session, run: &RunInput) -> Result<LabelledFile> {
    let loaded = session.read(run)?;
    for issue in &loaded.issues {
        crate::warnln!("warning: {issue}");
    }
    let (labels, issues) =
        LabelStore::open_sidecar(&session.sidecars.locate(&run.path, LABELS_SUFFIX).path)?;
    for issue in issues {
        crate::warnln!("warning: skipped a damaged label line: {issue}");
    }
    Ok(LabelledFile { loaded, labels })
}

/// Runs `sebx labels ...`, writing to stdout (or `-o`).
pub fn run(args: LabelsArgs) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    run_to(args, &mut out)
}

/// Runs `sebx labels ...`, writing results to `out` unless `-o` names a file.
pub fn run_to(args: LabelsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    match args.command {
        LabelsCommand::Export(a) => export(&a, out),
        LabelsCommand::Agreement(a) => agreement(&a, out),
        LabelsCommand::Progress(a) => progress(&a, out),
    }
}

/// One rollout file with its labels.
struct LabelledFile {
    loaded: LoadedFile,
    labels: LabelStore,
}

/// One exported row.
#[derive(Debug, Clone, Serialize)]
pub struct ExportRow {
    pub source: String,
    pub line: usize,
    pub rollout_id: RolloutId,
    pub annotator: Option<String>,
    pub categories: Vec<CategoryId>,
    pub category_labels: Vec<String>,
    pub note: String,
    pub time: Option<String>,
    pub verdict: Option<Verdict>,
    /// Where the verdict came from: `scores`, `rerun` or `stored`.
    pub verdict_from: Option<&'static str>,
    pub query: String,
    pub selected_functions: Vec<String>,
    /// Number of analysis findings of each kind; `None` when no API doc was available.
    pub findings: Option<BTreeMap<&'static str, usize>>,
    /// The category [`crate::analysis::suggested_category`] proposes (as the explorer does),
    /// if the taxonomy has it.
    pub suggested_category: Option<CategoryId>,
}

const FIXED_COLUMNS: [&str; 12] = [
    "source",
    "line",
    "rollout_id",
    "annotator",
    "categories",
    "category_labels",
    "note",
    "time",
    "verdict",
    "verdict_from",
    "query",
    "selected_functions",
];

/// The CSV header: the fixed columns, one count per finding kind, then the suggestion.
pub fn csv_columns() -> Vec<String> {
    FIXED_COLUMNS
        .iter()
        .map(|c| c.to_string())
        .chain(
            FindingKind::ALL
                .iter()
                .map(|k| format!("finding_{}", k.as_str())),
        )
        .chain(["suggested_category".to_string()])
        .collect()
}

impl ExportRow {
    fn csv_fields(&self) -> Vec<String> {
        let join = |v: &[String]| v.join(";");
        let ids: Vec<String> = self.categories.iter().map(|c| c.0.clone()).collect();
        let mut fields = vec![
            self.source.clone(),
            self.line.to_string(),
            self.rollout_id.to_string(),
            self.annotator.clone().unwrap_or_default(),
            join(&ids),
            join(&self.category_labels),
            self.note.clone(),
            self.time.clone().unwrap_or_default(),
            self.verdict
                .map(|v| v.as_str().to_string())
                .unwrap_or_default(),
            self.verdict_from.unwrap_or_default().to_string(),
            self.query.clone(),
            join(&self.selected_functions),
        ];
        for kind in FindingKind::ALL {
            fields.push(
                self.findings
                    .as_ref()
                    .map(|f| f.get(kind.as_str()).copied().unwrap_or(0).to_string())
                    .unwrap_or_default(),
            );
        }
        fields.push(
            self.suggested_category
                .as_ref()
                .map(|c| c.0.clone())
                .unwrap_or_default(),
        );
        fields
    }
}

/// RFC 4180 CSV of `rows` (the first one the header), fields quoted where they need it.
pub fn csv_table<'a>(rows: impl IntoIterator<Item = &'a [String]>) -> Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.write_record(row)?;
    }
    let bytes = writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(String::from_utf8(bytes)?)
}

/// The API map and dataset for the findings columns, when an API doc can be found.
fn analysis_context(session: &Session) -> Option<(ApiMap, Dataset)> {
    // The API doc and dataset files among the inputs count like the flags (the session's
    // one rule for every command).
    let Some(api) = session.api_found() else {
        crate::warnln!(
            "note: no API doc (pass --api-doc FILE or set SEBX_API_DOC): findings columns left empty, and verdicts come only from scored files, correct-trajectories files, stored verdicts and reruns (the score cache is filed by API doc)"
        );
        return None;
    };
    for issue in &session.dataset.issues {
        crate::warnln!("warning: {issue}");
    }
    Some((api.clone(), Dataset::clone(&session.dataset)))
}

/// The analysis of one rollout, as far as the export and the suggestion need it.
fn digest_of(rollout: &Rollout, api: &ApiMap, dataset: &Dataset) -> AnalysisDigest {
    AnalysisDigest::of(&analyze_rollout(rollout, api, dataset.get(&rollout.query)))
}

/// Finding counts of one rollout (every kind present, zero when absent).
fn finding_counts(digest: &AnalysisDigest) -> BTreeMap<&'static str, usize> {
    let mut counts: BTreeMap<&'static str, usize> =
        FindingKind::ALL.iter().map(|k| (k.as_str(), 0)).collect();
    for f in &digest.findings {
        *counts.entry(f.kind.as_str()).or_default() += 1;
    }
    counts
}

/// Builds the export rows of `args` (what `sebx labels export` writes).
pub fn export_rows(args: &ExportArgs) -> Result<Vec<ExportRow>> {
    let session = args.inputs.session("labels export")?;
    let inputs = &session.inputs;
    let mut reports = inputs.reports.clone();
    reports.extend(args.inputs.scores.iter().cloned());
    let context = analysis_context(&session);
    // Nothing is graded here: verdicts remembered under the official settings.
    let opened = session.score_cache(&crate::grade::settings::GradingSettings::official());
    let (resolver, issues) = opened.resolver(&reports)?;
    let resolver = resolver.with_sidecars(session.sidecars.clone());
    for issue in issues {
        crate::warnln!("warning: {issue}");
    }
    let mut files = Vec::new();
    for run in &inputs.runs {
        let file = open_labelled(&session, run)?;
        files.push((run, file));
    }
    // Every exported rollout's verdict: the resolver's, and what no source knows graded
    // (the session's one way, as `sebx stats` does) when an API doc is found.
    // The current labels exported of a rollout (this annotator's, when one is asked for);
    // a rollout is exported when it has some, or with --all.
    let labels_of = |file: &'_ LabelledFile, r: &Rollout| -> Vec<LabelRecord> {
        file.labels
            .current_for(&r.id)
            .into_iter()
            .filter(|l| args.annotator.as_deref().is_none_or(|a| a == l.annotator))
            .cloned()
            .collect()
    };
    let wanted = |file: &LabelledFile, r: &Rollout| args.all || !labels_of(file, r).is_empty();
    let mut known: Vec<Vec<Option<crate::session::Resolved>>> = files
        .iter()
        .map(|(run, file)| {
            let rollouts: Vec<&Rollout> = file.loaded.rollouts.iter().collect();
            resolver.known_many(&rollouts, run.correct)
        })
        .collect();
    if let Some((api, _)) = context.as_ref().filter(|_| !args.no_grade) {
        let missing: Vec<(usize, usize)> = files
            .iter()
            .enumerate()
            .flat_map(|(f, (_, file))| {
                let known = &known[f];
                file.loaded
                    .rollouts
                    .iter()
                    .enumerate()
                    .filter(move |(i, r)| {
                        known[*i].is_none() && wanted(file, r) && crate::session::runs::gradable(r)
                    })
                    .map(move |(i, _)| (f, i))
            })
            .collect();
        if !missing.is_empty() {
            let todo: Vec<&Rollout> = missing
                .iter()
                .map(|&(f, i)| &files[f].1.loaded.rollouts[i])
                .collect();
            match crate::session::runs::grade_missing(
                api,
                opened.cache.as_deref(),
                &todo,
                None,
                crate::grade::settings::GradingSettings::official().timeout,
                false,
                true,
            ) {
                Ok(graded) => {
                    for (&(f, i), resolved) in missing.iter().zip(graded.resolved()) {
                        known[f][i] = resolved;
                    }
                    crate::warnln!("note: graded {} rollouts without a verdict", todo.len());
                    for note in graded.notes {
                        crate::warnln!("note: {note}");
                    }
                }
                Err(e) => crate::warnln!(
                    "note: {e:#}; the verdict columns of those {} rollouts stay empty",
                    missing.len()
                ),
            }
        }
    }
    let mut rows = Vec::new();
    for (f, (run, file)) in files.iter().enumerate() {
        let path = &run.path;
        let taxonomy = Taxonomy::for_rollout_file(path, args.inputs.taxonomy.as_deref())?;
        let label_of = |id: &CategoryId| {
            taxonomy
                .get(id)
                .map(|c| c.label.clone())
                .unwrap_or_else(|| id.0.clone())
        };
        for (i, rollout) in file.loaded.rollouts.iter().enumerate() {
            let labels = labels_of(file, rollout);
            if labels.is_empty() && !args.all {
                continue;
            }
            let info = known[f][i];
            let digest = context
                .as_ref()
                .map(|(api, dataset)| digest_of(rollout, api, dataset));
            let findings = digest.as_ref().map(finding_counts);
            let code_found = extract_last_python_block(&rollout.response).is_some();
            let grade = GradeFacts {
                verdict: info.map(|i| i.verdict),
                timed_out: info.is_some_and(|i| i.facts.timed_out),
                program_syntax_error: info.is_some_and(|i| i.facts.program_syntax_error),
                loopholes: info.map_or(0, |i| i.facts.run_kinds()),
            };
            let suggested_category =
                suggested_category(&taxonomy, grade, code_found, digest.as_ref())
                    .map(|c| c.id.clone());
            let base = ExportRow {
                // The rollout's own file: a training sample's step file.
                source: rollout.source.display().to_string(),
                line: rollout.line,
                rollout_id: rollout.id.clone(),
                annotator: None,
                categories: Vec::new(),
                category_labels: Vec::new(),
                note: String::new(),
                time: None,
                verdict: info.map(|i| i.verdict),
                verdict_from: info.map(|i| i.source.as_str()),
                query: rollout.query.to_string(),
                selected_functions: rollout.selected_functions.to_vec(),
                findings,
                suggested_category,
            };
            if labels.is_empty() {
                rows.push(base.clone());
            }
            for label in labels {
                rows.push(ExportRow {
                    annotator: Some(label.annotator.clone()),
                    categories: label.categories.clone(),
                    category_labels: label.categories.iter().map(label_of).collect(),
                    note: label.note.clone(),
                    time: Some(label.time.clone()),
                    ..base.clone()
                });
            }
        }
        let known: std::collections::HashSet<&RolloutId> =
            file.loaded.rollouts.iter().map(|r| &r.id).collect();
        let orphans = file
            .labels
            .all_current()
            .into_iter()
            .filter(|r| !known.contains(&r.rollout))
            .count();
        if orphans > 0 {
            crate::warnln!(
                "warning: {}: {orphans} label(s) refer to rollouts no longer in the file; not exported",
                file.labels.path().display()
            );
        }
    }
    Ok(rows)
}

fn export(args: &ExportArgs, stdout: &mut dyn Write) -> Result<ExitCode> {
    let rows = export_rows(args)?;
    let mut file_out;
    let out: &mut dyn Write = match &args.output {
        Some(p) => {
            file_out = std::io::BufWriter::new(
                std::fs::File::create(p)
                    .with_context(|| format!("cannot create {}", p.display()))?,
            );
            &mut file_out
        }
        None => stdout,
    };
    match args.format {
        ExportFormat::Csv => {
            let header = csv_columns();
            let fields: Vec<Vec<String>> = rows.iter().map(|r| r.csv_fields()).collect();
            let table = csv_table(
                std::iter::once(header.as_slice()).chain(fields.iter().map(Vec::as_slice)),
            )?;
            out.write_all(table.as_bytes())?;
        }
        ExportFormat::Jsonl => {
            for row in &rows {
                serde_json::to_writer(&mut *out, row)?;
                writeln!(out)?;
            }
        }
    }
    out.flush()?;
    if args.output.is_some() {
        crate::warnln!("wrote {} row(s)", rows.len());
    }
    Ok(ExitCode::SUCCESS)
}

/// Where a rollout is: which of the given files, and the line in it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RolloutLocation {
    /// Index of the file among the command's rollout files.
    pub file_index: usize,
    pub line: usize,
    pub source: String,
}

impl std::fmt::Display for RolloutLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.source, self.line)
    }
}

/// Computes the agreement `sebx labels agreement` reports, and where each rollout is
/// for the disagreement list.
pub fn agreement_figures(
    args: &AgreementArgs,
) -> Result<(Agreement, HashMap<RolloutId, RolloutLocation>)> {
    let [a, b] = args.annotators.as_slice() else {
        bail!(
            "--annotators takes exactly two names, e.g. --annotators alice,bob (got {})",
            args.annotators.len()
        );
    };
    if a == b {
        bail!("--annotators names the same annotator twice ({a})");
    }
    if let Some(unsigned) = [a, b].into_iter().find(|n| *n == UNSIGNED) {
        bail!(
            "labels signed \"{unsigned}\" were saved without a name (older sebx): they may be several people's, each replacing the other's, so no agreement is computed with them; name annotators (--annotator NAME, annotator = \"NAME\" in config.toml or $SEBX_ANNOTATOR; the explorer asks) and label again"
        );
    }
    let session = args.inputs.session("labels agreement")?;
    let detector = a == DETECTOR || b == DETECTOR;
    // The detector judges every rollout against the API doc, as the figures do.
    let (api, dataset) = if detector {
        let Some(api) = session.api_found().filter(|a| !a.is_empty()) else {
            bail!(
                "{DETECTOR} needs the API doc to judge rollouts (--api-doc FILE, or one beside the rollouts)"
            );
        };
        (api.clone(), Some(&session.dataset))
    } else {
        (ApiMap::default(), None)
    };
    let paths: Vec<PathBuf> = session.inputs.run_paths();
    let many = paths.len() > 1;
    let mut records: Vec<LabelRecord> = Vec::new();
    let mut locations = HashMap::new();
    for (file_index, (run, path)) in session.runs()?.iter().zip(&paths).enumerate() {
        let file = open_labelled(&session, run)?;
        // With several files, ids are namespaced by file so equal ids stay apart.
        let key = |id: &RolloutId| {
            if many {
                RolloutId(format!("{}:{id}", path.display()))
            } else {
                id.clone()
            }
        };
        for r in &file.loaded.rollouts {
            locations.insert(
                key(&r.id),
                RolloutLocation {
                    file_index,
                    line: r.line,
                    source: path.display().to_string(),
                },
            );
            if detector {
                let item = dataset.as_ref().and_then(|d| d.get(&r.query));
                records.push(detector_record(key(&r.id), r, &api, item));
            }
        }
        for r in file.labels.all_current() {
            records.push(LabelRecord {
                rollout: key(&r.rollout),
                ..r.clone()
            });
        }
    }
    let first = paths
        .first()
        .map(PathBuf::as_path)
        .unwrap_or(Path::new("."));
    let taxonomy = Taxonomy::for_rollout_file(first, args.inputs.taxonomy.as_deref())?;
    let refs: Vec<&LabelRecord> = records.iter().collect();
    Ok((compare_annotators(&refs, a, b, &taxonomy.ids()), locations))
}

/// The name older sebx signed labels with when no annotator was named: possibly several
/// people, so `labels agreement` refuses it.
pub const UNSIGNED: &str = "anonymous";

/// The annotator name that stands for sebx's loophole detector in `labels agreement`.
pub const DETECTOR: &str = "@detector";

/// The taxonomy category the detector labels with.
const LOOPHOLE_CATEGORY: &str = "loophole";

/// What the loophole detector says of `r`, as a label: `loophole` when the analysis is sure
/// of a loophole finding (the rule every figure counts by: `runs::kinds_of`), else none.
fn detector_record(
    id: RolloutId,
    r: &Rollout,
    api: &ApiMap,
    item: Option<&crate::model::dataset::DatasetItem>,
) -> LabelRecord {
    let kinds = crate::grade::runs::kinds_of(&analyze_rollout(r, api, item));
    let loophole = kinds & crate::model::finding_kinds::LOOPHOLE_BITS != 0;
    LabelRecord {
        rollout: id,
        categories: if loophole {
            vec![CategoryId(LOOPHOLE_CATEGORY.to_string())]
        } else {
            Vec::new()
        },
        note: String::new(),
        annotator: DETECTOR.to_string(),
        time: String::new(),
    }
}

/// The detector scored against the other annotator's `loophole` labels, taken as the truth:
/// (precision, recall), each `None` when its denominator is 0.
pub fn detector_scores(ag: &Agreement) -> Option<(Option<f64>, Option<f64>)> {
    let detector_is_a = if ag.annotator_a == DETECTOR {
        true
    } else if ag.annotator_b == DETECTOR {
        false
    } else {
        return None;
    };
    let c = ag
        .per_category
        .iter()
        .find(|c| c.category.0 == LOOPHOLE_CATEGORY)?;
    let (only_detector, only_person) = if detector_is_a {
        (c.only_a, c.only_b)
    } else {
        (c.only_b, c.only_a)
    };
    let share = |n: usize, d: usize| (d > 0).then(|| n as f64 / d as f64);
    Some((
        share(c.both, c.both + only_detector),
        share(c.both, c.both + only_person),
    ))
}

fn fmt_opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.3}"))
        .unwrap_or_else(|| "-".to_string())
}

fn agreement(args: &AgreementArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let (ag, locations) = agreement_figures(args)?;
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &ag)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let (a, b) = (&ag.annotator_a, &ag.annotator_b);
    writeln!(
        out,
        "{a} vs {b}: {} rollout(s) labelled by both ({} only by {a}, {} only by {b})",
        ag.compared, ag.only_labelled_by_a, ag.only_labelled_by_b
    )?;
    if ag.compared == 0 {
        writeln!(out, "nothing to compare")?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:<28} {:>5} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6}",
        "category", "both", "only_a", "only_b", "neither", "p_o", "p_e", "kappa"
    )?;
    let mut unused = 0;
    for c in &ag.per_category {
        if c.both + c.only_a + c.only_b == 0 {
            unused += 1;
            continue;
        }
        writeln!(
            out,
            "{:<28} {:>5} {:>7} {:>7} {:>7} {:>6.3} {:>6.3} {:>6}",
            c.category.0,
            c.both,
            c.only_a,
            c.only_b,
            c.neither,
            c.observed,
            c.expected,
            fmt_opt(c.kappa)
        )?;
    }
    if unused > 0 {
        writeln!(
            out,
            "({unused} categor{} used by neither: not shown)",
            if unused == 1 { "y" } else { "ies" }
        )?;
    }
    let defined = ag.per_category.iter().filter(|c| c.kappa.is_some()).count();
    writeln!(
        out,
        "mean kappa over {defined} categor{} with a defined kappa: {}",
        if defined == 1 { "y" } else { "ies" },
        fmt_opt(ag.mean_kappa)
    )?;
    if let Some((precision, recall)) = detector_scores(&ag) {
        writeln!(
            out,
            "loophole detector against the annotator's `loophole` labels: precision {}, recall {}",
            fmt_opt(precision),
            fmt_opt(recall)
        )?;
    }
    let identical = ag.compared - ag.disagreements.len();
    writeln!(
        out,
        "identical label sets: {identical}/{} ({})",
        ag.compared,
        ag.exact_set_agreement
            .map(|x| format!("{:.1}%", x * 100.0))
            .unwrap_or_else(|| "-".to_string())
    )?;
    if !ag.disagreements.is_empty() {
        writeln!(out, "disagreements ({}):", ag.disagreements.len())?;
        let names = |v: &[CategoryId]| {
            if v.is_empty() {
                "(none)".to_string()
            } else {
                v.iter()
                    .map(|c| c.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        // In file order; rollouts no longer in the files go last.
        let mut ordered: Vec<_> = ag
            .disagreements
            .iter()
            .map(|d| (locations.get(&d.rollout), d))
            .collect();
        ordered.sort_by(|x, y| match (x.0, y.0) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => x.1.rollout.cmp(&y.1.rollout),
        });
        for (location, d) in ordered {
            let at = location
                .map(|l| l.to_string())
                .unwrap_or_else(|| format!("(not in the files) {}", d.rollout));
            writeln!(
                out,
                "  {at} [{}]  {a}: {}  |  {b}: {}",
                d.rollout,
                names(&d.categories_a),
                names(&d.categories_b)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn progress(args: &ProgressArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let session = args.inputs.session("labels progress")?;
    for run in session.runs()? {
        let path = &run.path;
        let file = open_labelled(&session, run)?;
        let taxonomy = Taxonomy::for_rollout_file(path, args.inputs.taxonomy.as_deref())?;
        let ids: Vec<RolloutId> = file.loaded.rollouts.iter().map(|r| r.id.clone()).collect();
        let p = file.labels.progress(&ids, args.annotator.as_deref());
        let who = args.annotator.as_deref().unwrap_or("anyone");
        let share = if p.total == 0 {
            0.0
        } else {
            100.0 * p.labelled as f64 / p.total as f64
        };
        writeln!(
            out,
            "{}: {}/{} labelled by {who} ({share:.1}%)",
            path.display(),
            p.labelled,
            p.total
        )?;
        let annotators = file.labels.annotators();
        if args.annotator.is_none() && !annotators.is_empty() {
            let counts: Vec<String> = annotators
                .iter()
                .map(|a| format!("{a} {}", file.labels.progress(&ids, Some(a)).labelled))
                .collect();
            writeln!(out, "  annotators: {}", counts.join(", "))?;
        }
        let mut listed: Vec<(String, usize)> = taxonomy
            .categories
            .iter()
            .filter_map(|c| p.per_category.get(&c.id).map(|n| (c.label.clone(), *n)))
            .collect();
        // Categories not in the taxonomy (an older or another project's set) still show.
        listed.extend(
            p.per_category
                .iter()
                .filter(|(id, _)| taxonomy.get(id).is_none())
                .map(|(id, n)| (format!("{id} (not in the taxonomy)"), *n)),
        );
        for (label, n) in listed {
            writeln!(out, "  {n:>5}  {label}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        let row = |fields: &[&str]| fields.iter().map(|f| f.to_string()).collect::<Vec<_>>();
        let table = csv_table([
            row(&["plain", "a,b"]).as_slice(),
            row(&["say \"hi\"", "two\nlines"]).as_slice(),
        ])
        .expect("csv");
        assert_eq!(table, "plain,\"a,b\"\n\"say \"\"hi\"\"\",\"two\nlines\"\n");
    }
}
