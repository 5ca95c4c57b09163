use super::folder::folder_name;
use super::*;
use crate::model::TestCase;
use std::path::PathBuf;

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
    assert_eq!((ma.step, ma.group, ma.score), (3, 0, Some(1.0)));
    assert_eq!(&*a.query, "Average the readings.");
    assert_eq!(a.test_cases.len(), 1);
    assert_eq!(&*a.right_exe_result, "1.5");
    assert!(
        a.stored_score.is_none(),
        "the training reward is no verdict"
    );
    // Same prompt, same group; the same response again is a second occurrence.
    assert_eq!(mb.group, 0);
    assert_ne!(a.id, b.id);
    assert_eq!(mb.gts_differs.as_deref(), Some("2.5"));
    assert_eq!(ma.gts_differs, None);
    assert_eq!((mc.group, mc.joined), (1, JoinedBy::Unjoined));
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
    // It says which steps there are and where a verl run keeps them.
    assert!(
        missing.to_string().contains("it has 3 steps, 0 to 10"),
        "{missing}"
    );
    assert!(
        missing
            .to_string()
            .contains("a verl run's step files are {step}.jsonl"),
        "{missing}"
    );

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

/// A reader over one dataset item, for the tests below.
fn read(text: &str) -> StepLoad {
    let ds = dataset(&[item("Average the readings.", "1.5")]);
    let index = JoinIndex::new(&ds);
    let mut reader = RunReader::new(&index, &ds);
    reader.read_step(Path::new("run/4.jsonl"), 4, text.as_bytes())
}

#[test]
fn uid_splits_one_prompt_into_its_groups_and_text_merges_them() {
    let p = prompt("Average the readings.");
    let line = |uid: Option<&str>, score: f64| {
        let mut v = serde_json::json!({"input": p, "output": "o", "score": score});
        if let Some(u) = uid {
            v["uid"] = serde_json::json!(u);
        }
        v.to_string()
    };
    // verl 0.9: two samplings of one prompt in a batch, each its own prompt uid.
    let text = [
        line(Some("a1b2_0_0"), 1.0),
        line(Some("a1b2_1_0"), 0.0),
        line(Some("c3d4_0_0"), 1.0),
        line(Some("c3d4_1_0"), 1.0),
    ]
    .join("\n");
    let got = read(&text);
    let groups: Vec<(u32, Option<&str>)> = got
        .rollouts
        .iter()
        .map(|r| {
            let m = r.sample.as_deref().expect("meta");
            (m.group, m.group_uid.as_deref())
        })
        .collect();
    assert_eq!(
        groups,
        [
            (0, Some("a1b2")),
            (0, Some("a1b2")),
            (1, Some("c3d4")),
            (1, Some("c3d4"))
        ]
    );
    // Before 0.9 no uid: the prompt text is the group, both samplings in one.
    let text = [line(None, 1.0), line(None, 0.0), line(None, 1.0)].join("\n");
    let got = read(&text);
    assert!(got.rollouts.iter().all(|r| {
        r.sample
            .as_deref()
            .is_some_and(|m| m.group == 0 && m.group_uid.is_none())
    }));
}

#[test]
fn the_group_of_a_uid_is_its_prompt_part() {
    assert_eq!(group_of_uid("5f0c-9e_3_0"), "5f0c-9e");
    // A dataset uid with underscores keeps them: only the two trailing numbers go.
    assert_eq!(group_of_uid("task_12_7_1"), "task_12");
    // A bare uuid (no session and index) is itself the group.
    assert_eq!(group_of_uid("0b9d6a3e-1c2f"), "0b9d6a3e-1c2f");
    assert_eq!(group_of_uid("x_y_z"), "x_y_z");
    assert_eq!(group_of_uid("_1_2"), "_1_2");
}

