//! Rollout files: JSONL in the official SE-Bench rollout format, loaded line by line.
//! A bad line is data (a [`LoadIssue`]), never a crash.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::verdict::Verdict;

/// Longest line accepted; longer ones are reported, not loaded.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

/// Stable identity of a rollout: a hash of its query and response, plus an
/// occurrence number for exact duplicates within one file. Survives renaming,
/// moving and re-ordering the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RolloutId(pub String);

impl RolloutId {
    /// Id of the `occurrence`-th (0-based) rollout in a file with this query and response.
    pub fn derive(query: &str, response: &str, occurrence: usize) -> RolloutId {
        let mut hasher = Sha256::new();
        hasher.update(query.as_bytes());
        hasher.update([0u8]);
        hasher.update(response.as_bytes());
        let digest = hasher.finalize();
        RolloutId(hex(&digest[..8])).occurrence(occurrence)
    }

    /// The id of the `occurrence`-th (0-based) rollout with this base id (the id of the
    /// first): the same as [`RolloutId::derive`] with that occurrence, without hashing again.
    pub fn occurrence(&self, occurrence: usize) -> RolloutId {
        if occurrence == 0 {
            self.clone()
        } else {
            RolloutId(format!("{}~{}", self.0, occurrence + 1))
        }
    }
}

/// `bytes` in lower-case hexadecimal (ids here, the score cache's keys: a hot path, so
/// not a `format!` per byte).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

impl fmt::Display for RolloutId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One test case: `input` is Python keyword-argument source, `output` the expected printed value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TestCase {
    pub input: String,
    pub output: String,
}

/// A score stored in the file itself (a `verdict`, `score`, `reward`, `passed` or `correct` field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredScore {
    /// The field it came from.
    pub field: String,
    /// The verdict, when the field names one of the five.
    pub verdict: Option<Verdict>,
    /// Whether it counts as passing (`right`, a true flag or a positive score).
    pub passed: bool,
    /// The raw value as stored.
    pub raw: Value,
}

/// One rollout, as loaded from a line of a file.
#[derive(Debug, Clone)]
pub struct Rollout {
    pub id: RolloutId,
    /// The file it came from (one file is one "run").
    pub source: Arc<Path>,
    /// 1-based line number in `source`.
    pub line: usize,
    /// The task, shared by every rollout of it in a file (see [`Interner`]).
    pub query: Arc<str>,
    pub response: String,
    pub test_cases: Arc<[TestCase]>,
    /// Expected printed results of all cases, joined by `#`.
    pub right_exe_result: Arc<str>,
    /// NumPy names the task is built on, when the rollout carries them.
    pub selected_functions: Arc<[String]>,
    pub stored_score: Option<StoredScore>,
    /// Where a sample of a training run sits in it (step, GRPO group, stored training
    /// reward); `None` for evaluation rollouts.
    pub sample: Option<Box<super::sample::SampleMeta>>,
}

/// A line that could not be loaded, with where and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadIssue {
    pub source: PathBuf,
    /// 1-based line number; 0 when the issue is the whole file's (a file skipped).
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for LoadIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: {}", self.source.display(), self.reason);
        }
        write!(
            f,
            "{}:{}: {}",
            self.source.display(),
            self.line,
            self.reason
        )
    }
}

/// Holds each distinct task text once: the query, test cases, expected results and function
/// names that every rollout of a task repeats. A file of 100,000 rollouts over a few hundred
/// tasks then keeps a few hundred copies instead of 100,000 (a third of the memory).
#[derive(Debug, Default)]
pub struct Interner {
    texts: HashSet<Arc<str>>,
    cases: HashSet<Arc<[TestCase]>>,
    names: HashSet<Arc<[String]>>,
}

impl Interner {
    pub fn text(&mut self, s: &str) -> Arc<str> {
        shared(&mut self.texts, s)
    }

