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
//! The same run settles the loophole findings (`loopholes`): it records the lines that ran,
//! the modules the code imported, each case's returned value, what reached stdout and how
//! the program left; `hollow_zwc` is settled by a second, counterfactual run.
//! Every run also answers `behaviour`'s four questions whatever the code looks like
//! (NumPy reached, zwc for show, forged output, judge eval), with a counterfactual run in
//! which all of zwc is poisoned: loopholes no static candidate raised.
//!
//! Parts: this file runs programs and reads traces; `settle` compares crash claims with a
//! trace site by site; `loopholes` settles the loophole family; `cache` remembers traces
//! like the score cache remembers verdicts.

pub mod behaviour;
pub mod cache;
pub mod grading;
pub mod loopholes;
pub mod settle;

use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use std::fmt::Write as _;

use crate::analysis::assemble::{
    HARNESS_HEAD, RESULTS_SEPARATOR as SEPARATOR, assemble_program, python_cases_repr,
    rewrite_cases,
};
use crate::analysis::pyast::LineIndex;
use crate::grade::grader::{ProgramRunner, RunOutput};
use crate::model::TestCase;

pub use settle::{Comparison, Settled, compare, compare_settled, settle_findings};

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
    /// The lines of the code that ran (1-based).
    #[serde(default)]
    pub lines: Vec<usize>,
    /// Modules the code imported, by any importer (`import`, `__import__`,
    /// `importlib.import_module`, text it `exec`s), with the line of the code that did.
    #[serde(default)]
    pub imports: Vec<(usize, String)>,
    /// Modules the code looked up (`sys.modules["numpy"]`, `getattr(zwc, "_np")`), as
    /// `module:<name>`, with the line.
    #[serde(default)]
    pub modules: Vec<(usize, String)>,
    /// What each test case's call returned, in case order (a case that raised has none).
    #[serde(default)]
    pub results: Vec<CaseResult>,
    /// What reached stdout, part by part (`None`: a trace from before it was recorded).
    #[serde(default)]
    pub out: Option<Output>,
    /// How the program left before its end, if it did (`sys.exit`, `os._exit`).
    #[serde(default)]
    pub left: Option<Left>,
    /// In the counterfactual run, the array constructors' calls and how many wrapped only
    /// plain Python values.
    #[serde(default)]
    pub wraps: Option<Wraps>,
    /// What the program's own code reached of NumPy, by any route (an attribute or a
    /// lookup that gave a NumPy module or function, a ZWCArray unwrapped, text it ran), with
    /// the line of the code.
    #[serde(default)]
    pub numpy: Vec<(usize, String)>,
    /// How many times a genuine zwc function (the runtime's, by identity) ran during the
    /// test cases' calls (`None`: a trace from before it was counted).
    #[serde(default)]
    pub zwc_calls: Option<u64>,
    /// What `zwc` was when the cases ran, if not the runtime's module (a stand-in).
    #[serde(default)]
    pub zwc_standin: Option<String>,
    /// What zwc's functions computed with when the cases ran (`zwc._np`), if not NumPy.
    #[serde(default)]
    pub zwc_numpy: Option<String>,
    /// The function the harness called as the entry: its name and first line.
    #[serde(default)]
    pub entry_called: Option<(String, Option<usize>)>,
    /// The first line of the first `def` of the entry's name (what the zwc check reads).
    #[serde(default)]
    pub entry_first: Option<usize>,
    /// In the counterfactual run, how many times the code used a poisoned value (a
    /// program that caught the error may have fallen back on an answer of its own).
    #[serde(default)]
    pub refusals: Option<u64>,
    /// Names the official zwc check counts as zwc (`import zwc as A`, `from zwc import N`)
    /// that held something else when the cases used them: (line, name, what it held).
    #[serde(default)]
    pub zwc_rebound: Vec<(usize, String, String)>,
    /// In a perturbed run, how many zwc calls returned nothing to perturb (`None`: a
    /// function that works in place, whose effect no other value stands in for; an object
    /// of no kind the perturbation knows).
    #[serde(default)]
    pub unmoved: Option<u64>,
    /// In a perturbed run, how many zwc calls raised during the cases (the code caught
    /// them): the answer may be whether zwc raised, which no perturbation changes.
    #[serde(default)]
    pub zwc_raised: Option<u64>,
    /// In a perturbed run, in how many cases a zwc call raised.
    #[serde(default)]
    pub zwc_raised_cases: Option<usize>,
    /// What zwc was given during the cases (see [`ZwcGiven`]; `None`: not recorded).
    #[serde(default)]
    pub zwc_given: Option<ZwcGiven>,
    /// Whether zwc computed anything in the cases or only handed back what it was given
    /// (see [`ZwcThrough`]; `None`: not recorded, as in the counterfactual runs).
    #[serde(default)]
    pub zwc_through: Option<ZwcThrough>,
    /// How many times zwc's functions ran in the whole traced run, as the runtime counts
    /// them (the same count the grader's untraced run gives: [`RunOutput::zwc_calls`]).
    #[serde(default)]
    pub runtime_calls: Option<u64>,
}

