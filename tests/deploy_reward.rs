//! deploy/reward.py (the verl `compute_score`) against a live `sebx serve`, from plain
//! Python: its scores are the server's `?reward=1` scores, in both of verl's calling forms
//! (per sample and per batch) and in both data shapes (SE-Bench's official RL data, where
//! ground_truth is the `right_exe_result` text and the tests are in extra_info, and a dict
//! holding the tests); on the parity corpus its scores are SE-Bench's official RL rewards;
//! it sends the token, and it fails loudly (after bounded retries) when no server answers
//! or the rollout is bad. Against fake servers: a request that timed out is not sent again
//! (the server may still be grading it), one the server lost (it restarted mid-batch) is;
//! samples of another data source go to verl's default scorer; and a live server drops
//! the programs of a batch its client gave up on, and logs it. In SE-Bench's verl fork's
//! call pattern (loaded by path as `custom_module`, its compute_reward calling the manager
//! a second time after an error), against a stub that counts requests: errors are built-in
//! RuntimeErrors another process can unpickle, and the second call sends no batch again and
//! grades no sample of a partly failed naive pass again.

use crate::serve;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::shared_data;
use serde_json::{Value, json};
use serve::{Server, demo, demo_rollouts};

/// The dict shape (ground_truth is JSON text of a dict holding the tests), per sample,
/// with `SEBX_RETURN=float`; then one bad rollout.
const DICT_DRIVER: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import reward
scores = []
for line in open(sys.argv[2], encoding="utf-8"):
    r = json.loads(line)
    truth = json.dumps({"test_cases": r["test_cases"], "right_exe_result": r["right_exe_result"]})
    scores.append(reward.compute_score("query_doc", r["response"], truth, {"query": r["query"]}))
bad = None
try:
    reward.compute_score("query_doc", "x", {"test_cases": "oops", "right_exe_result": "1"})
except reward.RewardError as err:
    bad = str(err)
print(json.dumps({"scores": scores, "bad": bad}))
"#;

/// Samples in SE-Bench's official RL data shape (one JSON object per line: data_source,
/// solution_str, ground_truth, extra_info), scored the way verl's reward managers call a
/// custom reward function: `naive` per sample, `batch` once for all, both with keyword
/// arguments, the keys verl adds to extra_info, and a `reward_kwargs` entry to ignore.
/// argv: deploy dir, samples file, "both" or "batch".
const VERL_DRIVER: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import reward
samples = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
out = {}
if sys.argv[3] == "both":
    out["per_sample"] = []
    for s in samples:
        extra = dict(s["extra_info"], num_turns=None, rollout_reward_scores={})
        out["per_sample"].append(reward.compute_score(
            data_source=s["data_source"], solution_str=s["solution_str"],
            ground_truth=s["ground_truth"], extra_info=extra, some_reward_kwarg=1))
out["batch"] = reward.compute_score(
    data_sources=[s["data_source"] for s in samples],
    solution_strs=[s["solution_str"] for s in samples],
    ground_truths=[s["ground_truth"] for s in samples],
    extra_infos=[dict(s["extra_info"], rollout_reward_scores={}) for s in samples],
    some_reward_kwarg=1)
print(json.dumps(out))
"#;

fn python() -> PathBuf {
    sebx::grade::runtime::find_runtime()
        .expect("runtime installed")
        .python
}

fn deploy_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

fn shared() -> PathBuf {
    shared_data::shared_data()
}

/// Runs [`DICT_DRIVER`] on the demo rollouts (no `__pycache__` left in deploy/).
fn drive(url: &str, token: Option<&str>, attempts: &str) -> std::process::Output {
    let mut cmd = Command::new(python());
    cmd.arg("-c")
        .arg(DICT_DRIVER)
        .arg(deploy_dir())
        .arg(demo("rollouts.jsonl"))
        .env("SEBX_URL", url)
        .env("SEBX_ATTEMPTS", attempts)
        .env("SEBX_RETURN", "float")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("SEBX_TOKEN");
    if let Some(t) = token {
        cmd.env("SEBX_TOKEN", t);
    }
    cmd.output().expect("python")
}

