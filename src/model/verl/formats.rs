//! The training dumps sebx reads, one declaration each ([`FORMATS`]): where a run's step
//! files are, which keys hold the prompt, the response, the score, the step and the group,
//! and the reader that turns one of its lines into a [`Sample`]. Every format becomes the
//! same samples, so joining, groups, the Training screen, `stats --by step`, the explorer
//! and live follow do not know which framework wrote a run. A line is read by its keys
//! (verl's first, the common case); the folder layout says where the steps are.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::line::{self, PromptMemo, Sample};
use crate::model::python_json;
use crate::model::rollout::line_text;

/// A framework's dump format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// verl 0.4–0.9: `{step}.jsonl`.
    #[default]
    Verl,
    /// SkyRL: `dumped_evals/global_step_N_evals/{data_source}.jsonl`.
    SkyRl,
    /// NeMo-RL: `train_data_step{N}.jsonl`.
    NemoRl,
    /// AReaL: `{version}/{task_id}.jsonl`.
    Areal,
    /// ROLL: `rollout_dump_data.step_{N}.jsonl`, one columnar line.
    Roll,
    /// prime-rl: `step_N/train/all/traces.jsonl` (under `rollouts/`), one episode a line.
    PrimeRl,
    /// TRL: `completions_{step:05d}.parquet` (under `completions/`), a table per logging step.
    Trl,
}

/// A run folder's step files (step, path) and its other `.jsonl` files.
pub type Listing = (Vec<(u32, PathBuf)>, Vec<PathBuf>);

/// What sebx knows of one format: its writer, layout and keys (for the README's table and
/// the notes), and its readers.
pub struct DumpFormat {
    pub format: Format,
    pub framework: &'static str,
    /// The versions whose writer code the reader follows.
    pub versions: &'static str,
    /// The file of the framework that writes the dump.
    pub writer: &'static str,
    /// Where a run's step files are, below the run folder.
    pub layout: &'static str,
    pub prompt: &'static str,
    pub response: &'static str,
    pub score: &'static str,
    /// How the step is read.
    pub step: &'static str,
    /// How a GRPO group is read.
    pub group: &'static str,
    /// The step of a file, from its path below the run folder (`None`: not a step file).
    step_of: fn(&Path) -> Option<u32>,
    /// Whether a line (a JSON object) is one of this format's samples.
    is_line: fn(&Map<String, Value>) -> bool,
    /// The sample of one of its lines.
    read: fn(Map<String, Value>) -> Result<Vec<Sample>, String>,
    /// How deep below the run folder its step files are (1: in it).
    depth: usize,
    /// Its step files are tables (parquet, [`super::trl`]), read whole, not JSON lines.
    table: bool,
}

