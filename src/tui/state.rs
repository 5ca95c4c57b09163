//! The explorer's plain state: what was loaded (`Corpus`), the list and detail views, the
//! filters and popups. The parts (labelling, reruns, bookmarks, stats) read it; `App` owns
//! it and alone changes the corpus, the list and the detail view.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::analysis::{AnalysisDigest, Finding, FindingKind};
use crate::grade::backend::Unavailable;
use crate::grade::report::GradeReport;
use crate::model::{ApiMap, Dataset, DatasetItem, LoadIssue, Verdict};
use crate::session::caches::ScoreCache;

use super::entry::{Entry, Facts, Run, Score, Shown, Task};
use super::textbox::{Accepts, TextBox};

/// The detail panes, in `Tab` order (named so on the command line, `sebx export --pane`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Pane {
    #[default]
    Response,
    Code,
    Cases,
    Output,
    Graph,
    Task,
}

impl Pane {
    pub const ALL: [Pane; 6] = [
        Pane::Response,
        Pane::Code,
        Pane::Cases,
        Pane::Output,
        Pane::Graph,
        Pane::Task,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Response => "Response",
            Pane::Code => "Code",
            Pane::Cases => "Cases",
            Pane::Output => "Output",
            Pane::Graph => "Graph",
            Pane::Task => "Task",
        }
    }

    pub fn index(self) -> usize {
        Pane::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// How the list is ordered and grouped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grouping {
    /// File order (or best search match first while searching), no group headings.
    #[default]
    FileOrder,
    Task,
    Verdict,
    Run,
    Function,
}

impl Grouping {
    pub const CYCLE: [Grouping; 5] = [
        Grouping::FileOrder,
        Grouping::Task,
        Grouping::Verdict,
        Grouping::Run,
        Grouping::Function,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Grouping::FileOrder => "file order",
            Grouping::Task => "task",
            Grouping::Verdict => "verdict",
            Grouping::Run => "run",
            Grouping::Function => "function",
        }
    }
}

/// Which verdicts to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerdictFilter {
    Is(Verdict),
    /// Every failure: the four failing verdicts, stored failures and grading errors.
    AnyFailure,
    /// Not scored yet (or being graded).
    Unscored,
    /// Verdicts another machine or grader run could give differently (`≈`).
    Fragile,
    /// The official RL reward disagrees with the verdict (reward 1 exactly when `right`).
    RewardDisagrees,
}

impl VerdictFilter {
    pub const CYCLE: [VerdictFilter; 9] = [
        VerdictFilter::AnyFailure,
        VerdictFilter::Is(Verdict::Right),
        VerdictFilter::Is(Verdict::ResultError),
        VerdictFilter::Is(Verdict::ExeError),
        VerdictFilter::Is(Verdict::UseNumpy),
        VerdictFilter::Is(Verdict::WithoutZwc),
        VerdictFilter::Unscored,
        VerdictFilter::Fragile,
        VerdictFilter::RewardDisagrees,
    ];

    /// Whether a row with this verdict column and grade report passes the filter.
    pub fn accepts(self, shown: Shown, facts: Option<Facts>) -> bool {
        match self {
            VerdictFilter::Is(v) => shown == Shown::Verdict(v),
            VerdictFilter::AnyFailure => shown.is_failure(),
            VerdictFilter::Unscored => matches!(shown, Shown::Pending | Shown::Grading),
            VerdictFilter::Fragile => facts.is_some_and(|f| f.fragile),
            VerdictFilter::RewardDisagrees => {
                facts.and_then(|f| f.reward_disagrees()) == Some(true)
            }
        }
    }

    pub fn label(self) -> String {
        match self {
            VerdictFilter::Is(v) => v.as_str().to_string(),
            VerdictFilter::AnyFailure => "failed".to_string(),
            VerdictFilter::Unscored => "unscored".to_string(),
            VerdictFilter::Fragile => "fragile (≈)".to_string(),
            VerdictFilter::RewardDisagrees => "reward ≠ verdict".to_string(),
        }
    }

    /// The filter as the status bar names it (`verdict=failed`, `reward ≠ verdict`).
    pub fn status(self) -> String {
        match self {
            VerdictFilter::RewardDisagrees => self.label(),
            _ => format!("verdict={}", self.label()),
        }
    }
}