/// One sample in SE-Bench's official RL data shape, made from a rollout object.
fn official_sample(rollout: &Value, index: usize) -> Value {
    json!({
        "data_source": "query_doc",
        "solution_str": rollout["response"],
        "ground_truth": rollout["right_exe_result"],
        "extra_info": {
            "split": "test",
            "index": index,
            "test_cases": rollout["test_cases"],
            "right_exe_result": rollout["right_exe_result"],
        },
    })
}

/// The rollout the server grades for an official-shape sample (it carries no query).
fn rollout_of(sample: &Value) -> Value {
    json!({
        "query": "",
        "response": sample["solution_str"],
        "test_cases": sample["extra_info"]["test_cases"],
        "right_exe_result": sample["ground_truth"],
    })
}

/// Runs [`VERL_DRIVER`] on `samples` against `server`; returns its JSON output.
fn drive_verl(server: &Server, samples: &[Value], mode: &str) -> Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("samples.jsonl");
    let text: String = samples.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(&file, text).expect("write samples");
    let out = Command::new(python())
        .arg("-c")
        .arg(VERL_DRIVER)
        .arg(deploy_dir())
        .arg(&file)
        .arg(mode)
        .env("SEBX_URL", format!("http://{}", server.addr))
        .env("SEBX_ATTEMPTS", "3")
        .env("SEBX_TIMEOUT", "300")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("SEBX_TOKEN")
        .env_remove("SEBX_RETURN")
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "driver failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("driver JSON")
}

fn read_jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// A result of compute_score's default (dict) return form: exactly score, verdict and
/// reward_reason, with strings (never null) beside the score.
fn check_dict_form(result: &Value, what: &str) -> f64 {
    let obj = result
        .as_object()
        .unwrap_or_else(|| panic!("{what}: not a dict: {result}"));
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["reward_reason", "score", "verdict"],
        "{what}: {result}"
    );
    assert!(obj["verdict"].is_string(), "{what}: {result}");
    assert!(obj["reward_reason"].is_string(), "{what}: {result}");
    obj["score"]
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: score is not a number: {result}"))
}

#[test]
fn compute_score_gives_the_servers_reward_scores() {
    let server = Server::start_with_token("reward-token", &["-j", "2", "-q"]);
    let out = drive(
        &format!("http://{}", server.addr),
        Some("reward-token"),
        "3",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).expect("driver JSON");
    let scores: Vec<f64> = result["scores"]
        .as_array()
        .expect("scores")
        .iter()
        .map(|s| s.as_f64().expect("SEBX_RETURN=float gives numbers"))
        .collect();
    let lines = demo_rollouts();
    assert_eq!(scores.len(), lines.len());
    for (i, (score, line)) in scores.iter().zip(&lines).enumerate() {
        let reply = server.post_bearer(
            "/grade?reward=1",
            "reward-token",
            line.to_string().as_bytes(),
        );
        assert_eq!(reply.status, 200, "line {}: {}", i + 1, reply.text());
        assert_eq!(
            Some(*score),
            reply.json()["score"].as_f64(),
            "line {}",
            i + 1
        );
    }
    assert!(scores.contains(&1.0) && scores.contains(&0.0));
    let bad = result["bad"]
        .as_str()
        .expect("a bad rollout raises RewardError");
    assert!(bad.contains("400") && bad.contains("test_cases"), "{bad}");
}

