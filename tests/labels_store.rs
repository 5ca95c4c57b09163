//! The label and rerun sidecars: durability after a crash, damaged lines, concurrent
//! writers (threads and processes), latest-wins per annotator, progress.

use crate::isolated;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use sebx::grade::report::GradeReport;
use sebx::grade::reruns::{RerunRecord, RerunStore};
use sebx::model::labels::{LabelRecord, LabelStore};
use sebx::model::taxonomy::CategoryId;
use sebx::model::{RolloutId, Verdict};

fn rid(s: &str) -> RolloutId {
    RolloutId(s.to_string())
}

fn cats(ids: &[&str]) -> Vec<CategoryId> {
    ids.iter().map(|s| CategoryId::new(s)).collect()
}

fn record(rollout: &str, categories: &[&str], note: &str, annotator: &str) -> LabelRecord {
    LabelRecord::now(rid(rollout), cats(categories), note, annotator)
}

fn rollout_file(dir: &Path) -> PathBuf {
    dir.join("run.jsonl")
}

fn labels_path(dir: &Path) -> PathBuf {
    dir.join("run.jsonl.labels.jsonl")
}

#[test]
fn sidecar_sits_next_to_the_rollout_file_and_survives_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut store, issues) = LabelStore::open(&rollout_file(dir.path())).expect("open");
    assert!(issues.is_empty());
    assert_eq!(store.path(), labels_path(dir.path()));
    assert!(
        !labels_path(dir.path()).exists(),
        "nothing written before the first append"
    );
    store
        .append(record("r1", &["logic_error"], "off by one", "alice"))
        .expect("append");
    let text = std::fs::read_to_string(labels_path(dir.path())).expect("read");
    assert_eq!(text.lines().count(), 1);
    assert!(text.ends_with('\n'));
    let line: serde_json::Value = serde_json::from_str(text.trim_end()).expect("json line");
    assert_eq!(line["rollout"], "r1");
    assert_eq!(line["categories"], serde_json::json!(["logic_error"]));
    assert_eq!(line["annotator"], "alice");
    assert!(line["time"].as_str().expect("time").ends_with('Z'));

    let (reopened, issues) = LabelStore::open(&rollout_file(dir.path())).expect("reopen");
    assert!(issues.is_empty());
    let current = reopened.current(&rid("r1"), "alice").expect("label");
    assert_eq!(current.note, "off by one");
    assert_eq!(current.categories, cats(&["logic_error"]));
}

#[test]
fn crash_mid_write_keeps_earlier_labels_reports_the_damage_and_appends_cleanly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = rollout_file(dir.path());
    {
        let (mut store, _) = LabelStore::open(&file).expect("open");
        store
            .append(record("r1", &["numpy_import"], "", "alice"))
            .expect("append");
        store
            .append(record("r2", &["timeout"], "loops", "alice"))
            .expect("append");
    }
    // What a crash in the middle of writing the third record leaves behind.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(labels_path(dir.path()))
        .expect("open sidecar");
    f.write_all(b"{\"rollout\":\"r3\",\"categories\":[\"logic_e")
        .expect("partial write");
    drop(f);

    let (mut store, issues) = LabelStore::open(&file).expect("reopen");
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].line, 3);
    assert_eq!(issues[0].source, labels_path(dir.path()));
    assert!(
        issues[0].reason.contains("damaged last line"),
        "{}",
        issues[0].reason
    );
    assert!(issues[0].to_string().contains("run.jsonl.labels.jsonl:3:"));
    assert_eq!(
        store.current(&rid("r1"), "alice").expect("r1").categories,
        cats(&["numpy_import"])
    );
    assert_eq!(
        store.current(&rid("r2"), "alice").expect("r2").note,
        "loops"
    );
    assert!(store.current(&rid("r3"), "alice").is_none());

    store
        .append(record("r3", &["logic_error"], "retyped", "alice"))
        .expect("append after crash");
    let text = std::fs::read_to_string(labels_path(dir.path())).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        4,
        "the new record starts on a fresh line: {text}"
    );
    assert!(lines[2].ends_with("logic_e"));
    let fourth: LabelRecord = serde_json::from_str(lines[3]).expect("new record parses");
    assert_eq!(fourth.note, "retyped");

    let (store, issues) = LabelStore::open(&file).expect("reopen again");
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].line, 3);
    assert!(!issues[0].reason.contains("damaged last line"));
    assert_eq!(store.all_current().len(), 3);
    assert_eq!(
        store.current(&rid("r3"), "alice").expect("r3").note,
        "retyped"
    );
}

