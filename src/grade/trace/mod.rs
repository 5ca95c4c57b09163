//! The runtime oracle: a rollout's program run once under a tracer (`py/tracer.py`) that
//! records, at every site the static analysis reports on (attribute loads, operators,
//! `abs`/`round`/`float`/`int` calls), the runtime type of the receiver or operands and
//! whether the operation raised. Unlike the grader's harness, which stops at the first
//! exception, the traced harness runs every test case's call in its own `try`: a site
//! knows in how many cases it ran cleanly and in how many it raised, so a site that raises
//! on some cases only (data-dependent) is told apart from one that raises every time. The analysis never runs Python; this is how its findings
//! are checked against execution (`tests/analysis_oracle.rs`), and how a `possible` finding
//! is settled on request (`sebx analyze --confirm`, the Code pane's confirm key).
//!
//! Parts: this file runs programs and reads traces; `settle` compares findings with a
//! trace site by site; `cache` remembers settlements like the score cache remembers verdicts.

pub mod cache;
pub mod settle;

use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use std::fmt::Write as _;

use crate::analysis::assemble::{HARNESS_HEAD, python_cases_repr, rewrite_cases};
use crate::analysis::pyast::LineIndex;
use crate::grade::grader::ProgramRunner;
use crate::model::TestCase;

pub use settle::{Comparison, Settled, compare, settle_findings};

/// The tracer, embedded like the zwc core.
const TRACER: &str = include_str!("../py/tracer.py");

/// What starts the trace line on stdout (a control character no program prints by chance).
const MARKER: &str = "\u{1e}sebx-trace ";

/// How long a traced program may run: the hooks slow a program down several times, so a
/// program that fits the official 3 s may need more.
pub const TRACE_TIMEOUT: Duration = Duration::from_secs(6);

/// What kind of operation a site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    /// `recv.name` read.
    Attr,
    /// `l op r` or `x op= r`.
    Binop,
    /// `-x`, `+x`, `~x`.
    Unary,
    /// `abs(x)`, `round(x)`, `float(x)`, `int(x)`.
    Call,
}

/// One execution that raised: the receiver's (or operands') type, the exception's class
/// and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteFailure {
    pub receiver: String,
    pub exception: String,
    pub message: String,
}

/// One traced site of the code, with what happened there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub id: usize,
    pub kind: SiteKind,
    /// The attribute name, operator symbol (`%`, `unary -`) or builtin (`float()`).
    pub name: String,
    /// 1-based line and character column of the expression's start, as findings count.
    pub line: usize,
    pub col: usize,
    /// Where an attribute's name starts (where `array_method` findings point); the
    /// expression's start for the other kinds.
    pub name_line: usize,
    pub name_col: usize,
    /// Executions that did not raise, and the receiver types seen on them.
    pub ok: u64,
    pub ok_types: Vec<String>,
    /// Executions that raised (the first few, the last one kept).
    pub fails: Vec<SiteFailure>,
    /// An exception that ended a test case's call (or the program) was raised here.
    #[serde(default)]
    pub escaped: bool,
    /// Test cases whose call reached the site and never saw it raise.
    #[serde(default)]
    pub cases_clean: usize,
    /// Test cases whose call saw the site raise (caught or not).
    #[serde(default)]
    pub cases_raised: usize,
}

impl Site {
    /// Whether the site ran at all.
    pub fn reached(&self) -> bool {
        self.ok > 0 || !self.fails.is_empty()
    }

    /// Raised on some test cases and ran cleanly on others: whether it raises depends on
    /// the data, so only a `possible` finding is right there.
    pub fn data_dependent(&self) -> bool {
        self.cases_clean > 0 && self.cases_raised > 0
    }

    /// Test cases whose call reached the site.
    pub fn cases_reached(&self) -> usize {
        self.cases_clean + self.cases_raised
    }

    /// The executions that raised AttributeError or TypeError on a zwc value (a ZWCArray,
    /// the zwc module or `zwc.rfx`): what the analysis is meant to find.
    pub fn zwc_failures(&self) -> impl Iterator<Item = &SiteFailure> {
        self.fails.iter().filter(|f| {
            matches!(f.exception.as_str(), "AttributeError" | "TypeError")
                && f.receiver
                    .split(',')
                    .any(|t| t == "ZWCArray" || t == "module:zwc" || t == "module:zwc.rfx")
        })
    }
}

