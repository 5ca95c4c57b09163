//! Training runs as verl dumps them (and SkyRL, NeMo-RL, AReaL, ROLL, prime-rl and TRL, whose
//! parquet tables [`trl`] reads: [`formats`], one declaration each, every one read into the
//! same samples), read unchanged: a folder of `{step}.jsonl` files
//! (`trainer.rollout_data_dir`, `trainer.validation_data_dir`) is one run; a folder holding
//! such folders opens each as a run; `folder@N` is the run at step N alone ([`folder`]). A
//! sample line has `input` (the decoded prompt), `output` (the response), `gts` (the ground
//! truth), `score` (the training reward), `step`, a `uid` in 0.9 and any reward extra-info
//! keys ([`line`]: what each verl version writes).
//!
//! A sample is joined to its dataset task through the problem text of its prompt (the text
//! under `### Problem`): exact match first, else the longest dataset query the prompt
//! contains ([`JoinIndex`]). The sample then becomes a [`Rollout`] of that task (its test
//! cases and expected result come from the dataset, which the dump lacks), with its step,
//! GRPO group (by `uid` where the line has one, else by prompt text) and stored score in
//! [`SampleMeta`]. A sample with no task is still a rollout
//! (no test cases, so it cannot be graded), marked unjoined, never dropped.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::rollout::{Interner, LoadIssue, Rollout, RolloutId};
pub use super::sample::{JoinedBy, SampleMeta, SharedExtras};
use super::{Dataset, DatasetItem};

mod folder;
mod follow;
pub mod formats;
mod line;
pub mod trl;

pub use super::tail::{LookNotes, UNFINISHED_LINE};
pub use folder::{DumpRun, StepFile, find_runs, looks_like_sample, step_of_file_name};
pub use follow::{NewLines, RunTail};
pub use formats::{DumpFormat, FORMATS, Format};
pub use line::{Sample, group_of_uid, parse_sample};

/// The headings of SE-Bench's RL prompts; the problem text ends where the next one starts.
const SECTION_HEADINGS: [&str; 4] = [
    "### Test Cases",
    "### Function to Complete",
    "### zwc Codebase Functions",
    "### Problem",
];

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

/// What a prompt's samples are graded against, shared by them: the dataset item's query,
/// cases, expected result and functions, or (no item) the problem text standing for the
/// query, with the sample's own `gts` as the expected result.
#[derive(Clone)]
struct Task<'a> {
    query: Arc<str>,
    item: Option<&'a DatasetItem>,
    test_cases: Arc<[super::rollout::TestCase]>,
    selected: Arc<[String]>,
    /// `None`: the sample's `gts` (no item).
    right: Option<Arc<str>>,
}

/// What makes samples one GRPO group (with the step): the prompt part of their `uid` when
/// the dump has one, else (dumps before 0.9, which reorder the batch and write no uid)
/// their prompt text, which merges two samplings of one prompt in a batch into one group.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum GroupKey {
    Uid(Arc<str>),
    /// The prompt text, by the address of its one copy in [`RunReader`]'s prompts (hashing
    /// a prompt, the zwc docs included, for every sample was a tenth of reading a dump).
    Prompt(usize),
}

/// Turns samples into rollouts of a run, numbering groups and duplicate ids across every
/// step file of the run (feed the files in step order through one `RunReader`).
pub struct RunReader<'a> {
    index: &'a JoinIndex,
    dataset: &'a Dataset,
    /// Prompt text → how it joined and its task (made once per distinct prompt).
    prompts: HashMap<Arc<str>, (JoinedBy, Task<'a>)>,
    /// The last sample's prompt with the same (a GRPO group's samples come together):
    /// found without hashing its text. Boxed: the reader sits in the loader's followed runs.
    last_prompt: Option<Box<Known<'a>>>,
    /// Group key → run-wide number.
    groups: foldhash::HashMap<GroupKey, u32>,
    occurrences: foldhash::HashMap<RolloutId, usize>,
    /// The ids (occurrence 0) counted from each file, when the run is followed: a file
    /// rewritten by a resumed run is counted again from its start ([`forget`](Self::forget)).
    counted: Option<HashMap<Arc<Path>, Vec<RolloutId>>>,
    pub interner: Interner,
    /// The extra keys and their few values, held once for the run.
    extras: SharedExtras,
}