#[test]
fn compute_score_takes_official_rl_data_per_sample_and_per_batch() {
    let server = Server::start(&["-j", "2", "-q"]);
    let rollouts = demo_rollouts();
    let mut samples: Vec<Value> = rollouts
        .iter()
        .enumerate()
        .map(|(i, r)| official_sample(r, i))
        .collect();
    // One-test variants: their right_exe_result ("14.0", "[1, 4, 9]") is itself valid
    // JSON, and must still be read as the expected text, not as a dict of tests.
    for (i, r) in rollouts.iter().enumerate() {
        let cases = r["test_cases"].as_array().expect("test_cases");
        let expected = r["right_exe_result"].as_str().expect("right_exe_result");
        let first = expected.split('#').next().unwrap_or_default();
        let one = json!({
            "response": r["response"],
            "test_cases": [cases[0].clone()],
            "right_exe_result": first,
        });
        samples.push(official_sample(&one, rollouts.len() + i));
    }
    let json_texts = samples
        .iter()
        .filter(|s| {
            serde_json::from_str::<Value>(s["ground_truth"].as_str().expect("text")).is_ok()
        })
        .count();
    assert!(json_texts > 0, "no ground_truth text that parses as JSON");

    let out = drive_verl(&server, &samples, "both");
    let per_sample = out["per_sample"].as_array().expect("per-sample results");
    let batch = out["batch"]
        .as_array()
        .expect("the batch form returns a list");
    assert_eq!(per_sample.len(), samples.len());
    assert_eq!(per_sample, batch, "per-sample and batch results differ");

    let mut seen = std::collections::BTreeSet::new();
    for (i, (result, sample)) in batch.iter().zip(&samples).enumerate() {
        let what = format!("sample {i}");
        let score = check_dict_form(result, &what);
        let body = rollout_of(sample).to_string();
        let reward = server.post("/grade?reward=1", body.as_bytes());
        assert_eq!(reward.status, 200, "{what}: {}", reward.text());
        assert_eq!(Some(score), reward.json()["score"].as_f64(), "{what}");
        let report = server.post("/grade", body.as_bytes());
        assert_eq!(report.status, 200, "{what}: {}", report.text());
        assert_eq!(result["verdict"], report.json()["verdict"], "{what}");
        seen.insert(score.to_string());
    }
    assert_eq!(seen.len(), 2, "both scores occur: {seen:?}");
}

/// The parity lines to score: a spread over every (variant, official verdict, official
/// reward) group, more from the groups where the official reward is not what the verdict
/// says (`right` with reward 0, `without_zwc` with reward 1), and every `right` line whose
/// reward 0 comes from stderr (a RuntimeWarning). Machine-dependent lines are left out:
/// their official outcome depends on the CPU.
fn parity_sample(verdicts: &[Value], rewards: &[Value]) -> Vec<usize> {
    use std::collections::BTreeMap;
    let mut groups: BTreeMap<(String, String, i64), Vec<usize>> = BTreeMap::new();
    let mut picked = std::collections::BTreeSet::new();
    for (i, (v, r)) in verdicts.iter().zip(rewards).enumerate() {
        assert_eq!(
            v["line"],
            json!(i + 1),
            "official_verdicts.jsonl is in line order"
        );
        assert_eq!(
            r["line"],
            json!(i + 1),
            "official_rewards.jsonl is in line order"
        );
        if v["machine_dependent"] == json!(true) {
            continue;
        }
        let verdict = v["verdict"].as_str().expect("verdict").to_string();
        let reward = r["reward"].as_i64().expect("reward");
        if verdict == "right" && reward == 0 && v["stderr"].as_str().is_some_and(|s| !s.is_empty())
        {
            picked.insert(i);
        }
        let variant = v["variant"].as_str().expect("variant").to_string();
        groups
            .entry((variant, verdict, reward))
            .or_default()
            .push(i);
    }
    for ((_, verdict, reward), lines) in &groups {
        let differs = (verdict == "right") != (*reward == 1);
        let take = if differs { 5 } else { 1 }.min(lines.len());
        // The middles of `take` equal parts of the group: not all from the first tasks.
        picked.extend((0..take).map(|k| lines[(2 * k + 1) * lines.len() / (2 * take)]));
    }
    picked.into_iter().collect()
}

