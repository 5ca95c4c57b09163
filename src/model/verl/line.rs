//! One line of a step file as verl writes it, in every version from 0.4 to 0.9: `input`,
//! `output`, `score`, `step`, `gts` (from 0.6), `uid` (0.9's default trainer) and the reward's
//! extra keys (`acc`, `request_id`, …), which from 0.8 may be strings (`"True"`, `"[1 2 3]"`)
//! and in 0.9's validation dumps `null`. Extras are kept as written; none is a load error.

use serde_json::{Map, Value};

use crate::model::rollout::{json_kind, line_text};

/// The keys sebx reads itself; every other key is an extra.
const KNOWN_KEYS: [&str; 6] = ["input", "output", "gts", "score", "step", "uid"];

/// One parsed sample line.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub input: String,
    /// The response; empty when the request was aborted (verl dumps it as `""`).
    pub output: String,
    pub gts: Option<String>,
    pub score: Option<f64>,
    pub step: Option<u32>,
    /// verl 0.9's `{prompt_uid}_{session}_{index}`, when the line has one.
    pub uid: Option<String>,
    /// Every other key with its value as written: a string as itself, anything else
    /// (`null`, numbers, lists) as JSON text.
    pub extras: Vec<(String, String)>,
}

/// The GRPO group a `uid` names. verl's trainer gives every prompt of a batch a uid before
/// repeating it `rollout.n` times, so the samples of one prompt share it and GRPO's
/// advantage is computed over them (`compute_advantage(index=uid)`); 0.9 writes each
/// sample's uid as `{prompt_uid}_{session}_{index}`, whose prompt part is the group. A uid
/// that does not end in two numbers (a bare per-prompt uuid) is itself the group.
pub fn group_of_uid(uid: &str) -> &str {
    let mut parts = uid.rsplitn(3, '_');
    let (Some(index), Some(session), Some(prompt)) = (parts.next(), parts.next(), parts.next())
    else {
        return uid;
    };
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if number(index) && number(session) && !prompt.is_empty() {
        prompt
    } else {
        uid
    }
}

/// A stored score as verl wrote it: a number, a bool, or (from 0.8, where values JSON
/// cannot hold are written as text) the same as a string: `"0.5"`, `"True"`.
fn score_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => match s.trim() {
            "True" | "true" => Some(1.0),
            "False" | "false" => Some(0.0),
            t => t.parse().ok().filter(|x: &f64| x.is_finite()),
        },
        _ => None,
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn string_key(obj: &mut Map<String, Value>, key: &str) -> Result<String, String> {
    match obj.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!(
            "`{key}` should be a string, found {}",
            json_kind(&other)
        )),
        None => Err(format!("missing key `{key}`")),
    }
}

/// Parses one line of a step file.
pub fn parse_sample(raw: &[u8]) -> Result<Sample, String> {
    let text = line_text(raw)?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(mut obj) = value else {
        return Err(format!(
            "expected a JSON object, found {}",
            json_kind(&value)
        ));
    };
    let input = string_key(&mut obj, "input")?;
    // An aborted request has an empty response; a `null` one is read the same way.
    let output = match obj.get("output") {
        Some(Value::Null) => String::new(),
        _ => string_key(&mut obj, "output")?,
    };
    let score = obj.get("score").and_then(score_of);
    let step = match obj.get("step") {
        Some(Value::Number(n)) => n.as_u64().and_then(|s| u32::try_from(s).ok()),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    let gts = obj.get("gts").filter(|v| !v.is_null()).map(text_of);
    let uid = obj
        .get("uid")
        .filter(|v| !v.is_null())
        .map(text_of)
        .filter(|u| !u.is_empty());
    let extras = obj
        .iter()
        .filter(|(k, _)| !KNOWN_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), text_of(v)))
        .collect();
    Ok(Sample {
        input,
        output,
        gts,
        score,
        step,
        uid,
        extras,
    })
}