    pub fn cases(&mut self, cases: Vec<TestCase>) -> Arc<[TestCase]> {
        shared(&mut self.cases, cases.as_slice())
    }

    pub fn names(&mut self, names: &[String]) -> Arc<[String]> {
        shared(&mut self.names, names)
    }
}

/// The shared copy of `value` in `set`, made (and remembered) the first time.
fn shared<T: ?Sized + Hash + Eq>(set: &mut HashSet<Arc<T>>, value: &T) -> Arc<T>
where
    for<'a> Arc<T>: From<&'a T>,
{
    if let Some(existing) = set.get(value) {
        return existing.clone();
    }
    let made: Arc<T> = Arc::from(value);
    set.insert(made.clone());
    made
}

/// What one file yielded: the good rollouts and the issues, both in line order.
#[derive(Debug, Clone, Default)]
pub struct LoadedFile {
    pub rollouts: Vec<Rollout>,
    pub issues: Vec<LoadIssue>,
    /// Number of non-blank lines seen.
    pub lines: usize,
}

impl LoadedFile {
    /// The warning for a file with no line at all (`None` when it has lines, good or bad:
    /// bad lines have their own warnings).
    pub fn empty_warning(&self, path: &Path) -> Option<String> {
        (self.lines == 0 && self.issues.is_empty())
            .then(|| format!("{}: empty file (no rollout lines)", path.display()))
    }

    /// Every non-blank line in order: `Ok(rollout)` or `Err(issue)`.
    pub fn entries(&self) -> Vec<Result<&Rollout, &LoadIssue>> {
        let mut out: Vec<(usize, Result<&Rollout, &LoadIssue>)> = self
            .rollouts
            .iter()
            .map(|r| (r.line, Ok(r)))
            .chain(self.issues.iter().map(|i| (i.line, Err(i))))
            .collect();
        out.sort_by_key(|(line, _)| *line);
        out.into_iter().map(|(_, e)| e).collect()
    }
}

/// Reads and parses a rollout file. Fails only when the file itself cannot be read.
pub fn load_rollout_file(path: &Path) -> std::io::Result<LoadedFile> {
    let bytes = std::fs::read(path)?;
    Ok(parse_rollout_bytes(path, &bytes))
}

/// Parses JSONL bytes as rollouts; `path` is only used to label rollouts and issues.
pub fn parse_rollout_bytes(path: &Path, bytes: &[u8]) -> LoadedFile {
    parse_rollout_bytes_with(path, bytes, &mut Interner::default())
}

/// [`parse_rollout_bytes`], sharing task texts through `interner` (pass the same one for
/// every chunk of a file).
pub fn parse_rollout_bytes_with(path: &Path, bytes: &[u8], interner: &mut Interner) -> LoadedFile {
    let source: Arc<Path> = Arc::from(path);
    let mut out = LoadedFile::default();
    let mut occurrences: HashMap<RolloutId, usize> = HashMap::new();
    for (idx, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line_no = idx + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        out.lines += 1;
        match parse_rollout_line(raw) {
            Ok(parsed) => {
                let base = RolloutId::derive(&parsed.query, &parsed.response, 0);
                let n = occurrences.entry(base.clone()).or_insert(0);
                let id = base.occurrence(*n);
                *n += 1;
                out.rollouts.push(Rollout {
                    id,
                    source: source.clone(),
                    line: line_no,
                    query: interner.text(&parsed.query),
                    response: parsed.response,
                    test_cases: interner.cases(parsed.test_cases),
                    right_exe_result: interner.text(&parsed.right_exe_result),
                    selected_functions: interner.names(&parsed.selected_functions),
                    stored_score: parsed.stored_score,
                    sample: None,
                });
            }
            Err(reason) => out.issues.push(LoadIssue {
                source: path.to_path_buf(),
                line: line_no,
                reason,
            }),
        }
    }
    out
}