/// What the genuine zwc calls made during the test cases were given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZwcGiven {
    /// A call was given one of the entry's arguments, or a container or array one holds
    /// (by identity), or an object of no kind compared by value, or came from where the
    /// entry's arguments could not be found (another thread), or was given other values
    /// than the first case's call of the same rank.
    pub saw: bool,
    /// Results other than numbers and text (an array, a callable) zwc's code handed back
    /// to the code during the cases.
    pub arrays: u64,
    /// Each case's calls, by what they were given (a digest; `None`: no call).
    pub cases: Vec<Option<u64>>,
}

/// Whether zwc's code computed anything during the test cases, or only handed back what
/// it was given (a conversion: `array`, `copy`, a 1-D `.T`, `a * 1`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZwcThrough {
    /// A return of zwc's code (a function, a ZWCArray operator, `.T`) was not one of its
    /// arguments handed back, or a ZWCArray was written into, or a value could not be
    /// compared.
    pub computed: bool,
    /// The genuine zwc function calls that handed an argument back (until one computed).
    pub calls: u64,
    /// Returns of zwc's code to the code seen, these and those that only read or built a
    /// ZWCArray (`__init__`, `__len__`, `__iter__`) included.
    #[serde(default)]
    pub seen: u64,
    /// The NumPy names of those functions.
    #[serde(default)]
    pub names: Vec<String>,
    /// Per case: whether its answer is one of the entry's arguments (`None`: no zwc
    /// function returned in that case, or recording had stopped).
    #[serde(default)]
    pub answers: Vec<Option<bool>>,
}

/// What one test case's call returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseResult {
    pub case: Option<usize>,
    /// The value's type (`str`, `float`, `ZWCArray`, ...).
    #[serde(rename = "type")]
    pub type_name: String,
    /// What `print` shows of it (its first 4,000 characters).
    pub text: String,
    /// The text was longer and is cut.
    #[serde(default)]
    pub cut: bool,
    /// The class of the code whose own `__str__`/`__repr__` gave the text (or a `str`
    /// subclass): the printed text is not the value's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_text: Option<String>,
    /// An array or NumPy scalar of text or objects (a 0-d array of `"4/2"` prints `4/2`):
    /// what it prints is text, not a number's digits.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_array: bool,
}

/// What reached stdout in a traced run: the program's own text (before the harness began
/// to print, file-descriptor writes included), the harness's prints (`None`: it never began),
/// and what came after (atexit handlers).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Output {
    pub program: String,
    pub harness: Option<String>,
    pub after: String,
    /// More than the tracer keeps was printed (200,000 characters).
    #[serde(default)]
    pub cut: bool,
    /// When the harness began to print, the program had replaced `sys.stdout` or `print`.
    #[serde(default)]
    pub taken: bool,
}

/// How a program left before its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Left {
    /// `SystemExit` (`sys.exit`, `exit`, `raise SystemExit`), `os._exit`, or `os.execv` /
    /// `os.execve` (the process replaced by another program).
    pub how: String,
    pub line: Option<usize>,
}

/// The array constructors' calls in the counterfactual run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wraps {
    pub calls: u64,
    /// Calls whose arguments held no array value but those the constructors built.
    pub plain: u64,
}

