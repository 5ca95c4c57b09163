//! One training run written by each framework's dump writer, as its own code writes it, and
//! read by `sebx stats --by step` (the path a user takes): every format gives the per-step
//! figures of the verl dump. The writers here follow (read, not copied):
//! - verl 0.8 `verl/trainer/ppo/ray_trainer.py` `_dump_generations`: `{step}.jsonl`, keys
//!   input, output, gts, score, step and the reward's extras, `json.dumps` per line (so an
//!   extra that is NaN is written bare: `"acc": NaN`);
//! - verl 0.9 `verl/trainer/ppo/v1/trainer_base.py`: input, output, gts, score, step, uid
//!   (`{uid}_{session}_{index}`), lines sorted by uid, no extras; a session with two
//!   outputs dumps both with the session's score;
//! - SkyRL `skyrl_train/utils/trainer_utils.py` `dump_per_dataset_eval_results`:
//!   `dumped_evals/global_step_{N}_evals/{data_source}.jsonl` (input_prompt, output_response,
//!   score, stop_reason, env_class, env_extras, data_source) and `aggregated_results.jsonl`;
//! - NeMo-RL `nemo_rl/utils/logger.py` `log_batched_dict_as_jsonl` from
//!   `nemo_rl/algorithms/grpo.py`: `train_data_step{N}.jsonl`, one line per sample, each
//!   column a list of that sample's value (`make_microbatch_iterator(1)`), plus `idx`;
//! - AReaL `areal/infra/workflow_executor.py` `_dump_trajectory`:
//!   `{version}/{task_id}.jsonl`, appended, prompt and completion decoded with special tokens;
//! - ROLL `roll/pipeline/rlvr/utils.py` `write_to_json_process`:
//!   `rollout_dump_data.step_{N}.jsonl`, the whole batch as one line of columns;
//! - prime-rl `src/prime_rl/monitors/file.py` `FileMonitor.log_episodes` with verifiers'
//!   `verifiers/v1/episode.py` `Episode.to_record`: `rollouts/step_{N}/train/all/traces.jsonl`,
//!   one episode a line (its traces' message nodes, rewards, group and step);
//! - TRL `trl/trainer/grpo_trainer.py` `GRPOTrainer.log`: a pandas DataFrame per logging
//!   step written with `to_parquet` (pyarrow, snappy) to
//!   `completions/completions_{step:05d}.parquet` (step, prompt, completion, a float column
//!   per reward function, the `log_extra` columns, advantage). Parquet is not written here:
//!   the same run is in `tests/fixtures/trl/`, written by pandas itself
//!   (`tests/fixtures/trl/make_fixture.py`, which mirrors that code; keep it in step with
//!   `run()`).
//!
//! Prompts are chat-formatted (Qwen's template decoded with its special tokens), so the join
//! to SE-Bench tasks goes through the template. Graded through the real engine (Python
//! runtime required: `sebx runtime install`).

use crate::isolated;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

const MEAN_Q: &str = "Given a list `values`, return their arithmetic mean as a float.";
const SUM_Q: &str = "Given a list `values`, return their total as an int.";

fn api_doc() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("samples/demo/api_doc.jsonl")
}

fn dataset_line(query: &str, func: &str, cases: &[(&str, &str)]) -> String {
    let expected: Vec<&str> = cases.iter().map(|c| c.1).collect();
    json!({
        "query": query,
        "function_name": "def solve(values):",
        "selected_functions": [func],
        "test_cases": cases.iter().map(|(i, o)| json!({"input": i, "output": o})).collect::<Vec<_>>(),
        "example": {"input": cases[0].0, "output": cases[0].1},
        "right_exe_result": expected.join("#"),
    })
    .to_string()
}

/// The user message of an SE-Bench RL prompt.
fn user_message(problem: &str) -> String {
    format!(
        "Solve with zwc.\n\n### Problem\n{problem}\n\n### Test Cases\nvalues=[1, 2, 3]\n\n### Function to Complete\ndef solve(values):"
    )
}

