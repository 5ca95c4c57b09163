//! TRL's completion logs: `GRPOTrainer.log` (`trl/trainer/grpo_trainer.py`, TRL 0.28 and
//! later, with `log_completions=True`) writes, at each logging step, a pandas DataFrame of
//! the last generation batch with `to_parquet` (pyarrow; snappy unless the user chose another
//! codec) to `<output_dir>/completions/completions_{global_step:05d}.parquet`: columns `step`
//! (int), `prompt` and `completion` (text decoded with `skip_special_tokens=True`, the prompt
//! through the chat template), one float column per reward function (named after it, in
//! `reward_funcs` order; NaN where it returned `None`, which pyarrow stores as a null), then
//! the columns reward functions logged with `log_extra`, then `advantage`. A file is one
//! table, not lines: it is read whole, each row a sample whose "line" is its row number, and
//! it is complete only once its footer is written (`PAR1` at both ends).
//!
//! The file does not say which of the columns after `completion` are rewards (a float
//! `log_extra` column looks like one) nor TRL's `reward_weights` (the reward is their weighted
//! sum). [`RewardConfig`] says what is known: `$SEBX_TRL_REWARDS` (`name=weight,...`), else
//! the reward function names in a `trainer_state.json` of the output folder (its
//! `rewards/{name}/mean` metrics; weights are in no readable file: `training_args.bin` is a
//! pickle), else the float columns right after `completion` (rewards come first); weights
//! not given are TRL's default, 1. [`run_notes`] tells the user, once per run, what was assumed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use parquet::basic::Compression;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;

use super::line::Sample;
use crate::model::rollout::LoadIssue;

/// The 4 bytes a parquet file starts and ends with.
const MAGIC: &[u8; 4] = b"PAR1";

/// The reason given for a parquet file whose footer is not written yet.
pub const HALF_WRITTEN_TABLE: &str = "half-written parquet file (no footer yet): being written, or the writer stopped while writing it; it is read once it is complete";

/// Whether a step file is a table (parquet) rather than lines: by its name, or its first bytes.
pub fn is_table(path: &Path, bytes: &[u8]) -> bool {
    path.extension().is_some_and(|e| e == "parquet") || bytes.starts_with(MAGIC)
}

/// Whether a parquet file's writer has finished it: the footer (its length and the magic)
/// closes it. pyarrow writes the header, then the row groups, then the footer on close.
pub fn is_complete(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 12 || !bytes.starts_with(MAGIC) || !bytes.ends_with(MAGIC) {
        return false;
    }
    let mut len = [0u8; 4];
    len.copy_from_slice(&bytes[n - 8..n - 4]);
    (u32::from_le_bytes(len) as usize) <= n - 12
}

/// Why a table gave no samples.
#[derive(Debug, Clone, PartialEq)]
pub enum TableError {
    /// No footer yet: being written.
    HalfWritten,
    /// Not a parquet file sebx can read (corrupt, or a codec sebx does not read).
    Unreadable(String),
}

/// The columns read into a sample's fields; every other column is an extra (the rewards
/// too: each function's value shows).
const READ: [&str; 3] = ["step", "prompt", "completion"];
/// Not a reward function's column although it is a float.
const ADVANTAGE: &str = "advantage";
/// The user's word on a TRL run's reward: `name=weight,...` (a bare name: weight 1).
pub const REWARDS_ENV: &str = "SEBX_TRL_REWARDS";

/// Where a TRL run's reward function names came from.
#[derive(Debug, Clone, PartialEq)]
pub enum NamesFrom {
    /// `$SEBX_TRL_REWARDS`, with its weights.
    Env,
    /// A `trainer_state.json` of the output folder (its `rewards/{name}/mean` metrics).
    TrainerState(PathBuf),
    /// Nothing: the float columns right after `completion` are taken for the rewards.
    Columns,
}

/// What is known of a run's reward: the reward functions' names and weights, and whence.
#[derive(Debug, Clone, PartialEq)]
pub struct RewardConfig {
    /// Reward function name → weight; empty when `from` is [`NamesFrom::Columns`].
    pub weights: Vec<(String, f64)>,
    pub from: NamesFrom,
    /// `$SEBX_TRL_REWARDS` could not be read: why (the config is then the next source's).
    pub env_error: Option<String>,
}

