//! `sebx analyze` and `sebx graph`: static analysis of rollouts, headless (no Python run,
//! except `--confirm`, which runs each rollout once under the tracer to settle its findings).

use crate::model::discovery::ContextArgs;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::analysis::{Analysis, FindingKind, Severity, analyze_rollout};
use crate::grade::trace;
use crate::session::{Session, SessionArgs, SourceFile};

/// Statically analyze rollouts: dependency graph and hallucinated or misused names.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Writes one JSON object per input line, in input order, to -o (or stdout):\n\
source, line, id, findings (kind, name, line, col in the extracted code, response_line,\n\
response_col, suggestion, message) and graph (functions, nodes, edges). A line that could\n\
not be loaded gives source, line and error. A summary follows (stderr when JSON goes to stdout).\n\
With --confirm each object also has `confirm`: the run's crash; per finding that claims a\n\
crash or a loophole, `settled` (confirmed; some_cases with why: raised on some test cases and\n\
ran cleanly on others; refuted with why; not_reached; untraced) and, for a confirmed loophole,\n\
`evidence` (what the run showed: NumPy imported, the harness never printed, the same answers\n\
with zwc's results made unusable, a returned text the judge computes); `found`: crashes\n\
on a zwc value the run saw where no finding claims one, and the loopholes the run shows by\n\
itself, as confirmed findings; and `behaviour`: every rollout's four answers (numpy,\n\
zwc_for_show, zwc_check_fooled, forged_output, judge_eval: the evidence, or null),\n\
zwc_calls, counterfactual, and caught_by_check when the official static check fails it\n\
(then nothing it shows is named a loophole)."
)]
pub struct AnalyzeArgs {
    /// Rollout files, folders of them, training runs (`RUN`, `RUN@STEP`, a step file), with
    /// any dataset or API doc among them.
    #[arg(required = true)]
    pub rollouts: Vec<PathBuf>,
    /// Where to write the JSONL (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Run each rollout under the tracer (Python runtime needed) and mark each finding
    /// that claims a crash or a loophole confirmed, refuted or not reached, and name the
    /// loopholes the run shows by itself; every rollout takes a second, counterfactual run
    /// (traces are cached).
    #[arg(long)]
    pub confirm: bool,
    /// Where `--confirm` remembers traces (`--cache-dir DIR`: `DIR/traces`; `--no-cache`: nowhere).
    #[command(flatten)]
    pub cache: crate::session::CacheFlags,
    #[command(flatten)]
    pub context: ContextArgs,
}

/// Print one rollout's dependency graph.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// The rollout file (or a training run's step: `RUN@STEP`, its step file).
    pub file: PathBuf,
    /// 1-based line of the rollout in the file (the step file for a training run).
    #[arg(long)]
    pub line: usize,
    /// Print Graphviz DOT instead of text.
    #[arg(long)]
    pub dot: bool,
    /// Width of the text rendering.
    #[arg(long, default_value_t = 80)]
    pub width: usize,
    #[command(flatten)]
    pub context: ContextArgs,
}

/// The session of `sebx analyze` or `sebx graph`: its inputs classified, the API doc
/// required.
fn session(
    command: &'static str,
    paths: &[PathBuf],
    context: &ContextArgs,
    cache: &crate::session::CacheChoice,
) -> Result<Session> {
    let session = Session::build(SessionArgs {
        command,
        paths,
        correct: &[],
        context,
        cache,
    })?
    .say();
    session.refuse_scored()?;
    session.runs()?;
    session.require_api()?;
    Ok(session)
}