/// Every format sebx reads, verl first (a folder that could be two formats is verl's).
pub static FORMATS: [DumpFormat; 7] = [
    DumpFormat {
        format: Format::Verl,
        framework: "verl",
        versions: "0.4–0.9 (0.9's V1 trainer included)",
        writer: "verl/trainer/ppo/ray_trainer.py (_dump_generations); verl/trainer/ppo/v1/trainer_base.py",
        layout: "{step}.jsonl (trainer.rollout_data_dir, trainer.validation_data_dir)",
        prompt: "input",
        response: "output",
        score: "score",
        step: "step, else the file name",
        group: "the prompt part of uid ({uid}_{session}_{index}), else the prompt text",
        step_of: verl_step,
        is_line: verl_line,
        read: verl_read,
        depth: 1,
        table: false,
    },
    DumpFormat {
        format: Format::SkyRl,
        framework: "SkyRL",
        versions: "skyrl-train source, 2025–26",
        writer: "skyrl_train/utils/trainer_utils.py (dump_per_dataset_eval_results)",
        layout: "global_step_{N}_evals/{data_source}.jsonl (under dumped_evals/)",
        prompt: "input_prompt",
        response: "output_response",
        score: "score",
        step: "the folder name",
        group: "the prompt text",
        step_of: skyrl_step,
        is_line: skyrl_line,
        read: skyrl_read,
        depth: 2,
        table: false,
    },
    DumpFormat {
        format: Format::NemoRl,
        framework: "NeMo-RL",
        versions: "source, 2025–26",
        writer: "nemo_rl/algorithms/grpo.py (logger.log_batched_dict_as_jsonl); nemo_rl/utils/logger.py",
        layout: "train_data_step{N}.jsonl (the run's log folder)",
        prompt: "content: every message but the last, joined",
        response: "content: the last message",
        score: "rewards",
        step: "the file name",
        group: "the prompt text",
        step_of: nemo_step,
        is_line: nemo_line,
        read: nemo_read,
        depth: 1,
        table: false,
    },
    DumpFormat {
        format: Format::Areal,
        framework: "AReaL",
        versions: "main, May 2026 (areal.infra.workflow_executor)",
        writer: "areal/infra/workflow_executor.py (_dump_trajectory)",
        layout: "{version}/{task_id}.jsonl (under <log path>/rollout/, appended)",
        prompt: "prompt",
        response: "completion",
        score: "reward",
        step: "the version folder (the trajectory's tail_version)",
        group: "task_id",
        step_of: areal_step,
        is_line: areal_line,
        read: areal_read,
        depth: 2,
        table: false,
    },
    DumpFormat {
        format: Format::Roll,
        framework: "ROLL",
        versions: "rlvr pipeline source, 2025–26",
        writer: "roll/pipeline/rlvr/utils.py (write_to_json_process)",
        layout: "rollout_dump_data.step_{N}.jsonl (rollout_dump_dir): one line, a list per column",
        prompt: "prompt, else messages",
        response: "responses",
        score: "scores",
        step: "global_step, else the file name",
        group: "the prompt text",
        step_of: roll_step,
        is_line: roll_line,
        read: roll_read,
        depth: 1,
        table: false,
    },
    DumpFormat {
        format: Format::PrimeRl,
        framework: "prime-rl",
        versions: "main, August 2026 (verifiers v1 episodes)",
        writer: "src/prime_rl/monitors/file.py (FileMonitor.log_episodes); verifiers/v1/episode.py (Episode.to_record)",
        layout: "step_{N}/train/all/traces.jsonl (under rollouts/; eval and effective not read)",
        prompt: "each trace's messages up to its first sampled one",
        response: "each trace's sampled messages",
        score: "the trace's rewards: sum of score × weight",
        step: "run.work.step, else the folder name",
        group: "group.id, else task.key",
        step_of: prime_step,
        is_line: prime_line,
        read: prime_read,
        depth: 4,
        table: false,
    },
    DumpFormat {
        format: Format::Trl,
        framework: "TRL",
        versions: "0.28–1.9 (GRPOTrainer with log_completions=True; main, July 2026)",
        writer: "trl/trainer/grpo_trainer.py (GRPOTrainer.log: pd.DataFrame(table).to_parquet)",
        layout: "completions_{step:05d}.parquet (under <output_dir>/completions/)",
        prompt: "prompt (the chat template's text decoded without special tokens; a chat also read)",
        response: "completion",
        score: "the weighted sum of the reward functions' columns, NaN ones left out (TRL's nansum); unknown when all are NaN. Functions and weights from $SEBX_TRL_REWARDS, else the names in a trainer_state.json (weights 1), else the float columns right after completion (weights 1), said in a note",
        step: "step, else the file name",
        group: "the prompt text",
        step_of: trl_step,
        is_line: no_line,
        read: no_read,
        depth: 1,
        table: true,
    },
];