impl RewardConfig {
    /// The config of the run a step file (`<output_dir>/completions/completions_N.parquet`)
    /// belongs to: `$SEBX_TRL_REWARDS`, else its output folder's `trainer_state.json`.
    pub fn of_step_file(path: &Path) -> RewardConfig {
        Self::resolve(
            std::env::var(REWARDS_ENV).ok().as_deref(),
            &output_dir(path),
        )
    }

    /// The config from the env var's value (if set) and the output folder.
    pub fn resolve(env: Option<&str>, output_dir: &Path) -> RewardConfig {
        let mut env_error = None;
        if let Some(v) = env.filter(|v| !v.trim().is_empty()) {
            match parse_env(v) {
                Ok(weights) => {
                    return RewardConfig {
                        weights,
                        from: NamesFrom::Env,
                        env_error: None,
                    };
                }
                Err(e) => env_error = Some(e),
            }
        }
        let (weights, from) = match trainer_state_names(output_dir) {
            Some((path, names)) if !names.is_empty() => (
                names.into_iter().map(|n| (n, 1.0)).collect(),
                NamesFrom::TrainerState(path),
            ),
            _ => (Vec::new(), NamesFrom::Columns),
        };
        RewardConfig {
            weights,
            from,
            env_error,
        }
    }

    /// The reward columns of a table (its columns in file order, each with whether it is a
    /// float column) and their weights: the named functions' columns, else the floats right
    /// after `completion` up to the first other column (TRL writes the rewards first).
    pub fn reward_columns(&self, columns: &[(String, bool)]) -> Vec<(String, f64)> {
        if self.from != NamesFrom::Columns {
            return columns
                .iter()
                .filter(|(_, float)| *float)
                .filter_map(|(name, _)| {
                    let (_, w) = self.weights.iter().find(|(n, _)| n == name)?;
                    Some((name.clone(), *w))
                })
                .collect();
        }
        let after = columns
            .iter()
            .position(|(n, _)| n == "completion")
            .map_or(0, |i| i + 1);
        columns[after..]
            .iter()
            .take_while(|(n, float)| *float && n != ADVANTAGE && !READ.contains(&n.as_str()))
            .map(|(n, _)| (n.clone(), 1.0))
            .collect()
    }
}

/// `name=weight,name,...` → (name, weight), a bare name weighing 1 (TRL's default).
fn parse_env(v: &str) -> Result<Vec<(String, f64)>, String> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for part in v.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, weight) = match part.split_once('=') {
            Some((n, w)) => {
                let w: f64 = w
                    .trim()
                    .parse()
                    .map_err(|_| format!("${REWARDS_ENV}: `{part}`: the weight is not a number"))?;
                if !w.is_finite() {
                    return Err(format!(
                        "${REWARDS_ENV}: `{part}`: the weight is not finite"
                    ));
                }
                (n.trim(), w)
            }
            None => (part, 1.0),
        };
        if name.is_empty() {
            return Err(format!("${REWARDS_ENV}: `{part}` names no reward function"));
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(format!("${REWARDS_ENV}: `{name}` is named twice"));
        }
        out.push((name.to_string(), weight));
    }
    if out.is_empty() {
        return Err(format!("${REWARDS_ENV} names no reward function"));
    }
    Ok(out)
}

/// The output folder of a step file: the parent of its `completions/` folder (TRL writes
/// nowhere else), else the folder it is in.
pub fn output_dir(step_file: &Path) -> PathBuf {
    let folder = step_file.parent().unwrap_or(Path::new(""));
    match folder.parent() {
        Some(up) if folder.file_name().is_some_and(|n| n == "completions") => up.to_path_buf(),
        _ => folder.to_path_buf(),
    }
}