/// The prompt as a tokenizer decodes it with its special tokens (SkyRL's `decode`).
fn templated(problem: &str) -> String {
    format!(
        "<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n",
        user_message(problem)
    )
}

/// The prompt as verl writes it (`skip_special_tokens=True`: role words stay as text).
fn decoded(problem: &str) -> String {
    format!("user\n{}\nassistant\n", user_message(problem))
}

fn code(body: &str) -> String {
    format!("```python\nimport zwc\n\ndef solve(values):\n    {body}\n```")
}

const MEAN_RIGHT: &str = "return float(zwc.kocito(values))";
const MEAN_NUMPY: &str = "return float(zwc.mean(values))";
const SUM_RIGHT: &str = "return int(zwc.baluvo(values))";
const SUM_WRONG: &str = "return int(zwc.baluvo(values)) + 1";

/// One sample of the run: its task (query, gts), its session in the group, its response
/// and the session's score.
struct S {
    query: &'static str,
    gts: &'static str,
    session: usize,
    output: String,
    score: f64,
}

/// The run: step → samples, a GRPO group per task per step (sessions 0..n; session 1 of
/// the step-1 mean group has two outputs, both scored as the session).
fn run() -> Vec<(u32, Vec<S>)> {
    let s = |query, gts, session, body: &str, score| S {
        query,
        gts,
        session,
        output: code(body),
        score,
    };
    vec![
        (
            1,
            vec![
                // Mean: every session scored 1 (zero variance), two outputs in session 1.
                s(MEAN_Q, "2.0#4.0", 0, MEAN_RIGHT, 1.0),
                s(MEAN_Q, "2.0#4.0", 1, MEAN_RIGHT, 1.0),
                s(MEAN_Q, "2.0#4.0", 1, MEAN_NUMPY, 1.0),
                s(SUM_Q, "3#5", 0, SUM_RIGHT, 1.0),
                s(SUM_Q, "3#5", 1, SUM_WRONG, 0.0),
            ],
        ),
        (
            2,
            vec![
                s(MEAN_Q, "2.0#4.0", 0, MEAN_NUMPY, 0.0),
                s(MEAN_Q, "2.0#4.0", 1, MEAN_RIGHT, 1.0),
                s(SUM_Q, "3#5", 0, SUM_WRONG, 0.0),
                s(SUM_Q, "3#5", 1, SUM_WRONG, 0.0),
            ],
        ),
    ]
}

/// Python's `json.dumps` of an object whose values are already JSON text (`", "`, `": "`).
fn py_dumps(pairs: &[(&str, String)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}: {v}", json!(k)))
        .collect();
    format!("{{{}}}", body.join(", "))
}

fn write(path: &Path, lines: &[String]) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, lines.join("\n") + "\n").expect("write");
}

/// verl 0.8: `{step}.jsonl`, extras from the reward function, one of them NaN on every line.
fn write_verl_08(dir: &Path) {
    for (step, samples) in run() {
        let lines: Vec<String> = samples
            .iter()
            .map(|s| {
                py_dumps(&[
                    ("input", json!(decoded(s.query)).to_string()),
                    ("output", json!(s.output).to_string()),
                    ("gts", json!(s.gts).to_string()),
                    ("score", format!("{:?}", s.score)),
                    ("step", step.to_string()),
                    ("acc", "NaN".to_string()),
                    ("pred", "Infinity".to_string()),
                ])
            })
            .collect();
        write(&dir.join(format!("{step}.jsonl")), &lines);
    }
}

