//! Training runs as verl dumps them, read unchanged: a folder of `{step}.jsonl` files
//! (`trainer.rollout_data_dir`, `trainer.validation_data_dir`) is one run; a folder holding
//! such folders opens each as a run; `folder@N` is the run at step N alone. A sample line
//! has `input` (the decoded prompt), `output` (the response), `gts` (the ground truth),
//! `score` (the training reward), `step` and any reward extra-info keys.
//!
//! A sample is joined to its dataset task through the problem text of its prompt (the text
//! under `### Problem`): exact match first, else the longest dataset query the prompt
//! contains ([`JoinIndex`]). The sample then becomes a [`Rollout`] of that task (its test
//! cases and expected result come from the dataset, which the dump lacks), with its step,
//! GRPO group and stored score in [`SampleMeta`]. A sample with no task is still a rollout
//! (no test cases, so it cannot be graded), marked unjoined, never dropped.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::rollout::{Interner, LoadIssue, Rollout, RolloutId, json_kind, line_text};
pub use super::sample::{JoinedBy, SampleMeta};
use super::{Dataset, DatasetItem};

/// The headings of SE-Bench's RL prompts; the problem text ends where the next one starts.
const SECTION_HEADINGS: [&str; 4] = [
    "### Test Cases",
    "### Function to Complete",
    "### zwc Codebase Functions",
    "### Problem",
];

/// One step file of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepFile {
    pub step: u32,
    pub path: PathBuf,
    pub bytes: u64,
}

/// One training run: a folder of step files, in step order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpRun {
    /// The folder's name (`rollout`), or `parent/name` when found inside a folder given,
    /// with `@N` when only step N is read.
    pub name: String,
    pub dir: PathBuf,
    pub steps: Vec<StepFile>,
}

impl DumpRun {
    /// Bytes of all its step files.
    pub fn bytes(&self) -> u64 {
        self.steps.iter().map(|s| s.bytes).sum()
    }
}

/// The step of a step file's name: `12.jsonl` → 12.
pub fn step_of_file_name(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".jsonl")?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// The step files of `dir` whose first line looks like a verl sample, in step order
/// (empty: not a dump folder).
fn step_files(dir: &Path) -> std::io::Result<Vec<StepFile>> {
    let mut steps = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let Some(step) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(step_of_file_name)
        else {
            continue;
        };
        let meta = entry.metadata()?;
        if !meta.is_file() {
            continue;
        }
        steps.push(StepFile {
            step,
            path,
            bytes: meta.len(),
        });
    }
    steps.sort_by_key(|s| s.step);
    // An empty step file is still a step; otherwise the first line decides.
    let first = steps.iter().find(|s| s.bytes > 0);
    if let Some(f) = first
        && !first_line_is_sample(&f.path)?
    {
        return Ok(Vec::new());
    }
    Ok(steps)
}

fn first_line_is_sample(path: &Path) -> std::io::Result<bool> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(false);
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            break;
        }
    }
    Ok(looks_like_sample(&String::from_utf8_lossy(&line)))
}

/// Whether a JSON line is a verl sample: `input` and `output`, and no `query`/`response`.
pub fn looks_like_sample(line: &str) -> bool {
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line.trim()) else {
        return false;
    };
    obj.contains_key("input")
        && obj.contains_key("output")
        && !obj.contains_key("query")
        && !obj.contains_key("response")
}

/// `folder@12` → (`folder`, 12), when `folder` exists and `12` is a number.
fn split_step_spec(path: &Path) -> Option<(PathBuf, u32)> {
    let text = path.to_str()?;
    let (dir, step) = text.rsplit_once('@')?;
    let step: u32 = step.parse().ok()?;
    let dir = PathBuf::from(dir);
    dir.is_dir().then_some((dir, step))
}