/// The program the grader would run for `code` (GRADER.md step 3), wrapped in the tracer,
/// except that each test case's call runs in its own `try`: an exception ends that case
/// (the tracer records it) and the next case runs.
pub fn traced_program(code: &str, entry: &str, cases: &[TestCase]) -> String {
    traced_program_with(code, entry, cases, None)
}

/// [`traced_program`] for the counterfactual run when `keep` is given: every zwc function
/// but those it names (relative to `zwc.`: `yitaf`, `rfx.x`) returns a value that raises on
/// any use.
pub fn traced_program_with(
    code: &str,
    entry: &str,
    cases: &[TestCase],
    keep: Option<&[String]>,
) -> String {
    let options = match keep {
        Some(keep) => serde_json::json!({ "poison": true, "keep": keep, "entry": entry }),
        None => serde_json::json!({ "entry": entry }),
    };
    traced_program_opts(code, entry, cases, &options)
}

/// The counterfactual run of the behaviour questions ([`behaviour`]): every zwc function
/// and `zwc.ZWCArray` give a value that absorbs what the code does with it (arithmetic,
/// attributes, calls, indexing give it again; a float is NaN; iterating gives nothing)
/// and raises where the code must read it (truth, text, length, an int), none kept: a
/// zwc value computed and thrown away changes nothing.
pub fn traced_program_poisoned(code: &str, entry: &str, cases: &[TestCase]) -> String {
    let options = serde_json::json!({ "poison": true, "keep": [], "entry": entry, "all": true, "absorb": true });
    traced_program_opts(code, entry, cases, &options)
}

/// How many perturbed runs the behaviour questions may make ([`traced_program_perturbed`]).
pub const PERTURBATIONS: u8 = 2;

/// The second counterfactual of the behaviour questions, for an answer the poison reached
/// (the code read a zwc value, or returned one): every zwc function returns a *different*
/// value of the same kind (`perturbation` 1 or 2 of [`PERTURBATIONS`]: numbers moved by
/// one of two decreasing affine maps and offset value by value, truth flipped, a row or
/// two more, text lengthened, a returned callable's results perturbed; 3 and 4 are 1 and
/// 2 with a result of its argument's shape keeping it and any other one row more, for
/// code the differing rows made crash). An answer that
/// depends on what zwc computed changes under one; one that reads zwc only
/// in a test every value passes, a product with 0 or a discarded `int` does not.
pub fn traced_program_perturbed(
    code: &str,
    entry: &str,
    cases: &[TestCase],
    perturbation: u8,
) -> String {
    let options = serde_json::json!({ "perturb": perturbation, "entry": entry });
    traced_program_opts(code, entry, cases, &options)
}

fn traced_program_opts(
    code: &str,
    entry: &str,
    cases: &[TestCase],
    options: &serde_json::Value,
) -> String {
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
            "    _sebx_case_({i})\n    try:\n        result_list.append(_sebx_result_(_sebx_entry_({entry})({})))\n    except Exception as _sebx_exc:\n        _sebx_case_failed_(_sebx_exc)\n",
            case.input
        );
    }
    // The official harness's printing (`assemble::push_calls`), marked for the tracer.
    let _ = write!(
        program,
        "    _sebx_case_(None)\n    _sebx_harness_()\n    print(\"{SEPARATOR}\")\n    for _sebx_result in result_list:\n        print(_sebx_result)\n        print(\"#\")\n"
    );
    let literal = serde_json::to_string(&program).unwrap_or_else(|_| "\"\"".to_string());
    let code_lines = code.split('\n').count();
    let options =
        serde_json::to_string(&options.to_string()).unwrap_or_else(|_| "None".to_string());
    format!("{TRACER}\n_sebx_trace({literal}, {code_lines}, {options})\n")
}