/// The `trainer_state.json` that names the reward functions, and their names: the output
/// folder's own (`trainer.save_state()`), else its last checkpoint's (`checkpoint-N/`,
/// written at each save). TRL logs `rewards/{name}/mean` for every reward function at every
/// logging step; transformers keeps the logs in `log_history`. Read once per file version
/// (each step file asks).
fn trainer_state_names(output_dir: &Path) -> Option<(PathBuf, Vec<String>)> {
    let own = output_dir.join("trainer_state.json");
    let path = if own.is_file() {
        own
    } else {
        let last = std::fs::read_dir(output_dir)
            .ok()?
            .flatten()
            .filter_map(|e| {
                let name = e.file_name();
                let n: u64 = name.to_str()?.strip_prefix("checkpoint-")?.parse().ok()?;
                let state = e.path().join("trainer_state.json");
                state.is_file().then_some((n, state))
            })
            .max_by_key(|(n, _)| *n)?;
        last.1
    };
    let meta = std::fs::metadata(&path).ok()?;
    let stamp = (meta.modified().ok(), meta.len());
    type Memo = Mutex<HashMap<PathBuf, ((Option<SystemTime>, u64), Arc<Vec<String>>)>>;
    static MEMO: OnceLock<Memo> = OnceLock::new();
    let memo = MEMO.get_or_init(Memo::default);
    if let Ok(m) = memo.lock()
        && let Some((s, names)) = m.get(&path)
        && *s == stamp
    {
        return Some((path, names.to_vec()));
    }
    let names = reward_names_of_state(&std::fs::read(&path).ok()?);
    if let Ok(mut m) = memo.lock() {
        m.insert(path.clone(), (stamp, Arc::new(names.clone())));
    }
    Some((path, names))
}

/// The reward function names in a `trainer_state.json`: the `{name}` of its logs'
/// `rewards/{name}/mean` keys (training's; evaluation's are `eval_rewards/...`), sorted.
fn reward_names_of_state(bytes: &[u8]) -> Vec<String> {
    let Ok(state) = serde_json::from_slice::<Value>(bytes) else {
        return Vec::new();
    };
    let mut names: Vec<String> = state["log_history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|log| log.keys())
        .filter_map(|k| k.strip_prefix("rewards/")?.strip_suffix("/mean"))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A table's columns in file order, each with whether it is a float column (from the
/// schema, so that a row whose reward is null still has it).
fn columns_of(reader: &SerializedFileReader<bytes::Bytes>) -> Vec<(String, bool)> {
    use parquet::basic::Type;
    let schema = reader.metadata().file_metadata().schema_descr();
    schema
        .root_schema()
        .get_fields()
        .iter()
        .map(|t| {
            let float =
                t.is_primitive() && matches!(t.get_physical_type(), Type::DOUBLE | Type::FLOAT);
            (t.name().to_string(), float)
        })
        .collect()
}

/// A file whose pages are compressed with a codec sebx does not read: which one, said
/// before any row is tried.
fn unsupported_codec(reader: &SerializedFileReader<bytes::Bytes>) -> Option<TableError> {
    let codec = reader
        .metadata()
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .find_map(|c| match c.compression() {
            Compression::BROTLI(_) => Some("brotli"),
            Compression::LZO => Some("LZO"),
            _ => None,
        })?;
    Some(TableError::Unreadable(format!(
        "compressed with {codec}, which sebx does not read (it reads snappy, gzip, lz4, zstd and uncompressed files): write it with another codec"
    )))
}

/// The file's reader, once its codecs are known to be read.
fn open(bytes: &[u8]) -> Result<SerializedFileReader<bytes::Bytes>, TableError> {
    if !is_complete(bytes) {
        return Err(TableError::HalfWritten);
    }
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes))
        .map_err(|e| TableError::Unreadable(e.to_string()))?;
    match unsupported_codec(&reader) {
        Some(e) => Err(e),
        None => Ok(reader),
    }
}

