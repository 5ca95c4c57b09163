//! `sebx serve` on a loopback port: `/run` against a fresh `python main.py` (the
//! official sandbox's way), `/grade` against `sebx grade`, 400s, 503 on a full queue,
//! draining on SIGTERM, `/metrics` counts.

use crate::serve;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use serve::{Server, demo, demo_rollouts, isolated, request};

/// What the official sandbox answers for `code`: `benches/official_sandbox.py once`
/// runs a fresh `python main.py` (runtime Python, the demo's zwc on PYTHONPATH).
fn official_answer(code: &str) -> Value {
    let runtime = sebx::grade::runtime::find_runtime().expect("runtime installed");
    let api = sebx::model::ApiMap::load(&demo("api_doc.jsonl")).expect("api doc");
    let zwc_root = sebx::grade::zwc_runtime::ensure_zwc_package(
        &api,
        &sebx::grade::runtime::cache_dir().join("zwc"),
    )
    .expect("zwc package");
    let home = tempfile::tempdir().expect("tempdir");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/official_sandbox.py");
    let mut child = Command::new(&runtime.python)
        .arg(&script)
        .args(["once", "--python"])
        .arg(&runtime.python)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_CTYPE", "C.UTF-8")
        .env("HOME", home.path())
        .env("PYTHONPATH", &zwc_root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(code.as_bytes())
        .expect("write code");
    let out = child.wait_with_output().expect("reference run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("reference JSON")
}

/// Traceback paths name each run's own folder: `File ".../main.py"` → `File "main.py"`.
fn normalise_paths(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("File \"") {
        let (before, after) = rest.split_at(at + 6);
        out.push_str(before);
        match after.find('"') {
            Some(end) if after[..end].ends_with("main.py") => {
                out.push_str("main.py");
                rest = &after[end..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out
}

fn normalised(answer: &Value) -> (String, String) {
    let field = |k: &str| {
        normalise_paths(
            answer[k]
                .as_str()
                .unwrap_or_else(|| panic!("{k} missing: {answer}")),
        )
    };
    (field("stdout"), field("stderr"))
}

#[test]
fn run_answers_what_python_main_py_prints() {
    let programs: Vec<(&str, String)> = vec![
        ("hello", "print('hello')\n".into()),
        (
            "stderr only",
            "import sys\nsys.stderr.write('only stderr\\n')\n".into(),
        ),
        (
            "traceback after output",
            "print('before')\ndef f():\n    raise ValueError('boom')\nf()\n".into(),
        ),
        ("nothing", "x = 1\n".into()),
        ("exit status", "import sys\nprint('x')\nsys.exit(3)\n".into()),
        ("unicode", "print('héllo ✓ 😀 \\u00e9')\n".into()),
        (
            "non-UTF-8 bytes",
            "import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe | \\xed\\xa0\\x80 | \\xf0\\x9f\\x98 | \\xc3( end\\n')\nsys.stderr.buffer.write(b'err \\x80\\xbf\\n')\n"
                .into(),
        ),
        (
            "large output",
            "print('x' * 3_000_000)\nfor i in range(100_000):\n    print(i)\n".into(),
        ),
        (
            "zwc",
            "import zwc\nprint(zwc.kocito(zwc.yitaf([[1.0, 2.0], [3.0, 5.0]]), axis=1))\n".into(),
        ),
        ("timeout", "while True:\n    pass\n".into()),
        (
            "timeout after output",
            "import time\nprint('partial', flush=True)\ntime.sleep(60)\n".into(),
        ),
    ];
    let server = Server::start(&["-j", "2", "-q"]);
    std::thread::scope(|scope| {
        let handles: Vec<_> = programs
            .iter()
            .map(|(name, code)| {
                let server = &server;
                scope.spawn(move || {
                    let reply = server.post_json("/run", &json!({ "code": code }));
                    assert_eq!(reply.status, 200, "{name}: {}", reply.text());
                    let got = reply.json();
                    let obj = got.as_object().expect("object");
                    assert_eq!(
                        obj.keys().collect::<Vec<_>>(),
                        ["stderr", "stdout"],
                        "{name}: exactly the official fields"
                    );
                    (name, normalised(&got))
                })
            })
            .collect();
        // The reference runs one at a time meanwhile: many fresh interpreters importing
        // NumPy at once on a small machine could push one past its 3 s.
        let wanted: Vec<(String, String)> = programs
            .iter()
            .map(|(_, code)| normalised(&official_answer(code)))
            .collect();
        for (handle, want) in handles.into_iter().zip(wanted) {
            let (name, got) = handle.join().expect("thread");
            assert_eq!(
                got.0, want.0,
                "{name}: stdout differs from python main.py's"
            );
            assert_eq!(
                got.1, want.1,
                "{name}: stderr differs from python main.py's"
            );
            match *name {
                "timeout" | "timeout after output" => {
                    assert_eq!(got, (String::new(), "TLE".to_string()), "{name}")
                }
                "non-UTF-8 bytes" => assert!(got.0.contains('\u{FFFD}'), "{name}: {:?}", got.0),
                "large output" => assert!(got.0.len() > 3_000_000, "{name}"),
                "stderr only" => assert_eq!(got, (String::new(), "only stderr\n".into())),
                "traceback after output" => {
                    assert!(got.1.contains("ValueError: boom"), "{name}: {}", got.1)
                }
                _ => {}
            }
        }
    });
}

fn strip_run_specific(mut report: Value) -> Value {
    let obj = report.as_object_mut().expect("report object");
    obj.remove("source");
    obj.remove("line");
    if let Some(exec) = obj.get_mut("execution").and_then(Value::as_object_mut) {
        exec.remove("elapsed_ms");
    }
    if let Some(exec) = obj
        .get_mut("reward_detail")
        .and_then(|d| d.get_mut("execution"))
        .and_then(Value::as_object_mut)
    {
        exec.remove("elapsed_ms");
    }
    report
}

/// `sebx grade` on the demo rollouts with `extra` flags, as stripped reports.
fn grade_demo(dir: &std::path::Path, extra: &[&str]) -> Vec<Value> {
    let scored = dir.join("scored-extra.jsonl");
    let out = isolated::sebx()
        .current_dir(dir)
        .args(["grade", "-q", "--no-cache", "--api-doc"])
        .arg(demo("api_doc.jsonl"))
        .arg("--dataset")
        .arg(demo("tasks.jsonl"))
        .arg(demo("rollouts.jsonl"))
        .args(extra)
        .arg("-o")
        .arg(&scored)
        .output()
        .expect("sebx grade");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&scored)
        .expect("scored")
        .lines()
        .map(|l| strip_run_specific(serde_json::from_str(l).expect("json")))
        .collect()
}

#[test]
fn reward_verdict_makes_the_score_follow_the_verdict() {
    let lines = demo_rollouts();
    let server = Server::start(&["-j", "2", "-q", "--reward", "verdict"]);
    let rewards = server.post_json("/grade/batch?reward=1", &Value::Array(lines.clone()));
    assert_eq!(rewards.status, 200, "{}", rewards.text());
    let reports = server.post_json("/grade/batch", &Value::Array(lines));
    for (reward, report) in rewards
        .json()
        .as_array()
        .expect("array")
        .iter()
        .zip(reports.json().as_array().expect("array"))
    {
        let right = report["verdict"] == "right";
        assert_eq!(
            reward,
            &json!({"score": if right { 1.0 } else { 0.0 }, "verdict": report["verdict"], "reward_reason": null})
        );
    }
}

#[test]
fn grade_equals_sebx_grade_on_the_demo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let expected = grade_demo(dir.path(), &[]);
    let lines = demo_rollouts();
    assert_eq!(expected.len(), lines.len());
    let dataset = demo("tasks.jsonl");
    let server = Server::start(&[
        "-j",
        "2",
        "-q",
        "--dataset",
        dataset.to_str().expect("path"),
    ]);

    // One at a time.
    for (i, line) in lines.iter().enumerate() {
        let reply = server.post_json("/grade", line);
        assert_eq!(reply.status, 200, "line {}: {}", i + 1, reply.text());
        assert_eq!(
            strip_run_specific(reply.json()),
            expected[i],
            "/grade of demo line {} differs from sebx grade",
            i + 1
        );
    }
    // All at once, in order.
    let batch = server.post_json("/grade/batch", &Value::Array(lines.clone()));
    assert_eq!(batch.status, 200, "{}", batch.text());
    let reports: Vec<Value> = batch
        .json()
        .as_array()
        .expect("array")
        .iter()
        .cloned()
        .map(strip_run_specific)
        .collect();
    assert_eq!(reports, expected, "/grade/batch differs from sebx grade");
    // Rewards: the official RL reward, as `sebx grade --scorer both` gives it.
    let both = grade_demo(dir.path(), &["--scorer", "both"]);
    let rewards = server.post_json("/grade/batch?reward=1", &Value::Array(lines.clone()));
    assert_eq!(rewards.status, 200);
    let rewards = rewards.json();
    let mut disagree = 0;
    for (reward, report) in rewards.as_array().expect("array").iter().zip(&both) {
        disagree += usize::from(report.get("reward_reason").is_some());
        assert_eq!(
            reward,
            &json!({
                "score": report["reward"].as_f64().expect("a reward"),
                "verdict": report["verdict"],
                "reward_reason": report.get("reward_reason").cloned().unwrap_or(Value::Null),
            })
        );
    }
    let ones = both.iter().filter(|r| r["reward"] == 1).count();
    assert!(ones > 0 && ones < both.len(), "the demo mixes rewards");
    assert!(
        disagree > 0,
        "the demo has rollouts whose reward is not its verdict"
    );
    let one = server.post_json("/grade?reward=1", &lines[0]);
    assert_eq!(one.json()["score"], json!(both[0]["reward"].as_f64()));

    // /metrics counted every graded rollout by verdict: three passes over the demo plus one.
    let metrics = server.get("/metrics").text();
    for verdict in [
        "right",
        "result_error",
        "exe_error",
        "use_numpy",
        "without_zwc",
    ] {
        let n = expected.iter().filter(|r| r["verdict"] == verdict).count();
        let extra = usize::from(expected[0]["verdict"] == verdict);
        assert_eq!(
            serve::metric_value(
                &metrics,
                &format!("sebx_verdicts_total{{verdict=\"{verdict}\"}}")
            ),
            (3 * n + extra) as f64,
            "{verdict} in\n{metrics}"
        );
    }
    // The full report with both scorers equals `sebx grade --scorer both`'s.
    let full = server.post_json("/grade?scorer=both", &lines[1]);
    assert_eq!(strip_run_specific(full.json()), both[1]);
    assert_eq!(
        serve::metric_value(
            &metrics,
            "sebx_requests_total{endpoint=\"/grade\",code=\"200\"}"
        ),
        (lines.len() + 1) as f64
    );
    assert_eq!(
        serve::metric_value(
            &metrics,
            "sebx_request_duration_seconds_count{endpoint=\"/grade/batch\"}"
        ),
        2.0
    );
}

#[test]
fn bad_bodies_get_400_with_a_reason_and_the_server_keeps_serving() {
    let server = Server::start(&["-j", "1", "--max-body", "4096"]);
    let cases: [(&str, &[u8], &str); 9] = [
        ("/run", b"{not json", "not valid JSON"),
        ("/run", b"[1, 2]", "must be a JSON object"),
        (
            "/run",
            b"{\"source\": \"print(1)\"}",
            "missing field `code`",
        ),
        (
            "/run",
            b"{\"code\": 42}",
            "`code` must be a string, found a number",
        ),
        ("/run", b"{\"code\": null}", "`code` must be a string"),
        ("/grade", b"{\"query\": \"q\"}", "not a rollout"),
        ("/grade", b"\"text\"", "one rollout object"),
        ("/grade/batch", b"{\"query\": \"q\"}", "JSON array"),
        ("/grade?reward=maybe", b"{}", "`reward` must be 1 or 0"),
    ];
    for (path, body, reason) in cases {
        let reply = server.post(path, body);
        assert_eq!(
            reply.status,
            400,
            "{path} {:?}",
            String::from_utf8_lossy(body)
        );
        let error = reply.json()["error"]
            .as_str()
            .expect("error string")
            .to_string();
        assert!(error.contains(reason), "{path}: {error:?} lacks {reason:?}");
    }
    let big = json!({ "code": "#".repeat(10_000) });
    assert_eq!(server.post_json("/run", &big).status, 413, "body limit");
    let ok = server.post_json("/run", &json!({"code": "print(6 * 7)"}));
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["stdout"], "42\n");
    // One log line per request, with method, path and status.
    let log = server.log_when(|l| l.lines().filter(|l| l.contains(" POST /")).count() >= 11);
    assert!(log.contains("POST /run 400"), "{log}");
    // Each line starts with the time in RFC 3339 UTC, not epoch seconds.
    let first = log
        .lines()
        .find(|l| l.contains(" POST /"))
        .expect("a request line");
    let time = first.split(' ').next().expect("time");
    assert!(
        time.len() == 24 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
        "{first}"
    );
    assert!(log.contains("POST /run 413"), "{log}");
    assert!(log.contains("POST /run 200"), "{log}");
    assert_eq!(
        log.lines().filter(|l| l.contains(" POST /")).count(),
        11,
        "{log}"
    );
}

#[test]
fn bearer_token_is_required_when_configured() {
    // The token file ends with a newline, as an editor leaves it.
    let server = Server::start_with_token("s3cret-token\n", &["-j", "1"]);
    let body = json!({"code": "print(1)"}).to_string();
    let anonymous = server.post("/run", body.as_bytes());
    assert_eq!(anonymous.status, 401);
    assert_eq!(anonymous.header("www-authenticate"), Some("Bearer"));
    let wrong = server.post_bearer("/run", "nope", body.as_bytes());
    assert_eq!(wrong.status, 401);
    let right = server.post_bearer("/run", "s3cret-token", body.as_bytes());
    assert_eq!(right.status, 200);
    assert_eq!(right.json()["stdout"], "1\n");
    assert_eq!(server.get("/healthz").status, 200, "probes need no token");
    assert_eq!(server.get("/metrics").status, 401);
}

#[test]
fn a_full_queue_answers_503_with_retry_after() {
    // Slow programs (under a longer timeout) so a loaded machine still sees them running.
    let server = Server::start(&["-j", "1", "--queue", "1", "-q", "--timeout", "20"]);
    let slow = json!({"code": "import time\ntime.sleep(4)\nprint('slow')"});
    std::thread::scope(|scope| {
        let first = scope.spawn(|| server.post_json("/run", &slow));
        server.wait_metric("sebx_in_flight", |v| v == 1.0);
        let second = scope.spawn(|| server.post_json("/run", &slow));
        server.wait_metric("sebx_queue_depth", |v| v == 1.0);
        let third = server.post_json("/run", &json!({"code": "print(3)"}));
        assert_eq!(third.status, 503, "{}", third.text());
        assert_eq!(third.header("retry-after"), Some("1"));
        assert!(
            third.json()["error"]
                .as_str()
                .expect("reason")
                .contains("queue is full")
        );
        for handle in [first, second] {
            let reply = handle.join().expect("thread");
            assert_eq!(reply.status, 200);
            assert_eq!(reply.json()["stdout"], "slow\n");
        }
    });
    assert_eq!(server.metric("sebx_rejected_total"), 1.0);
    assert_eq!(
        server.metric("sebx_requests_total{endpoint=\"/run\",code=\"503\"}"),
        1.0
    );
    assert_eq!(
        server.metric("sebx_requests_total{endpoint=\"/run\",code=\"200\"}"),
        2.0
    );
    assert_eq!(server.metric("sebx_queue_depth"), 0.0);
    // The queue frees up again.
    assert_eq!(
        server
            .post_json("/run", &json!({"code": "print(4)"}))
            .status,
        200
    );
}

#[test]
fn sigterm_finishes_running_requests_and_refuses_new_ones() {
    let mut server = Server::start(&["-j", "2", "--timeout", "20"]);
    assert_eq!(server.get("/healthz").json()["status"], "ok");
    let addr = server.addr;
    let running = std::thread::spawn(move || {
        request(
            addr,
            "POST",
            "/run",
            &[],
            json!({"code": "import time\ntime.sleep(4)\nprint('finished')"})
                .to_string()
                .as_bytes(),
        )
    });
    server.wait_metric("sebx_in_flight", |v| v == 1.0);
    let pid = server.child.id() as i32;
    // SAFETY: signalling the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    // New work is refused while the running request finishes.
    let start = Instant::now();
    loop {
        let late = request(addr, "POST", "/run", &[], b"{\"code\": \"print(1)\"}");
        match late {
            Err(_) => break,
            Ok(reply) if reply.status == 503 => break,
            Ok(reply) => assert!(
                start.elapsed() < Duration::from_secs(3),
                "still accepting work after SIGTERM: {}",
                reply.status
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let reply = running.join().expect("thread").expect("answered");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["stdout"], "finished\n");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = server.child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "server did not exit after draining"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let log = server.log_when(|l| l.contains("stopped"));
    assert!(log.contains("draining"), "{log}");
    assert!(log.contains("POST /run 200"), "{log}");
    assert!(log.contains("stopped"), "{log}");
}

#[test]
fn a_request_past_the_request_timeout_gets_504() {
    let server = Server::start(&["-j", "1", "-q", "--request-timeout", "1"]);
    let slow = server.post_json(
        "/run",
        &json!({"code": "import time\ntime.sleep(2)\nprint('late')"}),
    );
    assert_eq!(slow.status, 504, "{}", slow.text());
    assert!(
        slow.json()["error"]
            .as_str()
            .expect("reason")
            .contains("longer than 1 s")
    );
    // The program still holds its worker until it ends; then the server answers again.
    server.wait_metric("sebx_in_flight", |v| v == 0.0);
    let ok = server.post_json("/run", &json!({"code": "print('next')"}));
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json()["stdout"], "next\n");
}

/// Pids of the processes whose parent is `parent` and whose command line mentions `needle`.
fn children_running(parent: u32, needle: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The parent pid is the second field after the parenthesised command name.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains(needle) {
            pids.push(pid);
        }
    }
    pids
}

#[test]
fn a_lost_worker_is_replaced_and_counted() {
    let server = Server::start(&["-j", "2", "-q"]);
    assert_eq!(server.metric("sebx_worker_restarts_total"), 0.0);
    let workers = children_running(server.child.id(), "worker.py");
    assert_eq!(workers.len(), 2, "one process per worker: {workers:?}");
    // SAFETY: signalling a worker of the server this test started.
    assert_eq!(unsafe { libc::kill(workers[0], libc::SIGKILL) }, 0);
    // Pairs of concurrent requests use both workers, so one of them meets the dead one.
    for round in 0..3 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2)
                .map(|k| {
                    let server = &server;
                    scope.spawn(move || {
                        let n = 10 * round + k;
                        let code = format!("import time\ntime.sleep(0.3)\nprint({n} + 1)");
                        let reply = server.post_json("/run", &json!({ "code": code }));
                        assert_eq!(reply.status, 200, "{}", reply.text());
                        assert_eq!(reply.json()["stdout"], format!("{}\n", n + 1));
                    })
                })
                .collect();
            for h in handles {
                h.join().expect("thread");
            }
        });
    }
    assert_eq!(server.metric("sebx_worker_restarts_total"), 1.0);
}