#[derive(Deserialize)]
struct RawTrace {
    sites: Vec<RawSite>,
    #[serde(default)]
    crashes: Vec<RawCrash>,
    #[serde(default)]
    cases: usize,
    #[serde(default)]
    lines: Vec<usize>,
    #[serde(default)]
    imports: Vec<(usize, String)>,
    #[serde(default)]
    modules: Vec<(usize, String)>,
    #[serde(default)]
    results: Vec<CaseResult>,
    #[serde(default)]
    out: Option<Output>,
    #[serde(default)]
    left: Option<Left>,
    #[serde(default)]
    wraps: Option<Wraps>,
    #[serde(default)]
    numpy: Vec<(usize, String)>,
    #[serde(default)]
    zwc_calls: Option<u64>,
    #[serde(default)]
    zwc_standin: Option<String>,
    #[serde(default)]
    zwc_numpy: Option<String>,
    #[serde(default)]
    entry_called: Option<(String, Option<usize>)>,
    #[serde(default)]
    entry_first: Option<usize>,
    #[serde(default)]
    refusals: Option<u64>,
    #[serde(default)]
    zwc_rebound: Vec<(usize, String, String)>,
    #[serde(default)]
    unmoved: Option<u64>,
    #[serde(default)]
    zwc_raised: Option<u64>,
    #[serde(default)]
    zwc_raised_cases: Option<usize>,
    #[serde(default)]
    zwc_given: Option<ZwcGiven>,
    #[serde(default)]
    zwc_through: Option<ZwcThrough>,
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
    let at = stdout.rfind(MARKER)?;
    let json = stdout[at + MARKER.len()..].lines().next()?;
    let raw: RawTrace = serde_json::from_str(json).ok()?;
    // What reached the process's stdout besides the tracer's line was written to the file
    // descriptor itself (`os.write(1, ...)`): the program's own text. What follows the
    // line was written as the interpreter shut down (a finalizer, a buffered file closed):
    // the scorers read it last.
    let mut out = raw.out;
    if let Some(o) = out.as_mut() {
        o.program.push_str(&stdout[..at]);
        let tail = at + MARKER.len() + json.len();
        let tail = stdout[tail..].strip_prefix('\n').unwrap_or(&stdout[tail..]);
        o.after.push_str(tail);
    }
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
        lines: raw.lines,
        imports: raw.imports,
        modules: raw.modules,
        results: raw.results,
        out,
        left: raw.left,
        wraps: raw.wraps,
        numpy: raw.numpy,
        zwc_calls: raw.zwc_calls,
        zwc_standin: raw.zwc_standin,
        zwc_numpy: raw.zwc_numpy,
        entry_called: raw.entry_called,
        entry_first: raw.entry_first,
        refusals: raw.refusals,
        unmoved: raw.unmoved,
        zwc_raised: raw.zwc_raised,
        zwc_raised_cases: raw.zwc_raised_cases,
        zwc_rebound: raw.zwc_rebound,
        zwc_given: raw.zwc_given,
        zwc_through: raw.zwc_through,
        runtime_calls: None,
    })
}

/// Runs `program`, the traced program of `code` ([`traced_program`] or, for the
/// counterfactual run, [`traced_program_with`]), and reads its trace.
pub fn run_traced(runner: &dyn ProgramRunner, code: &str, program: &str) -> Result<Trace> {
    let out = runner
        .run_program(program, TRACE_TIMEOUT)
        .context("running the traced program")?;
    Ok(trace_of_run(code, &out))
}

/// `code` on `cases` as the grader runs it, untraced: its runs give the runtime's count of
/// zwc calls ([`RunOutput::zwc_calls`]) to compare with a traced run's.
pub fn untraced_program(code: &str, entry: &str, cases: &[TestCase]) -> String {
    assemble_program(code, entry, &rewrite_cases(cases))
}

/// The trace of a traced program's run, with the runtime's count of zwc calls.
pub fn trace_of_run(code: &str, out: &RunOutput) -> Trace {
    Trace {
        runtime_calls: out.zwc_calls,
        ..trace_of_output(code, &out.stdout, out.timed_out)
    }
}

/// The trace in a traced program's output (an empty, incomplete one when it printed none:
/// killed, timed out, or ended by `os._exit`).
pub fn trace_of_output(code: &str, stdout: &str, timed_out: bool) -> Trace {
    parse_trace(code, stdout).unwrap_or(Trace {
        timed_out,
        ..Trace::default()
    })
}

