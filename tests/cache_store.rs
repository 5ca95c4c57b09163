//! The score cache as a store shared by processes: two `sebx grade` runs at once on one
//! cache folder both land every verdict; a killed writer leaves a readable store; files of
//! the earlier JSONL format are removed with a note; `sebx cache size|prune|clear`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use assert_cmd::cargo::CommandCargoExt;

fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

fn sebx(cache: &Path) -> Command {
    let mut cmd = Command::cargo_bin("sebx").expect("the sebx binary");
    cmd.env("SEBX_SCORE_CACHE", cache)
        .env_remove("SEBX_CACHE_MAX_MB");
    cmd
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// `sebx grade -q` of the demo rollouts into `out`, with `extra`.
fn grade(cache: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = sebx(cache);
    cmd.args(["grade", "-q", "--jobs", "1", "--api-doc"])
        .arg(demo("api_doc.jsonl"))
        .arg(demo("rollouts.jsonl"))
        .args(extra)
        .arg("-o")
        .arg(out);
    cmd
}

/// `sebx cache size`: (reports with the bodies they share, program runs) record counts, and
/// the whole output.
fn size(cache: &Path) -> ((u64, u64), String) {
    let out = sebx(cache)
        .args(["cache", "size"])
        .output()
        .expect("sebx cache size");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let count = |kind: &str| -> u64 {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{kind}: ")))
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {kind} count in {stdout}"))
    };
    (
        (
            count("reports") + count("report bodies (shared by program)"),
            count("program runs"),
        ),
        stdout,
    )
}

#[test]
fn two_processes_grade_into_one_cache_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("scores");
    let rows = std::fs::read_to_string(demo("rollouts.jsonl"))
        .expect("demo")
        .lines()
        .count();
    // One grades for the verdict, the other for both scores: two kinds of records, written
    // by two processes into one database at the same time.
    let children: Vec<_> = [("a.jsonl", "verdict"), ("b.jsonl", "both")]
        .into_iter()
        .map(|(out, scorer)| {
            grade(&cache, &dir.path().join(out), &["--scorer", scorer])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("sebx grade starts")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("sebx grade ends");
        assert!(out.status.success(), "{}", text(&out).1);
    }
    // Every rollout is known under both scorers: nothing was lost to the other's writes.
    for scorer in ["verdict", "both"] {
        let out = grade(
            &cache,
            &dir.path().join("c.jsonl"),
            &["--cached", "--scorer", scorer],
        )
        .output()
        .expect("sebx grade --cached");
        let (_, stderr) = text(&out);
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!("score cache: {rows} verdicts reused")),
            "--scorer {scorer}: {stderr}"
        );
    }
    let ((reports, runs), stdout) = size(&cache);
    assert!(reports >= rows as u64, "{stdout}");
    assert!(runs > 0, "{stdout}");
    assert!(stdout.contains("cache.sqlite3"), "{stdout}");
    assert!(stdout.contains("of a 1.0 GB limit"), "{stdout}");
}

/// A writer killed at any point (here: while it grades and files reports) leaves a store
/// that opens, reads and takes writes: SQLite's atomic commit stands where the JSONL
/// format cut a torn last line.
#[test]
fn a_killed_writer_leaves_a_readable_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("scores");
    let out = dir.path().join("a.jsonl");
    // Without --cached every rollout is graded and filed: it keeps writing; killed mid-way.
    let mut child = grade(&cache, &out, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("sebx grade starts");
    let db = cache.join("cache.sqlite3");
    let waited = std::time::Instant::now();
    while !db.exists() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Killed once it has filed reports (a condition, not a pause), while it still grades.
    while size(&cache).0.0 == 0 && waited.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().expect("kill");
    child.wait().expect("reaped");
    let ((reports, _), stdout) = size(&cache);
    // Whatever it got to write is there, and the store takes the next run's writes.
    let out = grade(&cache, &out, &[]).output().expect("sebx grade");
    assert!(out.status.success(), "{}", text(&out).1);
    let ((after, _), _) = size(&cache);
    assert!(after >= reports, "{stdout}");
    let rows = std::fs::read_to_string(demo("rollouts.jsonl"))
        .expect("demo")
        .lines()
        .count() as u64;
    assert!(
        after >= rows,
        "every rollout filed after the kill: {after} < {rows}"
    );
}

#[test]
fn earlier_jsonl_caches_are_removed_with_a_note_and_other_files_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("scores");
    std::fs::create_dir_all(&cache).expect("mkdir");
    let old = cache.join("0123456789abcdef-0123456789abcdef.jsonl");
    let runs = cache.join("0123456789abcdef-0123456789abcdef-runs.jsonl");
    let facts = cache.join("training-0123456789abcdef.jsonl");
    std::fs::write(&old, vec![b'x'; 2 << 20]).expect("write");
    std::fs::write(&runs, vec![b'x'; 1 << 20]).expect("write");
    std::fs::write(&facts, b"{}\n").expect("write");
    let out = sebx(&cache)
        .args(["cache", "size"])
        .output()
        .expect("sebx cache size");
    let (_, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("removed 2 file(s) of an earlier sebx's cache format (3.0 MB freed)"),
        "{stderr}"
    );
    assert!(!old.exists() && !runs.exists());
    assert!(
        facts.exists(),
        "a training run's facts are not the old cache"
    );
}

#[test]
fn prune_evicts_down_to_the_size_asked_and_clear_empties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("scores");
    let out = grade(&cache, &dir.path().join("a.jsonl"), &[])
        .output()
        .expect("sebx grade");
    assert!(out.status.success(), "{}", text(&out).1);
    let ((reports, runs), _) = size(&cache);
    assert!(reports > 0 && runs > 0);
    // A limit of 0 MiB: everything goes, least recently used first.
    let out = sebx(&cache)
        .args(["cache", "prune", "--max-mb", "0"])
        .output()
        .expect("sebx cache prune");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains(&format!(
            "evicted {} least recently used record(s)",
            reports + runs
        )),
        "{stdout}"
    );
    assert_eq!(size(&cache).0, (0, 0));
    // A limit set by the environment applies to every put: at 0 MiB each put evicts all.
    let out = grade(&cache, &dir.path().join("b.jsonl"), &[])
        .env("SEBX_CACHE_MAX_MB", "0")
        .output()
        .expect("sebx grade");
    assert!(out.status.success(), "{}", text(&out).1);
    let ((reports, runs), stdout) = size(&cache);
    assert_eq!(
        (reports, runs),
        (0, 0),
        "a 0 MiB limit keeps nothing: {stdout}"
    );
    // Filled again, then cleared.
    let out = grade(&cache, &dir.path().join("c.jsonl"), &[])
        .output()
        .expect("sebx grade");
    assert!(out.status.success());
    let ((reports, runs), _) = size(&cache);
    let out = sebx(&cache)
        .args(["cache", "clear"])
        .output()
        .expect("sebx cache clear");
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains(&format!("removed {} record(s)", reports + runs)),
        "{stdout}"
    );
    assert_eq!(size(&cache).0, (0, 0));
}