/// An exception that ended a test case's call (or the traced program).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crash {
    pub exception: String,
    pub message: String,
    /// The innermost line of the program it passed through.
    pub line: Option<usize>,
    /// The test case (0-based) whose call it ended; `None` when it ended the program
    /// outside the calls (an import, module-level code).
    #[serde(default)]
    pub case: Option<usize>,
    /// The id of the traced site of the code that raised it, if one did.
    #[serde(default)]
    pub site: Option<usize>,
}

/// What one traced run saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// Every site of the code, reached or not.
    pub sites: Vec<Site>,
    /// The first exception that ended a case's call or the program: what the grader's
    /// harness, which stops there, would end with.
    pub crash: Option<Crash>,
    /// Every exception that ended a case's call (in case order), then the one that ended
    /// the program, if any.
    #[serde(default)]
    pub crashes: Vec<Crash>,
    /// How many test cases' calls were started.
    #[serde(default)]
    pub cases: usize,
    /// The program ran to its end or to an exception (not killed, not timed out).
    pub complete: bool,
    pub timed_out: bool,
}

/// The program the grader would run for `code` (GRADER.md step 3), wrapped in the tracer,
/// except that each test case's call runs in its own `try`: an exception ends that case
/// (the tracer records it) and the next case runs.
pub fn traced_program(code: &str, entry: &str, cases: &[TestCase]) -> String {
    let rewritten = rewrite_cases(cases);
    let mut program = String::with_capacity(code.len() + 256 + rewritten.len() * 160);
    program.push_str(code);
    program.push_str(HARNESS_HEAD);
    program.push_str("    test_cases = ");
    program.push_str(&python_cases_repr(&rewritten));
    program.push_str("\n    result_list = []\n");
    for (i, case) in rewritten.iter().enumerate() {
        let _ = write!(
            program,
            "    _sebx_case_({i})\n    try:\n        result_list.append({entry}({}))\n    except Exception as _sebx_exc:\n        _sebx_case_failed_(_sebx_exc)\n",
            case.input
        );
    }
    program.push_str("    _sebx_case_(None)\n    for _sebx_result in result_list:\n        print(_sebx_result)\n");
    let literal = serde_json::to_string(&program).unwrap_or_else(|_| "\"\"".to_string());
    let code_lines = code.split('\n').count();
    format!("{TRACER}\n_sebx_trace({literal}, {code_lines})\n")
}

#[derive(Deserialize)]
struct RawTrace {
    sites: Vec<RawSite>,
    #[serde(default)]
    crashes: Vec<RawCrash>,
    #[serde(default)]
    cases: usize,
}

#[derive(Deserialize)]
struct RawSite {
    id: usize,
    kind: SiteKind,
    name: String,
    line: usize,
    col: usize,
    end_line: usize,
    end_col: usize,
    ok: u64,
    ok_types: Vec<String>,
    fails: Vec<(String, String, String)>,
    #[serde(default)]
    cases_clean: usize,
    #[serde(default)]
    cases_raised: usize,
    #[serde(default)]
    escapes: usize,
}

#[derive(Deserialize)]
struct RawCrash {
    #[serde(rename = "type")]
    exception: String,
    message: String,
    line: Option<usize>,
    site: Option<usize>,
    #[serde(default)]
    case: Option<usize>,
}

