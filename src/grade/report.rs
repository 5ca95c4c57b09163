//! What grading one rollout produced: the verdict and everything a user needs to see why.

use serde::{Deserialize, Serialize};

use crate::analysis::numpy_check::NumpyCheck;
use crate::analysis::static_check::StaticCheck;
use crate::grade::compare::Comparison;
use std::path::Path;
use std::sync::Arc;

use crate::model::{LoadIssue, Rollout, RolloutId, TestCase, Verdict};

/// One test case's outcome.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseResult {
    /// 0-based index of the case.
    pub index: usize,
    /// The rewritten input (`np.array` → `zwc.yitaf`).
    pub input: String,
    /// The expected piece of `right_exe_result`.
    pub expected: String,
    /// The actual printed piece; `None` when stdout had no piece at this index.
    pub actual: Option<String>,
    pub matched: bool,
    /// Parsed values and mismatch location; `None` when there was nothing to compare.
    pub comparison: Option<Comparison>,
    /// This case's outcome is not a property of the rollout alone: another machine's
    /// float digits could flip it (see `fragile_reason`).
    pub fragile: bool,
    pub fragile_reason: Option<String>,
}

/// The behaviour questions asked of a paid rollout's traced runs while grading (NumPy
/// reached, zwc for show, forged output, judge eval: `grade::trace::behaviour`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BehaviourRun {
    /// Each loophole the runs showed, whatever the code looks like.
    pub found: Vec<RunFinding>,
    /// What the counterfactual run (every zwc function poisoned) showed: `same`,
    /// `differs (case N)`, `inconclusive: …`, or `none`.
    pub counterfactual: String,
    /// Genuine zwc calls during the entry's calls (`None`: not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zwc_calls: Option<u64>,
    /// Why the runs decided nothing, when they did not (no scorer pays the rollout, so it
    /// was not traced; the traced run timed out or could not start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub untraced: Option<String>,
}

/// One loophole a traced run showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFinding {
    pub kind: crate::analysis::FindingKind,
    /// 1-based line of the code it points at (0: the program as a whole).
    pub line: usize,
    /// What the run showed.
    pub evidence: String,
}

impl BehaviourRun {
    /// The kinds found, as a set.
    pub fn kinds(&self) -> crate::model::finding_kinds::KindSet {
        self.found.iter().fold(0, |bits, f| bits | f.kind.bit())
    }

    /// The loophole kinds the runs answered for (found or not): NumPy reached, forged
    /// output and printed code whenever the traced run finished; zwc for show (and the zwc
    /// check fooled) only when the counterfactual was conclusive.
    pub fn settles(&self) -> crate::model::finding_kinds::KindSet {
        use crate::analysis::FindingKind as K;
        if self.untraced.is_some() {
            return 0;
        }
        let mut bits = K::NumpyBackdoor.bit() | K::ForgedOutput.bit() | K::GraderEval.bit();
        if self.counterfactual == "same" || self.counterfactual.starts_with("differs") {
            bits |= K::HollowZwc.bit() | K::ZwcCheckFooled.bit();
        }
        bits
    }
}

/// What the official checker did with a rollout's printed code.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgeEval {
    /// The printed texts its `eval` ran as code, and what each gave.
    pub computed: Vec<ComputedText>,
    /// What the printed code changed of the checker's lasting state: its class, its module,
    /// the builtins, the modules it imported (the official scorers keep that for every
    /// later line they judge in the same process; sebx judges each rollout afresh).
    pub tampered: Vec<Tampering>,
    /// Why the checker gave no answer, when it did not (the outcome is then sebx's own
    /// comparison, marked fragile).
    pub failed: Option<String>,
    /// The start of what the checker printed while judging (its own prints, pdb's).
    pub printed: String,
}

/// One printed text the official `eval` ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ComputedText {
    /// 0-based case.
    pub case: usize,
    /// `actual`, `expected`, or a text inside a value.
    pub side: String,
    /// The cleaned text handed to `eval`.
    pub text: String,
    /// The repr of what it computed (when it did not raise).
    pub value: Option<String>,
    /// What it raised (the checker then compared the cleaned text as a string).
    pub raised: Option<String>,
}

impl ComputedText {
    /// `case 1 (actual): `np.sum([1, 2, 3])` computed np.int64(6)`.
    pub fn describe(&self) -> String {
        let what = match (&self.value, &self.raised) {
            (_, Some(raised)) => format!("raised {raised}, so it was compared as text"),
            (Some(value), None) => format!("computed {value}"),
            (None, None) => "computed nothing".to_string(),
        };
        format!(
            "case {} ({}): `{}` {what}",
            self.case + 1,
            self.side,
            clip(&self.text, 120)
        )
    }
}