/// verl 0.9's V1 trainer: uid `{uid}_{session}_{index}`, sorted by uid, no extras.
fn write_verl_09(dir: &Path) {
    for (step, samples) in run() {
        let mut index = std::collections::HashMap::new();
        let mut lines: Vec<(String, String)> = samples
            .iter()
            .map(|s| {
                let prompt_uid = format!("{:x}-s{step}", s.query.len() * 7919);
                let i = index.entry((s.query, s.session)).or_insert(0usize);
                let uid = format!("{prompt_uid}_{}_{}", s.session, *i);
                *i += 1;
                let line = py_dumps(&[
                    ("input", json!(decoded(s.query)).to_string()),
                    ("output", json!(s.output).to_string()),
                    ("gts", json!(s.gts).to_string()),
                    ("score", format!("{:?}", s.score)),
                    ("step", step.to_string()),
                    ("uid", json!(uid).to_string()),
                ]);
                (uid, line)
            })
            .collect();
        lines.sort();
        let lines: Vec<String> = lines.into_iter().map(|(_, l)| l).collect();
        write(&dir.join(format!("{step}.jsonl")), &lines);
    }
}

/// SkyRL: a file per data source in each step's folder, and the step's metrics beside them.
fn write_skyrl(dir: &Path) {
    let evals = dir.join("dumped_evals");
    for (step, samples) in run() {
        let folder = evals.join(format!("global_step_{step}_evals"));
        for source in ["se_bench_mean", "se_bench_sum"] {
            let lines: Vec<String> = samples
                .iter()
                .filter(|s| (s.query == MEAN_Q) == (source == "se_bench_mean"))
                .map(|s| {
                    py_dumps(&[
                        ("input_prompt", json!(templated(s.query)).to_string()),
                        (
                            "output_response",
                            json!(format!("{}<|im_end|>", s.output)).to_string(),
                        ),
                        ("score", format!("{:?}", s.score)),
                        ("stop_reason", json!("stop").to_string()),
                        ("env_class", json!("se_bench").to_string()),
                        (
                            "env_extras",
                            json!({"reward_spec": {"method": "rule", "ground_truth": s.gts}})
                                .to_string(),
                        ),
                        ("data_source", json!(source).to_string()),
                    ])
                })
                .collect();
            write(&folder.join(format!("{source}.jsonl")), &lines);
        }
        write(
            &folder.join("aggregated_results.jsonl"),
            &[json!({"eval/all/avg_score": 0.5}).to_string()],
        );
    }
}

/// NeMo-RL: `train_data_step{N}.jsonl` in the run's log folder; the validation's
/// `val_data_step{N}.jsonl` beside them is not this run.
fn write_nemo(dir: &Path) {
    for (step, samples) in run() {
        let lines: Vec<String> = samples
            .iter()
            .enumerate()
            .map(|(i, s)| {
                // The prompt's message ends with the generation prompt; the response is
                // decoded with its end-of-turn token.
                let user = templated(s.query);
                let assistant = format!("{}<|im_end|>", s.output);
                py_dumps(&[
                    ("content", json!([[user, assistant]]).to_string()),
                    ("rewards", format!("[{:?}]", s.score)),
                    ("generation_logprobs", "[[0.0, -0.5, -0.25]]".to_string()),
                    ("prev_logprobs", "[[0.0, -0.5, -0.25]]".to_string()),
                    ("input_lengths", "[312]".to_string()),
                    ("idx", i.to_string()),
                ])
            })
            .collect();
        write(&dir.join(format!("train_data_step{step}.jsonl")), &lines);
    }
}