/// One finding as a run settled it (crash claims and loophole findings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettledFinding {
    pub kind: crate::analysis::FindingKind,
    pub severity: crate::analysis::Severity,
    pub name: String,
    pub line: usize,
    pub col: usize,
    pub settled: Settled,
    /// What the run showed, for a confirmed loophole finding or a crash the run found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// What running a rollout once under the tracer says about its findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The run ended (not killed by the timeout): `not_reached` means what it says.
    pub complete: bool,
    pub timed_out: bool,
    /// The exception that ended the program, if one did.
    pub crash: Option<Crash>,
    /// Every finding that claims a crash or a loophole, in the findings' order.
    pub findings: Vec<SettledFinding>,
    /// Crashes on a zwc value the run saw where no finding claims one: confirmed findings
    /// the static analysis missed (a method of a value it could not type, say).
    #[serde(default)]
    pub found: Vec<SettledFinding>,
    /// The trace came from the cache.
    pub cached: bool,
    /// The four questions every traced run answers whatever the code looks like (NumPy
    /// reached, zwc for show, forged output, judge eval); their "yes" are in `found`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<behaviour::Behaviour>,
}

impl Confirmation {
    /// The official static check fails the code with `error`: the scorers pay nothing,
    /// so what the run found by behaviour alone is no loophole (the answers stay, marked).
    pub fn check_failed(&mut self, error: &str) {
        let Some(b) = self.behaviour.as_mut() else {
            return;
        };
        b.caught_by_check = Some(error.to_string());
        self.found.retain(|f| {
            f.kind.family() != crate::model::finding_kinds::Family::Loophole
                || !f
                    .evidence
                    .as_deref()
                    .is_some_and(|e| e.starts_with(behaviour::FOUND_BY_RUNNING))
        });
    }

    /// The settlement of the finding at `line`:`col` named `name`, if it was settled.
    pub fn of(&self, line: usize, col: usize, name: &str) -> Option<&Settled> {
        self.findings
            .iter()
            .find(|f| f.line == line && f.col == col && f.name == name)
            .map(|f| &f.settled)
    }

    /// What the run showed for the finding at `line`:`col` named `name`, if it says.
    pub fn evidence_of(&self, line: usize, col: usize, name: &str) -> Option<&str> {
        self.findings
            .iter()
            .find(|f| f.line == line && f.col == col && f.name == name)
            .and_then(|f| f.evidence.as_deref())
    }
}

/// A traced run of `program` for `key`, or the one `cache` remembers.
fn traced(
    runner: &dyn ProgramRunner,
    cache: Option<&cache::TraceCache>,
    key: &str,
    code: &str,
    program: &str,
) -> Result<(Trace, bool)> {
    if let Some(t) = cache.and_then(|c| c.get(key)) {
        return Ok((t, true));
    }
    let t = run_traced(runner, code, program)?;
    if let Some(c) = cache {
        c.put(key, &t)?;
    }
    Ok((t, false))
}

/// The crashes on a zwc value `trace` saw that no finding names, as confirmed findings;
/// `settled` are the findings' settlements against `trace` ([`settle::settle_findings`]).
fn found_by_running(
    findings: &[crate::analysis::Finding],
    settled: &[Settled],
    trace: &Trace,
) -> Vec<SettledFinding> {
    use crate::analysis::{FindingKind, Severity};
    settle::compare_settled(findings, settled, trace)
        .missed
        .into_iter()
        .filter(|m| m.escaped && !m.possible_only)
        .filter_map(|m| {
            let failure = m.site.zwc_failures().next()?;
            let on_array = failure.receiver.split(',').any(|t| t == "ZWCArray");
            let (kind, name) = match m.site.kind {
                SiteKind::Attr if !on_array => (FindingKind::UnknownZwcName, m.site.name.clone()),
                _ => (FindingKind::ArrayMethod, m.site.name.clone()),
            };
            Some(SettledFinding {
                kind,
                severity: Severity::Error,
                name,
                line: m.site.name_line,
                col: m.site.name_col,
                settled: Settled::Confirmed,
                evidence: Some(format!(
                    "found by running: raised {} on {} in {} of {} case(s): {}",
                    failure.exception,
                    failure.receiver,
                    m.site.cases_raised,
                    m.site.cases_reached(),
                    failure.message
                )),
            })
        })
        .collect()
}