/// What one step file yielded.
#[derive(Debug, Default)]
pub struct StepLoad {
    pub rollouts: Vec<Rollout>,
    pub issues: Vec<LoadIssue>,
    pub lines: usize,
}

/// The reason given for a last line cut short: verl writes a step file in one go, so a file
/// that ends inside a line is a run stopped while writing it.
pub const TORN_LINE: &str = "torn last line: the file ends inside it (the run was stopped while writing this step); the lines before it are read";

/// Parses lines on up to four threads (parsing the JSON is most of reading a dump: a
/// 200,000-sample run, 1.1 GB, loads ~2× faster on two cores); the answers in line order.
/// Each answer comes with its line's index; a columnar line (ROLL's) gives several.
fn parse_samples(lines: &[(usize, &[u8])]) -> Vec<(usize, Result<Sample, String>)> {
    let bytes: usize = lines.iter().map(|(_, raw)| raw.len()).sum();
    let raws: Vec<&[u8]> = lines.iter().map(|(_, raw)| *raw).collect();
    let parsed = crate::model::parallel::map_in_order_with(
        raws,
        bytes >= PARALLEL_PARSE_BYTES,
        line::PromptMemo::default,
        formats::parse_line,
    );
    let mut out = Vec::with_capacity(parsed.len());
    for ((idx, _), p) in lines.iter().zip(parsed) {
        match p {
            formats::Parsed::One(r) => out.push((*idx, r)),
            formats::Parsed::Many(samples) => {
                out.extend(samples.into_iter().map(|s| (*idx, Ok(s))))
            }
        }
    }
    out
}

/// Below this many bytes a chunk is parsed on the calling thread.
const PARALLEL_PARSE_BYTES: usize = 256 * 1024;

/// A sample's prompt (shared by its group), how it joined its task, and the task.
type Known<'a> = (Arc<str>, JoinedBy, Task<'a>);

