//! One line of a step file as verl writes it, in every version from 0.4 to 0.9: `input`,
//! `output`, `score`, `step`, `gts` (from 0.6), `uid` (0.9's default trainer) and the reward's
//! extra keys (`acc`, `request_id`, …), which from 0.8 may be strings (`"True"`, `"[1 2 3]"`)
//! and in 0.9's validation dumps `null`. Extras are kept as written; none is a load error.

use std::sync::Arc;

use serde::de::DeserializeSeed;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::model::python_json;
use crate::model::rollout::{json_kind, line_text};

/// The keys sebx reads itself; every other key is an extra.
const KNOWN_KEYS: [&str; 6] = ["input", "output", "gts", "score", "step", "uid"];

/// One parsed sample line.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The prompt; consecutive lines with the same prompt (a GRPO group's) share one text.
    pub input: Arc<str>,
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
            // `NaN`, `Infinity`, `-Infinity` as written (bare, or verl 0.8's `"nan"`):
            // kept as such, so the score shows as written and counts as unknown.
            t => python_json::non_finite(t)
                .or_else(|| t.parse().ok().filter(|x: &f64| x.is_finite())),
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

/// Parses one line of a step file: the typed reading ([`Typed`]) when the line is a
/// well-formed sample, else the reading through a JSON value, which says what is wrong.
pub fn parse_sample(raw: &[u8]) -> Result<Sample, String> {
    parse_sample_with(&mut PromptMemo::default(), raw)
}

/// The last prompt read, as written and as text: the samples of a GRPO group come
/// together and share their prompt (most of a line), so a run of lines unescapes and
/// allocates it once, and the reader sees one shared text.
#[derive(Default)]
pub(super) struct PromptMemo<'a> {
    last: Option<(&'a str, Arc<str>)>,
}

/// [`parse_sample`] for the next line of a run of lines, sharing the prompt of the last.
pub(super) fn parse_sample_with<'a>(
    memo: &mut PromptMemo<'a>,
    raw: &'a [u8],
) -> Result<Sample, String> {
    let text = line_text(raw)?;
    if let Some(sample) = read_typed(memo, text) {
        return Ok(sample);
    }
    // `json.dumps` writes a float that is not finite bare (`"acc": NaN`): read as a string.
    match python_json::finite_json(text) {
        std::borrow::Cow::Borrowed(text) => parse_value(text),
        std::borrow::Cow::Owned(text) => {
            read_typed(&mut PromptMemo::default(), &text).map_or_else(|| parse_value(&text), Ok)
        }
    }
}

/// The typed reading of a line's text ([`Typed`]), `None` where it gives up.
pub(super) fn read_typed<'a>(memo: &mut PromptMemo<'a>, text: &'a str) -> Option<Sample> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Typed(sample) = TypedSeed(memo).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(sample)
}

/// A sample read straight into its fields, no JSON value built for the line (a map of
/// keys, a value per key): the dump's common case, a third faster. Anything it does not
/// expect (a key with escapes, `input` not a string, `output` neither a string nor `null`)
/// fails it, and [`parse_value`] reads the line again to say what is wrong; on a good
/// line the two read the same sample (extras in key order, a repeated key's last value).
struct Typed(Sample);

/// Reads a [`Typed`] sample, taking its prompt from the memo when it is the last one's.
struct TypedSeed<'m, 'a>(&'m mut PromptMemo<'a>);

impl<'de> DeserializeSeed<'de> for TypedSeed<'_, 'de> {
    type Value = Typed;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Typed, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for TypedSeed<'_, 'de> {
    type Value = Typed;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sample object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Typed, A::Error> {
        let (mut input, mut output) = (None, None);
        let (mut score, mut step, mut gts, mut uid) = (None, None, None, None);
        let mut extras: Vec<(String, String)> = Vec::new();
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "input" => {
                    let raw = map.next_value::<&'de RawValue>()?.get();
                    let text = match &self.0.last {
                        Some((last, text)) if *last == raw => text.clone(),
                        _ => {
                            let text: Arc<str> = serde_json::from_str::<String>(raw)
                                .map_err(serde::de::Error::custom)?
                                .into();
                            self.0.last = Some((raw, text.clone()));
                            text
                        }
                    };
                    input = Some(text);
                }
                "output" => output = Some(map.next_value::<Option<String>>()?.unwrap_or_default()),
                "score" => score = Some(map.next_value::<Value>()?),
                "step" => step = Some(map.next_value::<Value>()?),
                "gts" => gts = Some(map.next_value::<Value>()?),
                "uid" => uid = Some(map.next_value::<Value>()?),
                other => {
                    let v = map.next_value::<Value>()?;
                    extras.push((other.to_string(), text_of(&v)));
                }
            }
        }
        let missing = |k| serde::de::Error::custom(format!("missing key `{k}`"));
        let input = input.ok_or_else(|| missing("input"))?;
        let output = output.ok_or_else(|| missing("output"))?;
        // As a map would hold them: sorted by key, a repeated key's last value.
        extras.reverse();
        extras.sort_by(|a, b| a.0.cmp(&b.0));
        extras.dedup_by(|later, first| later.0 == first.0);
        Ok(Typed(Sample {
            input,
            output,
            gts: gts.as_ref().and_then(gts_of),
            score: score.as_ref().and_then(score_of),
            step: step.as_ref().and_then(step_of),
            uid: uid.as_ref().and_then(uid_of),
            extras,
        }))
    }
}

fn step_of(v: &Value) -> Option<u32> {
    match v {
        Value::Number(n) => n.as_u64().and_then(|s| u32::try_from(s).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn gts_of(v: &Value) -> Option<String> {
    (!v.is_null()).then(|| text_of(v))
}

fn uid_of(v: &Value) -> Option<String> {
    gts_of(v).filter(|u| !u.is_empty())
}

/// Parses one line through a JSON value (see [`parse_sample`]).
pub(super) fn parse_value(text: &str) -> Result<Sample, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    sample_of_value(value)
}

/// The sample a line's JSON value holds, or what is wrong with it.
pub(super) fn sample_of_value(value: Value) -> Result<Sample, String> {
    let Value::Object(mut obj) = value else {
        return Err(format!(
            "expected a JSON object, found {}",
            json_kind(&value)
        ));
    };
    let input = string_key(&mut obj, "input")?.into();
    // An aborted request has an empty response; a `null` one is read the same way.
    let output = match obj.get("output") {
        Some(Value::Null) => String::new(),
        _ => string_key(&mut obj, "output")?,
    };
    let score = obj.get("score").and_then(score_of);
    let step = obj.get("step").and_then(step_of);
    let gts = obj.get("gts").and_then(gts_of);
    let uid = obj.get("uid").and_then(uid_of);
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