/// Runs `code` (the rollout's graded code, entry `entry`) once under the tracer on `cases`,
/// or takes the trace `cache` remembers for them, and settles `findings` against it; a
/// `hollow_zwc` finding is settled by a second, counterfactual run in which every zwc
/// function but `keep` (the array constructors the task did not select, see
/// [`crate::analysis::loopholes::wrapping_constructors`]) returns a value that raises on use.
pub fn confirm(
    runner: &dyn ProgramRunner,
    cache: Option<&cache::TraceCache>,
    code: &str,
    entry: &str,
    cases: &[TestCase],
    findings: &[crate::analysis::Finding],
    keep: &[String],
) -> Result<Confirmation> {
    let key = cache::trace_key(code, entry, cases);
    let (trace, cached) = traced(
        runner,
        cache,
        &key,
        code,
        &traced_program(code, entry, cases),
    )?;
    // The behaviour questions' counterfactual, for every rollout (nothing kept).
    let poisoned = if trace.complete {
        let key = cache::trace_key(&format!("{code}\0counterfactual-all"), entry, cases);
        let program = traced_program_poisoned(code, entry, cases);
        Some(traced(runner, cache, &key, code, &program)?.0)
    } else {
        None
    };
    // Where the poison could not tell, zwc's values perturbed (up to twice).
    let mut perturbed = Vec::new();
    while let Some(n) = behaviour::next_perturbation(&trace, poisoned.as_ref(), &perturbed) {
        let key = cache::trace_key(&format!("{code}\0perturbed-{n}"), entry, cases);
        let program = traced_program_perturbed(code, entry, cases, n);
        perturbed.push(traced(runner, cache, &key, code, &program)?.0);
    }
    // The program as the grader runs it, untraced, while the traced run called zwc more
    // often than the untraced runs so far: the runtime's count of zwc calls in each.
    let mut unwatched = Vec::new();
    if behaviour::wants_unwatched(&trace, &unwatched) {
        let program = untraced_program(code, entry, cases);
        while behaviour::wants_unwatched(&trace, &unwatched) {
            let key = cache::trace_key(
                &format!("{code}\0untraced-{}", unwatched.len() + 1),
                entry,
                cases,
            );
            // No count from a run that timed out (the worker's rule).
            match traced(runner, cache, &key, code, &program)?.0.runtime_calls {
                Some(n) => unwatched.push(n),
                None => break,
            }
        }
    }
    let counterfactual = if loopholes::needs_counterfactual(findings) {
        let key = cache::trace_key(
            &format!("{code}\0counterfactual\0{}", keep.join(",")),
            entry,
            cases,
        );
        let program = traced_program_with(code, entry, cases, Some(keep));
        Some(traced(runner, cache, &key, code, &program)?.0)
    } else {
        None
    };
    // Each crash claim settled once: for the findings shown and for what they missed.
    let crash_settled = if trace.complete {
        settle::settle_findings(findings, &trace)
    } else {
        Vec::new()
    };
    let settled: Vec<SettledFinding> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| settle::claims_crash(f) || loopholes::claims_loophole(f))
        .map(|(i, f)| {
            let (settled, evidence) = if !trace.complete {
                (Settled::Untraced, None)
            } else if settle::claims_crash(f) {
                (crash_settled[i].clone(), None)
            } else {
                loopholes::settle_loophole(f, &trace, counterfactual.as_ref(), keep)
            };
            SettledFinding {
                kind: f.kind,
                severity: f.severity,
                name: f.name.clone(),
                line: f.line,
                col: f.col,
                settled,
                evidence,
            }
        })
        .collect();
    let mut found = if trace.complete {
        found_by_running(findings, &crash_settled, &trace)
    } else {
        Vec::new()
    };
    let (answers, by_running) = behaviour::behaviour(
        &trace,
        poisoned.as_ref(),
        &perturbed,
        &unwatched,
        findings,
        &settled,
        entry,
    );
    found.extend(by_running);
    Ok(Confirmation {
        complete: trace.complete,
        timed_out: trace.timed_out,
        crash: trace.crash.clone(),
        findings: settled,
        found,
        cached,
        behaviour: Some(answers),
    })
}