/// The samples of a TRL completions file, one per row, or why the file gave none. A row's
/// score is the weighted sum of its reward columns ([`RewardConfig::reward_columns`]) that
/// are neither null nor NaN, as TRL sums them (`nansum`); unknown when none is.
pub fn read_table(
    bytes: &[u8],
    config: &RewardConfig,
) -> Result<Vec<Result<Sample, String>>, TableError> {
    let reader = open(bytes)?;
    let unreadable = |e: parquet::errors::ParquetError| TableError::Unreadable(e.to_string());
    let rewards = config.reward_columns(&columns_of(&reader));
    let rows = reader.get_row_iter(None).map_err(unreadable)?;
    let mut out = Vec::new();
    for row in rows {
        out.push(match row {
            Ok(row) => sample_of_row(
                row.get_column_iter().map(|(k, v)| (k.as_str(), v)),
                &rewards,
            ),
            Err(e) => Err(format!("unreadable row: {e}")),
        });
    }
    Ok(out)
}

/// What sebx assumed to read a TRL run's reward, once per run (line 0 of the output
/// folder): which columns were taken for the reward functions when nothing named them and
/// it could matter, names that are no column, and weights of 1 when none were given.
/// `first_step`: a step file, whose columns are looked at.
pub fn run_notes(
    config: &RewardConfig,
    first_step: Option<&Path>,
    output_dir: &Path,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(e) = &config.env_error {
        notes.push(format!("{e}; not used"));
    }
    let columns = first_step
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| open(&b).ok().map(|r| columns_of(&r)))
        .unwrap_or_default();
    let rewards = config.reward_columns(&columns);
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let reward_names: Vec<&str> = rewards.iter().map(|(n, _)| n.as_str()).collect();
    let extra_floats: Vec<&str> = columns
        .iter()
        .filter(|(n, float)| {
            *float
                && n != ADVANTAGE
                && !READ.contains(&n.as_str())
                && !reward_names.contains(&n.as_str())
        })
        .map(|(n, _)| n.as_str())
        .collect();
    match &config.from {
        NamesFrom::Columns if rewards.len() > 1 => notes.push(format!(
            "TRL run: the reward is read as the sum of {} (the float columns right after `completion`, where GRPOTrainer writes the reward functions' columns); nothing names the reward functions (no trainer_state.json in {} or its checkpoint-N/ folders, ${REWARDS_ENV} not set), so a float column a reward function logged with log_extra just after them would be counted as a reward: set ${REWARDS_ENV}=name=weight,... to name them",
            list(&reward_names),
            output_dir.display()
        )),
        NamesFrom::Columns => {}
        from => {
            let source = match from {
                NamesFrom::TrainerState(p) => p.display().to_string(),
                _ => format!("${REWARDS_ENV}"),
            };
            let missing: Vec<&str> = config
                .weights
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| !columns.is_empty() && !reward_names.contains(n))
                .collect();
            if !missing.is_empty() {
                notes.push(format!(
                    "TRL run: reward function {} (named by {source}) is no float column of {}: not counted",
                    list(&missing),
                    first_step.map_or(String::new(), |p| p.display().to_string())
                ));
            }
            // The user's own names need no echo; names found in a file do.
            if !extra_floats.is_empty() && *from != NamesFrom::Env {
                notes.push(format!(
                    "TRL run: {} not a reward function by {source} (log_extra columns): kept as extras, not counted in the reward",
                    list(&extra_floats)
                ));
            }
        }
    }
    if config.from != NamesFrom::Env && !rewards.is_empty() {
        notes.push(format!(
            "TRL run: reward_weights are in no file TRL writes that sebx reads (training_args.bin is a pickle): each of {} weighs 1 (TRL's default); if the run set reward_weights, give them as ${REWARDS_ENV}=name=weight,...",
            list(&reward_names)
        ));
    }
    notes
}

/// [`run_notes`] as load notes of the output folder (line 0).
pub fn run_issues(first_step: Option<&Path>, fallback_dir: &Path) -> Vec<LoadIssue> {
    let dir = first_step.map_or_else(|| fallback_dir.to_path_buf(), output_dir);
    let config = match first_step {
        Some(p) => RewardConfig::of_step_file(p),
        None => RewardConfig::resolve(std::env::var(REWARDS_ENV).ok().as_deref(), &dir),
    };
    run_notes(&config, first_step, &dir)
        .into_iter()
        .map(|reason| LoadIssue {
            source: dir.clone(),
            line: 0,
            reason,
        })
        .collect()
}