/// One change printed code made to the checker's lasting state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tampering {
    /// The case whose printed code made it (0-based), when known.
    pub case: Option<usize>,
    /// `EqulityChecker.compare_stdout_outputs`, `builtins.abs`, ...
    pub what: String,
    /// `replaced`, `added` or `removed`.
    pub change: String,
    /// The repr of what it is now.
    pub now: String,
}

impl Tampering {
    pub fn describe(&self) -> String {
        let at = self
            .case
            .map_or(String::new(), |c| format!("case {}: ", c + 1));
        format!(
            "{at}{} {} (now {})",
            self.what,
            self.change,
            clip(&self.now, 80)
        )
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    format!("{}…", text.chars().take(max).collect::<String>())
}

/// The extracted code and where it came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Extraction {
    /// False when the response had no ```` ```python ```` block (the code is empty).
    pub found: bool,
    /// How many python blocks the response had; the last one is graded.
    pub blocks_found: usize,
    /// Byte range of the code in the response.
    pub span: Option<(usize, usize)>,
    pub code: String,
}

/// Execution facts of the program run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Execution {
    /// Tail of stdout (the whole of it when short).
    pub stdout: String,
    /// Tail of stderr, with the traceback.
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed_ms: f64,
    pub exit_code: Option<i32>,
    /// Why the sandbox stopped the program, when it did (timeout, memory, processes, ...).
    pub contained: Option<String>,
    /// How many times zwc's functions ran (the runtime's count): compared with a traced
    /// run's, it shows a program that uses zwc only when watched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zwc_calls: Option<u64>,
}

/// The step of `compute_score` that decided the reward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewardStep {
    /// The static zwc-usage check failed (no code, a syntax error, no zwc call…): 0.
    StaticCheck,
    /// The NumPy check found an import, or raised: 0.
    NumpyCheck,
    /// The program ran past the timeout (the sandbox answers stderr `TLE`): 0.
    Timeout,
    /// The program wrote to stderr (a warning is enough): 0.
    Stderr,
    /// Fewer results were printed than expected (IndexError, caught): 0.
    FewerResults,
    /// An expected result did not match within 1e-10: 0.
    Mismatch,
    /// Every expected result matched: 1.
    AllMatched,
    /// The program could not be run here (no reward).
    NotRun,
}

/// The RL reward of one rollout, and everything needed to see why.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RewardReport {
    /// 0 or 1; `None` when the program could not be run.
    pub reward: Option<u8>,
    pub step: Option<RewardStep>,
    /// Which step decided the reward, in a sentence.
    pub decided_by: String,
    /// 1-based response lines of the scored (first) python block; `None` without one.
    pub block_lines: Option<(usize, usize)>,
    pub blocks_found: usize,
    /// The entry function name in the scored block.
    pub entry: String,
    /// The reward scored the same code as the verdict (one block, or identical blocks).
    pub same_code_as_verdict: bool,
    /// Some test input uses `np.array`, which the reward leaves as it is (the program then
    /// fails with NameError unless the code itself defines `np`).
    pub inputs_use_np_array: bool,
    /// The verdict's run served the reward too (see [`shares_run`]).
    pub shared_run: bool,
    /// The reward's own run, when it was not shared.
    pub execution: Option<Execution>,
    /// What the official checker computed of printed code, when it was run for the
    /// reward's comparison (`grade::judge_eval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_eval: Option<JudgeEval>,
    /// Per expected result: the input as given, the comparison at 1e-10 (expected first).
    pub cases: Vec<CaseResult>,
    /// The reward hangs on this machine (digits, timing, the sandbox's limits).
    pub fragile: bool,
    pub fragile_reason: Option<String>,
}

impl RewardReport {
    pub(crate) fn decide(&mut self, reward: u8, step: RewardStep, why: String) {
        self.reward = Some(reward);
        self.step = Some(step);
        self.decided_by = why;
    }

    pub(crate) fn mark_fragile(&mut self, reason: impl Into<String>) {
        self.fragile = true;
        if self.fragile_reason.is_none() {
            self.fragile_reason = Some(reason.into());
        }
    }
}

/// Why the reward and the verdict disagree, by kind (for counting) and in a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    /// The reward scored the first python block, the verdict the last, and they differ.
    FirstBlock,
    /// The test inputs use `np.array`, rewritten for the verdict only.
    NpArrayInputs,
    /// The program wrote to stderr (a warning), which only the reward counts.
    Stderr,
    /// The reward's run timed out.
    Timeout,
    /// A result matched within 1e-2 but not within 1e-10.
    Tolerance,
    /// The two comparisons differ otherwise (argument order, no identical-text shortcut).
    Comparison,
    /// Anything else (separate runs that behaved differently).
    Other,
}

