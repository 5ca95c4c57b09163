//! Property tests of every reader of files sebx did not write: the rollout JSONL loader
//! (random bytes, truncated lines, invalid UTF-8, huge lines, deep JSON nesting, wrong
//! types, CRLF), the sidecar readers (damaged, interleaved, truncated records, then an
//! append), the taxonomy TOML and the user config TOML.
//!
//! Invariant of every loader: each bad line is reported with its number, each good one
//! is kept with its number and content, nothing panics.

use crate::prop as knobs;

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use sebx::model::labels::{LabelRecord, LabelStore};
use sebx::model::rollout::{MAX_LINE_BYTES, parse_rollout_bytes};
use sebx::model::taxonomy::{CategoryId, Taxonomy};
use sebx::model::{RolloutId, TestCase};
use serde_json::{Value, json};

/// A good rollout line's content.
#[derive(Debug, Clone)]
struct Good {
    query: String,
    response: String,
    cases: Vec<TestCase>,
    right: String,
    extra: Option<(String, Value)>,
}

impl Good {
    fn json(&self) -> String {
        let cases: Vec<Value> = self
            .cases
            .iter()
            .map(|c| json!({"input": c.input, "output": c.output}))
            .collect();
        let mut v = json!({"query": self.query, "response": self.response,
                           "test_cases": cases, "right_exe_result": self.right});
        if let Some((k, x)) = &self.extra
            && v.get(k).is_none()
        {
            v[k] = x.clone();
        }
        v.to_string()
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,40}",
        ".{0,20}",
        Just("```python\nimport zwc\ndef f(a):\n    return zwc.kocito(a)\n```".to_owned()),
        Just(String::new()),
    ]
}

fn good() -> impl Strategy<Value = Good> {
    (
        text(),
        text(),
        prop::collection::vec(
            (text(), text()).prop_map(|(input, output)| TestCase { input, output }),
            0..4,
        ),
        text(),
        prop::option::of((
            "[a-z_]{1,8}",
            prop_oneof![
                Just(json!(1)),
                Just(json!("right")),
                Just(json!([1, {"a": null}])),
                Just(json!(null))
            ],
        )),
    )
        .prop_map(|(query, response, cases, right, extra)| Good {
            query,
            response,
            cases,
            right,
            extra,
        })
}

/// A line that must be reported, never loaded.
#[derive(Debug, Clone)]
enum Bad {
    /// Random bytes (no newline), starting with a byte no JSON value starts with.
    Bytes(Vec<u8>),
    /// A good line cut short.
    Truncated(Good, usize),
    /// A good line with one byte replaced by a byte that never occurs in UTF-8.
    InvalidUtf8(Good, usize, u8),
    /// A required key with the wrong type, or missing.
    WrongType(Good, usize, Value),
    Missing(Good, usize),
    /// A bad test case entry.
    WrongCase(Good, Value),
    /// Deeply nested JSON (in a field or as the whole line).
    Deep(usize, bool),
    /// Valid JSON that is not an object.
    NotObject(Value),
    /// Over the size limit.
    Huge,
}

const REQUIRED: [&str; 4] = ["query", "response", "test_cases", "right_exe_result"];