/// Which findings to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingFilter {
    Any,
    Kind(FindingKind),
}

impl FindingFilter {
    pub fn label(self) -> &'static str {
        match self {
            FindingFilter::Any => "any finding",
            FindingFilter::Kind(k) => k.label(),
        }
    }
}

/// Filters in force; they combine (all must accept a row).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    pub verdict: Option<VerdictFilter>,
    pub run: Option<usize>,
    pub function: Option<String>,
    pub finding: Option<FindingFilter>,
    /// Only this task (across all runs).
    pub task: Option<usize>,
    /// Only these rows (the stats screen's "this function's failures").
    pub rows: Option<RowFilter>,
}

/// A set of rows chosen elsewhere (the stats screen), with what to call it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFilter {
    pub label: String,
    pub rows: Arc<BTreeSet<usize>>,
}

impl Filters {
    pub fn is_empty(&self) -> bool {
        *self == Filters::default()
    }
}

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewRow {
    Group { label: String, count: usize },
    Row(usize),
}

/// The list's search (`search`: literal smart-case by default, fuzzy after `~`).
#[derive(Debug, Clone, Default)]
pub struct SearchState {
    /// The pattern in force (what the search box last held).
    pub pattern: String,
    /// Id of the newest request; older results are dropped.
    pub id: u64,
    /// Rows matching the current pattern, best first; `None` when no search is in force.
    pub results: Option<Vec<(usize, i64)>>,
    /// A request is running.
    pub pending: bool,
    /// The user typed: the next results select their first row (a search re-run because
    /// more rows loaded leaves the selection alone).
    pub select_first: bool,
}

impl SearchState {
    /// The search in force (its results are in), for highlighting matches.
    pub fn query(&self) -> Option<super::search::Query> {
        self.results.as_ref()?;
        super::search::Query::parse(&self.pattern)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popup {
    Help,
    Issues,
    /// Every label category (`labelling`).
    CategoryPicker,
    /// Agreement between two annotators (`labelling`).
    Agreement,
    /// The Python runtime is missing: the install offer and its progress (`rerun`).
    Runtime,
    /// The dump's extra keys and their values (`extras`).
    ExtraKeys,
    /// The selected row's cells whole (`full_text`).
    FullText,
}

/// Whether rollouts can be graded here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grading {
    Available,
    /// No backend: why (shown in the status bar and the help, with what to do).
    Unavailable(Unavailable),
}

/// What the explorer knows besides the rollouts: the zwc API, the dataset, where they came from.
#[derive(Debug, Clone)]
pub struct Context {
    pub api: Arc<ApiMap>,
    pub dataset: Arc<Dataset>,
    pub grading: Grading,
    /// Lines about what was found (API doc, datasets), shown in the help screen.
    pub notes: Vec<String>,
}

/// Loading progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadProgress {
    pub done: bool,
    pub bytes_done: u64,
    pub bytes_total: u64,
    /// Training runs and rollout files followed after loading (their new lines keep coming).
    pub following: usize,
    /// The last note on a followed file rewritten and read again (the status line keeps
    /// it while the re-read rows are graded).
    pub rewritten: Option<String>,
}

/// Grading progress in this session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GradeProgress {
    pub requested: usize,
    pub finished: usize,
}

/// What was loaded and learned about it: the context, the runs, the rows with their
/// scores and analysis digests. Every view reads it; `App` alone changes it.
pub struct Corpus {
    pub ctx: Context,
    pub runs: Vec<Run>,
    pub tasks: Arc<Vec<Task>>,
    pub entries: Arc<Vec<Arc<Entry>>>,
    pub scores: Vec<Score>,
    /// The scored files read, in order, and which of them gave each row its verdict (the
    /// Cases pane names it).
    pub scored_files: Vec<std::path::PathBuf>,
    pub scored_by: std::collections::HashMap<usize, usize>,
    pub issues: Vec<LoadIssue>,
    pub load: LoadProgress,
    pub grade_progress: GradeProgress,
    /// Digests of each row's analysis (findings, functions called), by row, as the
    /// background sweep or the selected row's analysis delivers them.
    pub digests: Arc<Vec<Option<Arc<AnalysisDigest>>>>,
    /// Verdicts remembered from earlier sessions (`None`: `--no-cache`, or none to be had).
    pub score_cache: Option<Arc<ScoreCache>>,
    /// Where traced runs (`y`) are remembered, by the same cache flags (`None`: `--no-cache`,
    /// or an explorer opened without them).
    pub trace_dir: Option<std::path::PathBuf>,
    /// Some row is a sample of a training run (the list shows step and stored score).
    pub has_samples: bool,
    /// Counts every change of `scores` (a batch loaded, a scored file matched, remembered
    /// verdicts found, a grade arrived): what depends on verdicts recomputes when it moves.
    pub scores_changed: u64,
}