impl Format {
    pub fn spec(self) -> &'static DumpFormat {
        FORMATS
            .iter()
            .find(|f| f.format == self)
            .unwrap_or(&FORMATS[0])
    }

    /// The step files below `dir` (step, path), in step order then path order, and its
    /// other `.jsonl` files (not this format's: skipped, with a note).
    pub fn list(self, dir: &Path) -> std::io::Result<Listing> {
        let spec = self.spec();
        let mut steps = Vec::new();
        let mut others = Vec::new();
        let mut each = |path: PathBuf, rel: &Path| match (spec.step_of)(rel) {
            Some(step) => steps.push((step, path)),
            // prime-rl's other cohorts (eval, effective) are its own: no note each.
            None if self == Format::PrimeRl => {}
            None if rel.extension().is_some_and(|e| e == "jsonl") => others.push(path),
            None => {}
        };
        walk(dir, Path::new(""), spec.depth, &mut each)?;
        steps.sort();
        others.sort();
        Ok((steps, others))
    }

    /// The note of a skipped file of a run of this format.
    pub fn skipped_reason(self, run: &str) -> String {
        match self {
            Format::Verl => format!(
                "skipped: not a step file of run {run} (verl names them {{step}}.jsonl; a validation dump is a folder of its own)"
            ),
            other => {
                let spec = other.spec();
                format!(
                    "skipped: not a step file of run {run} ({} names them {})",
                    spec.framework, spec.layout
                )
            }
        }
    }

    /// Whether its step files are tables (parquet) rather than JSON lines.
    pub fn is_table(self) -> bool {
        self.spec().table
    }

    /// Whether a line (its text) is a sample of this format.
    pub fn is_sample(self, line: &str) -> bool {
        let text = python_json::finite_json(line.trim());
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(&text) else {
            return false;
        };
        (self.spec().is_line)(&obj)
    }
}

/// What one line holds: a sample (or why not), or the samples of a columnar line.
pub(super) enum Parsed {
    One(Result<Sample, String>),
    Many(Vec<Sample>),
}

/// Hands every file below `dir` (up to `depth` levels: 1 is `dir`'s own files) to `each`,
/// with its path below `dir`. A sub-folder that cannot be read is left out.
fn walk(
    dir: &Path,
    rel: &Path,
    depth: usize,
    each: &mut dyn FnMut(PathBuf, &Path),
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let name = rel.join(entry.file_name());
        if path.is_file() {
            each(path, &name);
        } else if depth > 1 && path.is_dir() {
            let _ = walk(&path, &name, depth - 1, each);
        }
    }
    Ok(())
}

/// Parses one line of a step file, of any format: verl's typed reading first (the common
/// case), then the reader of the format whose keys the line has; a line of none says what
/// is wrong with it as a verl sample.
pub(super) fn parse_line<'a>(memo: &mut PromptMemo<'a>, raw: &'a [u8]) -> Parsed {
    let text = match line_text(raw) {
        Ok(t) => t,
        Err(e) => return Parsed::One(Err(e)),
    };
    if let Some(sample) = line::read_typed(memo, text) {
        return Parsed::One(Ok(sample));
    }
    // `json.dumps` writes a float that is not finite bare (`"acc": NaN`): read as a string.
    let fixed = python_json::finite_json(text);
    if let Cow::Owned(t) = &fixed
        && let Some(sample) = line::read_typed(&mut PromptMemo::default(), t)
    {
        return Parsed::One(Ok(sample));
    }
    // One JSON value for the rest: another format's line, or what is wrong with a verl one.
    let value = match serde_json::from_str::<Value>(&fixed) {
        Ok(v) => v,
        Err(e) => return Parsed::One(Err(format!("not valid JSON: {e}"))),
    };
    let other = match &value {
        Value::Object(obj) if !verl_line(obj) => FORMATS[1..].iter().find(|f| (f.is_line)(obj)),
        _ => None,
    };
    match (other, value) {
        (Some(f), Value::Object(obj)) => match (f.read)(obj) {
            Ok(mut samples) if samples.len() == 1 => Parsed::One(Ok(samples.remove(0))),
            Ok(samples) => Parsed::Many(samples),
            Err(e) => Parsed::One(Err(e)),
        },
        (_, value) => Parsed::One(line::sample_of_value(value)),
    }
}

/// `completions_00012.parquet` → 12.
fn trl_step(rel: &Path) -> Option<u32> {
    number(
        rel.to_str()?
            .strip_prefix("completions_")?
            .strip_suffix(".parquet")?,
    )
}

/// TRL writes no JSON lines: its files are tables ([`super::trl`]).
fn no_line(_: &Map<String, Value>) -> bool {
    false
}

fn no_read(_: Map<String, Value>) -> Result<Vec<Sample>, String> {
    Err("not a JSON line of this format (its files are parquet tables)".to_string())
}

