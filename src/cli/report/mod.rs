//! `sebx report`: one self-contained HTML page of plots for papers and reading groups,
//! drawn from the typed report `sebx stats` prints (and, for two or more evaluation runs,
//! the one `sebx compare` prints), never from a second count. The page embeds that report
//! as the JSON `sebx stats --format json` writes (`<script type="application/json"
//! id="sebx-report-data">`), so a reader can check every bar against the numbers. The page
//! loads nothing: styles inline, system fonts, every figure an inline SVG drawn by
//! [`plot`] (plotters' SVG backend); `--figures DIR` writes each figure as its own SVG for
//! LaTeX and slides. Nothing on the page depends on the time or the machine, so the same
//! inputs give the same bytes. One [`Session`] per page written: the figures' runs and the
//! examples' lines are read through it, its API doc and datasets read once.

pub mod figures;
pub mod plot;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::grade::runs::{FunctionSort, LearnedAt, OnsetAt};
use crate::session::report::{CompareReport, StatsReport, compare_report};

use super::stats::{
    Format, InputArgs, StatsArgs, load_for_stats, render_stats, stats_from, stats_session,
};
use crate::session::Session;
use crate::session::examples::{
    DrawnExample, ExampleDrawer, ExampleGroup, ExampleRequest, pick_examples,
};
use crate::session::loaded::Loaded;
use figures::{Figure, Part};

/// Columns of an example's view.
const EXAMPLE_WIDTH: u16 = 100;

/// One group of examples with their drawings (the picks not found are left out).
pub struct Examples {
    pub group: ExampleGroup,
    pub drawn: Vec<DrawnExample>,
}

impl Examples {
    /// The page id (and `--figures` file stem) of the group's `n`-th (0-based) example.
    pub fn id(&self, n: usize) -> String {
        format!("example-{}-{}", self.group.id, n + 1)
    }
}

/// Picks the examples and has them drawn from `session` (the one the figures were loaded
/// from); a failure to draw costs the examples, not the page (said on stderr).
fn examples(
    args: &ReportArgs,
    session: &Session,
    loaded: &Loaded,
    drawer: &dyn ExampleDrawer,
) -> Vec<Examples> {
    let picked = pick_examples(loaded, &session.inputs, args.examples);
    let groups = picked.groups;
    if groups.is_empty() {
        return Vec::new();
    }
    let request = ExampleRequest {
        session,
        inputs: picked.inputs,
        picks: groups.iter().flat_map(|g| g.picks.clone()).collect(),
        width: EXAMPLE_WIDTH,
    };
    let mut drawn = match drawer.draw(&request) {
        Ok(d) => d.into_iter(),
        Err(e) => {
            crate::warnln!("report: the examples were not drawn: {e:#}");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for mut group in groups {
        let mut views = Vec::new();
        let mut picks = Vec::new();
        for pick in std::mem::take(&mut group.picks) {
            if let Some(Some(view)) = drawn.next() {
                views.push(view);
                picks.push(pick);
            }
        }
        group.picks = picks;
        if !views.is_empty() {
            out.push(Examples {
                group,
                drawn: views,
            });
        }
    }
    out
}

/// The id of the `<script>` element that holds the report's data.
pub const DATA_ID: &str = "sebx-report-data";

/// A page of plots of one or more runs.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "FILES are what `sebx stats` takes: rollout files (evaluation runs), folders of \
verl step dumps (training runs), `sebx grade` output, dataset files and an API doc. The page \
holds the training figures when a training run is given (per-step curves, loophole shares \
with their onset, response lengths, zero-advantage groups, the reward-verdict gap, the \
internalization heat map and the learned / forgotten / never-solved counts), the \
evaluation figures for the other runs (verdict mix, accuracy with its interval, pass@k, the \
internalization map, wrong names, label prevalence) and, with two or more evaluation runs, \
the paired comparison of the first two (flips, McNemar). The report's data is embedded as \
the JSON `sebx stats --format json` prints for the same inputs."
)]
pub struct ReportArgs {
    /// Rollout files, training runs, scored results, datasets, an API doc.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also write each figure as its own SVG file into this folder (created if missing).
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
    /// pass@k for these k (repeatable; default: 1 and the largest sample count per task).
    #[arg(short, value_name = "K")]
    pub k: Vec<usize>,
    /// Order of the internalization map.
    #[arg(long, value_enum, default_value_t = FunctionSort::Accuracy)]
    pub sort: FunctionSort,
    /// Training runs: the share of a step's graded samples that solves it (as `sebx stats`).
    #[arg(long, value_name = "SHARE", default_value = "0.5", value_parser = LearnedAt::parse)]
    pub learned_at: LearnedAt,
    /// Training runs: the loophole share that marks its onset (as `sebx stats`).
    #[arg(long, value_name = "SHARE", default_value = "0.1", value_parser = OnsetAt::parse)]
    pub onset_at: OnsetAt,
    /// A HuggingFace tokenizer.json: response lengths in tokens too.
    #[arg(long, value_name = "FILE")]
    pub tokenizer: Option<PathBuf>,
    /// Keep running and rewrite the page (and the figures) whenever an input changes, such
    /// as a training run's new step; the page then reloads itself every few seconds. Needs
    /// -o; stop it with ctrl-c.
    #[arg(long, requires = "output")]
    pub follow: bool,
    /// Examples: up to this many rollouts for each loophole kind, hand-label category,
    /// failing verdict and the wrong names, drawn as the explorer's Code pane (0: none).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub examples: usize,
    #[command(flatten)]
    pub input: InputArgs,
}