impl Bad {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Bad::Bytes(b) => {
                let mut out = vec![b'\x01'];
                out.extend(b.iter().filter(|c| **c != b'\n'));
                out
            }
            Bad::Truncated(g, at) => {
                let line = g.json().into_bytes();
                let cut = 1 + at % (line.len() - 1);
                line[..cut].to_vec()
            }
            Bad::InvalidUtf8(g, at, byte) => {
                let mut line = g.json().into_bytes();
                let i = at % line.len();
                line[i] = *byte;
                line
            }
            Bad::WrongType(g, which, value) => {
                let mut v: Value = serde_json::from_str(&g.json()).expect("json");
                let key = REQUIRED[which % 4];
                let wrong = if key == "test_cases" && value.is_array() {
                    json!("not a list")
                } else if key != "test_cases" && value.is_string() {
                    json!(7)
                } else {
                    value.clone()
                };
                v[key] = wrong;
                v.to_string().into_bytes()
            }
            Bad::Missing(g, which) => {
                let mut v: Value = serde_json::from_str(&g.json()).expect("json");
                v.as_object_mut()
                    .expect("object")
                    .remove(REQUIRED[which % 4]);
                v.to_string().into_bytes()
            }
            Bad::WrongCase(g, case) => {
                let mut v: Value = serde_json::from_str(&g.json()).expect("json");
                let case = match case {
                    Value::Object(m) if m.get("input").is_some_and(Value::is_string) => {
                        json!({"input": 3})
                    }
                    other => other.clone(),
                };
                v["test_cases"] = json!([{"input": "a=1", "output": "1"}, case]);
                v.to_string().into_bytes()
            }
            Bad::Deep(n, whole) => {
                let nest = format!("{}{}", "[".repeat(*n), "]".repeat(*n));
                if *whole {
                    nest.into_bytes()
                } else {
                    format!(
                        "{{\"query\": {nest}, \"response\": \"r\", \"test_cases\": [], \"right_exe_result\": \"\"}}"
                    )
                    .into_bytes()
                }
            }
            Bad::NotObject(v) => v.to_string().into_bytes(),
            Bad::Huge => {
                let mut v = format!("{{\"query\": \"{}", "x".repeat(MAX_LINE_BYTES));
                v.push_str(
                    "\", \"response\": \"r\", \"test_cases\": [], \"right_exe_result\": \"\"}",
                );
                v.into_bytes()
            }
        }
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(3.5)),
        Just(json!("s")),
        Just(json!([1, 2])),
        Just(json!({"a": 1})),
    ]
}

fn bad() -> impl Strategy<Value = Bad> {
    prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 0..200).prop_map(Bad::Bytes),
        4 => (good(), any::<usize>()).prop_map(|(g, at)| Bad::Truncated(g, at)),
        3 => (good(), any::<usize>(), 0xf8u8..=0xff).prop_map(|(g, at, b)| Bad::InvalidUtf8(g, at, b)),
        3 => (good(), any::<usize>(), json_value()).prop_map(|(g, w, v)| Bad::WrongType(g, w, v)),
        2 => (good(), any::<usize>()).prop_map(|(g, w)| Bad::Missing(g, w)),
        2 => (good(), json_value()).prop_map(|(g, v)| Bad::WrongCase(g, v)),
        2 => (129usize..20_000, any::<bool>()).prop_map(|(n, w)| Bad::Deep(n, w)),
        1 => json_value().prop_filter("not an object", |v| !v.is_object()).prop_map(Bad::NotObject),
        1 => Just(Bad::Huge),
    ]
}

#[derive(Debug, Clone)]
enum Line {
    Good(Good),
    Bad(Bad),
    Blank(String),
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        5 => good().prop_map(Line::Good),
        5 => bad().prop_map(Line::Bad),
        1 => "[ \t\r]{0,3}".prop_map(Line::Blank),
    ]
}