/// `12.jsonl` → 12.
pub(super) fn verl_step(rel: &Path) -> Option<u32> {
    let name = rel.to_str()?;
    let stem = name.strip_suffix(".jsonl")?;
    number(stem)
}

fn number(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn verl_line(obj: &Map<String, Value>) -> bool {
    obj.contains_key("input")
        && obj.contains_key("output")
        && !obj.contains_key("query")
        && !obj.contains_key("response")
}

fn verl_read_one(obj: Map<String, Value>) -> Result<Sample, String> {
    line::sample_of_value(Value::Object(obj))
}

fn verl_read(obj: Map<String, Value>) -> Result<Vec<Sample>, String> {
    verl_read_one(obj).map(|s| vec![s])
}

fn skyrl_read(obj: Map<String, Value>) -> Result<Vec<Sample>, String> {
    skyrl_read_one(obj).map(|s| vec![s])
}

fn nemo_read(obj: Map<String, Value>) -> Result<Vec<Sample>, String> {
    nemo_read_one(obj).map(|s| vec![s])
}

fn areal_read(obj: Map<String, Value>) -> Result<Vec<Sample>, String> {
    areal_read_one(obj).map(|s| vec![s])
}

/// `global_step_12_evals` → 12.
fn skyrl_folder_step(name: &Path) -> Option<u32> {
    number(
        name.to_str()?
            .strip_prefix("global_step_")?
            .strip_suffix("_evals")?,
    )
}

/// `global_step_12_evals/{data_source}.jsonl` → 12 (not `aggregated_results.jsonl`, the
/// step's metrics).
fn skyrl_step(rel: &Path) -> Option<u32> {
    let mut parts = rel.components();
    let folder = Path::new(parts.next()?.as_os_str());
    let file = parts.next()?.as_os_str().to_str()?;
    if parts.next().is_some() || !file.ends_with(".jsonl") || file == "aggregated_results.jsonl" {
        return None;
    }
    skyrl_folder_step(folder)
}

fn skyrl_line(obj: &Map<String, Value>) -> bool {
    obj.contains_key("input_prompt") && obj.contains_key("output_response")
}

fn skyrl_read_one(mut obj: Map<String, Value>) -> Result<Sample, String> {
    let input = chat_text(obj.remove("input_prompt"), "input_prompt")?;
    let output = chat_text(obj.remove("output_response"), "output_response")?;
    let output = without_end_token(output);
    // SkyRL's reward may be token-level (a list): the sample's is their sum.
    let score = obj.remove("score").and_then(|v| summed(&v));
    let gts = obj
        .get("env_extras")
        .and_then(|e| e.get("reward_spec"))
        .and_then(|r| r.get("ground_truth"))
        .filter(|g| !g.is_null())
        .map(text_of);
    Ok(Sample {
        input: input.into(),
        output,
        gts,
        score,
        step: None,
        uid: None,
        extras: extras_of(obj),
    })
}

/// `train_data_step12.jsonl` → 12 (`val_data_step12.jsonl` is the validation's: skipped).
fn nemo_step(rel: &Path) -> Option<u32> {
    number(
        rel.to_str()?
            .strip_prefix("train_data_step")?
            .strip_suffix(".jsonl")?,
    )
}

fn nemo_line(obj: &Map<String, Value>) -> bool {
    obj.contains_key("content") && (obj.contains_key("rewards") || obj.contains_key("idx"))
}

fn nemo_read_one(mut obj: Map<String, Value>) -> Result<Sample, String> {
    // `make_microbatch_iterator(1)` writes each column as a list of one sample's value:
    // `content` is `[[message, …]]`, `rewards` `[r]`.
    let content = match obj.remove("content") {
        Some(Value::Array(mut a)) if a.len() == 1 && a[0].is_array() => a.remove(0),
        Some(v) => v,
        None => return Err("missing key `content`".to_string()),
    };
    let Value::Array(mut messages) = content else {
        return Err("`content` should be a list of messages".to_string());
    };
    let last = messages
        .pop()
        .ok_or_else(|| "`content` has no message".to_string())?;
    let output = without_end_token(message_text(&last));
    let input: Vec<String> = messages.iter().map(message_text).collect();
    let score = obj.remove("rewards").and_then(|v| summed(&v));
    Ok(Sample {
        input: input.concat().into(),
        output,
        gts: None,
        score,
        step: None,
        uid: None,
        extras: extras_of(obj),
    })
}

/// A prompt or response as text: a string as itself, a chat (a list of `{role, content}`
/// messages, or of strings) as its messages in order, each role word on its own line as a
/// decoded chat template leaves it.
pub(super) fn chat_text(v: Option<Value>, key: &str) -> Result<String, String> {
    match v {
        Some(Value::String(s)) => Ok(s),
        Some(Value::Null) => Ok(String::new()),
        Some(Value::Array(messages)) => Ok(messages.iter().map(message_text).collect()),
        Some(other) => Err(format!(
            "`{key}` should be a string or a chat, found {}",
            crate::model::rollout::json_kind(&other)
        )),
        None => Err(format!("missing key `{key}`")),
    }
}

fn message_text(m: &Value) -> String {
    match m {
        Value::String(s) => s.clone(),
        Value::Object(o) => {
            let content = o.get("content").map(content_text).unwrap_or_default();
            match o.get("role").and_then(Value::as_str) {
                Some(role) => format!("{role}\n{content}\n"),
                None => content,
            }
        }
        other => text_of(other),
    }
}

/// `12/{task_id}.jsonl` → 12.
fn areal_step(rel: &Path) -> Option<u32> {
    let mut parts = rel.components();
    let version = number(parts.next()?.as_os_str().to_str()?)?;
    let file = parts.next()?.as_os_str().to_str()?;
    (parts.next().is_none() && file.ends_with(".jsonl")).then_some(version)
}

fn areal_line(obj: &Map<String, Value>) -> bool {
    obj.contains_key("prompt") && obj.contains_key("completion") && obj.contains_key("task_id")
}

fn areal_read_one(mut obj: Map<String, Value>) -> Result<Sample, String> {
    let input = chat_text(obj.remove("prompt"), "prompt")?;
    let output = without_end_token(chat_text(obj.remove("completion"), "completion")?);
    let score = obj.get("reward").and_then(summed);
    // The samples of one task are its GRPO group (a task is one prompt's n samples).
    let uid = obj.get("task_id").map(|t| format!("task-{}", text_of(t)));
    Ok(Sample {
        input: input.into(),
        output,
        gts: None,
        score,
        step: None,
        uid,
        extras: extras_of(obj),
    })
}

/// `rollout_dump_data.step_12.jsonl` → 12.
fn roll_step(rel: &Path) -> Option<u32> {
    number(
        rel.to_str()?
            .strip_prefix("rollout_dump_data.step_")?
            .strip_suffix(".jsonl")?,
    )
}

fn roll_line(obj: &Map<String, Value>) -> bool {
    obj.get("responses").is_some_and(Value::is_array) && obj.contains_key("scores")
}

/// The columns of ROLL's line read into a sample's fields (or, `sampling_params`, the same
/// for every sample): not extras.
const ROLL_READ: [&str; 6] = [
    "prompt",
    "messages",
    "scores",
    "global_step",
    "ground_truth",
    "sampling_params",
];

/// ROLL's one line: every column a list with a value per sample.
fn roll_read(mut obj: Map<String, Value>) -> Result<Vec<Sample>, String> {
    let Some(Value::Array(responses)) = obj.remove("responses") else {
        return Err("`responses` should be a list".to_string());
    };
    let mut columns: Vec<(String, Vec<Value>)> = obj
        .into_iter()
        .filter_map(|(k, v)| match v {
            Value::Array(a) if a.len() == responses.len() => Some((k, a)),
            _ => None,
        })
        .collect();
    fn take(columns: &mut [(String, Vec<Value>)], key: &str, i: usize) -> Option<Value> {
        columns
            .iter_mut()
            .find(|(k, _)| k == key)
            .map(|(_, a)| std::mem::take(&mut a[i]))
    }
    let mut out = Vec::with_capacity(responses.len());
    for (i, response) in responses.into_iter().enumerate() {
        let prompt = match take(&mut columns, "prompt", i) {
            Some(Value::String(p)) if !p.is_empty() => p,
            _ => match take(&mut columns, "messages", i) {
                // A chat, or the chat as JSON text (ROLL's `messages` column is a string).
                Some(Value::String(m)) => match serde_json::from_str::<Value>(&m) {
                    Ok(chat @ Value::Array(_)) => chat_text(Some(chat), "messages")?,
                    _ => m,
                },
                other => chat_text(other, "messages")?,
            },
        };
        let output = chat_text(Some(response), "responses")?;
        let score = take(&mut columns, "scores", i).and_then(|v| summed(&v));
        let step = take(&mut columns, "global_step", i)
            .and_then(|v| v.as_u64())
            .and_then(|s| u32::try_from(s).ok());
        let gts = take(&mut columns, "ground_truth", i)
            .filter(|g| !g.is_null())
            .map(|g| text_of(&g));
        let extras = columns
            .iter_mut()
            .filter(|(k, _)| !ROLL_READ.contains(&k.as_str()))
            .map(|(k, a)| (k.clone(), text_of(&std::mem::take(&mut a[i]))))
            .collect();
        out.push(Sample {
            input: prompt.into(),
            output,
            gts,
            score,
            step,
            uid: None,
            extras,
        });
    }
    Ok(out)
}

/// `step_12/train/all/traces.jsonl` → 12 (the train cohort of every episode; `effective`
/// is a subset of it, `eval` another run's).
fn prime_step(rel: &Path) -> Option<u32> {
    let parts: Vec<&str> = rel.iter().map(|p| p.to_str()).collect::<Option<_>>()?;
    match parts.as_slice() {
        [step, "train", "all", "traces.jsonl"] => number(step.strip_prefix("step_")?),
        _ => None,
    }
}

fn prime_line(obj: &Map<String, Value>) -> bool {
    obj.get("traces").is_some_and(Value::is_array) && obj.contains_key("task")
}

/// One episode: a sample per trace (an agent's), with the episode's group and step.
fn prime_read(mut obj: Map<String, Value>) -> Result<Vec<Sample>, String> {
    let Some(Value::Array(traces)) = obj.remove("traces") else {
        return Err("`traces` should be a list".to_string());
    };
    let step = obj
        .get("run")
        .and_then(|r| r.get("work"))
        .and_then(|w| w.get("step"))
        .and_then(Value::as_u64)
        .and_then(|s| u32::try_from(s).ok());
    let task = obj.get("task");
    let group = obj
        .get("group")
        .and_then(|g| g.get("id"))
        .or_else(|| task.and_then(|t| t.get("key")))
        .filter(|g| !g.is_null())
        .map(|g| format!("group-{}", text_of(g)));
    let mut out = Vec::new();
    for trace in traces {
        let nodes = trace
            .get("nodes")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let sampled = |n: &Value| n.get("sampled").and_then(Value::as_bool) == Some(true);
        let first = nodes.iter().position(sampled).unwrap_or(nodes.len());
        let message = |n: &Value| n.get("message").map(message_text).unwrap_or_default();
        let input: String = nodes[..first].iter().map(message).collect();
        let output: String = nodes[first..]
            .iter()
            .filter(|n| sampled(n))
            .map(|n| {
                n.get("message")
                    .and_then(|m| m.get("content"))
                    .map(content_text)
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
            .join("\n");
        // `Trace.reward`: the weighted sum of its rewards; `None` ones did not run.
        let rewards: Vec<f64> = trace
            .get("rewards")
            .and_then(Value::as_object)
            .map(|r| {
                r.values()
                    .filter_map(|w| {
                        let score = w.get("score").and_then(summed)?;
                        let weight = w.get("weight").and_then(Value::as_f64).unwrap_or(1.0);
                        Some(score * weight)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let score = (!rewards.is_empty()).then(|| rewards.iter().sum());
        let mut extras = Vec::new();
        if let Some(ok) = trace.get("ok") {
            extras.push(("ok".to_string(), text_of(ok)));
        }
        if let Some(stop) = trace.get("stop_condition").filter(|s| !s.is_null()) {
            extras.push(("stop_condition".to_string(), text_of(stop)));
        }
        out.push(Sample {
            input: input.into(),
            output,
            gts: None,
            score,
            step,
            uid: group.clone(),
            extras,
        });
    }
    Ok(out)
}

/// A message's content as text: a string, or its text parts (`{type: text, text}`) joined.
fn content_text(c: &Value) -> String {
    match c {
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                other => other
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            })
            .collect(),
        other => text_of(other),
    }
}

/// The end-of-turn tokens a response decoded with its special tokens ends with (SkyRL and
/// NeMo-RL decode so; verl skips them).
const END_TOKENS: [&str; 4] = ["<|im_end|>", "<|endoftext|>", "<|eot_id|>", "</s>"];

/// A response without the end-of-turn token its decoding left at its end.
fn without_end_token(mut text: String) -> String {
    loop {
        let trimmed = text.trim_end();
        let Some(t) = END_TOKENS.iter().find(|t| trimmed.ends_with(*t)) else {
            return text;
        };
        let keep = trimmed.len() - t.len();
        text.truncate(keep);
    }
}

/// A score: a number, a bool, a list (one sample's, or token-level rewards: summed), or
/// what [`python_json`] made of a bare `NaN`.
fn summed(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => python_json::non_finite(s).or_else(|| s.trim().parse().ok()),
        Value::Array(a) if !a.is_empty() => a.iter().map(summed).sum(),
        _ => None,
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A line's other keys, as verl's extras are kept: sorted, a string as itself.
fn extras_of(obj: Map<String, Value>) -> Vec<(String, String)> {
    obj.into_iter().map(|(k, v)| (k, text_of(&v))).collect()
}

/// The format of a folder's step files: the first of [`FORMATS`] with step files there
/// whose first non-empty file starts with one of its samples (an empty step file alone is
/// verl's).
pub(super) fn format_of(dir: &Path) -> std::io::Result<Option<(Format, Listing)>> {
    for f in &FORMATS {
        let (steps, others) = f.format.list(dir)?;
        if steps.is_empty() {
            continue;
        }
        let first = steps
            .iter()
            .find(|(_, p)| std::fs::metadata(p).is_ok_and(|m| m.len() > 0));
        match first {
            None if f.format == Format::Verl => return Ok(Some((f.format, (steps, others)))),
            None => continue,
            Some((_, p)) if f.table => {
                if starts_as_table(p)? {
                    return Ok(Some((f.format, (steps, others))));
                }
            }
            Some((_, p)) => {
                if first_line(p)?.is_some_and(|l| f.format.is_sample(&l)) {
                    return Ok(Some((f.format, (steps, others))));
                }
            }
        }
    }
    Ok(None)
}

/// The step of a step file named alone, of a format whose step files lie in the run's
/// folder: verl's `12.jsonl` whose first line is a sample, TRL's
/// `completions_00012.parquet` that starts as a table.
pub(super) fn step_of_single_file(path: &Path) -> Option<u32> {
    let name = Path::new(path.file_name()?);
    if let Some(step) = verl_step(name) {
        let line = first_line(path).ok()??;
        return Format::Verl.is_sample(&line).then_some(step);
    }
    let step = trl_step(name)?;
    starts_as_table(path).ok()?.then_some(step)
}

/// Whether a file starts as a parquet file does (it may be half written).
fn starts_as_table(path: &Path) -> std::io::Result<bool> {
    use std::io::Read;
    let mut head = [0u8; 4];
    let n = std::fs::File::open(path)?.read(&mut head)?;
    Ok(n == 4 && super::trl::is_table(Path::new(""), &head))
}

/// The first non-blank line of a file.
pub(super) fn first_line(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Parsed {
        parse_line(&mut PromptMemo::default(), line.as_bytes())
    }

    #[test]
    fn every_format_has_a_declaration_and_its_layout_lists_its_steps_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let step = dir.path().join("global_step_20_evals");
        std::fs::create_dir(&step).expect("mkdir");
        for f in ["math.jsonl", "aggregated_results.jsonl"] {
            std::fs::write(step.join(f), "{}\n").expect("write");
        }
        let (steps, _) = Format::SkyRl.list(dir.path()).expect("list");
        assert_eq!(steps, [(20, step.join("math.jsonl"))]);
        let nemo = tempfile::tempdir().expect("tempdir");
        for f in ["train_data_step3.jsonl", "val_data_step3.jsonl"] {
            std::fs::write(nemo.path().join(f), "{}\n").expect("write");
        }
        let (steps, others) = Format::NemoRl.list(nemo.path()).expect("list");
        assert_eq!(steps, [(3, nemo.path().join("train_data_step3.jsonl"))]);
        assert_eq!(others, [nemo.path().join("val_data_step3.jsonl")]);
        // prime-rl: the train cohort of every episode only (no note for the others).
        let prime = tempfile::tempdir().expect("tempdir");
        for cohort in ["train/all", "train/effective", "eval/all"] {
            let d = prime.path().join("step_4").join(cohort);
            std::fs::create_dir_all(&d).expect("mkdir");
            std::fs::write(d.join("traces.jsonl"), "{}\n").expect("write");
        }
        let (steps, others) = Format::PrimeRl.list(prime.path()).expect("list");
        assert_eq!(
            steps,
            [(4, prime.path().join("step_4/train/all/traces.jsonl"))]
        );
        assert!(others.is_empty());
        // TRL: its completion tables, found by their first bytes (one half written too).
        let trl = tempfile::tempdir().expect("tempdir");
        let table =
            include_bytes!("../../../tests/fixtures/trl/run/completions/completions_00001.parquet");
        std::fs::write(trl.path().join("completions_00010.parquet"), &table[..40]).expect("write");
        std::fs::write(trl.path().join("other.parquet"), table).expect("write");
        let (format, (steps, _)) = format_of(trl.path()).expect("list").expect("a format");
        assert_eq!(format, Format::Trl);
        assert_eq!(steps, [(10, trl.path().join("completions_00010.parquet"))]);
        // Each format is declared once, with its writer named.
        for f in [
            Format::Verl,
            Format::SkyRl,
            Format::NemoRl,
            Format::Areal,
            Format::Roll,
            Format::PrimeRl,
            Format::Trl,
        ] {
            assert_eq!(f.spec().format, f);
            assert!(!f.spec().writer.is_empty());
        }
    }

    #[test]
    fn a_columnar_line_is_every_sample_of_its_step() {
        let line = r#"{"id": ["a", "a", "b"], "prompt": ["P1", "P1", "P2"], "responses": ["r1", "r2", "r3"], "scores": [1.0, NaN, 0.0], "global_step": [7, 7, 7], "sampling_params": ["{}", "{}", "{}"]}"#;
        let Parsed::Many(samples) = parse(line) else {
            panic!("several samples");
        };
        let got: Vec<(&str, &str, Option<u32>)> = samples
            .iter()
            .map(|s| (&*s.input, s.output.as_str(), s.step))
            .collect();
        assert_eq!(
            got,
            [
                ("P1", "r1", Some(7)),
                ("P1", "r2", Some(7)),
                ("P2", "r3", Some(7))
            ]
        );
        assert!(samples[1].score.is_some_and(f64::is_nan));
        assert_eq!(samples[0].extras, [("id".to_string(), "a".to_string())]);
    }

    #[test]
    fn chats_and_decoded_end_tokens_read_as_text() {
        let line = serde_json::json!({
            "input_prompt": [{"role": "system", "content": "Be brief."},
                             {"role": "user", "content": "### Problem\nAdd."}],
            "output_response": "done<|im_end|>",
            "score": [0.0, 1.0],
            "env_extras": {"reward_spec": {"ground_truth": "3"}},
        })
        .to_string();
        let Parsed::One(Ok(s)) = parse(&line) else {
            panic!("a sample");
        };
        assert_eq!(&*s.input, "system\nBe brief.\nuser\n### Problem\nAdd.\n");
        assert_eq!(s.output, "done");
        assert_eq!(s.score, Some(1.0), "token-level rewards are summed");
        assert_eq!(s.gts.as_deref(), Some("3"));
        // A line of no format says what is wrong with it as a verl sample.
        let Parsed::One(Err(e)) = parse(r#"{"question": "q"}"#) else {
            panic!("an error");
        };
        assert_eq!(e, "missing key `input`");
    }
}