#[test]
fn compute_score_gives_the_official_rl_rewards_on_the_parity_corpus() {
    let data = shared();
    let rollouts = read_jsonl(&data.join("parity/rollouts.jsonl"));
    let verdicts = read_jsonl(&data.join("parity/official_verdicts.jsonl"));
    let rewards = read_jsonl(&data.join("parity/official_rewards.jsonl"));
    assert_eq!(rollouts.len(), verdicts.len());
    assert_eq!(rollouts.len(), rewards.len());
    let picked = parity_sample(&verdicts, &rewards);
    let differing = picked
        .iter()
        .filter(|&&i| (verdicts[i]["verdict"] == "right") != (rewards[i]["reward"] == 1))
        .count();
    assert!(
        (50..=80).contains(&picked.len()) && differing >= 15,
        "sample of {} lines, {differing} where reward and verdict differ",
        picked.len()
    );
    let samples: Vec<Value> = picked
        .iter()
        .map(|&i| official_sample(&rollouts[i], i))
        .collect();

    let server = Server::start_with_api(&data.join("se-bench/api_doc.jsonl"), &["-j", "2", "-q"]);
    let out = drive_verl(&server, &samples, "batch");
    let batch = out["batch"]
        .as_array()
        .expect("the batch form returns a list");
    assert_eq!(batch.len(), samples.len());
    let mut wrong = Vec::new();
    for (result, &i) in batch.iter().zip(&picked) {
        let line = i + 1;
        let score = check_dict_form(result, &format!("line {line}"));
        let official = rewards[i]["reward"].as_f64().expect("reward");
        if score != official {
            wrong.push(format!(
                "line {line} ({}, official verdict {}): official reward {official}, compute_score {score} (verdict {}, reason {})",
                verdicts[i]["variant"],
                verdicts[i]["verdict"],
                result["verdict"],
                result["reward_reason"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} sampled parity lines get another reward than the official one:\n{}",
        wrong.len(),
        picked.len(),
        wrong.join("\n")
    );
}

#[test]
fn compute_score_fails_after_bounded_retries_when_no_server_answers() {
    // A port that was free a moment ago: connections are refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let out = drive(&format!("http://127.0.0.1:{port}"), None, "2");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("RuntimeError: no sebx server took the request")
            && stderr.contains("2 attempts"),
        "{stderr}"
    );
}

/// A fake server in the driver's own process: `slow` answers after 3 s, `reset` closes the
/// first connection without an answer (a server restarting mid-batch) and answers the next.
/// argv: deploy dir, mode. Prints the requests the server saw and what compute_score did.
const FAKE_SERVER_DRIVER: &str = r#"
import http.server, json, os, socket, sys, threading, time
sys.path.insert(0, sys.argv[1])
mode = sys.argv[2]
seen = []

class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        seen.append(self.path)
        if mode == "reset" and len(seen) == 1:
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if mode == "slow":
            time.sleep(3)
        body = json.dumps([{"score": 1.0, "verdict": "right", "reward_reason": None}]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
os.environ["SEBX_URL"] = "http://127.0.0.1:%d" % server.server_address[1]
os.environ["SEBX_TIMEOUT"] = "0.5"
import reward
out = {}
started = time.monotonic()
try:
    out["result"] = reward.compute_score(
        data_sources=["query_doc"], solution_strs=["x"], ground_truths=["1"],
        extra_infos=[{"test_cases": [{"input": "", "output": "1"}]}])
except reward.RewardError as err:
    out["error"] = str(err)
out["seconds"] = time.monotonic() - started
time.sleep(3.2 if mode == "slow" else 0)
out["requests"] = len(seen)
print(json.dumps(out))
"#;

fn drive_fake(mode: &str) -> Value {
    let out = Command::new(python())
        .arg("-B")
        .arg("-c")
        .arg(FAKE_SERVER_DRIVER)
        .arg(deploy_dir())
        .arg(mode)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("driver JSON")
}

#[test]
fn a_request_that_timed_out_is_not_sent_again() {
    let out = drive_fake("slow");
    let error = out["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("did not answer within SEBX_TIMEOUT=0.5 s")
            && error.contains("not sent again"),
        "{out}"
    );
    // One request only, and the failure came at the timeout, not after retries.
    assert_eq!(out["requests"], 1, "{out}");
    assert!(out["seconds"].as_f64().unwrap_or(99.0) < 2.0, "{out}");
}

#[test]
fn a_request_the_server_lost_is_sent_again() {
    let out = drive_fake("reset");
    assert_eq!(out["requests"], 2, "{out}");
    assert_eq!(out["result"][0]["score"], 1.0, "{out}");
}

/// A mixed dataset: SE-Bench's samples go to sebx, a `gsm8k` one to verl's default scorer
/// (a stand-in `verl` package here), per sample and in a batch, in the same dict form; and
/// without verl, the non-SE-Bench sample is a RewardError naming its data source.
#[test]
fn other_data_sources_go_to_verls_default_scorer() {
    let server = Server::start(&["-j", "2", "-q"]);
    let rollouts = demo_rollouts();
    let samples: Vec<Value> = rollouts
        .iter()
        .take(2)
        .enumerate()
        .map(|(i, r)| official_sample(r, i))
        .collect();
    let fake = tempfile::tempdir().expect("tempdir");
    let pkg = fake.path().join("verl/utils/reward_score");
    std::fs::create_dir_all(&pkg).expect("mkdir");
    std::fs::write(fake.path().join("verl/__init__.py"), "").expect("write");
    std::fs::write(fake.path().join("verl/utils/__init__.py"), "").expect("write");
    std::fs::write(
        pkg.join("__init__.py"),
        "def default_compute_score(data_source, solution_str, ground_truth, extra_info=None):\n    return {'score': 0.25 if solution_str == ground_truth else 0.0, 'acc': True}\n",
    )
    .expect("write");
    let driver = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import reward
samples = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
out = {"per_sample": [reward.compute_score(**s) for s in samples]}
out["batch"] = reward.compute_score(
    data_sources=[s["data_source"] for s in samples],
    solution_strs=[s["solution_str"] for s in samples],
    ground_truths=[s["ground_truth"] for s in samples],
    extra_infos=[s["extra_info"] for s in samples])
print(json.dumps(out))
"#;
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("samples.jsonl");
    let mut all = samples.clone();
    all.insert(
        1,
        json!({"data_source": "openai/gsm8k", "solution_str": "42", "ground_truth": "42", "extra_info": {}}),
    );
    let text: String = all.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(&file, text).expect("write");
    let run = |pythonpath: Option<&Path>| {
        let mut cmd = Command::new(python());
        cmd.arg("-B")
            .arg("-c")
            .arg(driver)
            .arg(deploy_dir())
            .arg(&file)
            .env("SEBX_URL", format!("http://{}", server.addr));
        match pythonpath {
            Some(p) => cmd.env("PYTHONPATH", p),
            None => cmd.env_remove("PYTHONPATH"),
        };
        cmd.output().expect("python runs")
    };
    let out = run(Some(fake.path()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Value = serde_json::from_slice(&out.stdout).expect("driver JSON");
    let expected: Vec<f64> = samples
        .iter()
        .map(|s| {
            server.post_json("/grade?reward=1", &rollout_of(s)).json()["score"]
                .as_f64()
                .expect("score")
        })
        .collect();
    for form in ["per_sample", "batch"] {
        let scores: Vec<&Value> = got[form].as_array().expect("list").iter().collect();
        assert_eq!(scores.len(), 3, "{got}");
        assert_eq!(
            scores[1],
            &json!({"score": 0.25, "verdict": "", "reward_reason": ""}),
            "{form}: {got}"
        );
        assert_eq!(check_dict_form(scores[0], form), expected[0]);
        assert_eq!(check_dict_form(scores[2], form), expected[1]);
    }
    let out = run(None);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'openai/gsm8k' is not SE-Bench's") && stderr.contains("verl"),
        "{stderr}"
    );
}

/// A batch whose client gave up (its timeout passed): the server runs the programs it had
/// started, drops the rest, and logs how many it dropped.
#[test]
fn the_server_drops_the_programs_of_a_batch_nobody_waits_for() {
    let server = Server::start(&["-j", "1"]);
    let slow = "```python\nimport zwc, time\n\ndef solve(readings):\n    time.sleep(0.8)\n    return zwc.kocito(readings, axis=1)\n```";
    let rollout = demo_rollouts()[0].clone();
    let batch: Vec<Value> = (0..8)
        .map(|i| {
            let mut r = rollout.clone();
            // Distinct programs: identical ones would share one run.
            r["response"] = json!(slow.replace("0.8", &format!("0.8{i}")));
            r
        })
        .collect();
    let driver = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import reward
try:
    reward.grade_rewards(json.loads(sys.argv[2]))
    print("answered")
except reward.RewardError as err:
    print(err)
"#;
    let out = Command::new(python())
        .arg("-B")
        .arg("-c")
        .arg(driver)
        .arg(deploy_dir())
        .arg(serde_json::to_string(&batch).expect("json"))
        .env("SEBX_URL", format!("http://{}", server.addr))
        .env("SEBX_TIMEOUT", "1")
        .output()
        .expect("python runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("not sent again"), "{said}");
    let log = server.log_when(|l| l.contains("abandoned:"));
    let line = log
        .lines()
        .find(|l| l.contains("abandoned:"))
        .unwrap_or_else(|| panic!("no abandonment logged:\n{log}"));
    // Eight programs of about a second each on one worker: most were never run.
    let dropped: usize = line
        .split("; ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!((4..8).contains(&dropped), "{line}");
}

/// The fork's way in, for the tests below: reward.py loaded from its path under the module
/// name `custom_module` (as verl's `get_custom_reward_fn` does), its reward managers
/// reduced to how they call `compute_score` (`naive`: per sample, with the keys it adds
/// to extra_info; `batch`: once with the plural keywords), and its `compute_reward`, which
/// on an error prints it and calls the manager a second time. A stub server on one thread
/// serves requests in order and counts them: a `/grade` request whose response is "stall"
/// is held until the driver releases it, "refuse" gets a 400, "ungradable" an answer with
/// `error`, anything else a score of 1. argv: deploy dir, mode.
const FORK_DRIVER: &str = r#"
import http.server, importlib.util, json, os, pickle, sys, threading, urllib.request
mode = sys.argv[2]
seen = []
release = threading.Event()

class Stub(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def answer(self, code, value):
        body = json.dumps(value).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client gave up on it
            pass
    def do_GET(self):
        self.answer(200, seen)
    def do_POST(self):
        sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        rollouts = sent if isinstance(sent, list) else [sent]
        responses = [r["response"] for r in rollouts]
        seen.append(responses)
        if "stall" in responses:
            release.wait(60)
        if "refuse" in responses:
            return self.answer(400, {"error": "test_cases: refused"})
        scores = [
            {"score": 0.0, "error": "ungradable"} if r == "ungradable"
            else {"score": 1.0, "verdict": "right", "reward_reason": ""}
            for r in responses
        ]
        self.answer(200, scores if isinstance(sent, list) else scores[0])

server = http.server.HTTPServer(("127.0.0.1", 0), Stub)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = "http://127.0.0.1:%d" % server.server_address[1]
os.environ["SEBX_URL"] = url
os.environ["SEBX_TIMEOUT"] = "0.5"
os.environ["SEBX_ATTEMPTS"] = "1"

spec = importlib.util.spec_from_file_location("custom_module", os.path.join(sys.argv[1], "reward.py"))
module = importlib.util.module_from_spec(spec)
sys.modules["custom_module"] = module
spec.loader.exec_module(module)
compute_score = module.compute_score

def sample(response):
    return {"data_source": "query_doc", "solution_str": response, "ground_truth": "1",
            "extra_info": {"split": "train", "index": 0,
                           "test_cases": [{"input": "", "output": "1"}]}}

def naive(samples):
    scores = []
    for s in samples:
        extra = s["extra_info"]
        extra["num_turns"] = None
        extra["rollout_reward_scores"] = {}
        scores.append(compute_score(data_source=s["data_source"], solution_str=s["solution_str"],
                                    ground_truth=s["ground_truth"], extra_info=extra))
    return scores

def batch(samples):
    for s in samples:
        s["extra_info"]["rollout_reward_scores"] = {}
    return compute_score(data_sources=[s["data_source"] for s in samples],
                         solution_strs=[s["solution_str"] for s in samples],
                         ground_truths=[s["ground_truth"] for s in samples],
                         extra_infos=[s["extra_info"] for s in samples])

def compute_reward(manager, samples):
    """Both calls' outcomes, as the fork's compute_reward makes them."""
    calls = []
    try:
        calls.append({"result": manager(samples)})
        return calls
    except Exception as err:
        calls.append({"error": str(err), "type": type(err).__module__ + "." + type(err).__name__})
    try:
        calls.append({"result": manager(samples)})
    except Exception as err:
        calls.append({"error": str(err), "type": type(err).__module__ + "." + type(err).__name__})
    return calls

def requests():
    # Served after every request sent before it: the stub answers one at a time.
    with urllib.request.urlopen(url + "/seen", timeout=60) as answer:
        return json.loads(answer.read())

out = {}
if mode == "pickle":
    errors = []
    for response in ("refuse", "stall"):
        try:
            compute_score(**sample(response))
        except Exception as err:
            errors.append(err)
    try:
        compute_score(data_source="query_doc", solution_str="x", ground_truth="1", extra_info={})
    except Exception as err:
        errors.append(err)
    release.set()
    out["errors"] = [{"type": type(e).__module__ + "." + type(e).__name__, "message": str(e),
                      "pickle": pickle.dumps(e).hex()} for e in errors]
elif mode == "batch-timeout":
    samples = [sample("a"), sample("stall"), sample("b")]
    out["calls"] = compute_reward(batch, samples)
    release.set()
    out["requests"] = requests()
    out["next_step"] = compute_reward(batch, [sample("a"), sample("stall"), sample("b")])
    out["requests_after"] = requests()
else:
    failing = {"naive-refused": "refuse", "naive-ungradable": "ungradable",
               "naive-timeout": "stall"}[mode]
    samples = [sample("a"), sample("b"), sample(failing), sample("c")]
    out["calls"] = compute_reward(naive, samples)
    release.set()
    out["requests"] = requests()
    if mode != "naive-timeout":
        out["next_step"] = compute_reward(naive, [sample("a"), sample("b"), sample(failing)])
        out["requests_after"] = requests()
print(json.dumps(out))
"#;

fn drive_fork(mode: &str) -> Value {
    let out = Command::new(python())
        .arg("-B")
        .arg("-c")
        .arg(FORK_DRIVER)
        .arg(deploy_dir())
        .arg(mode)
        .env_remove("SEBX_TOKEN")
        .env_remove("SEBX_RETURN")
        .env_remove("SEBX_DATA_SOURCES")
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("driver JSON")
}

/// The two calls of the fork's `compute_reward`: both failed, with a built-in RuntimeError,
/// the second with the first's message; returns the two messages.
fn two_failures(calls: &Value) -> (String, String) {
    let calls = calls.as_array().expect("calls");
    assert_eq!(calls.len(), 2, "{calls:?}");
    for call in calls {
        assert_eq!(call["type"], "builtins.RuntimeError", "{calls:?}");
    }
    let first = calls[0]["error"].as_str().expect("first error").to_string();
    let second = calls[1]["error"]
        .as_str()
        .expect("second error")
        .to_string();
    assert!(second.starts_with(&first), "{first}\nthen\n{second}");
    (first, second)
}

/// Errors reach the trainer through Ray, pickled: what compute_score raises must be a
/// built-in class, whole after unpickling in a process that never loaded reward.py (the
/// class of an exception defined in reward.py lives in verl's `custom_module`, which such
/// a process does not have).
#[test]
fn errors_are_builtins_that_another_process_can_unpickle() {
    let out = drive_fork("pickle");
    let errors = out["errors"].as_array().expect("errors");
    // A refused rollout, a timeout and bad data.
    assert_eq!(errors.len(), 3, "{out}");
    let unpickle = r#"
import json, pickle, sys
err = pickle.loads(bytes.fromhex(sys.stdin.read()))
print(json.dumps({"type": type(err).__module__ + "." + type(err).__name__, "message": str(err)}))
"#;
    for error in errors {
        assert_eq!(error["type"], "builtins.RuntimeError", "{error}");
        let mut child = Command::new(python())
            .arg("-B")
            .arg("-c")
            .arg(unpickle)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("python runs");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(error["pickle"].as_str().expect("hex").as_bytes())
            .expect("write");
        let done = child.wait_with_output().expect("python");
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        let back: Value = serde_json::from_slice(&done.stdout).expect("JSON");
        assert_eq!(back["type"], error["type"]);
        assert_eq!(back["message"], error["message"]);
    }
    let messages: Vec<&str> = errors
        .iter()
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert!(messages[0].contains("sebx answered 400"), "{messages:?}");
    assert!(messages[1].contains("SEBX_TIMEOUT=0.5"), "{messages:?}");
    assert!(messages[2].contains("no test_cases"), "{messages:?}");
}

/// The fork's batch manager under its `compute_reward`: the batch timed out, and the second
/// call fails at once with the same message instead of sending the batch again; the retry
/// is then over, so the next step's batch is sent (and here answered, released).
#[test]
fn verls_second_call_after_a_timeout_does_not_send_the_batch_again() {
    let out = drive_fork("batch-timeout");
    let (first, second) = two_failures(&out["calls"]);
    assert!(
        first.contains("did not answer within SEBX_TIMEOUT=0.5 s"),
        "{first}"
    );
    assert!(
        second.contains("not sent again: the same request failed"),
        "{second}"
    );
    assert_eq!(out["requests"], json!([["a", "stall", "b"]]), "{out}");
    let next = out["next_step"].as_array().expect("next step");
    assert_eq!(next.len(), 1, "answered at the first call: {out}");
    assert_eq!(next[0]["result"].as_array().map(Vec::len), Some(3), "{out}");
    assert_eq!(
        out["requests_after"],
        json!([["a", "stall", "b"], ["a", "stall", "b"]]),
        "{out}"
    );
}

/// The fork's naive manager under its `compute_reward`, failing at the third sample: the
/// second call takes the first two from memory, fails at the third without a new request
/// (or, when the server answered `error` for it, from its remembered answer), and the
/// retry is then over: the next step's samples are all sent.
#[test]
fn verls_second_call_does_not_grade_a_partly_failed_naive_sequence_again() {
    for (mode, failing, says) in [
        ("naive-refused", "refuse", "sebx answered 400"),
        (
            "naive-ungradable",
            "ungradable",
            "sebx could not grade the rollout: ungradable",
        ),
        (
            "naive-timeout",
            "stall",
            "did not answer within SEBX_TIMEOUT=0.5 s",
        ),
    ] {
        let out = drive_fork(mode);
        let (first, _) = two_failures(&out["calls"]);
        assert!(first.contains(says), "{mode}: {first}");
        assert_eq!(
            out["requests"],
            json!([["a"], ["b"], [failing]]),
            "{mode}: each sample up to the failure sent once, none after: {out}"
        );
        if mode == "naive-timeout" {
            continue;
        }
        assert_eq!(
            out["requests_after"],
            json!([["a"], ["b"], [failing], ["a"], ["b"], [failing]]),
            "{mode}: {out}"
        );
        assert_eq!(
            out["next_step"][0]["error"], out["calls"][0]["error"],
            "{mode}: {out}"
        );
    }
}