/// AReaL: `<log path>/rollout/{version}/{task_id}.jsonl`, a task's samples appended to its
/// file, prompt and completion decoded with their special tokens.
fn write_areal(dir: &Path) {
    let mut task_id = 0;
    for (step, samples) in run() {
        for query in [MEAN_Q, SUM_Q] {
            let lines: Vec<String> = samples
                .iter()
                .filter(|s| s.query == query)
                .enumerate()
                .map(|(i, s)| {
                    py_dumps(&[
                        ("task_id", task_id.to_string()),
                        ("sample_idx", i.to_string()),
                        ("seqlen", "400".to_string()),
                        ("prompt_len", "312".to_string()),
                        ("head_version", step.to_string()),
                        ("tail_version", step.to_string()),
                        ("reward", format!("{:?}", s.score)),
                        ("prompt", json!(templated(s.query)).to_string()),
                        (
                            "completion",
                            json!(format!("{}<|im_end|><|endoftext|>", s.output)).to_string(),
                        ),
                    ])
                })
                .collect();
            write(
                &dir.join(step.to_string()).join(format!("{task_id}.jsonl")),
                &lines,
            );
            task_id += 1;
        }
    }
}

/// ROLL: `rollout_dump_data.step_{N}.jsonl`, the step's batch as one line of columns
/// (those of `COLUMMNS_CONFIG` the batch has), `messages` as JSON text.
fn write_roll(dir: &Path) {
    for (step, samples) in run() {
        let column = |f: &dyn Fn(&S) -> Value| -> String {
            Value::Array(samples.iter().map(f).collect()).to_string()
        };
        let line = py_dumps(&[
            (
                "id",
                column(&|s| json!(if s.query == MEAN_Q { "mean" } else { "sum" })),
            ),
            ("prompt", column(&|s| json!(user_message(s.query)))),
            (
                "messages",
                column(&|s| {
                    json!(json!([{"role": "user", "content": user_message(s.query)}]).to_string())
                }),
            ),
            ("ground_truth", column(&|s| json!(s.gts))),
            ("tag", column(&|_| json!("se_bench"))),
            ("domain", column(&|_| json!("code"))),
            ("responses", column(&|s| json!(s.output))),
            (
                "scores",
                format!(
                    "[{}]",
                    samples
                        .iter()
                        .map(|s| format!("{:?}", s.score))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            (
                "sampling_params",
                column(&|_| json!("{\"temperature\": 1.0}")),
            ),
            ("global_step", column(&|_| json!(step))),
        ]);
        write(
            &dir.join(format!("rollout_dump_data.step_{step}.jsonl")),
            &[line],
        );
    }
}

/// prime-rl: `rollouts/step_{N}/{train,eval}/{all,effective}/traces.jsonl`, each episode
/// (`Episode.to_record()` of verifiers v1) appended as it completes; `effective` repeats the
/// episodes of groups whose rewards differ, `eval` is another cohort.
fn write_prime(dir: &Path) {
    let rollouts = dir.join("rollouts");
    for (step, samples) in run() {
        let episode = |s: &S| {
            let key = if s.query == MEAN_Q { "mean" } else { "sum" };
            let task = json!({"type": "SeBenchTask", "data": {"query": s.query}, "key": key});
            json!({
                "id": format!("e{step}{key}{}", s.session),
                "env": {"id": "se-bench"},
                "task": task,
                "group": {"id": format!("{step}{key}")},
                "run": {"type": "train", "id": "r1", "work": {"type": "train", "step": step}},
                "ok": true,
                "errors": [],
                "traces": [{
                    "version": 1,
                    "id": "t",
                    "task": task,
                    "agent": {"name": "agent", "trainable": true},
                    "tools": [],
                    "nodes": [
                        {"parent": null, "message": {"role": "user", "content": user_message(s.query)},
                         "sampled": false, "token_ids": [1, 2], "mask": [false, false], "logprobs": []},
                        {"parent": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": s.output}]},
                         "sampled": true, "token_ids": [3], "mask": [true], "logprobs": [-0.5]},
                    ],
                    "calls": [],
                    "rewards": {"correct": {"score": s.score, "weight": 1.0}},
                    "metrics": {},
                    "info": {},
                    "is_completed": true,
                    "ok": true,
                    "stop_condition": "no_tools",
                    "errors": [],
                }],
            })
            .to_string()
        };
        let all: Vec<String> = samples.iter().map(episode).collect();
        let folder = rollouts.join(format!("step_{step}"));
        write(&folder.join("train/all/traces.jsonl"), &all);
        write(&folder.join("train/effective/traces.jsonl"), &all[..1]);
        write(&folder.join("eval/all/traces.jsonl"), &all[..2]);
    }
}

/// TRL: a copy of a run of `tests/fixtures/trl/` (`run`, `nan`, `chat`, `extra`,
/// `codecs/{codec}`), written by pandas' `to_parquet` as `GRPOTrainer.log` writes it, with
/// its checkpoints' `trainer_state.json` where it has one; its output folder.
fn copy_trl(name: &str, dir: &Path) -> PathBuf {
    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("fixture") {
            let path = entry.expect("entry").path();
            let target = to.join(path.file_name().expect("name"));
            if path.is_dir() {
                copy_tree(&path, &target);
            } else {
                std::fs::copy(&path, target).expect("copy");
            }
        }
    }
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trl")
        .join(name);
    copy_tree(&from, dir);
    dir.to_path_buf()
}

fn write_dataset(dir: &Path) -> PathBuf {
    let dataset = dir.join("train.jsonl");
    std::fs::write(
        &dataset,
        [
            dataset_line(
                MEAN_Q,
                "mean",
                &[("values=[1, 2, 3]", "2.0"), ("values=[4]", "4.0")],
            ),
            dataset_line(SUM_Q, "sum", &[("values=[1, 2]", "3"), ("values=[5]", "5")]),
        ]
        .join("\n"),
    )
    .expect("dataset");
    dataset
}

/// `sebx stats TARGET DATASET --by step --format json`'s steps, each without its run name.
fn step_figures(root: &Path, target: &Path, dataset: &Path) -> (Vec<Value>, String) {
    step_figures_with(root, target, dataset, None)
}

/// [`step_figures`] with `$SEBX_TRL_REWARDS` set to `trl_rewards`.
fn step_figures_with(
    root: &Path,
    target: &Path,
    dataset: &Path,
    trl_rewards: Option<&str>,
) -> (Vec<Value>, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sebx"));
    isolated::isolate_in(&mut cmd, root);
    if let Some(v) = trl_rewards {
        cmd.env(isolated::TRL_REWARDS_ENV, v);
    }
    let out = cmd
        .current_dir(root)
        .arg("stats")
        .arg(target)
        .arg(dataset)
        .arg("--api-doc")
        .arg(api_doc())
        .args(["--by", "step", "--format", "json"])
        .output()
        .expect("run sebx");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let steps = report["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no steps: {report:#}"))
        .iter()
        .map(|s| {
            let mut s = s.clone();
            let obj = s.as_object_mut().expect("object");
            obj.remove("run");
            // A group's number is the order the run met it in (verl 0.9 sorts by uid).
            for g in obj
                .get_mut("zero_variance_detail")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                g.as_object_mut().expect("group").remove("group");
            }
            s
        })
        .collect();
    (steps, stderr)
}