/// Reads the trace the tracer printed for `code` (positions become the analysis's
/// 1-based character columns); `None` when the output holds none.
pub fn parse_trace(code: &str, stdout: &str) -> Option<Trace> {
    let start = stdout.rfind(MARKER)? + MARKER.len();
    let json = stdout[start..].lines().next()?;
    let raw: RawTrace = serde_json::from_str(json).ok()?;
    let index = LineIndex::new(code);
    // Python counts columns in UTF-8 bytes from the line start.
    let position = |line: usize, byte_col: usize| -> (usize, usize) {
        match index.line_start(line) {
            Some(start) => {
                let mut at = (start + byte_col).min(code.len());
                while !code.is_char_boundary(at) {
                    at -= 1;
                }
                index.position(code, at)
            }
            None => (line, byte_col + 1),
        }
    };
    let sites: Vec<Site> = raw
        .sites
        .into_iter()
        .map(|s| {
            let (line, col) = position(s.line, s.col);
            let (name_line, name_col) = if s.kind == SiteKind::Attr {
                position(s.end_line, s.end_col.saturating_sub(s.name.len()))
            } else {
                (line, col)
            };
            Site {
                escaped: s.escapes > 0,
                cases_clean: s.cases_clean,
                cases_raised: s.cases_raised,
                id: s.id,
                kind: s.kind,
                name: s.name,
                line,
                col,
                name_line,
                name_col,
                ok: s.ok,
                ok_types: s.ok_types,
                fails: s
                    .fails
                    .into_iter()
                    .map(|(receiver, exception, message)| SiteFailure {
                        receiver,
                        exception,
                        message,
                    })
                    .collect(),
            }
        })
        .collect();
    // A crash's site counts only if it is a site of the code (not of the harness).
    let crashes: Vec<Crash> = raw
        .crashes
        .into_iter()
        .map(|c| Crash {
            exception: c.exception,
            message: c.message,
            line: c.line,
            case: c.case,
            site: c.site.filter(|id| sites.iter().any(|s| s.id == *id)),
        })
        .collect();
    Some(Trace {
        sites,
        crash: crashes.first().cloned(),
        crashes,
        cases: raw.cases,
        complete: true,
        timed_out: false,
    })
}

/// Runs `code` once under the tracer, on `cases` as the grader would.
pub fn run_traced(
    runner: &dyn ProgramRunner,
    code: &str,
    entry: &str,
    cases: &[TestCase],
) -> Result<Trace> {
    let program = traced_program(code, entry, cases);
    let out = runner
        .run_program(&program, TRACE_TIMEOUT)
        .context("running the traced program")?;
    Ok(trace_of_output(code, &out.stdout, out.timed_out))
}

/// The trace in a traced program's output (an empty, incomplete one when it printed none:
/// killed, timed out, or ended by `os._exit`).
pub fn trace_of_output(code: &str, stdout: &str, timed_out: bool) -> Trace {
    parse_trace(code, stdout).unwrap_or(Trace {
        timed_out,
        ..Trace::default()
    })
}

/// One finding as a run settled it (crash claims only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettledFinding {
    pub kind: crate::analysis::FindingKind,
    pub severity: crate::analysis::Severity,
    pub name: String,
    pub line: usize,
    pub col: usize,
    pub settled: Settled,
}

/// What running a rollout once under the tracer says about its findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The run ended (not killed by the timeout): `not_reached` means what it says.
    pub complete: bool,
    pub timed_out: bool,
    /// The exception that ended the program, if one did.
    pub crash: Option<Crash>,
    /// Every finding that claims a crash, in the findings' order.
    pub findings: Vec<SettledFinding>,
    /// The trace came from the cache.
    pub cached: bool,
}

impl Confirmation {
    /// The settlement of the finding at `line`:`col` named `name`, if it was settled.
    pub fn of(&self, line: usize, col: usize, name: &str) -> Option<&Settled> {
        self.findings
            .iter()
            .find(|f| f.line == line && f.col == col && f.name == name)
            .map(|f| &f.settled)
    }
}

/// Runs `code` (the rollout's graded code, entry `entry`) once under the tracer on `cases`,
/// or takes the trace `cache` remembers for them, and settles `findings` against it.
pub fn confirm(
    runner: &dyn ProgramRunner,
    cache: Option<&cache::TraceCache>,
    code: &str,
    entry: &str,
    cases: &[TestCase],
    findings: &[crate::analysis::Finding],
) -> Result<Confirmation> {
    let key = cache::trace_key(code, entry, cases);
    let (trace, cached) = match cache.and_then(|c| c.get(&key)) {
        Some(t) => (t, true),
        None => {
            let t = run_traced(runner, code, entry, cases)?;
            if let Some(c) = cache {
                c.put(&key, &t)?;
            }
            (t, false)
        }
    };
    let settled = findings
        .iter()
        .filter(|f| settle::claims_crash(f))
        .map(|f| SettledFinding {
            kind: f.kind,
            severity: f.severity,
            name: f.name.clone(),
            line: f.line,
            col: f.col,
            settled: if trace.complete {
                settle::settle(f, &trace)
            } else {
                Settled::Untraced
            },
        })
        .collect();
    Ok(Confirmation {
        complete: trace.complete,
        timed_out: trace.timed_out,
        crash: trace.crash.clone(),
        findings: settled,
        cached,
    })
}