proptest! {
    #![proptest_config(knobs::config(48, 8))]

    /// Every good line is kept (number, content, id), every bad one reported with its
    /// number, blank lines skipped; LF or CRLF, with or without a final newline.
    #[test]
    fn rollout_loader_keeps_good_lines_and_reports_bad_ones(
        lines in prop::collection::vec(line(), 0..12),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let mut bytes = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            match l {
                Line::Good(g) => bytes.extend(g.json().into_bytes()),
                Line::Bad(b) => bytes.extend(b.bytes()),
                Line::Blank(s) => bytes.extend(s.as_bytes()),
            }
            if i + 1 < lines.len() || final_newline {
                bytes.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            }
        }
        let loaded = parse_rollout_bytes(Path::new("prop.jsonl"), &bytes);
        let good: Vec<(usize, &Good)> = lines.iter().enumerate()
            .filter_map(|(i, l)| match l { Line::Good(g) => Some((i + 1, g)), _ => None }).collect();
        let bad: Vec<usize> = lines.iter().enumerate()
            .filter_map(|(i, l)| matches!(l, Line::Bad(_)).then_some(i + 1)).collect();
        prop_assert_eq!(loaded.rollouts.len(), good.len(), "issues: {:?}", loaded.issues);
        for (r, (line, g)) in loaded.rollouts.iter().zip(&good) {
            prop_assert_eq!(r.line, *line);
            prop_assert_eq!(&*r.query, g.query.as_str());
            prop_assert_eq!(&r.response, &g.response);
            prop_assert_eq!(&r.test_cases[..], &g.cases[..]);
            prop_assert_eq!(&*r.right_exe_result, g.right.as_str());
            prop_assert!(r.id.0.starts_with(&RolloutId::derive(&g.query, &g.response, 0).0));
        }
        prop_assert_eq!(loaded.issues.iter().map(|i| i.line).collect::<Vec<_>>(), bad);
        for issue in &loaded.issues {
            prop_assert!(!issue.reason.is_empty());
            prop_assert!(issue.reason.len() < 400, "reason too long: {}", issue.reason.len());
        }
        prop_assert_eq!(loaded.lines, good.len() + loaded.issues.len());
        // Ids are unique within a file.
        let mut ids: Vec<&str> = loaded.rollouts.iter().map(|r| r.id.0.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(ids.len(), loaded.rollouts.len());
    }

    /// Any bytes at all: no panic, and every non-blank line is either kept or reported.
    #[test]
    fn rollout_loader_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let loaded = parse_rollout_bytes(Path::new("r.jsonl"), &bytes);
        prop_assert_eq!(loaded.lines, loaded.rollouts.len() + loaded.issues.len());
        let lines: Vec<usize> = loaded.entries().iter().map(|e| match e { Ok(r) => r.line, Err(i) => i.line }).collect();
        let mut sorted = lines.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted, lines);
    }
}

// ---------------------------------------------------------------------------------------
// Sidecars

fn record() -> impl Strategy<Value = LabelRecord> {
    (
        "[0-9a-f]{16}",
        prop::collection::vec("[a-z][a-z0-9_]{0,10}", 0..3),
        "\\PC{0,20}",
        prop_oneof![Just("ann".to_owned()), Just("bo".to_owned()), "\\PC{1,8}"],
    )
        .prop_map(|(id, cats, note, annotator)| LabelRecord {
            rollout: RolloutId(id),
            categories: cats.iter().map(|c| CategoryId::new(c)).collect(),
            note,
            annotator,
            time: "2026-11-30T00:00:00.000Z".to_owned(),
        })
}

#[derive(Debug, Clone)]
enum SideLine {
    Good(LabelRecord),
    /// A record cut short (a crash mid-write).
    Truncated(LabelRecord, usize),
    /// Two writers' bytes mixed on one line: a prefix of one record, then another whole.
    Interleaved(LabelRecord, LabelRecord, usize),
    Garbage(Vec<u8>),
    Blank,
}

fn side_line() -> impl Strategy<Value = SideLine> {
    prop_oneof![
        6 => record().prop_map(SideLine::Good),
        2 => (record(), any::<usize>()).prop_map(|(r, at)| SideLine::Truncated(r, at)),
        2 => (record(), record(), any::<usize>()).prop_map(|(a, b, at)| SideLine::Interleaved(a, b, at)),
        1 => prop::collection::vec(any::<u8>(), 1..60).prop_map(SideLine::Garbage),
        1 => Just(SideLine::Blank),
    ]
}

fn side_bytes(l: &SideLine) -> Vec<u8> {
    let json = |r: &LabelRecord| serde_json::to_vec(r).expect("record");
    match l {
        SideLine::Good(r) => json(r),
        SideLine::Truncated(r, at) => {
            let b = json(r);
            b[..1 + at % (b.len() - 1)].to_vec()
        }
        SideLine::Interleaved(a, b, at) => {
            let a = json(a);
            let cut = 1 + at % (a.len() - 1);
            let mut out = a[..cut].to_vec();
            out.extend(json(b));
            out
        }
        SideLine::Garbage(g) => {
            let mut out = vec![b'#'];
            out.extend(g.iter().filter(|c| **c != b'\n'));
            out
        }
        SideLine::Blank => Vec::new(),
    }
}