#[test]
fn string_and_null_extras_are_kept_never_an_error() {
    let text = [
        r#"{"input": "i", "output": "o", "score": "True", "acc": "True", "pred": "[1 2 3]", "request_id": "r-1"}"#,
        r#"{"input": "i", "output": "o", "gts": null, "score": null, "acc": null, "step": null, "uid": null}"#,
        r#"{"input": "i", "output": null, "score": 0.0}"#,
    ]
    .join("\n");
    let got = read(&text);
    assert!(got.issues.is_empty(), "{:?}", got.issues);
    let [a, b, c] = got.rollouts.as_slice() else {
        panic!("three rollouts");
    };
    let (ma, mb, mc) = (
        a.sample.as_deref().expect("meta"),
        b.sample.as_deref().expect("meta"),
        c.sample.as_deref().expect("meta"),
    );
    assert_eq!(ma.score, Some(1.0), "a score written as \"True\" is 1");
    let extras: Vec<(&str, &str)> = ma.extras.iter().map(|(k, v)| (&**k, &**v)).collect();
    assert_eq!(
        extras,
        [("acc", "True"), ("pred", "[1 2 3]"), ("request_id", "r-1")]
    );
    assert_eq!(
        (mb.score, mb.step, mb.gts_differs.as_deref()),
        (None, 4, None)
    );
    assert_eq!(&*mb.extras, &[(Arc::from("acc"), Arc::from("null"))]);
    // One `acc` key for the run's samples.
    assert!(Arc::ptr_eq(&ma.extras[0].0, &mb.extras[0].0));
    assert_eq!(
        (ma.extra("pred"), mb.extra("pred")),
        (Some("[1 2 3]"), None)
    );
    assert!(!ma.empty_output && !mb.empty_output);
    assert!(mc.empty_output, "a null output is an aborted request");
    assert_eq!(c.response, "");
}

#[test]
fn a_torn_last_line_is_named_as_such_and_the_rest_is_read() {
    let whole = r#"{"input": "i", "output": "o", "score": 1.0}"#;
    let text = format!("{whole}\n{whole}\n{{\"input\": \"i\", \"outp");
    let got = read(&text);
    assert_eq!(got.rollouts.len(), 2);
    assert_eq!(got.issues.len(), 1);
    assert_eq!(got.issues[0].line, 3);
    assert_eq!(got.issues[0].reason, TORN_LINE);
    // A bad line that ends in a newline is no torn line: its own reason stays.
    let got = read(&format!("{{nope\n{whole}\n"));
    assert!(
        got.issues[0].reason.starts_with("not valid JSON"),
        "{:?}",
        got.issues
    );
}