impl ReasonKind {
    pub const ALL: [ReasonKind; 7] = [
        ReasonKind::FirstBlock,
        ReasonKind::NpArrayInputs,
        ReasonKind::Stderr,
        ReasonKind::Timeout,
        ReasonKind::Tolerance,
        ReasonKind::Comparison,
        ReasonKind::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReasonKind::FirstBlock => "first_block",
            ReasonKind::NpArrayInputs => "np_array_inputs",
            ReasonKind::Stderr => "stderr",
            ReasonKind::Timeout => "timeout",
            ReasonKind::Tolerance => "tolerance",
            ReasonKind::Comparison => "comparison",
            ReasonKind::Other => "other",
        }
    }

    /// A few words for tables and the explorer.
    pub fn label(self) -> &'static str {
        match self {
            ReasonKind::FirstBlock => "first block scored",
            ReasonKind::NpArrayInputs => "np.array inputs",
            ReasonKind::Stderr => "stderr not empty",
            ReasonKind::Timeout => "timeout",
            ReasonKind::Tolerance => "1e-10 tolerance",
            ReasonKind::Comparison => "comparison order",
            ReasonKind::Other => "other",
        }
    }
}

impl std::fmt::Display for ReasonKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The full result of grading one rollout.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GradeReport {
    pub source: String,
    /// 1-based line in `source`.
    pub line: usize,
    /// `None` for a line that could not be loaded.
    pub id: Option<RolloutId>,
    /// `None` for a line that could not be loaded (see `load_error`).
    pub verdict: Option<Verdict>,
    pub load_error: Option<String>,
    pub extraction: Extraction,
    /// The entry function name (first `def name(` in the code; may be empty).
    pub entry: String,
    pub static_check: Option<StaticCheck>,
    /// The static check's failure in the official wording, when it failed.
    pub static_error: Option<String>,
    pub numpy: Option<NumpyCheck>,
    /// Things the user should know that did not change the verdict.
    pub warnings: Vec<String>,
    /// Which step decided the verdict, in a sentence (names any official quirk that did).
    pub decided_by: String,
    pub execution: Option<Execution>,
    pub cases: Vec<CaseResult>,
    /// The verdict is not a property of the rollout alone: it hangs on digits a different
    /// machine could print differently, on how the official grader is run, or on its
    /// exact call depth near Python's recursion limit. `fragile_reason` says which.
    pub fragile: bool,
    pub fragile_reason: Option<String>,
    /// The official RL reward, 0 or 1 (`--scorer reward` or `both`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward: Option<u8>,
    /// Why the reward and the verdict disagree, in one line (`--scorer both`, where they do).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_reason_kind: Option<ReasonKind>,
    /// The reward's steps: its block, checks, cases at 1e-10 and its own run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_detail: Option<RewardReport>,
    /// What the official checker computed of printed code and changed of its own state,
    /// when it was run for the verdict's comparison (`grade::judge_eval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge_eval: Option<JudgeEval>,
    /// What the behaviour questions found on the traced runs of a rollout a scorer pays,
    /// when grading asked them (`grade::trace::grading`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<BehaviourRun>,
}

impl GradeReport {
    /// Whether a scorer pays this rollout: the verdict is `right` or the reward is 1.
    pub fn paid(&self) -> bool {
        self.verdict == Some(Verdict::Right) || self.reward == Some(1)
    }

    /// Takes the official RL reward (with its reason and detail) of `graded`, a grade of
    /// the same rollout, keeping this report's verdict; and the behaviour questions'
    /// answers where this report has none.
    pub fn take_reward_of(&mut self, graded: GradeReport) {
        self.reward = graded.reward;
        self.reward_reason = graded.reward_reason;
        self.reward_reason_kind = graded.reward_reason_kind;
        self.reward_detail = graded.reward_detail;
        if self.behaviour.is_none() {
            self.behaviour = graded.behaviour;
        }
    }

    /// A stand-in rollout for this report when its rollout file is not available: the
    /// graded code as the response, the cases as test cases, a query that says so.
    /// `report_file` is where the report was read from.
    pub fn stand_in_rollout(&self, report_file: &Path) -> Rollout {
        let response = if self.extraction.found {
            format!("```python\n{}```", self.extraction.code)
        } else {
            String::new()
        };
        let query = format!(
            "(rollout not loaded: {} line {}; open that file too to see the task)",
            self.source, self.line
        );
        Rollout {
            id: self
                .id
                .clone()
                .unwrap_or_else(|| RolloutId::derive(&query, &response, 0)),
            source: Arc::from(report_file),
            line: self.line,
            test_cases: self
                .cases
                .iter()
                .map(|c| TestCase {
                    input: c.input.clone(),
                    output: c.expected.clone(),
                })
                .collect::<Vec<_>>()
                .into(),
            right_exe_result: self
                .cases
                .iter()
                .map(|c| c.expected.as_str())
                .collect::<Vec<_>>()
                .join("#")
                .into(),
            selected_functions: Arc::from([]),
            stored_score: None,
            sample: None,
            query: query.into(),
            response,
        }
    }