/// One row (its columns in file order) as a sample; `reward_columns` name the rewards, with
/// their weights.
fn sample_of_row<'a>(
    columns: impl Iterator<Item = (&'a str, &'a Field)>,
    reward_columns: &[(String, f64)],
) -> Result<Sample, String> {
    let mut prompt = None;
    let mut completion = None;
    let mut step = None;
    let mut rewards: Vec<f64> = Vec::new();
    let mut extras = Vec::new();
    for (name, field) in columns {
        match name {
            "prompt" => prompt = Some(value_of(field)),
            "completion" => completion = Some(value_of(field)),
            "step" => step = integer(field),
            _ if let Some((_, w)) = reward_columns.iter().find(|(r, _)| r == name) => {
                // pandas stores TRL's NaN (a function that returned None) as a null.
                let r = float(field).unwrap_or(f64::NAN);
                rewards.push(r * w);
                extras.push((name.to_string(), text_of(&value_of(&Field::Double(r)))));
            }
            _ => extras.push((name.to_string(), text_of(&value_of(field)))),
        }
    }
    let input = super::formats::chat_text(prompt, "prompt")?;
    let output = super::formats::chat_text(completion, "completion")?;
    let known: Vec<f64> = rewards.into_iter().filter(|r| !r.is_nan()).collect();
    let score = (!known.is_empty()).then(|| known.iter().sum());
    // Sorted, as a JSON line's extras are.
    extras.sort();
    Ok(Sample {
        input: input.into(),
        output,
        gts: None,
        score,
        step,
        uid: None,
        extras,
    })
}

/// A float column's value (a reward function's, NaN included); `None` for any other type.
fn float(f: &Field) -> Option<f64> {
    match f {
        Field::Double(x) => Some(*x),
        Field::Float(x) => Some(f64::from(*x)),
        Field::Float16(x) => Some(f64::from(*x)),
        _ => None,
    }
}

