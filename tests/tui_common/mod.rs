//! Fixtures shared by the explorer tests: two small runs of our own writing, a grade-report
//! file for part of the first run, a few bad lines, and a fake grading backend.
#![allow(dead_code, clippy::too_many_arguments)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sebx::grade::backend::GradeBackend;
use sebx::grade::compare::{Comparison, Decision, Mismatch};
use sebx::grade::report::{
    CaseResult, Execution, Extraction, GradeReport, ReasonKind, RewardReport, RewardStep,
};
use sebx::model::{ApiMap, Dataset, DatasetItem, Rollout, RolloutId, TestCase, Verdict};
use sebx::tui::app::{App, Context, Grading};
use sebx::tui::inline::load_inline;
use sebx::tui::load::{FileKind, Source, SourceData};
use sebx::tui::{Keymap, Theme, ui};
use serde_json::json;

pub const API_DOC: &str = r#"{"func_mapping": {"np.mean": "zwc.kocito", "np.array": "zwc.yitaf", "np.linalg.inv": "zwc.rfx.quvohe", "np.sum": "zwc.bapu", "np.std": "zwc.pemra"}}"#;

pub const Q_MEAN: &str = "Return the average of each row of `grid` as a list.";
pub const Q_INV: &str = "Invert the square matrix `m`.";
pub const Q_SPREAD: &str = "Return the standard deviation of `values`.";

pub fn fence(code: &str) -> String {
    format!("Here is my answer.\n\n```python\n{code}```\n")
}

pub const CODE_MEAN_OK: &str =
    "import zwc\n\ndef solve(grid):\n    return zwc.kocito(zwc.yitaf(grid), axis=1)\n";
pub const CODE_MEAN_BAD: &str =
    "import zwc\n\ndef solve(grid):\n    return zwc.kocito(zwc.yitaf(grid), axis=0)\n";
pub const CODE_INV_TYPO: &str =
    "import zwc\n\ndef solve(m):\n    return zwc.rfx.quvohee(zwc.yitaf(m))\n";
pub const CODE_INV_NUMPY: &str =
    "import numpy as np\nimport zwc\n\ndef solve(m):\n    return zwc.rfx.quvohe(np.array(m))\n";
pub const CODE_SPREAD_TOLIST: &str =
    "import zwc\n\ndef solve(values):\n    return zwc.pemra(zwc.yitaf(values)).tolist()\n";
pub const CODE_SPREAD_OK: &str = "import zwc\n\ndef helper(v):\n    return zwc.pemra(v)\n\ndef solve(values):\n    return helper(zwc.yitaf(values))\n";

fn cases_for(query: &str) -> (Vec<TestCase>, String) {
    let cases = match query {
        Q_MEAN => vec![
            ("grid=[[1, 3], [2, 4]]", "[2.0, 3.0]"),
            ("grid=[[10, 20, 30]]", "[20.0]"),
        ],
        Q_INV => vec![("m=[[2, 0], [0, 4]]", "[[0.5 0.  ]\n [0.   0.25]]")],
        _ => vec![("values=[1, 1, 1]", "0.0"), ("values=[1, 3]", "1.0")],
    };
    let joined = cases.iter().map(|c| c.1).collect::<Vec<_>>().join("#");
    (
        cases
            .into_iter()
            .map(|(i, o)| TestCase {
                input: i.to_string(),
                output: o.to_string(),
            })
            .collect(),
        joined,
    )
}

pub fn rollout_line(
    query: &str,
    response: &str,
    extra: Option<(&str, serde_json::Value)>,
) -> String {
    let (cases, right) = cases_for(query);
    let cases: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| json!({"input": c.input, "output": c.output}))
        .collect();
    let mut v = json!({"query": query, "response": response, "test_cases": cases, "right_exe_result": right});
    if let Some((k, val)) = extra {
        v[k] = val;
    }
    v.to_string()
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Run A: six rollouts, five of them scored by the report file, plus two bad lines.
pub fn run_a() -> String {
    [
        rollout_line(Q_MEAN, &fence(CODE_MEAN_OK), None),
        rollout_line(Q_MEAN, &fence(CODE_MEAN_BAD), None),
        rollout_line(Q_INV, &fence(CODE_INV_TYPO), None),
        "{\"query\": \"broken".to_string(),
        rollout_line(Q_INV, &fence(CODE_INV_NUMPY), None),
        rollout_line(
            Q_SPREAD,
            "I would use the standard deviation: `zwc.pemra(values)`.",
            None,
        ),
        "[1, 2, 3]".to_string(),
        rollout_line(
            Q_SPREAD,
            &fence(CODE_SPREAD_TOLIST),
            Some(("verdict", json!("exe_error"))),
        ),
    ]
    .join("\n")
}