struct ParsedLine {
    query: String,
    response: String,
    test_cases: Vec<TestCase>,
    right_exe_result: String,
    selected_functions: Vec<String>,
    stored_score: Option<StoredScore>,
}

/// A line's text, or why it cannot be one: too long, or not UTF-8.
pub fn line_text(raw: &[u8]) -> Result<&str, String> {
    if raw.len() > MAX_LINE_BYTES {
        return Err(format!(
            "line is {} bytes long, over the {} MiB limit",
            raw.len(),
            MAX_LINE_BYTES / (1024 * 1024)
        ));
    }
    std::str::from_utf8(raw).map_err(|e| format!("not valid UTF-8 (at byte {})", e.valid_up_to()))
}

fn parse_rollout_line(raw: &[u8]) -> Result<ParsedLine, String> {
    let text = line_text(raw)?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let obj = value
        .as_object()
        .ok_or_else(|| format!("expected a JSON object, found {}", json_kind(&value)))?;
    let query = required_str(obj, "query")?;
    let response = required_str(obj, "response")?;
    let right_exe_result = required_str(obj, "right_exe_result")?;
    let cases = obj
        .get("test_cases")
        .ok_or_else(|| "missing key `test_cases`".to_string())?;
    let cases = cases
        .as_array()
        .ok_or_else(|| format!("`test_cases` should be a list, found {}", json_kind(cases)))?;
    let mut test_cases = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        let input = case
            .get("input")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`test_cases[{i}].input` is missing or not a string"))?;
        let output = match case.get("output") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        test_cases.push(TestCase {
            input: input.to_string(),
            output,
        });
    }
    let selected_functions = match obj.get("selected_functions") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    Ok(ParsedLine {
        query,
        response,
        test_cases,
        right_exe_result,
        selected_functions,
        stored_score: stored_score(obj),
    })
}

fn required_str(obj: &serde_json::Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!(
            "`{key}` should be a string, found {}",
            json_kind(other)
        )),
        None => Err(format!("missing key `{key}`")),
    }
}