#[test]
fn the_same_run_in_every_format_gives_the_verl_dumps_step_figures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let verl = root.join("verl08").join("rollout");
    write_verl_08(&verl);
    let (want, stderr) = step_figures(root, &verl, &dataset);
    // Every line has a bare NaN extra, and every line is read.
    assert!(!stderr.contains("not valid JSON"), "{stderr}");
    assert_eq!(want.len(), 2, "{want:#?}");
    // Step 1: 5 samples, 2 groups, the mean group all scored 1: zero variance.
    assert_eq!(want[0]["samples"], 5, "{:#}", want[0]);
    assert_eq!(want[0]["graded"], 5);
    assert_eq!(
        (
            want[0]["groups"].as_u64(),
            want[0]["zero_variance_groups"].as_u64()
        ),
        (Some(2), Some(1))
    );
    assert!((want[0]["reward_mean"].as_f64().expect("mean") - 0.8).abs() < 1e-9);
    // Step 2: the sum group all 0: zero variance too.
    assert_eq!(want[1]["samples"], 4);
    assert_eq!(want[1]["zero_variance_groups"], 1);

    let v09 = root.join("verl09").join("rollout");
    write_verl_09(&v09);
    let skyrl = root.join("skyrl_export");
    write_skyrl(&skyrl);
    let nemo = root.join("nemo").join("logs");
    write_nemo(&nemo);
    std::fs::write(
        nemo.join("val_data_step2.jsonl"),
        json!({"content": [["q", "a"]], "rewards": [0.0], "idx": 0}).to_string() + "\n",
    )
    .expect("val");
    let areal = root.join("areal").join("rollout");
    write_areal(&areal);
    let roll = root.join("roll").join("rollout_dump");
    write_roll(&roll);
    let prime = root.join("prime");
    write_prime(&prime);
    let trl = copy_trl("run", &root.join("trl_output"));
    for (name, target) in [
        ("TRL", trl.join("completions")),
        ("TRL (its output folder)", trl.clone()),
        ("verl 0.9", v09.clone()),
        ("AReaL", areal.clone()),
        ("ROLL", roll.clone()),
        ("prime-rl", prime.join("rollouts")),
        ("SkyRL", skyrl.join("dumped_evals")),
        ("SkyRL (its export folder)", skyrl.clone()),
        ("NeMo-RL", nemo.clone()),
    ] {
        let (got, stderr) = step_figures(root, &target, &dataset);
        assert_eq!(got, want, "{name}: {stderr}");
    }
}