fn folder_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// The runs a path names: a dump folder (one run), a folder of dump folders (each one run,
/// named `parent/child`), `folder@N` or a step file `folder/N.jsonl` (step N of that run). `None`: the path is none of
/// these (a file, or a folder of other files). Errors name the path.
pub fn find_runs(path: &Path) -> anyhow::Result<Option<Vec<DumpRun>>> {
    use anyhow::Context;
    if let Some((dir, step)) = split_step_spec(path)
        && !path.exists()
    {
        let Some(mut runs) = find_runs(&dir)? else {
            anyhow::bail!(
                "{}: not a training-run folder (no {{step}}.jsonl files)",
                dir.display()
            );
        };
        if runs.len() != 1 {
            anyhow::bail!(
                "{}: holds {} runs; name one of them with @{step}",
                dir.display(),
                runs.len()
            );
        }
        let mut run = runs.remove(0);
        run.steps.retain(|s| s.step == step);
        if run.steps.is_empty() {
            anyhow::bail!("{}: has no step {step} ({step}.jsonl)", dir.display());
        }
        run.name = format!("{}@{step}", run.name);
        return Ok(Some(vec![run]));
    }
    // One step file of a dump folder: that step of the run (export and present name a
    // rollout by its file and line).
    if path.is_file()
        && let Some(step) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(step_of_file_name)
        && first_line_is_sample(path).unwrap_or(false)
        && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
    {
        let spec = PathBuf::from(format!("{}@{step}", dir.display()));
        if !spec.exists() {
            return find_runs(&spec);
        }
    }
    if !path.is_dir() {
        return Ok(None);
    }
    let steps =
        step_files(path).with_context(|| format!("cannot read folder {}", path.display()))?;
    if !steps.is_empty() {
        return Ok(Some(vec![DumpRun {
            name: folder_name(path),
            dir: path.to_path_buf(),
            steps,
        }]));
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot read folder {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    children.sort();
    let mut runs = Vec::new();
    for child in children {
        let steps = step_files(&child)
            .with_context(|| format!("cannot read folder {}", child.display()))?;
        if !steps.is_empty() {
            runs.push(DumpRun {
                name: format!("{}/{}", folder_name(path), folder_name(&child)),
                dir: child,
                steps,
            });
        }
    }
    Ok((!runs.is_empty()).then_some(runs))
}

/// The text under the prompt's `### Problem` heading, trimmed, up to the next section
/// heading. Role words of the chat template (`user`, `assistant`) stay outside it.
pub fn problem_text(input: &str) -> Option<&str> {
    let start = heading_at(input, "### Problem")?;
    let after = &input[start..];
    let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
    let body = &after[body_start..];
    let mut end = body.len();
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let t = line.trim_end();
        if SECTION_HEADINGS
            .iter()
            .any(|h| t == *h || t.starts_with(&format!("{h} ")))
        {
            end = offset;
            break;
        }
        offset += line.len();
    }
    let text = body[..end].trim();
    (!text.is_empty()).then_some(text)
}

/// Byte offset of the first line that is `heading` (alone, or followed by a space).
fn heading_at(text: &str, heading: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t == heading || t.starts_with(&format!("{heading} ")) {
            return Some(offset + (line.len() - line.trim_start().len()));
        }
        offset += line.len();
    }
    None
}

/// The dataset's queries, for joining prompts to tasks.
#[derive(Debug, Default)]
pub struct JoinIndex {
    /// Trimmed query → the dataset's own text of it.
    exact: HashMap<String, String>,
    /// Trimmed queries, longest first (for the contained-in-prompt fallback).
    by_length: Vec<String>,
}

impl JoinIndex {
    pub fn new(dataset: &Dataset) -> JoinIndex {
        let mut exact = HashMap::new();
        for q in dataset.items.keys() {
            let t = q.trim();
            if !t.is_empty() {
                exact.entry(t.to_string()).or_insert_with(|| q.clone());
            }
        }
        let mut by_length: Vec<String> = exact.keys().cloned().collect();
        by_length.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        JoinIndex { exact, by_length }
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty()
    }

    /// The dataset query of a prompt, and how it was found.
    pub fn join(&self, input: &str) -> (Option<&str>, JoinedBy) {
        if let Some(p) = problem_text(input)
            && let Some(q) = self.exact.get(p)
        {
            return (Some(q), JoinedBy::Problem);
        }
        for t in &self.by_length {
            if input.contains(t.as_str()) {
                return (self.exact.get(t).map(String::as_str), JoinedBy::Contained);
            }
        }
        (None, JoinedBy::Unjoined)
    }
}

/// A sample line as verl writes it (extra keys are ignored).
#[derive(Deserialize)]
struct RawSample {
    input: Option<Value>,
    output: Option<Value>,
    #[serde(default)]
    gts: Option<Value>,
    #[serde(default)]
    score: Option<Value>,
    #[serde(default)]
    step: Option<Value>,
}

/// One parsed sample line.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub input: String,
    pub output: String,
    pub gts: Option<String>,
    pub score: Option<f64>,
    pub step: Option<u32>,
}