    /// The report for a line that could not be loaded.
    pub fn load_failure(source: &str, line: usize, reason: &str) -> GradeReport {
        GradeReport {
            source: source.to_string(),
            line,
            id: None,
            verdict: None,
            load_error: Some(reason.to_string()),
            extraction: Extraction::default(),
            entry: String::new(),
            static_check: None,
            static_error: None,
            numpy: None,
            warnings: Vec::new(),
            decided_by: format!("not graded: {reason}"),
            execution: None,
            cases: Vec::new(),
            fragile: false,
            fragile_reason: None,
            reward: None,
            reward_reason: None,
            reward_reason_kind: None,
            reward_detail: None,
            judge_eval: None,
            behaviour: None,
        }
    }

    /// The program ran out of time.
    pub fn timed_out(&self) -> bool {
        self.execution.as_ref().is_some_and(|e| e.timed_out)
    }

    /// The grader's static check found that the assembled program does not parse.
    pub fn program_syntax_error(&self) -> bool {
        self.static_check
            .as_ref()
            .is_some_and(|s| s.syntax_error.is_some())
    }

    /// Whether the official RL reward disagrees with the verdict (reward 1 exactly when
    /// the verdict is `right`); `None` unless both are known.
    pub fn reward_disagrees(&self) -> Option<bool> {
        Some((self.reward? == 1) != (self.verdict? == Verdict::Right))
    }

    /// Marks the verdict fragile; the first reason given is kept (one line).
    pub fn mark_fragile(&mut self, reason: impl Into<String>) {
        self.fragile = true;
        if self.fragile_reason.is_none() {
            self.fragile_reason = Some(reason.into());
        }
    }

    /// Number of cases that did not match.
    pub fn failed_cases(&self) -> usize {
        self.cases.iter().filter(|c| !c.matched).count()
    }
}

/// Reads `sebx grade` output (one report per line) from `bytes`, read from `path`, handing
/// each report to `each` as it is parsed (a big file is never held as reports all at once).
/// Blank lines are skipped; a line that is not a report is an issue naming file and line.
/// Every reader of score files (the explorer, `sebx stats`, `sebx labels export`) uses this.
pub fn parse_reports(
    path: &Path,
    bytes: &[u8],
    each: &mut dyn FnMut(GradeReport),
) -> Vec<LoadIssue> {
    let mut issues = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<GradeReport>(raw) {
            Ok(r) => each(r),
            Err(e) => issues.push(LoadIssue {
                source: path.to_path_buf(),
                line: i + 1,
                reason: format!("not a grade report: {e}"),
            }),
        }
    }
    issues
}

/// [`parse_reports`] on the file at `path`.
pub fn read_reports(
    path: &Path,
    each: &mut dyn FnMut(GradeReport),
) -> std::io::Result<Vec<LoadIssue>> {
    let bytes = std::fs::read(path)?;
    Ok(parse_reports(path, &bytes, each))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_files_are_read_report_by_report_with_bad_lines_named() {
        let mut a = GradeReport::load_failure("r.jsonl", 1, "x");
        a.id = Some(RolloutId("a".into()));
        a.verdict = Some(Verdict::Right);
        a.load_error = None;
        let text = format!(
            "{}\n\n{{not json\n{{\"id\": \"b\", \"verdict\": \"exe_error\"}}\n",
            serde_json::to_string(&a).expect("json")
        );
        let mut seen = Vec::new();
        let issues = parse_reports(Path::new("s.jsonl"), text.as_bytes(), &mut |r| {
            seen.push((r.id.map(|i| i.0), r.verdict))
        });
        assert_eq!(
            seen,
            [
                (Some("a".to_string()), Some(Verdict::Right)),
                (Some("b".to_string()), Some(Verdict::ExeError))
            ]
        );
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].line, 3);
        assert!(
            issues[0]
                .to_string()
                .starts_with("s.jsonl:3: not a grade report")
        );
    }

    #[test]
    fn reports_from_older_versions_still_load() {
        let old = r#"{"source":"r.jsonl","line":3,"id":"ab","verdict":"without_zwc",
            "static_check":{"syntax_error":{"message":"invalid syntax","line":2,"col":1},"passed":false},
            "cases":[{"index":0,"input":"a=1","expected":"1"}]}"#;
        let r: GradeReport = serde_json::from_str(old).expect("older report loads");
        assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
        let sc = r.static_check.expect("static check");
        assert_eq!(sc.syntax_error.expect("syntax error").line, 2);
        assert!(!r.cases[0].matched);
    }
}