#[test]
fn damaged_lines_in_the_middle_are_reported_and_skipped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = |r: &str| serde_json::to_string(&record(r, &["other"], "", "bob")).expect("json");
    let mut bytes = Vec::new();
    bytes.extend_from_slice(good("r1").as_bytes());
    bytes.extend_from_slice(b"\nnot json at all\n\n");
    bytes.extend_from_slice(b"{\"rollout\": \"r9\"}\n");
    bytes.extend_from_slice(b"\xff\xfe\n");
    bytes.extend_from_slice(good("r2").as_bytes());
    bytes.push(b'\n');
    std::fs::write(labels_path(dir.path()), &bytes).expect("write");

    let (store, issues) = LabelStore::open(&rollout_file(dir.path())).expect("open");
    let lines: Vec<usize> = issues.iter().map(|i| i.line).collect();
    assert_eq!(lines, vec![2, 4, 5], "{issues:?}");
    assert!(
        issues[1].reason.contains("missing field"),
        "{}",
        issues[1].reason
    );
    assert!(issues[2].reason.contains("UTF-8"));
    let ids: Vec<&str> = store
        .all_current()
        .iter()
        .map(|r| r.rollout.0.as_str())
        .collect();
    assert_eq!(ids, vec!["r1", "r2"]);
}

#[test]
fn latest_record_wins_per_annotator_and_clearing_removes_the_label() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = rollout_file(dir.path());
    let (mut store, _) = LabelStore::open(&file).expect("open");
    store
        .append(record("r1", &["logic_error"], "", "alice"))
        .expect("a");
    store
        .append(record("r1", &["wrong_arguments"], "", "bob"))
        .expect("b");
    store
        .append(record(
            "r1",
            &["output_format", "logic_error"],
            "dict",
            "alice",
        ))
        .expect("a2");
    store
        .append(record("r2", &["timeout"], "", "alice"))
        .expect("a3");
    store
        .append(record("r3", &["other"], "", "bob"))
        .expect("b2");
    store.append(record("r3", &[], "", "bob")).expect("clear");

    for s in [&store, &LabelStore::open(&file).expect("reopen").0] {
        let alice = s.current(&rid("r1"), "alice").expect("alice r1");
        assert_eq!(alice.categories, cats(&["output_format", "logic_error"]));
        assert_eq!(alice.note, "dict");
        assert_eq!(
            s.current(&rid("r1"), "bob").expect("bob r1").categories,
            cats(&["wrong_arguments"])
        );
        assert!(s.current(&rid("r3"), "bob").is_none(), "cleared");
        assert_eq!(s.all_current().len(), 3);
        assert_eq!(s.annotators(), vec!["alice".to_string(), "bob".to_string()]);
        assert_eq!(s.history_of(&rid("r1")).len(), 3);
        assert_eq!(s.current_for(&rid("r1")).len(), 2);

        let all = [rid("r1"), rid("r2"), rid("r3"), rid("r4")];
        let p = s.progress(&all, Some("alice"));
        assert_eq!((p.labelled, p.total), (2, 4));
        assert_eq!(
            p.per_category.get(&CategoryId::new("logic_error")),
            Some(&1)
        );
        assert_eq!(p.per_category.get(&CategoryId::new("timeout")), Some(&1));
        assert_eq!(
            p.per_category.get(&CategoryId::new("wrong_arguments")),
            None
        );
        let anyone = s.progress(&all, None);
        assert_eq!((anyone.labelled, anyone.total), (2, 4));
        assert_eq!(
            anyone.per_category.get(&CategoryId::new("wrong_arguments")),
            Some(&1)
        );
        // r1 carries logic_error for alice only; counted once per rollout.
        assert_eq!(
            anyone.per_category.get(&CategoryId::new("logic_error")),
            Some(&1)
        );
    }
}

#[test]
fn reload_picks_up_another_writers_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = rollout_file(dir.path());
    let (mut mine, _) = LabelStore::open(&file).expect("open");
    let (mut theirs, _) = LabelStore::open(&file).expect("open");
    theirs
        .append(record("r1", &["other"], "", "bob"))
        .expect("append");
    assert!(mine.current(&rid("r1"), "bob").is_none());
    mine.reload().expect("reload");
    assert!(mine.current(&rid("r1"), "bob").is_some());
}

const CHILD_ENV: &str = "SEBX_LABELS_TEST_CHILD";
const PER_WRITER: usize = 150;

/// Appends `PER_WRITER` records as `writer`, each with a distinct note.
fn append_many(file: &Path, writer: &str) {
    let (mut store, _) = LabelStore::open(file).expect("open");
    for i in 0..PER_WRITER {
        // A long note makes torn or interleaved writes likely to show if locking broke.
        let note = format!("{writer}#{i}#{}", "x".repeat(300 + i % 50));
        store
            .append(record(
                &format!("r{}", i % 7),
                &["logic_error"],
                &note,
                writer,
            ))
            .expect("append");
    }
}

/// Runs only as a child process of `concurrent_threads_and_processes_never_corrupt`.
#[test]
fn concurrent_child_entry() {
    if let (Ok(file), Ok(writer)) = (
        std::env::var(CHILD_ENV),
        std::env::var("SEBX_LABELS_TEST_WRITER"),
    ) {
        append_many(Path::new(&file), &writer);
    }
}