fn text_of(v: Value) -> String {
    match v {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Parses one line of a step file.
pub fn parse_sample(raw: &[u8]) -> Result<Sample, String> {
    let text = line_text(raw)?;
    let raw: RawSample = serde_json::from_str(text).map_err(|e| {
        if e.classify() == serde_json::error::Category::Data {
            match serde_json::from_str::<Value>(text) {
                Ok(v) if !v.is_object() => {
                    format!("expected a JSON object, found {}", json_kind(&v))
                }
                _ => format!("not a verl sample: {e}"),
            }
        } else {
            format!("not valid JSON: {e}")
        }
    })?;
    let input = match raw.input {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(format!(
                "`input` should be a string, found {}",
                json_kind(&other)
            ));
        }
        None => return Err("missing key `input`".to_string()),
    };
    let output = match raw.output {
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(format!(
                "`output` should be a string, found {}",
                json_kind(&other)
            ));
        }
        None => return Err("missing key `output`".to_string()),
    };
    let score = match raw.score {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::Bool(b)) => Some(f64::from(u8::from(b))),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    let step = match raw.step {
        Some(Value::Number(n)) => n.as_u64().and_then(|s| u32::try_from(s).ok()),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    Ok(Sample {
        input,
        output,
        gts: raw.gts.map(text_of),
        score,
        step,
    })
}

/// A prompt's run-wide number, the dataset query it joined and how.
type PromptJoin = (u32, Option<Arc<str>>, JoinedBy);

/// Turns samples into rollouts of a run, numbering prompts and duplicate ids across every
/// step file of the run (feed the files in step order through one `RunReader`).
pub struct RunReader<'a> {
    index: &'a JoinIndex,
    dataset: &'a Dataset,
    /// Prompt text → (run-wide number, joined query and how).
    prompts: HashMap<Arc<str>, PromptJoin>,
    occurrences: HashMap<RolloutId, usize>,
    pub interner: Interner,
}

/// What one step file yielded.
#[derive(Debug, Default)]
pub struct StepLoad {
    pub rollouts: Vec<Rollout>,
    pub issues: Vec<LoadIssue>,
    pub lines: usize,
}