/// Another model's prose around the same kind of answer (its rollouts are not run A's:
/// the same response in two runs is one rollout, which a scored file scores in both).
fn fence_b(code: &str) -> String {
    format!("My solution:\n\n```python\n{code}```\n")
}

/// Run B: the same tasks answered by another model; unscored.
pub fn run_b() -> String {
    [
        rollout_line(Q_MEAN, &fence_b(CODE_MEAN_OK), None),
        rollout_line(Q_INV, &fence_b(CODE_INV_TYPO), None),
        rollout_line(Q_SPREAD, &fence_b(CODE_SPREAD_OK), None),
    ]
    .join("\n")
}

fn case(
    index: usize,
    input: &str,
    expected: &str,
    actual: Option<&str>,
    mismatch: Option<Mismatch>,
) -> CaseResult {
    CaseResult {
        index,
        input: input.to_string(),
        expected: expected.to_string(),
        actual: actual.map(str::to_string),
        matched: mismatch.is_none() && actual.is_some(),
        comparison: actual.map(|a| Comparison {
            matched: mismatch.is_none(),
            expected_value: expected.to_string(),
            actual_value: a.to_string(),
            mismatch,
            decided_by: Decision::Tolerant,
            notes: Vec::new(),
            fragile: None,
            needs_python: false,
        }),
        ..CaseResult::default()
    }
}

pub fn report(
    source: &str,
    line: usize,
    query: &str,
    response: &str,
    verdict: Verdict,
    cases: Vec<CaseResult>,
    execution: Option<Execution>,
    decided_by: &str,
) -> GradeReport {
    let block = sebx::analysis::extract_last_python_block(response);
    GradeReport {
        source: source.to_string(),
        line,
        id: Some(RolloutId::derive(query, response, 0)),
        verdict: Some(verdict),
        load_error: None,
        extraction: Extraction {
            found: block.is_some(),
            blocks_found: block.as_ref().map_or(0, |b| b.blocks_found),
            span: block.as_ref().map(|b| (b.span.start, b.span.end)),
            code: block.map(|b| b.code).unwrap_or_default(),
        },
        entry: "solve".to_string(),
        static_check: None,
        static_error: None,
        numpy: None,
        warnings: Vec::new(),
        decided_by: decided_by.to_string(),
        execution,
        cases,
        fragile: false,
        fragile_reason: None,
        ..GradeReport::default()
    }
}

pub fn exec(stdout: &str, stderr: &str) -> Option<Execution> {
    Some(Execution {
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        timed_out: false,
        elapsed_ms: 35.0,
        exit_code: Some(if stdout.is_empty() { 1 } else { 0 }),
        contained: None,
        zwc_calls: None,
    })
}