#[test]
fn concurrent_threads_and_processes_never_corrupt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = rollout_file(dir.path());
    let exe = std::env::current_exe().expect("test binary");
    let children: Vec<std::process::Child> = (0..3)
        .map(|k| {
            Command::new(&exe)
                .args([
                    "--exact",
                    &isolated::test_name(module_path!(), "concurrent_child_entry"),
                ])
                .arg("--test-threads=1")
                .env(CHILD_ENV, &file)
                .env("SEBX_LABELS_TEST_WRITER", format!("proc{k}"))
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn child")
        })
        .collect();
    let writers_done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let file = &file;
                s.spawn(move || append_many(file, &format!("thread{t}")))
            })
            .collect();
        // A reader reloading meanwhile never sees a half-written line.
        let reader = s.spawn(|| {
            let (mut store, _) = LabelStore::open(&file).expect("open");
            let mut reloads = 0;
            while !writers_done.load(std::sync::atomic::Ordering::Relaxed) {
                let issues = store.reload().expect("reload");
                assert!(issues.is_empty(), "reader saw {issues:?}");
                reloads += 1;
            }
            reloads
        });
        for h in handles {
            h.join().expect("writer thread");
        }
        writers_done.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(reader.join().expect("reader thread") > 0);
    });
    for mut child in children {
        assert!(child.wait().expect("wait").success(), "child writer failed");
    }

    let text = std::fs::read_to_string(labels_path(dir.path())).expect("read");
    assert!(text.ends_with('\n'));
    let writers = 7;
    assert_eq!(text.lines().count(), writers * PER_WRITER);
    let mut seen = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let r: LabelRecord = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {} does not parse: {e}", n + 1));
        let mut parts = r.note.splitn(3, '#');
        let writer = parts.next().expect("writer");
        assert_eq!(writer, r.annotator);
        let i: usize = parts.next().expect("index").parse().expect("number");
        assert!(seen.insert((r.annotator.clone(), i)), "duplicate {r:?}");
    }
    assert_eq!(seen.len(), writers * PER_WRITER);
    let (store, issues) = LabelStore::open(&file).expect("open");
    assert!(issues.is_empty());
    assert_eq!(store.history().count(), writers * PER_WRITER);
    // 7 rollouts × 7 writers, each pair's latest record is the writer's last for it.
    assert_eq!(store.all_current().len(), 49);
    let last = store.current(&rid("r0"), "proc1").expect("proc1 r0");
    assert!(last.note.starts_with("proc1#147#"), "{}", last.note);
}

fn report(id: &str, verdict: Verdict) -> GradeReport {
    let mut r = GradeReport::load_failure("run.jsonl", 1, "");
    r.id = Some(rid(id));
    r.verdict = Some(verdict);
    r.load_error = None;
    r.decided_by = format!("test {verdict}");
    r
}

#[test]
fn reruns_sidecar_keeps_what_ifs_apart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = rollout_file(dir.path());
    let (mut store, issues) = RerunStore::open(&file).expect("open");
    assert!(issues.is_empty());
    assert_eq!(store.path(), dir.path().join("run.jsonl.reruns.jsonl"));
    store
        .append(RerunRecord::now(report("r1", Verdict::ExeError), None))
        .expect("append");
    store
        .append(RerunRecord::now(
            report("r1", Verdict::Right),
            Some("def solve(x):\n    return zwc.kocito(x)\n".into()),
        ))
        .expect("append what-if");
    store
        .append(RerunRecord::now(report("r2", Verdict::UseNumpy), None))
        .expect("append");

    let (reopened, issues) = RerunStore::open(&file).expect("reopen");
    assert!(issues.is_empty());
    assert_eq!(reopened.all().count(), 3);
    assert_eq!(reopened.of(&rid("r1")).len(), 2);
    let graded = reopened.latest_graded(&rid("r1")).expect("graded rerun");
    assert!(!graded.what_if);
    assert_eq!(graded.report.verdict, Some(Verdict::ExeError));
    let r1_reruns = reopened.of(&rid("r1"));
    let what_if = r1_reruns.last().expect("what-if");
    assert!(what_if.what_if);
    assert_eq!(what_if.report.verdict, Some(Verdict::Right));
    assert!(
        what_if
            .edited_code
            .as_deref()
            .expect("code")
            .contains("kocito")
    );
    assert!(reopened.latest_graded(&rid("r3")).is_none());
}

#[test]
fn set_writes_only_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut store, _) = LabelStore::open(&rollout_file(dir.path())).expect("open");
    let r1 = rid("r1");
    assert!(!store.set(&r1, vec![], "", "alice").expect("clear nothing"));
    assert!(
        store
            .set(&r1, cats(&["timeout"]), "", "alice")
            .expect("first")
    );
    assert!(
        !store
            .set(&r1, cats(&["timeout"]), "", "alice")
            .expect("same again")
    );
    assert!(
        store
            .set(&r1, cats(&["timeout"]), "slow", "alice")
            .expect("note changed")
    );
    assert!(
        store
            .set(&r1, cats(&["timeout"]), "slow", "bob")
            .expect("other annotator")
    );
    assert!(store.set(&r1, vec![], "", "alice").expect("clear"));
    assert!(store.current(&r1, "alice").is_none());
    let text = std::fs::read_to_string(labels_path(dir.path())).expect("read");
    assert_eq!(text.lines().count(), 4);
}