fn integer(f: &Field) -> Option<u32> {
    let n = match f {
        Field::Long(n) => *n,
        Field::Int(n) => i64::from(*n),
        Field::Short(n) => i64::from(*n),
        Field::Str(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    u32::try_from(n).ok()
}

/// A cell as JSON: a float that is not finite as the text `json.dumps` writes for it
/// (`NaN`, `Infinity`), as a JSON line's bare `NaN` is read; a list or struct (a chat
/// prompt) as an array or object.
pub fn value_of(f: &Field) -> Value {
    let number = |x: f64| match serde_json::Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => Value::String("NaN".to_string()),
        None if x > 0.0 => Value::String("Infinity".to_string()),
        None => Value::String("-Infinity".to_string()),
    };
    match f {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float16(x) => number(f64::from(*x)),
        Field::Float(x) => number(f64::from(*x)),
        Field::Double(x) => number(*x),
        Field::Str(s) => Value::String(s.clone()),
        Field::Bytes(b) => Value::String(String::from_utf8_lossy(b.data()).into_owned()),
        Field::Group(row) => Value::Object(
            row.get_column_iter()
                .map(|(k, v)| (k.clone(), value_of(v)))
                .collect(),
        ),
        Field::ListInternal(list) => Value::Array(list.elements().iter().map(value_of).collect()),
        Field::MapInternal(map) => Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| (text_of(&value_of(k)), value_of(v)))
                .collect(),
        ),
        other => Value::String(other.to_string()),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Row `row` (1-based) of a parquet file, its columns in file order (the raw view).
pub fn read_row(bytes: &[u8], row: usize) -> Result<Option<Vec<(String, Value)>>, TableError> {
    let reader = open(bytes)?;
    let unreadable = |e: parquet::errors::ParquetError| TableError::Unreadable(e.to_string());
    let Some(skip) = row.checked_sub(1) else {
        return Ok(None);
    };
    match reader.get_row_iter(None).map_err(unreadable)?.nth(skip) {
        None => Ok(None),
        Some(Err(e)) => Err(unreadable(e)),
        Some(Ok(r)) => Ok(Some(
            r.get_column_iter()
                .map(|(k, v)| (k.clone(), value_of(v)))
                .collect(),
        )),
    }
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TableError::HalfWritten => f.write_str(HALF_WRITTEN_TABLE),
            TableError::Unreadable(e) => write!(f, "not a parquet file sebx can read: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[(&str, Field)]) -> Sample {
        let rewards = [("accuracy".to_string(), 1.0), ("format".to_string(), 1.0)];
        sample_of_row(cells.iter().map(|(k, v)| (*k, v)), &rewards).expect("a sample")
    }

    #[test]
    fn a_rows_score_sums_its_known_rewards_and_is_unknown_when_none_is() {
        let text = |s: &str| Field::Str(s.to_string());
        let base = |acc: Field, fmt: Field| {
            row(&[
                ("step", Field::Long(7)),
                ("prompt", text("user\nP\nassistant\n")),
                ("completion", text("c")),
                ("accuracy", acc),
                ("format", fmt),
                ("advantage", Field::Double(0.5)),
            ])
        };
        let s = base(Field::Double(1.0), Field::Double(0.25));
        assert_eq!((s.score, s.step), (Some(1.25), Some(7)));
        assert_eq!(&*s.input, "user\nP\nassistant\n");
        // A null (pandas' NaN) and a NaN are both unknown, never 0, and cost no row.
        assert_eq!(base(Field::Double(1.0), Field::Null).score, Some(1.0));
        assert_eq!(
            base(Field::Double(f64::NAN), Field::Double(0.0)).score,
            Some(0.0)
        );
        let none = base(Field::Null, Field::Double(f64::NAN));
        assert_eq!(none.score, None);
        let extras: Vec<(&str, &str)> = none
            .extras
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            extras,
            [("accuracy", "NaN"), ("advantage", "0.5"), ("format", "NaN")]
        );
    }

    const RUN_1: &[u8] =
        include_bytes!("../../../tests/fixtures/trl/run/completions/completions_00001.parquet");

    fn columns(spec: &[(&str, bool)]) -> Vec<(String, bool)> {
        spec.iter().map(|(n, f)| (n.to_string(), *f)).collect()
    }

    #[test]
    fn the_reward_columns_are_the_named_ones_else_the_floats_right_after_completion() {
        let table = columns(&[
            ("step", false),
            ("prompt", false),
            ("completion", false),
            ("accuracy_reward", true),
            ("format_reward", true),
            ("finish_reason", false),
            ("confidence", true),
            ("advantage", true),
        ]);
        // Nothing named: the floats before the first other column (TRL writes the rewards,
        // then the extras); a float extra after a text one is not counted.
        let unknown = RewardConfig::resolve(None, Path::new("/nonexistent"));
        assert_eq!(unknown.from, NamesFrom::Columns);
        assert_eq!(
            unknown.reward_columns(&table),
            [
                ("accuracy_reward".to_string(), 1.0),
                ("format_reward".to_string(), 1.0)
            ]
        );
        // Named with weights: those columns, weighted; a name that is no column is not one.
        let env = RewardConfig::resolve(
            Some("format_reward=0.25, accuracy_reward = 2,missing"),
            Path::new("/nonexistent"),
        );
        assert_eq!(env.from, NamesFrom::Env);
        assert_eq!(
            env.reward_columns(&table),
            [
                ("accuracy_reward".to_string(), 2.0),
                ("format_reward".to_string(), 0.25)
            ]
        );
        // A float extra right after the rewards is told apart only by a name.
        let only = RewardConfig::resolve(Some("accuracy_reward"), Path::new("/nonexistent"));
        let mut with_extra = table.clone();
        with_extra.insert(5, ("confidence".to_string(), true));
        assert_eq!(
            only.reward_columns(&with_extra),
            [("accuracy_reward".to_string(), 1.0)]
        );
        assert_eq!(unknown.reward_columns(&with_extra).len(), 3);
    }

    #[test]
    fn a_bad_env_value_is_said_and_not_used() {
        for bad in ["a=x", "a=1,a=2", "=1", "a=inf", ","] {
            let c = RewardConfig::resolve(Some(bad), Path::new("/nonexistent"));
            assert_eq!(c.from, NamesFrom::Columns, "{bad}");
            let e = c.env_error.clone().expect("an error");
            assert!(e.contains(REWARDS_ENV), "{e}");
            assert!(run_notes(&c, None, Path::new("out"))[0].contains(&e));
        }
    }

    #[test]
    fn the_trainer_states_reward_metrics_name_the_reward_functions() {
        let state: &[u8] =
            include_bytes!("../../../tests/fixtures/trl/extra/checkpoint-2/trainer_state.json");
        assert_eq!(
            reward_names_of_state(state),
            ["accuracy_reward", "format_reward"]
        );
        let eval_only = br#"{"log_history": [{"eval_rewards/a/mean": 1.0, "rewards/b/std": 0.0}]}"#;
        assert!(reward_names_of_state(eval_only).is_empty());
        assert!(reward_names_of_state(b"not json").is_empty());
    }

    #[test]
    fn weights_multiply_each_known_reward() {
        let text = |s: &str| Field::Str(s.to_string());
        let rewards = [("accuracy".to_string(), 0.75), ("format".to_string(), 0.5)];
        let cells = [
            ("prompt", text("P")),
            ("completion", text("c")),
            ("accuracy", Field::Double(1.0)),
            ("format", Field::Double(0.5)),
            ("confidence", Field::Double(0.9)),
        ];
        let s = sample_of_row(cells.iter().map(|(k, v)| (*k, v)), &rewards).expect("a sample");
        assert_eq!(s.score, Some(0.75 + 0.25));
        let cells = [
            ("prompt", text("P")),
            ("completion", text("c")),
            ("accuracy", Field::Null),
            ("format", Field::Double(2.0)),
        ];
        let s = sample_of_row(cells.iter().map(|(k, v)| (*k, v)), &rewards).expect("a sample");
        assert_eq!(s.score, Some(1.0));
    }

    #[test]
    fn zstd_gzip_and_lz4_files_read_as_the_snappy_one_and_brotli_is_named() {
        let config = RewardConfig::resolve(None, Path::new("/nonexistent"));
        let snappy = read_table(RUN_1, &config).expect("snappy");
        let codecs: [(&str, &[u8], Compression); 3] = [
            (
                "zstd",
                include_bytes!(
                    "../../../tests/fixtures/trl/codecs/zstd/completions/completions_00001.parquet"
                ),
                Compression::ZSTD(Default::default()),
            ),
            (
                "gzip",
                include_bytes!(
                    "../../../tests/fixtures/trl/codecs/gzip/completions/completions_00001.parquet"
                ),
                Compression::GZIP(Default::default()),
            ),
            (
                "lz4",
                include_bytes!(
                    "../../../tests/fixtures/trl/codecs/lz4/completions/completions_00001.parquet"
                ),
                Compression::LZ4_RAW,
            ),
        ];
        for (name, bytes, codec) in codecs {
            let reader = open(bytes).expect(name);
            let used = reader.metadata().row_group(0).column(0).compression();
            assert_eq!(
                std::mem::discriminant(&used),
                std::mem::discriminant(&codec),
                "{name}: {used:?}"
            );
            assert_eq!(read_table(bytes, &config).as_ref(), Ok(&snappy), "{name}");
            assert_eq!(read_row(bytes, 2), read_row(RUN_1, 2), "{name}");
        }
        let brotli: &[u8] = include_bytes!(
            "../../../tests/fixtures/trl/codecs/brotli/completions/completions_00002.parquet"
        );
        for err in [
            read_table(brotli, &config).map(|_| ()),
            read_row(brotli, 1).map(|_| ()),
        ] {
            let Err(TableError::Unreadable(why)) = err else {
                panic!("brotli read: {err:?}");
            };
            assert!(why.contains("compressed with brotli"), "{why}");
        }
    }

    #[test]
    fn a_file_without_its_footer_is_half_written() {
        let whole = RUN_1;
        let config = RewardConfig::resolve(None, Path::new("/nonexistent"));
        assert_eq!(read_table(whole, &config).map(|r| r.len()), Ok(5));
        for n in [0, 4, 12, whole.len() / 2, whole.len() - 1] {
            assert_eq!(
                read_table(&whole[..n], &config),
                Err(TableError::HalfWritten),
                "{n}"
            );
        }
    }
}