proptest! {
    #![proptest_config(knobs::config(48, 8))]

    /// A damaged label sidecar: good records kept with their line numbers, damaged lines
    /// reported; the latest good record per (rollout, annotator) is current; an append after
    /// a damaged unterminated last line is read back intact and nothing earlier is lost.
    #[test]
    fn label_sidecar_survives_damage(
        lines in prop::collection::vec(side_line(), 0..10),
        final_newline in any::<bool>(),
        new in record(),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.jsonl.labels.jsonl");
        let mut bytes = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            bytes.extend(side_bytes(l));
            if i + 1 < lines.len() || final_newline {
                bytes.push(b'\n');
            }
        }
        std::fs::write(&path, &bytes).expect("write");
        let (mut store, issues) = LabelStore::open_sidecar(&path).expect("open");
        let good: Vec<(usize, &LabelRecord)> = lines.iter().enumerate()
            .filter_map(|(i, l)| match l { SideLine::Good(r) => Some((i + 1, r)), _ => None }).collect();
        let bad: Vec<usize> = lines.iter().enumerate()
            .filter_map(|(i, l)| (!matches!(l, SideLine::Good(_) | SideLine::Blank)).then_some(i + 1)).collect();
        prop_assert_eq!(issues.iter().map(|i| i.line).collect::<Vec<_>>(), bad);
        let history: Vec<&LabelRecord> = store.history().collect();
        prop_assert_eq!(history.len(), good.len());
        for (h, (_, g)) in history.iter().zip(&good) {
            prop_assert_eq!(*h, *g);
        }
        // Latest record per (rollout, annotator) wins.
        let mut latest: BTreeMap<(String, String), &LabelRecord> = BTreeMap::new();
        for (_, r) in &good {
            latest.insert((r.rollout.0.clone(), r.annotator.clone()), r);
        }
        for ((id, ann), r) in &latest {
            // A record with no categories and no note clears the label.
            let want = (!r.is_cleared()).then_some(*r);
            prop_assert_eq!(store.current(&RolloutId(id.clone()), ann), want);
        }
        store.append(new.clone()).expect("append");
        let (again, _) = LabelStore::open_sidecar(&path).expect("reopen");
        let history: Vec<&LabelRecord> = again.history().collect();
        prop_assert_eq!(history.len(), good.len() + 1);
        prop_assert_eq!(history.last().copied(), Some(&new));
        prop_assert_eq!(again.current(&new.rollout, &new.annotator), (!new.is_cleared()).then_some(&new));
    }
}

// ---------------------------------------------------------------------------------------
// Taxonomy and config TOML

#[derive(Debug, Clone)]
struct Cat {
    id: String,
    label: String,
    key: Option<String>,
    description: Option<String>,
}