/// The list: which rows show, in what order, and which is selected.
pub struct ListView {
    pub filters: Filters,
    pub grouping: Grouping,
    pub search: SearchState,
    /// The search box (`/`): open while a pattern is typed; its history outlives searches.
    pub search_box: TextBox,
    /// The go-to-line prompt (`:` then a number).
    pub goto: TextBox,
    pub view: Vec<ViewRow>,
    /// The selected row (index into the corpus's `entries`).
    pub selected: Option<usize>,
    /// First view line shown in the list.
    pub list_offset: usize,
}

impl Default for ListView {
    fn default() -> ListView {
        ListView {
            filters: Filters::default(),
            grouping: Grouping::default(),
            search: SearchState::default(),
            search_box: TextBox::new(Accepts::Any),
            goto: TextBox::new(Accepts::Digits),
            view: Vec::new(),
            selected: None,
            list_offset: 0,
        }
    }
}

/// The detail panes beside the list: which one shows and where it is scrolled to.
#[derive(Default)]
pub struct DetailView {
    pub pane: Pane,
    /// Scroll of the detail pane (lines).
    pub scroll: u16,
    /// Horizontal scroll of the detail pane (columns; panes that do not wrap).
    pub hscroll: u16,
    /// Selected case in the Cases pane; `None` until the user moves it: the pane then opens on the first failed case
    /// (`App::case_cursor`).
    pub case_cursor: Option<usize>,
    /// The Cases pane shows the selected rollout's latest what-if instead of its stored
    /// run (while it has one; selecting another rollout goes back to the stored run).
    pub what_if_cases: bool,
    /// Screen rows of the Cases table's case rows in the last frame drawn, with their case
    /// index: what a click hits (drawing records it; `update` never renders).
    pub case_rows_drawn: std::cell::RefCell<Vec<(u16, usize)>>,
    /// The Graph pane shows the node list instead of the drawing (`5` again toggles).
    pub graph_list: bool,
    /// The Response pane shows the rollout's line as stored, every key (`D` toggles).
    pub raw_line: bool,
    /// Drawn for a page (an export): the content without key hints, cursors or pointers
    /// to other panes.
    pub paper: bool,
    /// What the last frame drew in the pane (drawing records it; `update` never renders):
    /// the row and pane, and the scroll position of each line matching the search.
    pub matches_drawn: std::cell::RefCell<MatchesDrawn>,
    /// `m`/`M` moved to another rollout: the next frame scrolls to its first (`true`) or
    /// last match, and records where in `matches_drawn`.
    pub match_pending: Option<bool>,
    /// What the workers computed for the rows looked at (analyses, highlighted texts, graph
    /// drawings, the raw line).
    pub held: super::held::Held,
}

/// The search's matches in the pane as last drawn.
#[derive(Debug, Clone, Default)]
pub struct MatchesDrawn {
    pub row: Option<usize>,
    pub pane: Pane,
    /// Scroll positions (as `DetailView::scroll` counts them) of the matching lines.
    pub offsets: Vec<u16>,
    /// The scroll the frame used for a pending jump.
    pub scrolled_to: Option<u16>,
}