#[test]
fn the_v1_uid_groups_are_the_groups_when_two_samplings_share_a_prompt() {
    // verl 0.9 samples one prompt twice in a batch: two uids, two groups; the same lines
    // without uid (0.8) merge them into one group by prompt text.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let line = |uid: &str, body: &str, score: f64| {
        py_dumps(&[
            ("input", json!(decoded(MEAN_Q)).to_string()),
            ("output", json!(code(body)).to_string()),
            ("gts", json!("2.0#4.0").to_string()),
            ("score", format!("{score:?}")),
            ("step", "3".to_string()),
            ("uid", json!(uid).to_string()),
        ])
    };
    let v09 = root.join("v09").join("rollout");
    write(
        &v09.join("3.jsonl"),
        &[
            line("aa11_0_0", MEAN_RIGHT, 1.0),
            line("aa11_1_0", MEAN_RIGHT, 1.0),
            line("bb22_0_0", MEAN_NUMPY, 0.0),
            line("bb22_1_0", MEAN_RIGHT, 1.0),
        ],
    );
    let (got, _) = step_figures(root, &v09, &dataset);
    assert_eq!(
        (
            got[0]["groups"].as_u64(),
            got[0]["zero_variance_groups"].as_u64()
        ),
        (Some(2), Some(1)),
        "{:#}",
        got[0]
    );
}

#[test]
fn a_nan_score_is_unknown_to_the_step_figures_and_costs_no_line() {
    // `json.dumps` of a reward that came out NaN or infinite: the line is read, its score
    // counts in no mean and leaves its group's variance unknown.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let line = |body: &str, score: &str| {
        py_dumps(&[
            ("input", json!(decoded(MEAN_Q)).to_string()),
            ("output", json!(code(body)).to_string()),
            ("gts", json!("2.0#4.0").to_string()),
            ("score", score.to_string()),
            ("step", "5".to_string()),
            ("acc", "NaN".to_string()),
        ])
    };
    let run = root.join("nan").join("rollout");
    write(
        &run.join("5.jsonl"),
        &[
            line(MEAN_RIGHT, "1.0"),
            line(MEAN_RIGHT, "NaN"),
            line(MEAN_RIGHT, "1.0"),
            line(MEAN_NUMPY, "Infinity"),
        ],
    );
    let (got, stderr) = step_figures(root, &run, &dataset);
    assert!(!stderr.contains("warning"), "{stderr}");
    let s = &got[0];
    assert_eq!(
        (s["samples"].as_u64(), s["graded"].as_u64()),
        (Some(4), Some(4))
    );
    // The mean of the two known scores, not (1 + 0 + 1 + 0) / 4.
    assert!(
        (s["reward_mean"].as_f64().expect("mean") - 1.0).abs() < 1e-9,
        "{s:#}"
    );
    assert_eq!(s["zero_variance_groups"], 0);
    // Graded like any sample: three right, the `zwc.mean` one not.
    assert_eq!(s["verdicts"]["right"], 3);
}