impl<'a> RunReader<'a> {
    pub fn new(index: &'a JoinIndex, dataset: &'a Dataset) -> RunReader<'a> {
        RunReader {
            index,
            dataset,
            prompts: HashMap::new(),
            last_prompt: None,
            groups: foldhash::HashMap::default(),
            occurrences: foldhash::HashMap::default(),
            counted: None,
            interner: Interner::default(),
            extras: SharedExtras::default(),
        }
    }

    /// A reader of a run that is followed: it remembers which ids each file counted, so
    /// that a rewritten file can be read again ([`forget`](Self::forget)).
    pub fn following(index: &'a JoinIndex, dataset: &'a Dataset) -> RunReader<'a> {
        RunReader {
            counted: Some(HashMap::new()),
            ..RunReader::new(index, dataset)
        }
    }

    /// Uncounts the samples read from `path` (rewritten: its lines are read again), so an
    /// identical sample read again gets the id it had (a label on it stays on it).
    pub fn forget(&mut self, path: &Path) {
        let Some(bases) = self.counted.as_mut().and_then(|c| c.remove(path)) else {
            return;
        };
        for base in bases {
            if let Some(n) = self.occurrences.get_mut(&base) {
                *n = n.saturating_sub(1);
            }
        }
    }

    /// The dataset item a joined rollout's query names.
    pub fn item(&self, query: &str) -> Option<&'a DatasetItem> {
        self.dataset.get(query)
    }

    /// Reads the bytes of one step file (its step from the file name unless lines say): JSON
    /// lines, or a table (TRL's parquet: [`trl`]) read whole, each row a sample whose line is
    /// its row number. A table without its footer yet is one issue for the file (line 0).
    pub fn read_step(&mut self, path: &Path, file_step: u32, bytes: &[u8]) -> StepLoad {
        if !trl::is_table(path, bytes) {
            return self.read_lines(path, file_step, bytes, 0);
        }
        match trl::read_table(bytes, &trl::RewardConfig::of_step_file(path)) {
            Ok(rows) => {
                let lines = rows.len();
                let parsed = rows.into_iter().enumerate().collect();
                let mut out = self.read_samples(path, file_step, parsed, 0, None, bytes.len());
                out.lines = lines;
                out
            }
            Err(e) => StepLoad {
                issues: vec![LoadIssue {
                    source: path.to_path_buf(),
                    line: 0,
                    reason: e.to_string(),
                }],
                ..StepLoad::default()
            },
        }
    }

    /// [`read_step`](Self::read_step) for a chunk of whole lines that starts after
    /// `line_offset` lines of the file. A chunk that does not end in a newline ends the
    /// file: a last line there that is no sample is reported as torn.
    pub fn read_lines(
        &mut self,
        path: &Path,
        file_step: u32,
        bytes: &[u8],
        line_offset: usize,
    ) -> StepLoad {
        let unterminated = !bytes.is_empty() && !bytes.ends_with(b"\n");
        let mut lines: Vec<(usize, &[u8])> = Vec::new();
        let mut start = 0;
        let mut idx = 0;
        for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
            let raw = &bytes[start..end];
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if !raw.iter().all(u8::is_ascii_whitespace) {
                lines.push((idx, raw));
            }
            start = end + 1;
            idx += 1;
        }
        let segments = idx;
        let parsed = parse_samples(&lines);
        // A chunk that does not end in a newline ends the file: its last line, if it is no
        // sample, was cut short.
        let torn = unterminated.then(|| segments - 1);
        let mut out = self.read_samples(path, file_step, parsed, line_offset, torn, bytes.len());
        out.lines = lines.len();
        out
    }

    /// The rollouts of parsed samples (each with its line's index, after `line_offset`
    /// lines) and an issue per line that is none; `torn`: the index of a last line cut short.
    fn read_samples(
        &mut self,
        path: &Path,
        file_step: u32,
        parsed: Vec<(usize, Result<Sample, String>)>,
        line_offset: usize,
        torn: Option<usize>,
        bytes: usize,
    ) -> StepLoad {
        let source: Arc<Path> = Arc::from(path);
        let mut out = StepLoad::default();
        // Each sample's task (in order: the prompts' memo), then the ids hashed on the
        // parse threads: SHA-256 of query and response was a third of this thread's time
        // while the other core waited (a 200,000-sample reopen, benches/README.md).
        let known: Vec<Option<Known<'a>>> = parsed
            .iter()
            .map(|(_, p)| p.as_ref().ok().map(|s| self.known(s)))
            .collect();
        let hashed: Vec<(&str, &str)> = parsed
            .iter()
            .map(|(_, p)| p)
            .zip(&known)
            .filter_map(|(p, k)| Some((&*k.as_ref()?.2.query, p.as_ref().ok()?.output.as_str())))
            .collect();
        let mut ids = crate::model::parallel::map_in_order(
            hashed,
            bytes >= PARALLEL_PARSE_BYTES,
            |(query, output)| RolloutId::derive(query, output, 0),
        )
        .into_iter();
        let mut known = known.into_iter();
        for (idx, parsed) in parsed {
            let line = line_offset + idx + 1;
            let known = known.next().flatten();
            match parsed {
                Ok(sample) => {
                    let (Some(known), Some(base)) = (known, ids.next()) else {
                        continue;
                    };
                    let rollout = self.rollout(&source, line, file_step, sample, known, base);
                    out.rollouts.push(rollout);
                }
                Err(reason) => {
                    out.issues.push(LoadIssue {
                        source: path.to_path_buf(),
                        line,
                        reason: if torn == Some(idx) {
                            TORN_LINE.to_string()
                        } else {
                            reason
                        },
                    });
                }
            }
        }
        out
    }

    /// The run-wide number of a sample's group, and the uid part that names it.
    fn group(&mut self, s: &Sample, prompt: &Arc<str>) -> (u32, Option<Arc<str>>) {
        let uid = s
            .uid
            .as_deref()
            .map(|u| self.interner.text(line::group_of_uid(u)));
        let key = match &uid {
            Some(u) => GroupKey::Uid(u.clone()),
            None => GroupKey::Prompt(Arc::as_ptr(prompt) as *const u8 as usize),
        };
        let next = self.groups.len() as u32;
        (*self.groups.entry(key).or_insert(next), uid)
    }

    /// What the samples of `prompt` (joined to `query`) are graded against.
    fn task(&mut self, prompt: &str, query: Option<Arc<str>>) -> Task<'a> {
        let item = query.as_deref().and_then(|q| self.dataset.get(q));
        match (query, item) {
            (Some(query), Some(item)) => Task {
                query,
                item: Some(item),
                test_cases: self.interner.cases(item.test_cases.clone()),
                selected: self.interner.names(&item.selected_functions),
                right: Some(self.interner.text(&item.right_exe_result)),
            },
            _ => Task {
                // No task: the problem text (else the prompt) stands for the query.
                query: self.interner.text(problem_text(prompt).unwrap_or(prompt)),
                item: None,
                test_cases: self.interner.cases(Vec::new()),
                selected: self.interner.names(&[]),
                right: None,
            },
        }
    }

    /// The prompt of sample `s` (shared), how it joined its task, and the task.
    fn known(&mut self, s: &Sample) -> Known<'a> {
        let last = self
            .last_prompt
            .as_deref()
            .filter(|(p, _, _)| Arc::ptr_eq(p, &s.input) || **p == *s.input)
            .cloned();
        match last {
            Some(known) => known,
            None => {
                let known = match self.prompts.get_key_value(&*s.input) {
                    Some((p, (j, t))) => (p.clone(), *j, t.clone()),
                    None => {
                        let (q, j) = self.index.join(&s.input);
                        let q: Option<Arc<str>> = q.map(|q| self.interner.text(q));
                        let task = self.task(&s.input, q);
                        self.prompts.insert(s.input.clone(), (j, task.clone()));
                        (s.input.clone(), j, task)
                    }
                };
                self.last_prompt = Some(Box::new(known.clone()));
                known
            }
        }
    }

    /// The rollout of sample `s`, whose prompt and task are `known` and whose id, before
    /// counting duplicates, is `base` (`RolloutId::derive` of the task's query and `s`'s
    /// output).
    fn rollout(
        &mut self,
        source: &Arc<Path>,
        line: usize,
        file_step: u32,
        s: Sample,
        (prompt, joined, task): Known<'a>,
        base: RolloutId,
    ) -> Rollout {
        let (group, group_uid) = self.group(&s, &prompt);
        let item = task.item;
        let right = match task.right {
            Some(right) => right,
            None => self.interner.text(s.gts.as_deref().unwrap_or("")),
        };
        let (query, test_cases, selected) = (task.query, task.test_cases, task.selected);
        let gts_differs = match (&s.gts, item) {
            (Some(g), Some(item)) if g.trim() != item.right_exe_result.trim() => {
                Some(Arc::from(g.as_str()))
            }
            _ => None,
        };
        if let Some(counted) = &mut self.counted {
            counted
                .entry(source.clone())
                .or_default()
                .push(base.clone());
        }
        let id = base.occurrence(self.occurrences.get(&base).copied().unwrap_or(0));
        *self.occurrences.entry(base).or_insert(0) += 1;
        let empty_output = s.output.trim().is_empty();
        let extras = self.extras.share(s.extras);
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
                group,
                group_uid,
                score: s.score,
                joined,
                gts_differs,
                empty_output,
                extras,
            })),
        }
    }
}

#[cfg(test)]
mod tests;