impl ReportArgs {
    /// The `sebx stats` invocation whose report this page draws.
    fn stats_args(&self) -> StatsArgs {
        StatsArgs {
            files: self.files.clone(),
            by: Vec::new(),
            format: Format::Json,
            k: self.k.clone(),
            sort: self.sort,
            top: 20,
            learned_at: self.learned_at,
            onset_at: self.onset_at,
            tokenizer: self.tokenizer.clone(),
            input: self.input.clone(),
        }
    }
}

/// Runs `sebx report`; `drawer` draws the examples (the explorer's export does).
pub fn run(args: ReportArgs, drawer: &dyn ExampleDrawer) -> Result<ExitCode> {
    write_report(&args, drawer)?;
    if args.follow {
        follow(&args, drawer)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Seconds between a following page's reloads in the browser.
const RELOAD_SECONDS: u32 = 5;

/// A scoped thread's answer (its panic goes on).
fn joined<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
    h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// Computes the report once and writes the page (and the figures).
///
/// What does not wait on another part runs beside it: the examples (they need the
/// rollouts' facts, not the figures) while the report is computed; the report's JSON while
/// the figures, the page around them and the `--figures` files are made. Drawn after one
/// another, a report of a 200,000-sample run took 1.3× the time of `stats`
/// (benches/README.md).
fn write_report(args: &ReportArgs, drawer: &dyn ExampleDrawer) -> Result<()> {
    let session = session_of(args)?;
    let page = page_of(args, &session, drawer)?;
    match &args.input.output {
        Some(p) => {
            // Written beside and renamed, so a reader (a reloading browser) never sees half.
            let tmp = p.with_extension("html.partial");
            std::fs::write(&tmp, page)
                .with_context(|| format!("cannot write {}", tmp.display()))?;
            std::fs::rename(&tmp, p).with_context(|| format!("cannot write {}", p.display()))?
        }
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(page.as_bytes())?;
            out.flush()?;
        }
    }
    Ok(())
}

/// The one [`Session`] a page is drawn from: the report's inputs classified, its API doc
/// and datasets read (as `sebx stats` builds it).
pub fn session_of(args: &ReportArgs) -> Result<Session> {
    stats_session(&args.stats_args(), "report")
}

/// The page of `session`'s runs (and `--figures`, when asked), its notes said on stderr:
/// the figures and the examples drawn from the one session, which is all either reads
/// besides the runs' own files.
pub fn page_of(args: &ReportArgs, session: &Session, drawer: &dyn ExampleDrawer) -> Result<String> {
    let stats_args = args.stats_args();
    let loaded = load_for_stats(&stats_args, session)?;
    let (stats, examples) = std::thread::scope(|scope| {
        let examples = scope.spawn(|| examples(args, session, &loaded, drawer));
        let stats = stats_from(&stats_args, &loaded);
        (stats, joined(examples))
    });
    let reload = args.follow.then_some(RELOAD_SECONDS);
    let (json, mut page) = std::thread::scope(|scope| -> Result<_> {
        let json = scope
            .spawn(|| render_stats(&stats, Format::Json, &[], 0).map(|json| script_safe(&json)));
        let eval = figures::eval_runs(&stats);
        let compare = match eval.as_slice() {
            [a, b, ..] => Some(compare_report(
                &loaded,
                *a as u32,
                *b as u32,
                args.input.seed,
                None,
            )),
            _ => None,
        };
        let figs = figures::figures(&stats, compare.as_ref())?;
        let body = page_body(&stats, compare.as_ref(), &figs, &examples, reload);
        if let Some(dir) = &args.figures {
            write_figures(dir, &figs)?;
            write_examples(dir, &examples)?;
        }
        Ok((joined(json), body))
    })?;
    page_data(&mut page, &json?);
    if !args.follow {
        for note in &stats.notes {
            crate::warnln!("note: {note}");
        }
    }
    Ok(page)
}

/// What the inputs look like on disk: every file under each input (a training run's step
/// files, a folder's runs two levels down) with its size and modification time.
type Signature = std::collections::BTreeMap<PathBuf, (u64, Option<std::time::SystemTime>)>;

fn signature(files: &[PathBuf]) -> Signature {
    fn walk(path: &Path, depth: u32, out: &mut Signature) {
        let Ok(meta) = std::fs::metadata(path) else {
            return;
        };
        if meta.is_dir() {
            if depth == 0 {
                return;
            }
            if let Ok(entries) = std::fs::read_dir(path) {
                for e in entries.flatten() {
                    walk(&e.path(), depth - 1, out);
                }
            }
        } else {
            out.insert(path.to_path_buf(), (meta.len(), meta.modified().ok()));
        }
    }
    let mut out = Signature::new();
    for f in files {
        walk(f, 3, &mut out);
    }
    out
}

/// Rewrites the report whenever the inputs changed and then stood still for one poll (a
/// step file being written is read once it is complete). Runs until interrupted.
fn follow(args: &ReportArgs, drawer: &dyn ExampleDrawer) -> Result<()> {
    let poll = std::time::Duration::from_secs(1);
    let mut written = signature(&args.files);
    let mut last = written.clone();
    crate::warnln!("report: following the inputs (ctrl-c stops)");
    loop {
        std::thread::sleep(poll);
        let now = signature(&args.files);
        if now == last && now != written {
            match write_report(args, drawer) {
                Ok(()) => crate::warnln!("report: rewritten"),
                // A run half-rewritten can fail to load; the next change tries again.
                Err(e) => crate::warnln!("report: not rewritten: {e:#}"),
            }
            written = now.clone();
        }
        last = now;
    }
}

/// Writes each figure as `DIR/<id>.svg`.
pub fn write_figures(dir: &Path, figs: &[Figure]) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for f in figs {
        let path = dir.join(format!("{}.svg", f.id));
        let doc = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n", f.svg);
        std::fs::write(&path, doc).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Writes each example's view as `DIR/example-<group>-<n>.svg`.
fn write_examples(dir: &Path, examples: &[Examples]) -> Result<()> {
    for ex in examples {
        for (n, view) in ex.drawn.iter().enumerate() {
            let path = dir.join(format!("{}.svg", ex.id(n)));
            let doc = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}", view.svg);
            std::fs::write(&path, doc)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok(())
}

/// The examples' section of the page.
fn examples_section(h: &mut String, examples: &[Examples]) {
    if examples.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "<section id=\"examples\"><h2>Examples</h2>\n<p>A few rollouts of each kind the figures count, drawn as the explorer's Code pane: the highlighted code, its findings and the static check.</p>"
    );
    for ex in examples {
        let g = &ex.group;
        let _ = writeln!(
            h,
            "<h3 id=\"examples-{}\">{}</h3>\n<p>{}.</p>",
            esc(&g.id),
            esc(&g.title),
            esc(&g.about)
        );
        for (n, (pick, view)) in g.picks.iter().zip(&ex.drawn).enumerate() {
            let step = pick.step.map_or(String::new(), |s| format!(", step {s}"));
            let reward = pick
                .reward
                .map_or("no official RL reward".to_string(), |r| {
                    format!("official RL reward {r}")
                });
            let _ = writeln!(
                h,
                "<div class=\"example\" id=\"{}\">\n{}\n<p class=\"where\">{}{step}, line {}: verdict {}, {reward}.</p>\n</div>",
                esc(&ex.id(n)),
                view.html,
                esc(&pick.run),
                pick.line,
                pick.verdict.as_str()
            );
        }
    }
    let _ = writeln!(h, "</section>");
}

/// Text for HTML element content and attribute values.
fn esc(s: &str) -> String {
    crate::model::html::escape(s)
}

/// JSON text made safe inside `<script>`: `<` becomes the JSON escape `\u003c`, which only
/// occurs inside strings, so the parsed value is unchanged and no `</script>` can close
/// the element early.
pub fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
       margin: 0 auto; max-width: 820px; padding: 24px; color: #111; background: #fff; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 4px; margin-top: 2em; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.92em; color: #333; }
figcaption b { color: #111; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
nav ol { columns: 2; font-size: 0.92em; }
.notes li { font-size: 0.9em; color: #444; }
.example pre { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px;
       line-height: 1.164; padding: 0.8em; overflow-x: auto; margin: 0.5em 0 0.2em; }
.example p.where { font-size: 0.92em; color: #333; margin-top: 0; }
@media print { nav { display: none; } figure { break-inside: avoid; } }
";

/// The page up to its data ([`page_data`] ends it); `reload`: seconds after which the
/// browser reloads it (a followed report).
pub fn page_body(
    stats: &StatsReport,
    compare: Option<&CompareReport>,
    figs: &[Figure],
    examples: &[Examples],
    reload: Option<u32>,
) -> String {
    let names: Vec<&str> = stats.runs.iter().map(|r| r.stats.name.as_str()).collect();
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         {}<title>sebx report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        reload.map_or(String::new(), |r| format!(
            "<meta http-equiv=\"refresh\" content=\"{r}\">\n"
        )),
        esc(&names.join(", "))
    );
    let _ = writeln!(h, "<header><h1>sebx report</h1>");
    let _ = writeln!(
        h,
        "<table><tr><th>run</th><th>file</th><th>rollouts</th><th>tasks</th><th>accuracy</th></tr>"
    );
    for r in &stats.runs {
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}%</td></tr>",
            esc(&r.stats.name),
            esc(&r.path),
            r.stats.rollouts,
            r.stats.tasks,
            100.0 * r.stats.accuracy
        );
    }
    let _ = writeln!(h, "</table></header>");
    let _ = writeln!(h, "<nav><ol>");
    for f in figs {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">{}</a></li>",
            esc(&f.id),
            esc(&f.title)
        );
    }
    if !examples.is_empty() {
        let _ = writeln!(h, "<li><a href=\"#examples\">Examples</a></li>");
    }
    let _ = writeln!(h, "</ol></nav>");
    for (part, heading) in [
        (Part::Training, "Training runs"),
        (Part::Evaluation, "Evaluation runs"),
        (Part::Comparison, "Comparison"),
    ] {
        let in_part: Vec<&Figure> = figs.iter().filter(|f| f.part == part).collect();
        if in_part.is_empty() {
            continue;
        }
        let _ = writeln!(h, "<section><h2>{heading}</h2>");
        for f in in_part {
            let _ = writeln!(
                h,
                "<figure id=\"{}\">\n{}\n<figcaption><b>{}.</b> {}</figcaption>\n</figure>",
                esc(&f.id),
                f.svg,
                esc(&f.title),
                esc(&f.caption)
            );
        }
        if part == Part::Training {
            courses(&mut h, stats);
        }
        if part == Part::Comparison
            && let Some(c) = compare
        {
            let _ = writeln!(
                h,
                "<p>Flips: {} right in {} only, {} right in {} only; McNemar exact p = {:.4}.</p>",
                c.comparison.mcnemar.a_right_b_wrong,
                esc(&c.a),
                c.comparison.mcnemar.a_wrong_b_right,
                esc(&c.b),
                c.comparison.mcnemar.p_value
            );
        }
        let _ = writeln!(h, "</section>");
    }
    examples_section(&mut h, examples);
    if !stats.notes.is_empty() {
        let _ = writeln!(h, "<section class=\"notes\"><h2>Notes</h2><ul>");
        for n in &stats.notes {
            let _ = writeln!(h, "<li>{}</li>", esc(n));
        }
        let _ = writeln!(h, "</ul></section>");
    }
    h
}

/// Ends a page ([`page_body`]) with the report's JSON, as `sebx stats --format json`
/// prints it, made [`script_safe`].
pub fn page_data(h: &mut String, safe_json: &str) {
    h.reserve(safe_json.len() + 64);
    let _ = write!(
        h,
        "<script type=\"application/json\" id=\"{DATA_ID}\">\n{safe_json}</script>\n</body>\n</html>\n"
    );
}

/// The learned / forgotten / never-solved table of each training run.
fn courses(h: &mut String, stats: &StatsReport) {
    let Some(t) = &stats.training else {
        return;
    };
    let mut runs: Vec<&str> = Vec::new();
    for s in &t.figures.steps {
        if !runs.contains(&s.run.as_str()) {
            runs.push(&s.run);
        }
    }
    let _ = writeln!(
        h,
        "<h3 id=\"courses\">Learned, forgotten, never solved</h3>\n<p>At the end of each run: a function or task is learned when its last step reaches {} of its graded samples right, forgotten when an earlier step did but the last does not, never solved when no step did.</p>",
        t.figures.learned_at
    );
    let _ = writeln!(
        h,
        "<table><tr><th>run</th><th>status</th><th>zwc functions</th><th>tasks</th></tr>"
    );
    for run in runs {
        for (l, functions, tasks) in figures::course_counts(stats, run) {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{functions}</td><td class=\"n\">{tasks}</td></tr>",
                esc(run),
                l.as_str()
            );
        }
    }
    let _ = writeln!(h, "</table>");
    let _ = writeln!(
        h,
        "<table><tr><th>run</th><th>zwc function</th><th>NumPy</th><th>status</th><th>first solved</th><th>last failed</th><th>last accuracy</th></tr>"
    );
    for c in &t.figures.function_courses {
        let opt = |s: Option<u32>| s.map_or("–".to_string(), |s| s.to_string());
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.0}%</td></tr>",
            esc(&c.run),
            esc(&c.name),
            esc(c.numpy.as_deref().unwrap_or("")),
            c.status.as_str(),
            opt(c.first_solved),
            opt(c.last_failed),
            100.0 * c.last_accuracy
        );
    }
    let _ = writeln!(h, "</table>");
}

/// The report's JSON as embedded in a page (for tests and readers): the text of the
/// `sebx-report-data` element, `None` when the page has none.
pub fn embedded_json(page: &str) -> Option<&str> {
    let open = format!("<script type=\"application/json\" id=\"{DATA_ID}\">");
    let start = page.find(&open)? + open.len();
    let end = start + page[start..].find("</script>")?;
    Some(&page[start..end])
}