impl<'a> RunReader<'a> {
    pub fn new(index: &'a JoinIndex, dataset: &'a Dataset) -> RunReader<'a> {
        RunReader {
            index,
            dataset,
            prompts: HashMap::new(),
            occurrences: HashMap::new(),
            interner: Interner::default(),
        }
    }

    /// The dataset item a joined rollout's query names.
    pub fn item(&self, query: &str) -> Option<&'a DatasetItem> {
        self.dataset.get(query)
    }

    /// Reads the bytes of one step file (its step from the file name unless lines say).
    pub fn read_step(&mut self, path: &Path, file_step: u32, bytes: &[u8]) -> StepLoad {
        self.read_lines(path, file_step, bytes, 0)
    }

    /// [`read_step`](Self::read_step) for a chunk of whole lines that starts after
    /// `line_offset` lines of the file.
    pub fn read_lines(
        &mut self,
        path: &Path,
        file_step: u32,
        bytes: &[u8],
        line_offset: usize,
    ) -> StepLoad {
        let source: Arc<Path> = Arc::from(path);
        let mut out = StepLoad::default();
        for (idx, raw) in bytes.split(|b| *b == b'\n').enumerate() {
            let line = line_offset + idx + 1;
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            out.lines += 1;
            match parse_sample(raw) {
                Ok(sample) => out
                    .rollouts
                    .push(self.rollout(&source, line, file_step, sample)),
                Err(reason) => out.issues.push(LoadIssue {
                    source: path.to_path_buf(),
                    line,
                    reason,
                }),
            }
        }
        out
    }

    /// The rollout of one sample.
    pub fn rollout(
        &mut self,
        source: &Arc<Path>,
        line: usize,
        file_step: u32,
        s: Sample,
    ) -> Rollout {
        let (prompt, query, joined) = match self.prompts.get(s.input.as_str()) {
            Some((n, q, j)) => (*n, q.clone(), *j),
            None => {
                let (q, j) = self.index.join(&s.input);
                let q: Option<Arc<str>> = q.map(|q| self.interner.text(q));
                let n = self.prompts.len() as u32;
                self.prompts
                    .insert(Arc::from(s.input.as_str()), (n, q.clone(), j));
                (n, q, j)
            }
        };
        let item = query.as_deref().and_then(|q| self.dataset.get(q));
        let (query, test_cases, right, selected) = match (query, item) {
            (Some(q), Some(item)) => (
                q,
                self.interner.cases(item.test_cases.clone()),
                self.interner.text(&item.right_exe_result),
                self.interner.names(&item.selected_functions),
            ),
            _ => {
                // No task: the problem text (else the prompt) stands for the query.
                let text = problem_text(&s.input).unwrap_or(&s.input).to_string();
                (
                    self.interner.text(&text),
                    self.interner.cases(Vec::new()),
                    self.interner.text(s.gts.as_deref().unwrap_or("")),
                    self.interner.names(&[]),
                )
            }
        };
        let gts_differs = match (&s.gts, item) {
            (Some(g), Some(item)) if g.trim() != item.right_exe_result.trim() => {
                Some(Arc::from(g.as_str()))
            }
            _ => None,
        };
        let base = RolloutId::derive(&query, &s.output, 0);
        let n = self.occurrences.entry(base).or_insert(0);
        let id = RolloutId::derive(&query, &s.output, *n);
        *n += 1;
        Rollout {
            id,
            source: source.clone(),
            line,
            query,
            response: s.output,
            test_cases,
            right_exe_result: right,
            selected_functions: selected,
            // The training reward is not a verdict: it stays in the sample's meta.
            stored_score: None,
            sample: Some(Box::new(SampleMeta {
                step: s.step.unwrap_or(file_step),
                prompt,
                score: s.score,
                joined,
                gts_differs,
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TestCase;

    fn item(query: &str, right: &str) -> DatasetItem {
        DatasetItem {
            query: query.to_string(),
            function_name: "def solve(x):".to_string(),
            selected_functions: vec!["mean".to_string()],
            reference: Vec::new(),
            test_cases: vec![TestCase {
                input: "x=[1, 2]".to_string(),
                output: right.to_string(),
            }],
            right_exe_result: right.to_string(),
            source: PathBuf::from("d.jsonl"),
            line: 1,
        }
    }

    fn dataset(items: &[DatasetItem]) -> Dataset {
        let mut d = Dataset::default();
        for i in items {
            d.items.insert(i.query.clone(), i.clone());
        }
        d
    }

    fn prompt(problem: &str) -> String {
        format!(
            "user\nSolve it with zwc.\n\n### Problem\n{problem}\n\n### Test Cases\nx=[1, 2] -> 1.5\n\n### Function to Complete\ndef solve(x):\nassistant\n"
        )
    }

    #[test]
    fn problem_text_stops_at_the_next_section() {
        let p = prompt("Average the readings.\nKeep two lines.");
        assert_eq!(
            problem_text(&p),
            Some("Average the readings.\nKeep two lines.")
        );
        let docs = "user\n### zwc Codebase Functions\nzwc.kocito: mean\n### Problem\nAdd them.\n### Function to Complete\ndef solve(x):\nassistant\n";
        assert_eq!(problem_text(docs), Some("Add them."));
        assert_eq!(problem_text("no headings here"), None);
    }

    #[test]
    fn joins_exactly_then_by_containment_then_not() {
        let ds = dataset(&[
            item("Average the readings.", "1.5"),
            item("Average the readings, then double.", "3.0"),
        ]);
        let index = JoinIndex::new(&ds);
        let (q, how) = index.join(&prompt("Average the readings."));
        assert_eq!((q, how), (Some("Average the readings."), JoinedBy::Problem));
        // No heading: the longest query the prompt holds wins over a shorter one inside it.
        let (q, how) = index.join("user\nAverage the readings, then double. Please.\nassistant\n");
        assert_eq!(
            (q, how),
            (
                Some("Average the readings, then double."),
                JoinedBy::Contained
            )
        );
        assert_eq!(
            index.join(&prompt("Something else.")),
            (None, JoinedBy::Unjoined)
        );
    }

    #[test]
    fn samples_become_rollouts_with_their_step_group_and_score() {
        let ds = dataset(&[item("Average the readings.", "1.5")]);
        let index = JoinIndex::new(&ds);
        let mut reader = RunReader::new(&index, &ds);
        let line = |out: &str, score: f64, gts: &str| {
            serde_json::json!({"input": prompt("Average the readings."), "output": out,
                "gts": gts, "score": score, "step": 3, "acc": true})
            .to_string()
        };
        let text = [
            line("<think>hm</think>```python\nx\n```", 1.0, "1.5"),
            "{broken".to_string(),
            line("<think>hm</think>```python\nx\n```", 0.0, "2.5"),
            serde_json::json!({"input": prompt("Unknown task."), "output": "o", "score": 0})
                .to_string(),
        ]
        .join("\n");
        let got = reader.read_step(Path::new("run/3.jsonl"), 3, text.as_bytes());
        assert_eq!(got.lines, 4);
        assert_eq!(got.issues.len(), 1);
        assert_eq!(got.issues[0].line, 2);
        let [a, b, c] = got.rollouts.as_slice() else {
            panic!("three rollouts");
        };
        let (ma, mb, mc) = (
            a.sample.as_deref().expect("meta"),
            b.sample.as_deref().expect("meta"),
            c.sample.as_deref().expect("meta"),
        );
        assert_eq!((ma.step, ma.prompt, ma.score), (3, 0, Some(1.0)));
        assert_eq!(&*a.query, "Average the readings.");
        assert_eq!(a.test_cases.len(), 1);
        assert_eq!(&*a.right_exe_result, "1.5");
        assert!(
            a.stored_score.is_none(),
            "the training reward is no verdict"
        );
        // Same prompt, same group; the same response again is a second occurrence.
        assert_eq!(mb.prompt, 0);
        assert_ne!(a.id, b.id);
        assert_eq!(mb.gts_differs.as_deref(), Some("2.5"));
        assert_eq!(ma.gts_differs, None);
        assert_eq!((mc.prompt, mc.joined), (1, JoinedBy::Unjoined));
        assert_eq!(&*c.query, "Unknown task.");
        assert!(c.test_cases.is_empty());
        assert_eq!((c.line, ma.joined), (4, JoinedBy::Problem));
    }

    #[test]
    fn finds_runs_in_folders_and_steps_by_spec() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sample = serde_json::json!({"input": "i", "output": "o", "score": 1.0}).to_string();
        for (run, steps) in [("rollout", [1, 2, 10]), ("validation", [0, 5, 10])] {
            let d = dir.path().join(run);
            std::fs::create_dir(&d).expect("mkdir");
            for s in steps {
                std::fs::write(d.join(format!("{s}.jsonl")), format!("{sample}\n")).expect("write");
            }
            std::fs::write(d.join("notes.txt"), "x").expect("write");
        }
        let other = dir.path().join("evals");
        std::fs::create_dir(&other).expect("mkdir");
        std::fs::write(
            other.join("1.jsonl"),
            "{\"query\": \"q\", \"response\": \"r\"}\n",
        )
        .expect("write");

        let one = find_runs(&dir.path().join("rollout"))
            .expect("read")
            .expect("a run");
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].name, "rollout");
        let steps: Vec<u32> = one[0].steps.iter().map(|s| s.step).collect();
        assert_eq!(steps, [1, 2, 10], "numeric order, not text order");

        let both = find_runs(dir.path()).expect("read").expect("runs");
        let names: Vec<&str> = both.iter().map(|r| r.name.as_str()).collect();
        let parent = folder_name(dir.path());
        assert_eq!(
            names,
            [format!("{parent}/rollout"), format!("{parent}/validation")]
        );

        let at = dir.path().join("validation@5");
        let only = find_runs(&at).expect("read").expect("a run");
        assert_eq!(only[0].name, "validation@5");
        assert_eq!(only[0].steps.len(), 1);
        let missing = find_runs(&dir.path().join("validation@7")).expect_err("no step 7");
        assert!(missing.to_string().contains("has no step 7"), "{missing}");

        assert_eq!(
            find_runs(&other).expect("read"),
            None,
            "rollout files are not a dump"
        );
        assert_eq!(find_runs(&other.join("1.jsonl")).expect("read"), None);
        let file = find_runs(&dir.path().join("rollout/10.jsonl"))
            .expect("read")
            .expect("a step file is its step of the run");
        assert_eq!(file[0].name, "rollout@10");
        assert_eq!(file[0].steps.len(), 1);
    }

    #[test]
    fn bad_sample_lines_say_what_is_wrong() {
        assert_eq!(
            parse_sample(b"[1]").expect_err("list"),
            "expected a JSON object, found a list"
        );
        assert_eq!(
            parse_sample(b"{\"output\": \"o\"}").expect_err("no input"),
            "missing key `input`"
        );
        assert_eq!(
            parse_sample(b"{\"input\": \"i\", \"output\": 3}").expect_err("number"),
            "`output` should be a string, found a number"
        );
        assert!(
            parse_sample(b"{nope")
                .expect_err("json")
                .starts_with("not valid JSON")
        );
        let s = parse_sample(br#"{"input": "i", "output": "o", "score": "0.5", "step": "7"}"#)
            .expect("strings are read too");
        assert_eq!((s.score, s.step), (Some(0.5), Some(7)));
    }
}