/// Short name of a JSON value's type, for error messages.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Reads a score the line carries about itself, if any.
pub fn stored_score(obj: &serde_json::Map<String, Value>) -> Option<StoredScore> {
    for field in ["verdict", "score", "reward", "passed", "correct"] {
        let Some(raw) = obj.get(field) else { continue };
        let (verdict, passed) = match raw {
            Value::String(s) => match Verdict::parse(s) {
                Some(v) => (Some(v), v == Verdict::Right),
                None => (
                    None,
                    matches!(s.as_str(), "true" | "True" | "pass" | "passed"),
                ),
            },
            Value::Bool(b) => (None, *b),
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(0.0);
                // Official numeric verdict codes only under `verdict`; elsewhere a reward.
                if field == "verdict" {
                    let v = match n.as_u64() {
                        Some(0) => Some(Verdict::ResultError),
                        Some(1) => Some(Verdict::Right),
                        Some(2) => Some(Verdict::UseNumpy),
                        Some(3) => Some(Verdict::ExeError),
                        Some(4) => Some(Verdict::WithoutZwc),
                        _ => None,
                    };
                    (v, v == Some(Verdict::Right))
                } else {
                    (None, x > 0.0)
                }
            }
            Value::Null => continue,
            _ => (None, false),
        };
        return Some(StoredScore {
            field: field.to_string(),
            verdict,
            passed,
            raw: raw.clone(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(q: &str, r: &str) -> String {
        serde_json::json!({"query": q, "response": r, "test_cases": [{"input": "a=1", "output": "1"}], "right_exe_result": "1"}).to_string()
    }

    #[test]
    fn rollouts_of_one_task_share_its_texts() {
        let text = [line("q1", "r1"), line("q1", "r2"), line("q2", "r3")].join("\n");
        let f = parse_rollout_bytes(Path::new("t.jsonl"), text.as_bytes());
        let [a, b, c] = f.rollouts.as_slice() else {
            panic!("three rollouts: {:?}", f.issues);
        };
        assert!(Arc::ptr_eq(&a.query, &b.query));
        assert!(!Arc::ptr_eq(&a.query, &c.query));
        assert_eq!(&*c.query, "q2");
        // Same cases and expected results in every line: one copy.
        assert!(Arc::ptr_eq(&a.test_cases, &c.test_cases));
        assert!(Arc::ptr_eq(&a.right_exe_result, &c.right_exe_result));
        assert_eq!(a.test_cases[0].input, "a=1");
        // Responses are each their own.
        assert_eq!((a.response.as_str(), b.response.as_str()), ("r1", "r2"));
    }

    #[test]
    fn bad_lines_are_reported_and_good_ones_kept() {
        let mut text = String::new();
        text.push_str(&line("q1", "r1"));
        text.push('\n');
        text.push_str("{not json\n");
        text.push_str(
            "{\"query\": \"q\", \"response\": 3, \"test_cases\": [], \"right_exe_result\": \"\"}\n",
        );
        text.push_str("{\"query\": \"q\", \"test_cases\": [], \"right_exe_result\": \"\"}\n");
        text.push_str("[1,2]\n");
        let mut bytes = text.into_bytes();
        bytes.extend_from_slice(b"{\"query\": \"\xff\"}\n");
        bytes.extend_from_slice(line("q2", "r2").as_bytes());
        let loaded = parse_rollout_bytes(Path::new("f.jsonl"), &bytes);
        assert_eq!(loaded.rollouts.len(), 2);
        assert_eq!(loaded.rollouts[1].line, 7);
        let reasons: Vec<(usize, &str)> = loaded
            .issues
            .iter()
            .map(|i| (i.line, i.reason.as_str()))
            .collect();
        assert_eq!(reasons.len(), 5);
        assert!(reasons[0].1.starts_with("not valid JSON"), "{reasons:?}");
        assert_eq!(
            reasons[1],
            (3, "`response` should be a string, found a number")
        );
        assert_eq!(reasons[2], (4, "missing key `response`"));
        assert_eq!(reasons[3], (5, "expected a JSON object, found a list"));
        assert!(reasons[4].1.starts_with("not valid UTF-8"));
    }

    #[test]
    fn huge_line_is_an_issue_not_a_crash() {
        let big = format!("{{\"query\": \"{}\"}}", "x".repeat(10 * 1024 * 1024));
        let loaded = parse_rollout_bytes(Path::new("big.jsonl"), big.as_bytes());
        assert!(loaded.rollouts.is_empty());
        assert!(loaded.issues[0].reason.contains("over the 4 MiB limit"));
    }

    #[test]
    fn ids_are_stable_across_order_and_distinguish_duplicates() {
        let a = format!(
            "{}\n{}\n{}\n",
            line("q1", "r1"),
            line("q2", "r2"),
            line("q1", "r1")
        );
        let b = format!("{}\n{}\n", line("q2", "r2"), line("q1", "r1"));
        let la = parse_rollout_bytes(Path::new("a"), a.as_bytes());
        let lb = parse_rollout_bytes(Path::new("b"), b.as_bytes());
        assert_eq!(la.rollouts[0].id, lb.rollouts[1].id);
        assert_eq!(la.rollouts[1].id, lb.rollouts[0].id);
        assert_ne!(la.rollouts[0].id, la.rollouts[2].id);
        assert!(la.rollouts[2].id.0.ends_with("~2"));
    }

    #[test]
    fn stored_scores_are_read() {
        let v: Value = serde_json::json!({"verdict": "exe_error"});
        let s = stored_score(v.as_object().expect("object")).expect("score");
        assert_eq!(s.verdict, Some(Verdict::ExeError));
        assert!(!s.passed);
        let v: Value = serde_json::json!({"reward": 1.0});
        assert!(
            stored_score(v.as_object().expect("object"))
                .expect("score")
                .passed
        );
    }
}
