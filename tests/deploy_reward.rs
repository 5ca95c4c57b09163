//! deploy/reward.py (the verl-style `compute_score`) against a live `sebx serve`, from
//! plain Python: its scores are the server's verdicts, it sends the token, and it fails
//! loudly (after bounded retries) when no server answers or the rollout is bad.

#[path = "common/serve.rs"]
mod serve;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use serve::{Server, demo, demo_rollouts};

const DRIVER: &str = r#"
import json, sys
sys.path.insert(0, sys.argv[1])
import reward
scores = []
for line in open(sys.argv[2], encoding="utf-8"):
    r = json.loads(line)
    truth = json.dumps({"test_cases": r["test_cases"], "right_exe_result": r["right_exe_result"]})
    scores.append(reward.compute_score("se-bench", r["response"], truth, {"query": r["query"]}))
bad = None
try:
    reward.compute_score("se-bench", "x", {"test_cases": "oops", "right_exe_result": "1"})
except reward.RewardError as err:
    bad = str(err)
print(json.dumps({"scores": scores, "bad": bad}))
"#;

fn python() -> PathBuf {
    sebx::grade::runtime::find_runtime()
        .expect("runtime installed")
        .python
}

fn drive(url: &str, token: Option<&str>, attempts: &str) -> std::process::Output {
    let deploy = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let mut cmd = Command::new(python());
    cmd.arg("-c")
        .arg(DRIVER)
        .arg(&deploy)
        .arg(demo("rollouts.jsonl"))
        .env("SEBX_URL", url)
        .env("SEBX_ATTEMPTS", attempts)
        .env_remove("SEBX_TOKEN");
    if let Some(t) = token {
        cmd.env("SEBX_TOKEN", t);
    }
    cmd.output().expect("python")
}

#[test]
fn compute_score_gives_the_servers_verdicts() {
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
        .map(|s| s.as_f64().expect("number"))
        .collect();
    let lines = demo_rollouts();
    assert_eq!(scores.len(), lines.len());
    for (i, (score, line)) in scores.iter().zip(&lines).enumerate() {
        let reply = server.post_bearer("/grade", "reward-token", line.to_string().as_bytes());
        let right = reply.json()["verdict"] == json!("right");
        assert_eq!(*score, if right { 1.0 } else { 0.0 }, "line {}", i + 1);
    }
    assert!(scores.contains(&1.0) && scores.contains(&0.0));
    let bad = result["bad"]
        .as_str()
        .expect("a bad rollout raises RewardError");
    assert!(bad.contains("400") && bad.contains("test_cases"), "{bad}");
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
        stderr.contains("RewardError") && stderr.contains("after 2 attempts"),
        "{stderr}"
    );
}