fn cat() -> impl Strategy<Value = Cat> {
    (
        prop_oneof![4 => "[a-z][a-z0-9_]{0,8}", 1 => "\\PC{0,6}"],
        prop_oneof![4 => "[A-Za-z ]{1,12}", 1 => Just("  ".to_owned()), 1 => "\\PC{0,8}"],
        prop::option::of(prop_oneof![4 => "[0-9a-z]", 1 => "\\PC{0,2}", 1 => Just(" ".to_owned())]),
        prop::option::of("\\PC{0,20}"),
    )
        .prop_map(|(id, label, key, description)| Cat {
            id,
            label,
            key,
            description,
        })
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn taxonomy_toml(cats: &[Cat]) -> String {
    let mut out = String::from("# categories\n");
    for c in cats {
        out.push_str("\n[[category]]\n");
        out.push_str(&format!(
            "id = {}\nlabel = {}\n",
            quote(&c.id),
            quote(&c.label)
        ));
        if let Some(k) = &c.key {
            out.push_str(&format!("key = {}\n", quote(k)));
        }
        if let Some(d) = &c.description {
            out.push_str(&format!("description = {}\n", quote(d)));
        }
    }
    out
}

/// What the taxonomy rules say of a list of categories.
fn taxonomy_valid(cats: &[Cat]) -> bool {
    let snake = |id: &str| {
        let mut ch = id.chars();
        ch.next().is_some_and(|c| c.is_ascii_lowercase())
            && ch.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let mut ids = std::collections::HashSet::new();
    let mut keys = std::collections::HashSet::new();
    !cats.is_empty()
        && cats.iter().all(|c| {
            let key_ok = match &c.key {
                None => true,
                Some(k) => {
                    let mut ch = k.chars();
                    match (ch.next(), ch.next()) {
                        (Some(c), None) => !c.is_whitespace() && !c.is_control() && keys.insert(c),
                        _ => false,
                    }
                }
            };
            snake(&c.id) && ids.insert(c.id.clone()) && !c.label.trim().is_empty() && key_ok
        })
}

proptest! {
    #![proptest_config(knobs::config(96, 4))]

    /// Generated taxonomies are accepted exactly when the documented rules hold, and then
    /// read back unchanged; a rejection names a line inside the file.
    #[test]
    fn taxonomy_rules(cats in prop::collection::vec(cat(), 0..6)) {
        let text = taxonomy_toml(&cats);
        let parsed = Taxonomy::parse(&text, Some(Path::new("t.toml")));
        prop_assert_eq!(parsed.is_ok(), taxonomy_valid(&cats), "{:?}", parsed);
        match parsed {
            Ok(t) => {
                prop_assert_eq!(t.categories.len(), cats.len());
                for (got, want) in t.categories.iter().zip(&cats) {
                    prop_assert_eq!(&got.id.0, &want.id);
                    prop_assert_eq!(&got.label, &want.label);
                    prop_assert_eq!(got.key.map(String::from), want.key.clone());
                    prop_assert_eq!(&got.description, &want.description.clone().unwrap_or_default());
                }
            }
            Err(e) => {
                if let Some(line) = e.line {
                    prop_assert!(line >= 1 && line <= text.lines().count() + 1, "{}", e);
                }
                prop_assert!(e.to_string().starts_with("t.toml"), "{}", e);
            }
        }
    }

    /// Damaged TOML (the default taxonomy and a config with bytes deleted, duplicated or
    /// inserted): never a panic; an error's line is inside the text.
    #[test]
    fn damaged_toml_is_an_error_not_a_crash(
        which in any::<bool>(),
        edits in prop::collection::vec((any::<usize>(), 0u8..3, prop::sample::select(&["[", "]", "\"", "=", "\n", "'''", "\\", "é", "#", "[[category]]"][..])), 1..6),
    ) {
        let base = if which { sebx::model::taxonomy::DEFAULT_TAXONOMY_TOML.to_owned() } else { CONFIG.to_owned() };
        let mut chars: Vec<String> = base.chars().map(String::from).collect();
        for (at, op, piece) in &edits {
            let i = at % chars.len().max(1);
            match op {
                0 if !chars.is_empty() => { chars.remove(i); }
                1 if !chars.is_empty() => { let c = chars[i].clone(); chars.insert(i, c); }
                _ => chars.insert(i.min(chars.len()), (*piece).to_owned()),
            }
        }
        let text = chars.concat();
        if let Err(e) = Taxonomy::parse(&text, None)
            && let Some(line) = e.line
        {
            prop_assert!(line >= 1 && line <= text.lines().count() + 1, "{}", e);
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, &text).expect("write");
        match sebx::tui::explore::load_config(Some(&path)) {
            Ok(config) => {
                let mut keymap = sebx::tui::Keymap::default();
                if let Err(e) = keymap.apply_config(&config.keys) {
                    prop_assert!(e.to_string().contains('`'), "{}", e);
                }
                if let Some(theme) = &config.theme {
                    let _ = sebx::tui::Theme::resolve(theme, Some(dir.path()));
                }
            }
            Err(e) => prop_assert!(format!("{e:#}").contains("config.toml"), "{:#}", e),
        }
    }

    /// Any key name and action name in `[keys]`: accepted or refused with the key named.
    #[test]
    fn config_keys(key in "\\PC{0,12}", action in prop_oneof![Just("quit".to_owned()), Just("none".to_owned()), "[a-z_]{0,12}"]) {
        let mut overrides = BTreeMap::new();
        overrides.insert(key.clone(), action);
        let mut keymap = sebx::tui::Keymap::default();
        if let Err(e) = keymap.apply_overrides(&overrides) {
            prop_assert!(e.to_string().contains(&format!("`{key}`")), "{}", e);
        }
    }
}

const CONFIG: &str = "theme = \"high-contrast\"\nannotator = \"ann\"\n\n[keys]\n\"x\" = \"quit\"\n\"j\" = \"none\"\n\"ctrl-d\" = \"quit\"\n";