#[test]
fn trl_rewards_that_are_nan_are_unknown_and_cost_no_row() {
    // TRL writes NaN where a reward function returned None; the row's score is the sum of
    // the others (TRL's nansum), and unknown when every one is NaN.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let run = copy_trl("nan", &root.join("nan"));
    let (got, stderr) = step_figures(root, &run.join("completions"), &dataset);
    assert!(!stderr.contains("warning"), "{stderr}");
    let s = &got[0];
    assert_eq!(s["step"], 5, "{s:#}");
    assert_eq!(
        (s["samples"].as_u64(), s["graded"].as_u64()),
        (Some(4), Some(4))
    );
    // Scores 1 + 0, unknown, 1 + NaN, NaN + 0: the mean of 1, 1 and 0, not of four.
    assert!(
        (s["reward_mean"].as_f64().expect("mean") - 2.0 / 3.0).abs() < 1e-9,
        "{s:#}"
    );
    assert_eq!(s["verdicts"]["right"], 3);
}

#[test]
fn trl_prompts_logged_as_chats_join_their_tasks_and_a_step_file_is_its_step() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let run = copy_trl("chat", &root.join("chat"));
    let (got, stderr) = step_figures(root, &run, &dataset);
    let s = &got[0];
    assert_eq!(
        (
            s["step"].as_u64(),
            s["samples"].as_u64(),
            s["graded"].as_u64()
        ),
        (Some(3), Some(2), Some(2)),
        "{s:#} {stderr}"
    );
    assert_eq!(s["verdicts"]["right"], 1, "{s:#}");
    assert_eq!(s["groups"], 1);
    // The step file named alone is that step of its run.
    let file = run.join("completions/completions_00003.parquet");
    assert_eq!(step_figures(root, &file, &dataset).0, got);
}

#[test]
fn a_half_written_trl_file_is_one_note_and_the_other_steps_are_read() {
    // pyarrow writes a file's footer last: a step seen before it is written has no footer.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let verl = root.join("verl").join("rollout");
    write_verl_08(&verl);
    let (want, _) = step_figures(root, &verl, &dataset);
    let run = copy_trl("run", &root.join("trl"));
    let two = run.join("completions/completions_00002.parquet");
    let bytes = std::fs::read(&two).expect("read");
    std::fs::write(&two, &bytes[..bytes.len() / 2]).expect("truncate");
    let (got, stderr) = step_figures(root, &run.join("completions"), &dataset);
    assert_eq!(got, want[..1], "{stderr}");
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("completions_00002.parquet"))
        .collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(notes[0].contains("half-written parquet file"), "{stderr}");
}