/// Runs `sebx analyze`.
pub fn run_analyze(args: AnalyzeArgs) -> Result<ExitCode> {
    let session = session(
        "analyze",
        &args.rollouts,
        &args.context,
        &args.cache.choice(),
    )?;
    let api = session.require_api()?;
    let dataset = &session.dataset;
    let mut out: Box<dyn Write> = match &args.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut summary = AnalysisSummary::default();
    let confirmer = match args.confirm {
        true => Some(Confirmer::start(api, &session.cache)?),
        false => None,
    };
    let mut confirmed = ConfirmSummary::default();
    let mut analysed = 0;
    let files = session
        .runs()?
        .iter()
        .map(|run| session.files(run))
        .collect::<Result<Vec<_>>>()?;
    for SourceFile {
        path,
        loaded,
        bytes: _,
    } in files.into_iter().flatten()
    {
        for issue in &loaded.issues {
            crate::warnln!("warning: {issue}");
        }
        if let Some(warning) = loaded.empty_warning(&path) {
            crate::warnln!("warning: {warning}");
        }
        analysed += loaded.rollouts.len();
        for entry in loaded.entries() {
            let value = match entry {
                Ok(r) => {
                    let item = dataset.get(&r.query);
                    let a = analyze_rollout(r, api, item);
                    summary.add(&a);
                    let mut value = serde_json::to_value(&a)?;
                    if let Some(c) = &confirmer {
                        let cases = item
                            .filter(|_| r.test_cases.is_empty())
                            .map(|i| i.test_cases.as_slice())
                            .unwrap_or(&r.test_cases);
                        let keep = crate::analysis::loopholes::wrapping_constructors(
                            api,
                            crate::analysis::selected_functions(r, item),
                        );
                        let mut confirmation = c.confirm(&r.response, &a, cases, &keep)?;
                        if let Some(error) = a
                            .code
                            .static_check
                            .as_ref()
                            .and_then(|s| s.official_error())
                        {
                            confirmation.check_failed(&error);
                        }
                        confirmed.add(&confirmation);
                        value["confirm"] = serde_json::to_value(&confirmation)?;
                    }
                    value
                }
                Err(issue) => json!({
                    "source": issue.source.display().to_string(),
                    "line": issue.line,
                    "id": null,
                    "error": issue.reason,
                }),
            };
            serde_json::to_writer(&mut out, &value)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    drop(out);
    if analysed == 0 {
        anyhow::bail!(
            "no rollout loaded from {} (see the warnings above)",
            crate::session::inputs::named(&args.rollouts)
        );
    }
    let mut text = summary.render(10);
    if args.confirm {
        text.push_str(&confirmed.render());
    }
    if args.output.is_some() {
        print!("{text}");
    } else {
        {
            use std::io::Write as _;
            let _ = write!(std::io::stderr(), "{text}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The engine and trace cache `--confirm` runs rollouts with.
struct Confirmer {
    engine: crate::grade::engine::Engine,
    cache: Option<crate::session::caches::TraceCache>,
}

impl Confirmer {
    fn start(
        api: &crate::model::ApiMap,
        choice: &crate::session::CacheChoice,
    ) -> Result<Confirmer> {
        let engine = crate::grade::engine::Engine::start(api, 1).context(
            "--confirm runs each rollout: it needs the Python runtime (`sebx runtime install`)",
        )?;
        let cache = crate::session::caches::open_trace_cache(choice, api);
        Ok(Confirmer { engine, cache })
    }

    fn confirm(
        &self,
        response: &str,
        a: &Analysis,
        cases: &[crate::model::TestCase],
        keep: &[String],
    ) -> Result<trace::Confirmation> {
        let code = crate::analysis::extract_last_python_block(response)
            .map(|b| b.code)
            .unwrap_or_default();
        trace::confirm(
            &self.engine,
            self.cache.as_ref(),
            &code,
            &a.code.entry,
            cases,
            &a.code.findings,
            keep,
        )
    }
}

/// How `--confirm` settled the findings, by severity.
#[derive(Debug, Default)]
struct ConfirmSummary {
    runs: usize,
    cached: usize,
    incomplete: usize,
    /// Crashes the runs found that no finding claimed.
    found: usize,
    /// Loopholes the runs showed by behaviour alone, by kind.
    by_behaviour: BTreeMap<&'static str, usize>,
    /// (severity, settled label) → count.
    counts: BTreeMap<(String, &'static str), usize>,
}

impl ConfirmSummary {
    fn add(&mut self, c: &trace::Confirmation) {
        self.runs += 1;
        self.cached += usize::from(c.cached);
        self.incomplete += usize::from(!c.complete);
        for f in &c.found {
            let behaviour = f
                .evidence
                .as_deref()
                .is_some_and(|e| e.starts_with(trace::behaviour::FOUND_BY_RUNNING));
            if behaviour {
                *self.by_behaviour.entry(f.kind.as_str()).or_default() += 1;
            } else {
                self.found += 1;
            }
        }
        for f in &c.findings {
            let severity = serde_json::to_value(f.severity)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *self
                .counts
                .entry((severity, f.settled.label()))
                .or_default() += 1;
        }
    }

    fn render(&self) -> String {
        let mut s = format!(
            "confirmed by running: {} rollouts ({} traces from the cache, {} did not finish)\n",
            self.runs, self.cached, self.incomplete
        );
        for ((severity, label), n) in &self.counts {
            s.push_str(&format!("  {severity:<9} {label:<12} {n}\n"));
        }
        if self.found > 0 {
            s.push_str(&format!(
                "  crashes on a zwc value no finding claimed, found by running: {}\n",
                self.found
            ));
        }
        for (kind, n) in &self.by_behaviour {
            s.push_str(&format!(
                "  loophole shown by the run alone: {kind:<18} {n}\n"
            ));
        }
        s
    }
}

/// Runs `sebx graph`.
pub fn run_graph(args: GraphArgs) -> Result<ExitCode> {
    let session = session(
        "graph",
        std::slice::from_ref(&args.file),
        &args.context,
        &crate::session::CacheChoice::Off,
    )?;
    let (api, dataset) = (session.require_api()?, &session.dataset);
    let file = session.line_source()?;
    let loaded = &file.loaded;
    let Some(rollout) = loaded.rollouts.iter().find(|r| r.line == args.line) else {
        match loaded.issues.iter().find(|i| i.line == args.line) {
            Some(issue) => bail!("{issue}"),
            None => bail!(
                "{} has no rollout on line {}",
                file.path.display(),
                args.line
            ),
        }
    };
    let a = analyze_rollout(rollout, api, dataset.get(&rollout.query));
    let text = if args.dot {
        a.code.graph.to_dot()
    } else {
        render_analysis_text(&a, args.width)
    };
    println!("{}", text.trim_end_matches('\n'));
    Ok(ExitCode::SUCCESS)
}

/// Longest name or suggestion printed whole; longer ones are cut in the middle.
pub const NAME_WIDTH: usize = 60;
/// Longest note or parse message printed whole.
const MESSAGE_WIDTH: usize = 300;

/// `text` cut to at most `max` characters where it is printed: its start and end with `…`
/// between (the end of an invented name tells it apart as often as the start). The JSON
/// output keeps every text whole.
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let count = text.chars().count();
    if count <= max {
        return text.into();
    }
    let keep = max.saturating_sub(1);
    let head = keep - keep / 3;
    let tail = keep - head;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(count - tail).collect();
    format!("{start}…{end}").into()
}

/// The graph as text followed by the findings, as `sebx graph` prints them.
pub fn render_analysis_text(a: &Analysis, width: usize) -> String {
    let mut s = String::new();
    if let Some(sc) = &a.code.static_check {
        match sc.official_error() {
            None => s.push_str("static check: passed\n"),
            Some(e) => s.push_str(&format!("static check: {e}\n")),
        }
    }
    if !a.code_found {
        s.push_str("no ```python block in the response\n");
    }
    if let Some(e) = &a.code.parse_error {
        s.push_str(&format!(
            "the code does not parse: line {}, col {}: {}\n",
            e.line,
            e.col,
            shorten(&e.message, MESSAGE_WIDTH)
        ));
    }
    for note in &a.code.notes {
        s.push_str(&format!("note: {}\n", shorten(note, MESSAGE_WIDTH)));
    }
    if !a.code_found || a.code.parse_error.is_some() {
        return s;
    }
    s.push_str(&a.code.graph.render_text(width));
    s.push_str(
        "✓ret: reaches a return · ✗unused: result unused · ◆hinge: the static check turns on it\n",
    );
    if !a.code.findings.is_empty() {
        s.push_str("findings:\n");
        for f in &a.code.findings {
            let sugg = f
                .suggestion
                .as_deref()
                .map(|x| format!(" → {}", shorten(x, NAME_WIDTH)))
                .unwrap_or_default();
            let possible = if f.severity == Severity::Possible {
                " (possible)"
            } else {
                ""
            };
            s.push_str(&format!(
                "  L{}:{} {}{possible} {}{sugg}\n",
                f.line,
                f.col,
                f.kind.as_str(),
                shorten(&f.name, NAME_WIDTH)
            ));
        }
    }
    s
}

/// Counts over many analyses: findings per kind and the most frequent wrong names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisSummary {
    pub rollouts: usize,
    pub per_kind: BTreeMap<FindingKind, usize>,
    /// (kind, name as written) → (count, suggestion).
    pub names: BTreeMap<(FindingKind, String), (usize, Option<String>)>,
    /// Findings the analysis is not sure of (`possible`): not in the counts above.
    pub possible: usize,
}

impl AnalysisSummary {
    pub fn add(&mut self, a: &Analysis) {
        self.rollouts += 1;
        for f in &a.code.findings {
            if f.severity == Severity::Possible {
                self.possible += 1;
                continue;
            }
            *self.per_kind.entry(f.kind).or_default() += 1;
            if f.is_wrong_name() {
                let e = self
                    .names
                    .entry((f.kind, f.name.clone()))
                    .or_insert((0, f.suggestion.clone()));
                e.0 += 1;
            }
        }
    }

    /// Counts per kind, then the `top` most frequent hallucinated names.
    pub fn render(&self, top: usize) -> String {
        let mut s = format!("analyzed {} rollouts\n", self.rollouts);
        for kind in FindingKind::ALL {
            let n = self.per_kind.get(&kind).copied().unwrap_or(0);
            s.push_str(&format!("  {:<18} {n}\n", kind.as_str()));
        }
        if self.possible > 0 {
            s.push_str(&format!(
                "  (and {} possible finding(s) the analysis is not sure of)\n",
                self.possible
            ));
        }
        let mut names: Vec<_> = self.names.iter().collect();
        names.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
        if !names.is_empty() {
            s.push_str("most frequent wrong names:\n");
        }
        for ((kind, name), (count, sugg)) in names.into_iter().take(top) {
            let fix = sugg.as_deref().unwrap_or("(no zwc equivalent)");
            s.push_str(&format!(
                "  {count:>5}  {} → {}  [{}]\n",
                shorten(name, NAME_WIDTH),
                shorten(fix, NAME_WIDTH),
                kind.as_str()
            ));
        }
        s
    }
}