#[test]
fn other_jsonl_files_of_a_dump_folder_are_skipped_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sample = serde_json::json!({"input": "i", "output": "o"}).to_string();
    for name in ["1.jsonl", "2.jsonl", "notes.jsonl", "val.jsonl"] {
        std::fs::write(dir.path().join(name), format!("{sample}\n")).expect("write");
    }
    std::fs::write(dir.path().join("README.txt"), "x").expect("write");
    let runs = find_runs(dir.path()).expect("read").expect("a run");
    let run = &runs[0];
    assert_eq!(run.steps.len(), 2);
    let notes = run.skipped_notes();
    let named: Vec<String> = notes
        .iter()
        .map(|n| {
            n.source
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(named, ["notes.jsonl", "val.jsonl"]);
    assert_eq!(notes[0].line, 0);
    let shown = notes[0].to_string();
    assert!(
        shown.contains("notes.jsonl: skipped: not a step file of run "),
        "{shown}"
    );
    // One step named: only that step file is read, nothing is noted.
    let at = find_runs(&PathBuf::from(format!("{}@2", dir.path().display())))
        .expect("read")
        .expect("a run");
    assert!(at[0].skipped.is_empty());
}

/// A chunk big enough to be parsed on several threads reads exactly as line-by-line
/// parsing does: the same rollouts in line order (ids, duplicate occurrences and groups
/// numbered in order), the bad lines named by their own line numbers.
#[test]
fn a_big_chunk_parsed_in_parallel_reads_as_line_by_line() {
    let data = dataset(&[item("Average the readings.", "1.5")]);
    let index = JoinIndex::new(&data);
    let mut lines = Vec::new();
    for i in 0..3000 {
        if i % 997 == 5 {
            lines.push(format!("{{broken {i}"));
            continue;
        }
        // Responses repeat every 7 lines (duplicate occurrences), prompts every 3.
        let padding = "x".repeat(200);
        lines.push(
            serde_json::json!({"input": prompt(if i % 3 == 0 { "Average the readings." } else { "Other task." }),
                "output": format!("<think>{padding}</think>```python\nv = {}\n```", i % 7),
                "score": (i % 2) as f64, "step": 4})
            .to_string(),
        );
    }
    let text = lines.join("\n") + "\n";
    assert!(
        text.len() > PARALLEL_PARSE_BYTES,
        "big enough to go parallel"
    );
    let mut reader = RunReader::new(&index, &data);
    let got = reader.read_step(Path::new("run/4.jsonl"), 4, text.as_bytes());
    // The same, one line at a time.
    let mut one = RunReader::new(&index, &data);
    let mut want = StepLoad::default();
    for (i, l) in lines.iter().enumerate() {
        let part = one.read_lines(Path::new("run/4.jsonl"), 4, format!("{l}\n").as_bytes(), i);
        want.rollouts.extend(part.rollouts);
        want.issues.extend(part.issues);
        want.lines += part.lines;
    }
    assert_eq!(got.lines, 3000);
    assert_eq!(got.issues, want.issues);
    assert_eq!(
        got.issues.iter().map(|i| i.line).collect::<Vec<_>>(),
        [6, 1003, 2000, 2997]
    );
    // Rollouts compare by what they are: id, line, task, response, step, group, score.
    let seen = |rs: &[Rollout]| -> Vec<String> {
        rs.iter()
            .map(|r| {
                let m = r.sample.as_deref().expect("meta");
                format!(
                    "{} {} {} {} {} {} {:?}",
                    r.id, r.line, r.query, r.response, m.step, m.group, m.score
                )
            })
            .collect()
    };
    assert_eq!(seen(&got.rollouts), seen(&want.rollouts));
    assert!(
        got.rollouts.iter().any(|r| r.id.0.contains('~')),
        "duplicates numbered"
    );
    // Each id is its own query's and response's (hashed apart from the rest of the row).
    for r in &got.rollouts {
        let base = RolloutId::derive(&r.query, &r.response, 0);
        let own = r.id.0.split('~').next().expect("an id");
        assert_eq!(own, base.0, "line {}", r.line);
    }
}

/// The typed reading of a line and the reading through a JSON value give the same sample
/// on every line, or the same error: hand-picked shapes (every verl version's, repeated
/// keys, escaped keys, odd types) and seeded random lines made of them, read in a row with
/// one prompt memo as a dump's lines are (neighbours share a prompt, or write it apart).
#[test]
fn the_typed_reading_and_the_value_reading_agree() {
    let picked = [
        r#"{"input": "i", "output": "o"}"#,
        r#"{"input": "i\nj", "output": null, "score": 1, "step": 3}"#,
        r#"{"input": "i", "output": "", "score": "True", "step": "7", "gts": "[1 2]"}"#,
        r#"{"input": "i", "output": "o", "gts": null, "uid": "p_0_3", "acc": "False", "pred": "[1 2 3]"}"#,
        r#"{"input": "i", "output": "o", "uid": "", "acc": null, "request_id": 12, "x": [1, {"a": 2}]}"#,
        r#"{"input": "i", "output": "o", "acc": 1, "acc": 2, "input": "second"}"#,
        r#"{"input": "i", "output": "o", "\u0061cc": true, "score": 0.25}"#,
        r#"{"input": "i", "output": "o", "gts": 3.5, "uid": 7, "step": -1, "score": false}"#,
        r#"{"input": 3, "output": "o"}"#,
        r#"{"input": "i", "output": 3}"#,
        r#"{"input": "i", "output": "o", "input": null}"#,
        r#"{"output": "o"}"#,
        r#"{"input": "i"}"#,
        r#"[1]"#,
        r#"{"input": "i", "output": "o"} x"#,
        r#"{"input": "i", "output": "o",}"#,
    ];
    // Seeded lines: keys and values drawn from the shapes above, in any order, repeated.
    let keys = [
        "input", "output", "score", "step", "gts", "uid", "acc", "pred", "z",
    ];
    let values = [
        r#""text""#,
        r#""a\"b\n""#,
        "null",
        "1",
        "0.5",
        r#""True""#,
        "[1, 2]",
        r#"{"k": null}"#,
        "false",
        r#""12""#,
    ];
    // Prompts as a dump writes them: the same text twice, once with an escape for `t`.
    let prompts = [r#""q\tx""#, r#""q\tx""#, r#""q\u0009x""#, r#""p\n""#];
    let mut seed: u64 = 0x5eb1;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let mut lines: Vec<String> = picked.iter().map(|l| l.to_string()).collect();
    for _ in 0..3000 {
        let mut fields: Vec<String> = (0..1 + next(9))
            .map(|_| {
                format!(
                    r#""{}": {}"#,
                    keys[next(keys.len())],
                    values[next(values.len())]
                )
            })
            .collect();
        // Most lines are samples: a string input and output somewhere among the keys.
        if next(4) > 0 {
            let prompt = prompts[next(prompts.len())];
            fields.insert(next(fields.len() + 1), format!(r#""input": {prompt}"#));
            fields.insert(next(fields.len() + 1), r#""output": "a""#.to_string());
        }
        lines.push(format!("{{{}}}", fields.join(", ")));
    }
    let mut memo = line::PromptMemo::default();
    let mut typed_read = 0;
    for line in &lines {
        let value = line::parse_value(line);
        match line::read_typed(&mut memo, line) {
            Some(t) => {
                typed_read += 1;
                assert_eq!(Ok(t), value, "{line}");
            }
            // The typed reading gives up; the value reading is what parse_sample says.
            None => assert_eq!(parse_sample(line.as_bytes()), value, "{line}"),
        }
        let mut fresh = line::PromptMemo::default();
        assert_eq!(
            line::parse_sample_with(&mut memo, line.as_bytes()),
            line::parse_sample_with(&mut fresh, line.as_bytes()),
            "{line}"
        );
    }
    assert!(
        typed_read > 1000,
        "the typed reading took {typed_read} lines"
    );
}

/// A line as Python's `json.dumps` writes it (`", "` and `": "`), with `score` and one
/// extra written bare (`NaN`, `Infinity`, `-Infinity` or a number).
fn python_line(output: &str, score: &str, acc: &str) -> String {
    format!(
        "{{\"input\": {}, \"output\": {}, \"gts\": \"1.5\", \"score\": {score}, \"step\": 4, \"acc\": {acc}}}",
        serde_json::json!(prompt("Average the readings.")),
        serde_json::json!(output),
    )
}

#[test]
fn nan_and_infinity_anywhere_are_read_as_written_and_never_cost_a_line() {
    // Every line has a bare NaN extra (before: every line "not valid JSON", nothing read).
    let text = [
        python_line("a", "1.0", "NaN"),
        python_line("b", "NaN", "NaN"),
        python_line("c", "Infinity", "NaN"),
        python_line("d", "-Infinity", "[NaN, 1]"),
        // A string that says NaN is a string; a prompt mentioning NaN stays as written.
        python_line("zwc.isnan(x) is NaN", "0.0", "\"NaN\""),
    ]
    .join("\n");
    let got = read(&text);
    assert!(got.issues.is_empty(), "{:?}", got.issues);
    let metas: Vec<&SampleMeta> = got
        .rollouts
        .iter()
        .map(|r| r.sample.as_deref().expect("meta"))
        .collect();
    assert_eq!(metas.len(), 5);
    assert_eq!(metas[0].score, Some(1.0));
    assert!(
        metas[1].score.is_some_and(f64::is_nan),
        "NaN is kept, not 0"
    );
    assert_eq!(metas[2].score, Some(f64::INFINITY));
    assert_eq!(metas[3].score, Some(f64::NEG_INFINITY));
    assert_eq!(got.rollouts[4].response, "zwc.isnan(x) is NaN");
    let acc = |m: &SampleMeta| {
        m.extras
            .iter()
            .find(|(k, _)| &**k == "acc")
            .map(|(_, v)| v.to_string())
    };
    assert_eq!(acc(metas[0]).as_deref(), Some("NaN"));
    assert_eq!(acc(metas[3]).as_deref(), Some("[\"NaN\",1]"));
    // One group: the prompt's.
    assert!(metas.iter().all(|m| m.group == 0));
}

#[test]
fn a_dump_whose_first_line_has_nan_is_still_a_dump() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("rollout");
    std::fs::create_dir(&run).expect("mkdir");
    std::fs::write(run.join("4.jsonl"), python_line("a", "NaN", "NaN") + "\n").expect("write");
    let runs = find_runs(&run).expect("read").expect("a run");
    assert_eq!(runs[0].steps.len(), 1);
}

/// verl 0.9's V1 trainer (`verl/trainer/ppo/v1/trainer_base.py`): a training dump has
/// `input, output, gts, score, step, uid` and no extras, `uid` written as
/// `{uid}_{session}_{index}` and the lines sorted by it; a session with several outputs
/// dumps each with the session's final score.
#[test]
fn v1_training_dump_groups_by_the_uid_prompt_part_across_sessions_and_outputs() {
    let p = prompt("Average the readings.");
    let line = |uid: &str, out: &str, score: f64| {
        format!(
            "{{\"input\": {}, \"output\": {}, \"gts\": \"1.5\", \"score\": {score:?}, \"step\": 4, \"uid\": \"{uid}\"}}",
            serde_json::json!(p),
            serde_json::json!(out)
        )
    };
    // In uid order, as strings: session 10 before session 2. Two samplings of the prompt
    // (prompt uids 0d1e and 9f2a); session 1 of 0d1e has two outputs, both scored 1.
    let lines = [
        line("0d1e-77_0_0", "a", 1.0),
        line("0d1e-77_10_0", "b", 1.0),
        line("0d1e-77_1_0", "c", 1.0),
        line("0d1e-77_1_1", "d", 1.0),
        line("0d1e-77_2_0", "e", 1.0),
        line("9f2a-01_0_0", "f", 0.0),
        line("9f2a-01_1_0", "g", 1.0),
    ];
    let got = read(&lines.join("\n"));
    assert!(got.issues.is_empty(), "{:?}", got.issues);
    let groups: Vec<(u32, Option<&str>, bool)> = got
        .rollouts
        .iter()
        .map(|r| {
            let m = r.sample.as_deref().expect("meta");
            (m.group, m.group_uid.as_deref(), m.extras.is_empty())
        })
        .collect();
    let g = |n, u| (n, Some(u), true);
    assert_eq!(
        groups,
        [
            g(0, "0d1e-77"),
            g(0, "0d1e-77"),
            g(0, "0d1e-77"),
            g(0, "0d1e-77"),
            g(0, "0d1e-77"),
            g(1, "9f2a-01"),
            g(1, "9f2a-01")
        ]
    );
    // The two outputs of session 1 are two rollouts, each with the session's score.
    let outputs: Vec<&str> = got.rollouts.iter().map(|r| r.response.as_str()).collect();
    assert_eq!(outputs, ["a", "b", "c", "d", "e", "f", "g"]);
}
