//! `sebx grade` on files with bad lines: every good line graded, every bad one reported;
//! the score cache and `--cached`; Ctrl-C (SIGINT) in the middle of a run.

use std::path::PathBuf;

use serde_json::Value;

use crate::isolated;

fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

#[test]
fn bad_lines_are_reported_in_place_and_good_lines_graded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good: Vec<String> = std::fs::read_to_string(demo("rollouts.jsonl"))
        .expect("demo rollouts")
        .lines()
        .take(2)
        .map(str::to_string)
        .collect();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(good[0].as_bytes());
    bytes.extend_from_slice(b"\n{\"query\": \"q\", \"response\": 7}\n");
    bytes.extend_from_slice(b"this is not json\n");
    bytes.extend_from_slice(b"{\"query\": \"\xff\xfe\"}\n");
    bytes.extend_from_slice(good[1].as_bytes());
    bytes.push(b'\n');
    let input = dir.path().join("mixed.jsonl");
    std::fs::write(&input, &bytes).expect("write");
    let scored = dir.path().join("scored.jsonl");
    let correct = dir.path().join("correct.jsonl");
    let out = isolated::sebx()
        .args(["grade", "-q", "--api-doc"])
        .arg(demo("api_doc.jsonl"))
        .arg(&input)
        .arg("-o")
        .arg(&scored)
        .arg("--correct-out")
        .arg(&correct)
        .output()
        .expect("run sebx");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("mixed.jsonl:2: `response` should be a string"),
        "{stderr}"
    );
    assert!(stderr.contains("mixed.jsonl:3: not valid JSON"), "{stderr}");
    assert!(
        stderr.contains("mixed.jsonl:4: not valid UTF-8"),
        "{stderr}"
    );
    assert!(
        stderr.contains("total: 2"),
        "summary counts graded lines: {stderr}"
    );

    let rows: Vec<Value> = std::fs::read_to_string(&scored)
        .expect("scored")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let lines: Vec<u64> = rows
        .iter()
        .map(|r| r["line"].as_u64().expect("line"))
        .collect();
    assert_eq!(
        lines,
        vec![1, 2, 3, 4, 5],
        "one object per input line, in order"
    );
    assert_eq!(rows[0]["verdict"], "right");
    assert!(rows[1]["verdict"].is_null());
    assert!(
        rows[1]["load_error"]
            .as_str()
            .expect("reason")
            .contains("should be a string")
    );
    assert!(rows[4]["verdict"].is_string());
    // --correct-out holds the right rollouts byte for byte.
    let correct_text = std::fs::read_to_string(&correct).expect("correct");
    let expected: Vec<&str> = [0usize, 4]
        .iter()
        .filter(|i| rows[**i]["verdict"] == "right")
        .map(|i| {
            if *i == 0 {
                good[0].as_str()
            } else {
                good[1].as_str()
            }
        })
        .collect();
    assert_eq!(correct_text.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn missing_api_doc_is_a_clear_error() {
    // A copy of the demo's rollouts, away from the API doc beside them.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("rollouts.jsonl");
    std::fs::copy(demo("rollouts.jsonl"), &file).expect("copy");
    let out = isolated::sebx()
        .current_dir(dir.path())
        .env_remove("SEBX_API_DOC")
        .arg("grade")
        .arg(&file)
        .output()
        .expect("run sebx");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--api-doc"), "{stderr}");
}

#[test]
fn dataset_join_names_a_helper_picked_as_entry() {
    let run = |with_dataset: bool| -> Vec<Value> {
        let mut cmd = isolated::sebx();
        cmd.args(["grade", "-q", "--api-doc"])
            .arg(demo("api_doc.jsonl"))
            .arg(demo("rollouts.jsonl"));
        if with_dataset {
            cmd.arg("--dataset").arg(demo("tasks.jsonl"));
        }
        let out = cmd.output().expect("run sebx");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect()
    };
    let note = |r: &Value| {
        r["warnings"].as_array().expect("warnings").iter().any(|w| {
            w.as_str()
                .is_some_and(|w| w.contains("not the task's `solve`"))
        })
    };
    let joined = run(true);
    let flagged: Vec<&Value> = joined.iter().filter(|r| note(r)).collect();
    assert!(!flagged.is_empty(), "the demo has helper-first rollouts");
    assert!(flagged.iter().all(|r| r["entry"] != "solve"));
    assert!(
        joined
            .iter()
            .filter(|r| r["entry"] != "solve" && r["extraction"]["found"] == true)
            .all(note)
    );
    assert!(
        !run(false).iter().any(note),
        "without the dataset the task's entry is unknown"
    );
}

/// The score cache: `sebx grade` remembers each verdict; `--cached` reuses them (same
/// output, nothing run), `--no-cache` neither reads nor writes, `sebx cache clear` forgets.
#[test]
fn verdicts_are_remembered_and_reused_with_cached() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache_dir = dir.path().join("scores");
    let grade = |extra: &[&str], out: &str| {
        let output = isolated::sebx()
            .env("SEBX_SCORE_CACHE", &cache_dir)
            .args(["grade", "-q", "--api-doc"])
            .arg(demo("api_doc.jsonl"))
            .arg(demo("rollouts.jsonl"))
            .args(extra)
            .arg("-o")
            .arg(dir.path().join(out))
            .output()
            .expect("sebx grade runs");
        assert!(output.status.success(), "{output:?}");
        let scored = std::fs::read_to_string(dir.path().join(out)).expect("scored");
        (scored, String::from_utf8_lossy(&output.stderr).to_string())
    };
    let (first, stderr) = grade(&["--no-cache"], "a.jsonl");
    assert!(!stderr.contains("reused"), "{stderr}");
    assert!(!cache_dir.exists(), "--no-cache wrote the cache");
    let (second, _) = grade(&[], "b.jsonl");
    let verdicts = |scored: &str| -> Vec<(u64, String)> {
        scored
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("JSON");
                (v["line"].as_u64().unwrap_or(0), v["verdict"].to_string())
            })
            .collect()
    };
    assert_eq!(verdicts(&first), verdicts(&second));
    let (third, stderr) = grade(&["--cached"], "c.jsonl");
    let rows = first.lines().count();
    assert!(
        stderr.contains(&format!("score cache: {rows} verdicts reused")),
        "{stderr}"
    );
    // The same reports, in the same order, without running anything (elapsed times are
    // the remembered run's).
    assert!(
        second == third,
        "--cached gave other reports than the run it remembers"
    );
    let cache = |args: &[&str]| {
        let out = isolated::sebx()
            .env("SEBX_SCORE_CACHE", &cache_dir)
            .arg("cache")
            .args(args)
            .output()
            .expect("sebx cache");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    // The verdicts and the program runs beside them, in one database.
    let size = cache(&["size"]);
    assert!(
        size.contains(&format!("reports: {rows} record(s)")),
        "{size}"
    );
    let runs: usize = size
        .lines()
        .find_map(|l| l.strip_prefix("program runs: "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count of runs");
    assert!(runs > 0, "{size}");
    // The reports' bodies, shared by program.
    let bodies: usize = size
        .lines()
        .find_map(|l| l.strip_prefix("report bodies (shared by program): "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a count of bodies");
    assert!(bodies > 0 && bodies <= rows, "{size}");
    let cleared = cache(&["clear"]);
    assert!(
        cleared.contains(&format!("removed {} record(s)", rows + bodies + runs)),
        "{cleared}"
    );
    assert!(cache(&["size"]).contains("reports: 0 record(s)"));
    let (_, stderr) = grade(&["--cached"], "d.jsonl");
    assert!(!stderr.contains("reused"), "{stderr}");
}

/// Every sebx process whose command line names the pool folders of `pid` (its workers and
/// their programs), as /proc lists them now (zombies, already dead, are left out).
fn pool_processes(pid: u32) -> Vec<String> {
    let needle = format!("sebx-pool-{pid}-");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat"))
                .map(|s| {
                    !s.rsplit(')')
                        .next()
                        .is_some_and(|r| r.trim_start().starts_with('Z'))
                })
                .unwrap_or(false)
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&needle))
        .collect()
}

/// Ctrl-C during `sebx grade` (SIGINT to the binary, once a verdict is filed): it writes
/// the verdicts done so far, says that `--cached` resumes, exits 130 and leaves no pool
/// folder, cgroup or worker behind; the same command with `--cached` then grades the rest.
#[test]
fn ctrl_c_writes_the_verdicts_done_and_says_how_to_resume() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Thirty rollouts whose programs sleep 0.4 s each, all different (none shares a run).
    let first = std::fs::read_to_string(demo("rollouts.jsonl")).expect("demo");
    let first: Value = serde_json::from_str(first.lines().next().expect("a line")).expect("JSON");
    let response = first["response"].as_str().expect("response");
    assert!(response.contains("def solve(readings):\n"));
    let rows = 30;
    let slow: String = (0..rows)
        .map(|i| {
            let mut r = first.clone();
            r["response"] = Value::from(response.replace(
                "def solve(readings):\n",
                &format!("def solve(readings):\n    import time; time.sleep(0.4)  # {i}\n"),
            ));
            r.to_string() + "\n"
        })
        .collect();
    let input = dir.path().join("slow.jsonl");
    std::fs::write(&input, slow).expect("write");
    let out = dir.path().join("out.jsonl");
    let root = isolated::fresh_root();
    let grade = |extra: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sebx"));
        isolated::isolate_in(&mut cmd, &root);
        cmd.args(["grade", "-q", "--jobs", "1", "--api-doc"])
            .arg(demo("api_doc.jsonl"))
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(extra);
        cmd
    };
    let filed = || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sebx"));
        isolated::isolate_in(&mut cmd, &root);
        let size = cmd
            .args(["cache", "size"])
            .output()
            .expect("sebx cache size");
        String::from_utf8_lossy(&size.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("reports: "))
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let mut child = grade(&[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sebx grade starts");
    let pid = child.id();
    // Waits for a condition: the first verdict filed in the score cache.
    let start = std::time::Instant::now();
    while filed() == 0 {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "sebx grade ended before it was interrupted"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no verdict filed"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!pool_processes(pid).is_empty(), "its workers run");
    // SAFETY: kill(2) on the child this test started.
    unsafe {
        libc::kill(pid as i32, libc::SIGINT);
    }
    let output = child.wait_with_output().expect("sebx grade ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted:") && stderr.contains("--cached"),
        "{stderr}"
    );
    let written = std::fs::read_to_string(&out).expect("the verdicts done are written");
    let done = written.lines().count();
    assert!(done >= 1 && done < rows, "{done} of {rows}");
    for line in written.lines() {
        let v: Value = serde_json::from_str(line).expect("JSON");
        assert!(v["verdict"].is_string(), "{v}");
    }
    // Nothing left: no pool folder, no cgroup, no worker or program of that pool.
    let pool_dirs: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .expect("temp dir")
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("sebx-pool-{pid}-"))
        })
        .collect();
    assert!(pool_dirs.is_empty(), "{pool_dirs:?}");
    if let Ok(groups) = std::fs::read_dir("/sys/fs/cgroup/pids") {
        let left: Vec<_> = groups
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("sebx-{pid}-"))
            })
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    assert_eq!(pool_processes(pid), Vec::<String>::new());

    // The hint works: --cached grades the rest, reusing what was done.
    let resumed = grade(&["--cached"]).output().expect("sebx grade --cached");
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("score cache: {done} verdicts reused")),
        "{stderr}"
    );
    let all = std::fs::read_to_string(&out).expect("scored");
    assert_eq!(all.lines().count(), rows);
}