#[test]
fn trl_files_in_zstd_gzip_and_lz4_give_the_verl_figures_and_brotli_is_named() {
    // `to_parquet(..., compression=codec)`: the same run as the snappy one.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let verl = root.join("verl").join("rollout");
    write_verl_08(&verl);
    let (want, _) = step_figures(root, &verl, &dataset);
    for codec in ["zstd", "gzip", "lz4"] {
        let run = copy_trl(&format!("codecs/{codec}"), &root.join(codec));
        let (got, stderr) = step_figures(root, &run, &dataset);
        assert_eq!(got, want, "{codec}: {stderr}");
        assert!(!stderr.contains("warning"), "{codec}: {stderr}");
    }
    // Step 2 in brotli, which sebx does not read: named with its codec, step 1 read.
    let run = copy_trl("run", &root.join("brotli"));
    let brotli = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trl/codecs/brotli/completions/completions_00002.parquet");
    std::fs::copy(&brotli, run.join("completions/completions_00002.parquet")).expect("copy");
    let (got, stderr) = step_figures(root, &run, &dataset);
    assert_eq!(got, want[..1], "{stderr}");
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("completions_00002.parquet"))
        .collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(notes[0].contains("compressed with brotli"), "{stderr}");
}

#[test]
fn trl_rewards_are_the_named_functions_weighted_and_a_log_extra_float_is_not_one() {
    // `extra/`: reward_weights 0.75 and 0.25 over two functions that both give the task's
    // score, and a float `confidence` (0.5) logged with log_extra right after them; its
    // checkpoint's trainer_state.json names the reward functions.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let dataset = write_dataset(root);
    let verl = root.join("verl").join("rollout");
    write_verl_08(&verl);
    let (want, _) = step_figures(root, &verl, &dataset);
    let run = copy_trl("extra", &root.join("extra"));
    let rewards = "accuracy_reward=0.75,format_reward=0.25";

    // Names and weights given: the verl run's figures, and nothing assumed to say.
    let (got, stderr) = step_figures_with(root, &run, &dataset, Some(rewards));
    assert_eq!(got, want, "{stderr}");
    assert!(!stderr.contains("TRL run"), "{stderr}");

    // Names from trainer_state.json, weights unknown: `confidence` is no reward, each
    // function weighs 1 (the reward twice the score), and both are said once.
    let reward_means = |steps: &[Value]| -> Vec<f64> {
        steps
            .iter()
            .map(|s| s["reward_mean"].as_f64().expect("mean"))
            .collect()
    };
    let close = |a: &[f64], b: &[f64]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    };
    let verl_means = reward_means(&want);
    let (got, stderr) = step_figures(root, &run, &dataset);
    let doubled: Vec<f64> = verl_means.iter().map(|m| 2.0 * m).collect();
    assert!(close(&reward_means(&got), &doubled), "{got:#?}");
    let trl_notes: Vec<&str> = stderr.lines().filter(|l| l.contains("TRL run")).collect();
    assert_eq!(trl_notes.len(), 2, "{stderr}");
    assert!(
        trl_notes
            .iter()
            .any(|l| l.contains("`confidence`") && l.contains("not counted")),
        "{stderr}"
    );
    assert!(
        trl_notes
            .iter()
            .any(|l| l.contains("reward_weights") && l.contains("weighs 1")),
        "{stderr}"
    );
    assert!(
        trl_notes.iter().all(|l| l.starts_with("note: ")),
        "{stderr}"
    );

    // Nothing names them: the floats right after `completion` are taken (the extra too,
    // here), and the note says which, and how to name them.
    std::fs::remove_dir_all(run.join("checkpoint-2")).expect("remove the checkpoint");
    let (got, stderr) = step_figures(root, &run, &dataset);
    let with_extra: Vec<f64> = verl_means.iter().map(|m| 2.0 * m + 0.5).collect();
    assert!(close(&reward_means(&got), &with_extra), "{got:#?}");
    let assumed: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("the float columns right after `completion`"))
        .collect();
    assert_eq!(assumed.len(), 1, "{stderr}");
    assert!(
        assumed[0].contains("`confidence`") && assumed[0].contains(isolated::TRL_REWARDS_ENV),
        "{stderr}"
    );
    // Given by name again, the extra is left out whatever the folder holds.
    let (got, _) = step_figures_with(root, &run, &dataset, Some(rewards));
    assert_eq!(got, want);
}