impl Corpus {
    /// The grade report of `row`: the one held, else, for a verdict that holds only its
    /// facts (graded in the background, or remembered), the score cache's, read now.
    pub fn report_of_row(
        &self,
        row: usize,
    ) -> Option<std::borrow::Cow<'_, crate::grade::report::GradeReport>> {
        let score = self.scores.get(row)?;
        if let Some(r) = score.report() {
            return Some(std::borrow::Cow::Borrowed(r));
        }
        if !score.report_elsewhere() {
            return None;
        }
        let entry = self.entries.get(row)?;
        self.score_cache
            .as_ref()?
            .get(&entry.rollout)
            .map(std::borrow::Cow::Owned)
    }

    /// The runs' names, kept apart in `width` characters each
    /// ([`short_run_names`](crate::grade::runs::short_run_names)).
    pub fn short_run_names(&self, width: usize) -> Vec<String> {
        let names: Vec<&str> = self.runs.iter().map(|r| r.name.as_str()).collect();
        crate::grade::runs::short_run_names(&names, width)
    }

    /// The dataset item of a row's task.
    pub fn dataset_item(&self, entry: &Entry) -> Option<&DatasetItem> {
        self.ctx.dataset.get(&entry.rollout.query)
    }

    /// Row `i`'s analysis digest, once the analysis has reached it.
    pub fn digest(&self, i: usize) -> Option<&AnalysisDigest> {
        self.digests.get(i).and_then(Option::as_deref)
    }

    /// Row `i`'s findings (none until its analysis has answered).
    pub fn findings(&self, i: usize) -> &[Finding] {
        self.digest(i).map_or(&[], |d| d.findings.as_slice())
    }

    /// The zwc functions row `i` calls, by NumPy name (none until its analysis has answered).
    pub fn functions(&self, i: usize) -> &[String] {
        self.digest(i).map_or(&[], |d| &d.functions[..])
    }

    /// Whether row `i`'s verdict is fragile (another machine or grader run could flip it).
    pub fn is_fragile(&self, i: usize) -> bool {
        self.facts(i).is_some_and(|f| f.fragile)
    }

    /// Whether row `i`'s official RL reward disagrees with its verdict (`≠` in the list).
    pub fn reward_disagrees(&self, i: usize) -> bool {
        self.facts(i).and_then(|f| f.reward_disagrees()) == Some(true)
    }

    /// Whether any row was scored with the official RL reward (the list then shows its
    /// column). Stops at the first such row, so it is cheap once rewards have arrived.
    pub fn has_rewards(&self) -> bool {
        // From the facts: rows graded in the background or remembered hold no report.
        self.scores
            .iter()
            .any(|s| s.facts().is_some_and(|f| f.reward_run))
    }

    /// What the verdict column shows for row `i`.
    pub fn shown(&self, i: usize) -> Shown {
        self.scores.get(i).map_or(Shown::Pending, Score::shown)
    }

    /// What row `i`'s grade decides (its report's or its remembered facts).
    pub fn facts(&self, i: usize) -> Option<Facts> {
        self.scores.get(i).and_then(Score::facts)
    }

    /// Row `i`'s grade report, if it has one (a remembered verdict's is fetched when the row
    /// is opened).
    pub fn report(&self, i: usize) -> Option<&GradeReport> {
        self.scores.get(i).and_then(Score::report)
    }
}

impl ListView {
    /// Position of the selection in `view`.
    pub fn cursor(&self) -> Option<usize> {
        let sel = self.selected?;
        self.view.iter().position(|r| *r == ViewRow::Row(sel))
    }

    /// Number of rows (not headings) in the view.
    pub fn shown_rows(&self) -> usize {
        self.rows().count()
    }

    /// The rows shown (indices into the corpus's entries), in view order, headings skipped.
    pub fn rows(&self) -> impl Iterator<Item = usize> + '_ {
        self.view.iter().filter_map(ViewRow::row)
    }
}

impl ViewRow {
    /// The row of a row line; `None` for a group heading.
    pub fn row(&self) -> Option<usize> {
        match self {
            ViewRow::Row(i) => Some(*i),
            ViewRow::Group { .. } => None,
        }
    }
}

/// The Cases pane's case under the cursor, whole, for the popup (`DrawCx::case`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseText {
    /// 1-based, as the pane numbers it.
    pub number: usize,
    pub count: usize,
    pub input: String,
    pub expected: String,
    /// What the program printed for it (`None`: not run, or nothing at this index).
    pub actual: Option<String>,
    /// Whether it matched (`None`: not graded).
    pub matched: Option<bool>,
}