/// Grade reports for rows 1, 2, 3, 5 and 6 of run A (row 8 carries its own stored score).
pub fn reports_a() -> String {
    let src = "fixtures/run_a.jsonl";
    let sep = "====================";
    let reports = [
        report(
            src,
            1,
            Q_MEAN,
            &fence(CODE_MEAN_OK),
            Verdict::Right,
            vec![
                case(
                    0,
                    "grid=[[1, 3], [2, 4]]",
                    "[2.0, 3.0]",
                    Some("[2. 3.]"),
                    None,
                ),
                case(1, "grid=[[10, 20, 30]]", "[20.0]", Some("[20.]"), None),
            ],
            exec(&format!("{sep}\n[2. 3.]\n#\n[20.]\n#\n"), ""),
            "every expected result matched",
        ),
        report(
            src,
            2,
            Q_MEAN,
            &fence(CODE_MEAN_BAD),
            Verdict::ResultError,
            vec![
                case(
                    0,
                    "grid=[[1, 3], [2, 4]]",
                    "[2.0, 3.0]",
                    Some("[1.5 3.5]"),
                    Some(Mismatch {
                        path: "[0]".into(),
                        expected: "2.0".into(),
                        actual: "1.5".into(),
                        difference: Some(0.5),
                        reason: "|2.0 - 1.5| = 0.5 > tolerance 0.01".into(),
                    }),
                ),
                case(
                    1,
                    "grid=[[10, 20, 30]]",
                    "[20.0]",
                    Some("[10. 20. 30.]"),
                    Some(Mismatch {
                        path: String::new(),
                        expected: "20.0".into(),
                        actual: "[10.0, 20.0, 30.0]".into(),
                        difference: None,
                        reason: "a number against a list of 3".into(),
                    }),
                ),
            ],
            exec(&format!("{sep}\n[1.5 3.5]\n#\n[10. 20. 30.]\n#\n"), ""),
            "case 1 did not match",
        ),
        report(
            src,
            3,
            Q_INV,
            &fence(CODE_INV_TYPO),
            Verdict::ExeError,
            vec![case(
                0,
                "m=[[2, 0], [0, 4]]",
                "[[0.5 0.  ]\n [0.   0.25]]",
                None,
                None,
            )],
            exec(
                "",
                "Traceback (most recent call last):\n  File \"/tmp/run/main.py\", line 9, in <module>\n    result_list.append(solve(m=[[2, 0], [0, 4]]))\n  File \"/tmp/run/main.py\", line 4, in solve\n    return zwc.rfx.quvohee(zwc.yitaf(m))\n           ^^^^^^^^^^^^^^^\nAttributeError: module 'zwc.rfx' has no attribute 'quvohee'\n",
            ),
            "the program printed nothing on stdout",
        ),
        report(
            src,
            5,
            Q_INV,
            &fence(CODE_INV_NUMPY),
            Verdict::UseNumpy,
            vec![],
            None,
            "the program imports numpy",
        ),
        report(
            src,
            6,
            Q_SPREAD,
            "I would use the standard deviation: `zwc.pemra(values)`.",
            Verdict::WithoutZwc,
            // As the grader reports it: the cases, none of them run.
            vec![
                case(0, "values=[1, 1, 1]", "0.0", None, None),
                case(1, "values=[1, 3]", "1.0", None, None),
            ],
            None,
            "no ```python block",
        ),
    ];
    reports
        .iter()
        .map(|r| serde_json::to_string(r).expect("report serialises"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The stderr of run A's row 1 in [`reports_a_with_rewards`]: a warning only the reward counts.
pub const WARNING: &str = "/tmp/run/main.py:4: DeprecationWarning: Conversion of an array with ndim > 0 to a scalar is deprecated, and will error in future.";

/// `report` scored by the official RL reward too, as `--scorer both` writes it: `reward`
/// decided at `step`, with `reason` where it disagrees with the verdict.
pub fn with_reward(
    mut report: GradeReport,
    reward: u8,
    step: RewardStep,
    decided_by: &str,
    reason: Option<(ReasonKind, &str)>,
) -> GradeReport {
    report.reward = Some(reward);
    report.reward_reason = reason.map(|(_, text)| text.to_string());
    report.reward_reason_kind = reason.map(|(kind, _)| kind);
    report.reward_detail = Some(RewardReport {
        reward: Some(reward),
        step: Some(step),
        decided_by: decided_by.to_string(),
        blocks_found: report.extraction.blocks_found,
        entry: report.entry.clone(),
        same_code_as_verdict: true,
        shared_run: report.execution.is_some(),
        ..RewardReport::default()
    });
    report
}

/// Run A's report file written with `--scorer both` for rows 1–5: row 1 (`right`) has
/// reward 0 for a warning on stderr, row 2 (`result_error`) reward 1 from the reward's own
/// comparison, rows 3 and 5 agree; row 6 was scored by the verdict alone.
pub fn reports_a_with_rewards() -> String {
    reports_a()
        .lines()
        .map(|line| {
            let mut r: GradeReport = serde_json::from_str(line).expect("fixture report");
            r = match r.line {
                1 => {
                    if let Some(e) = r.execution.as_mut() {
                        e.stderr = WARNING.to_string();
                    }
                    with_reward(
                        r,
                        0,
                        RewardStep::Stderr,
                        "the program wrote to stderr",
                        Some((
                            ReasonKind::Stderr,
                            "stderr not empty: DeprecationWarning: Conversion of an array with ndim > 0 to a scalar is deprecated (the verdict ignores stderr; the reward gives 0)",
                        )),
                    )
                }
                2 => with_reward(
                    r,
                    1,
                    RewardStep::AllMatched,
                    "every expected result matched within 1e-10",
                    Some((
                        ReasonKind::Comparison,
                        "case 1: the verdict's comparison fails (expected [2.0, 3.0], actual [1.5 3.5]) but the reward's, which compares the expected value first, passes",
                    )),
                ),
                3 => with_reward(
                    r,
                    0,
                    RewardStep::FewerResults,
                    "fewer results were printed than expected",
                    None,
                ),
                5 => with_reward(
                    r,
                    0,
                    RewardStep::NumpyCheck,
                    "the program imports numpy",
                    None,
                ),
                _ => r,
            };
            serde_json::to_string(&r).expect("report serialises")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn dataset() -> Dataset {
    let mut ds = Dataset::default();
    for (q, sig, sel, reference) in [
        (
            Q_MEAN,
            "def solve(grid):",
            "mean",
            "import numpy as np\n\ndef solve(grid):\n    return np.mean(grid, axis=1).tolist()\n",
        ),
        (
            Q_INV,
            "def solve(m):",
            "linalg.inv",
            "import numpy as np\n\ndef solve(m):\n    return np.linalg.inv(m)\n",
        ),
        (
            Q_SPREAD,
            "def solve(values):",
            "std",
            "import numpy as np\n\ndef solve(values):\n    return np.std(values)\n",
        ),
    ] {
        let (cases, right) = cases_for(q);
        ds.items.insert(
            q.to_string(),
            DatasetItem {
                query: q.to_string(),
                function_name: sig.to_string(),
                selected_functions: vec![sel.to_string()],
                reference: vec![reference.to_string()],
                test_cases: cases,
                right_exe_result: right,
                source: PathBuf::from("fixtures/tasks.jsonl"),
                line: 1,
            },
        );
    }
    ds
}

pub fn sources() -> Vec<Source> {
    sources_with(reports_a())
}

/// The fixtures with run A's reports carrying the official RL reward.
pub fn sources_with_rewards() -> Vec<Source> {
    sources_with(reports_a_with_rewards())
}

/// Runs A and B with `reports` as run A's report file.
pub fn sources_with(reports: String) -> Vec<Source> {
    vec![
        Source {
            kind: FileKind::Rollouts,
            data: SourceData::Embedded {
                label: PathBuf::from("fixtures/run_a.jsonl"),
                text: leak(run_a()),
            },
        },
        Source {
            kind: FileKind::Rollouts,
            data: SourceData::Embedded {
                label: PathBuf::from("fixtures/run_b.jsonl"),
                text: leak(run_b()),
            },
        },
        Source {
            kind: FileKind::Reports,
            data: SourceData::Embedded {
                label: PathBuf::from("fixtures/run_a.scored.jsonl"),
                text: leak(reports),
            },
        },
    ]
}

/// An app with the fixtures loaded (no jobs run yet) at 80×24.
pub fn app(grading: Grading) -> App {
    app_with(grading, &sources())
}

/// An app with `sources` loaded (no jobs run yet) at 80×24.
pub fn app_with(grading: Grading, sources: &[Source]) -> App {
    let ctx = Context {
        api: Arc::new(ApiMap::from_api_doc_jsonl(API_DOC).expect("fixture API doc")),
        dataset: Arc::new(dataset()),
        grading,
        notes: vec!["fixture session".to_string()],
    };
    let mut app = App::new(ctx, Theme::dark(), Keymap::default());
    app.update(&sebx::tui::Action::Resize {
        width: 80,
        height: 24,
    });
    load_inline(&mut app, sources);
    app
}

/// Runs the background analysis the explorer queues once loading is done (findings,
/// functions and label suggestions come from it), leaving the other requests queued.
/// The score lookup (rerun sidecars, then the cache) runs too: like the analysis, it is
/// done moments after loading, before any grading is queued.
pub fn run_analysis(app: &mut App) {
    let queued = app.take_requests();
    for req in queued {
        if matches!(
            req,
            sebx::tui::jobs::JobRequest::AnalyzeAll { .. }
                | sebx::tui::jobs::JobRequest::LookupScores { .. }
        ) {
            if let Some(ev) = sebx::tui::jobs::run_request(req, None) {
                app.on_job(ev);
            }
        } else {
            app.queue(req);
        }
    }
    app.settle();
}

/// Grades deterministically from the code: `kocito(..., axis=1)` and `helper(` pass.
#[derive(Default)]
pub struct FakeBackend {
    pub calls: AtomicUsize,
    /// Score the official RL reward too (`--scorer both`): it agrees with the verdict but
    /// for `helper(`, whose warning on stderr scores 0.
    pub both: bool,
}

impl GradeBackend for FakeBackend {
    fn grade(&self, rollout: &Rollout) -> anyhow::Result<GradeReport> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let code = sebx::analysis::extract_last_python_block(&rollout.response)
            .map(|b| b.code)
            .unwrap_or_default();
        let ok = code.contains("axis=1") || code.contains("helper(");
        let cases = rollout
            .test_cases
            .iter()
            .enumerate()
            .map(|(k, c)| {
                if ok {
                    case(k, &c.input, &c.output, Some(&c.output), None)
                } else {
                    case(
                        k,
                        &c.input,
                        &c.output,
                        Some("0"),
                        Some(Mismatch {
                            path: String::new(),
                            expected: c.output.clone(),
                            actual: "0".into(),
                            difference: None,
                            reason: "differs".into(),
                        }),
                    )
                }
            })
            .collect();
        let graded = report(
            &rollout.source.display().to_string(),
            rollout.line,
            &rollout.query,
            &rollout.response,
            if ok {
                Verdict::Right
            } else {
                Verdict::ResultError
            },
            cases,
            exec("x", ""),
            "fake",
        );
        let mut graded = match (self.both, ok) {
            (false, _) => graded,
            (true, true) if code.contains("helper(") => with_reward(
                graded,
                0,
                RewardStep::Stderr,
                "the program wrote to stderr",
                Some((ReasonKind::Stderr, "stderr not empty: a warning")),
            ),
            (true, true) => with_reward(graded, 1, RewardStep::AllMatched, "fake", None),
            (true, false) => with_reward(graded, 0, RewardStep::Mismatch, "fake", None),
        };
        // As the explorer's grader (`Grader::default_settings`), the behaviour questions
        // are asked of what a scorer pays: nothing found.
        if graded.verdict == Some(Verdict::Right) || graded.reward == Some(1) {
            graded.behaviour = Some(sebx::grade::report::BehaviourRun {
                counterfactual: "differs (case 1)".to_string(),
                ..Default::default()
            });
        }
        Ok(graded)
    }
}

/// Draws the app into a test terminal of the given size.
pub fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| ui::draw(f, app)).expect("draws");
    terminal
}

/// The screen as text lines.
pub fn screen(terminal: &Terminal<TestBackend>) -> String {
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The explorer opened as `sebx` opens it with `args` (`open_default`: the real grader,
/// which needs the Python runtime), every row loaded and graded, at `width`×`height`.
/// `args` must keep sebx off the user's score cache (build them on
/// `isolated::explore_args()`).
pub fn open_graded(
    args: &sebx::tui::explore::ExploreArgs,
    width: u16,
    height: u16,
) -> (sebx::tui::explore::Session, Arc<dyn GradeBackend>) {
    assert!(
        args.cache.no_cache || args.cache.cache_dir.is_some(),
        "a test's explorer needs a score cache of its own (isolated::explore_args)"
    );
    let (mut session, backend) = sebx::tui::explore::open_default(args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    load_inline(&mut session.app, &session.sources);
    sebx::tui::inline::drain_inline(&mut session.app, Some(backend.as_ref()));
    session
        .app
        .update(&sebx::tui::Action::Resize { width, height });
    (session, backend)
}

/// What pressing `key` does through the keymap in force (and a text box's keys when one is
/// open), as `sebx FILES` maps a terminal's key; the work it asks for is done (no grader).
pub fn press(app: &mut App, key: ratatui::crossterm::event::KeyCode) {
    use ratatui::crossterm::event::{Event, KeyEvent, KeyModifiers};
    let event = Event::Key(KeyEvent::new(key, KeyModifiers::NONE));
    if let Some(action) = sebx::tui::run::action_for_event(app, &event) {
        app.update(&action);
    }
    sebx::tui::inline::drain_inline(app, None);
}

/// [`press`]es each character of `text`.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, ratatui::crossterm::event::KeyCode::Char(c));
    }
}

/// The screen as drawn at the app's own size.
pub fn drawn(app: &App) -> String {
    let (w, h) = app.size;
    screen(&draw(app, w, h))
}

/// The first non-empty cell of the open Compare screen's flip matrix (verdict indices in
/// `Verdict::ALL` order) whose row is `row` when given.
pub fn first_pair_cell(app: &App, row: Option<usize>) -> (usize, usize) {
    let r = app.stats.result.clone().expect("figures");
    let c = &r.compare.as_ref().expect("two runs").comparison;
    (0..5)
        .filter(|i| row.is_none_or(|r| r == *i))
        .flat_map(|i| (0..5).map(move |j| (i, j)))
        .find(|&(i, j)| {
            c.matrix[Verdict::ALL[i].code() as usize][Verdict::ALL[j].code() as usize] > 0
        })
        .expect("a pair somewhere")
}

/// Moves the Compare screen's cursor from the first cell to cell `(i, j)` with its keys.
pub fn walk_to_cell(app: &mut App, (i, j): (usize, usize)) {
    for _ in 0..i {
        app.update(&sebx::tui::Action::Down);
    }
    for _ in 0..j {
        app.update(&sebx::tui::Action::CellRight);
    }
    assert_eq!(app.stats.cell, (i, j));
}

/// Walks the list down from the selected row to the first answer judged `right` though it
/// has a hollow zwc use (the demo has one), running the jobs each row asks for (its
/// analysis, its report) with `backend`; whether there is one.
pub fn select_hollow_right(app: &mut App, backend: &dyn GradeBackend) -> bool {
    for _ in 0..app.corpus.entries.len() {
        sebx::tui::inline::drain_inline(app, Some(backend));
        app.service();
        let hollow = app.selected_analysis().is_some_and(|a| {
            a.code
                .findings
                .iter()
                .any(|f| f.kind == sebx::analysis::FindingKind::HollowZwc)
        });
        let right = app
            .selected_report()
            .is_some_and(|r| r.verdict == Some(Verdict::Right));
        if hollow && right {
            return true;
        }
        app.update(&sebx::tui::Action::Down);
    }
    false
}

/// The bundled demo opened in-process as `sebx` opens it with `args` (no grader: the
/// verdicts the files carry), its sidecars under `data_dir`, inline rows loaded and the
/// sidecars read, sized `width`×`height`.
pub fn demo_app(
    args: &sebx::tui::explore::ExploreArgs,
    data_dir: &std::path::Path,
    width: u16,
    height: u16,
) -> App {
    let mut s = sebx::tui::explore::prepare(
        args,
        Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly("t".into())),
    )
    .expect("the demo opens");
    s.app.labelling.data_dir = Some(data_dir.to_path_buf());
    load_inline(&mut s.app, &s.sources);
    sebx::tui::inline::drain_inline(&mut s.app, None);
    s.app.service();
    s.app.update(&sebx::tui::Action::Resize { width, height });
    s.app
}

/// The demo playlist's presenter over the bundled demo opened as `sebx present` opens
/// it with `args` (no grader), its sidecars under `data_dir`; the playlist resolves
/// with no issue and every slide's rollout is found.
pub fn demo_presenter(
    args: &sebx::tui::explore::ExploreArgs,
    data_dir: &std::path::Path,
) -> sebx::tui::present::Presenter {
    use sebx::tui::present;
    let mut s = sebx::tui::explore::prepare(
        args,
        Grading::Unavailable(sebx::grade::backend::Unavailable::StoredOnly("t".into())),
    )
    .expect("the demo opens");
    s.app.labelling.data_dir = Some(data_dir.to_path_buf());
    let mut paths = Vec::new();
    let (playlist, issues) =
        present::resolve_playlist(&present::PresentArgs::default(), &mut paths)
            .expect("the demo playlist");
    assert!(
        issues.is_empty() && paths.is_empty(),
        "{issues:?} {paths:?}"
    );
    let (p, missing) = present::prepare(s.app, &s.sources, playlist.as_ref());
    assert!(missing.is_empty(), "{missing:?}");
    p
}

/// The fake grader, remembering each report in `cache` as the embedded grader does.
pub struct Remembering {
    pub inner: FakeBackend,
    pub cache: Option<Arc<sebx::grade::score_cache::ScoreCache>>,
}

impl GradeBackend for Remembering {
    fn grade(&self, rollout: &Rollout) -> anyhow::Result<GradeReport> {
        let report = self.inner.grade(rollout)?;
        if let Some(cache) = &self.cache {
            cache.put(rollout, &report)?;
        }
        Ok(report)
    }
}

/// The demo opened as `sebx` opens it with `config` as its config file (written under
/// `dir`, where its sidecars go too), at `width`×`height`.
pub fn demo_with_config(dir: &std::path::Path, config: &str, width: u16, height: u16) -> App {
    let path = dir.join("config.toml");
    std::fs::write(&path, config).expect("write the config");
    let args = sebx::tui::explore::ExploreArgs {
        config: Some(path),
        ..crate::isolated::explore_args()
    };
    demo_app(&args, dir, width, height)
}
