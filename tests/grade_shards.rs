//! `sebx grade --shard I/N` then `sebx merge`: the merged file is the unsharded one,
//! byte for byte except the measured run times.

use std::path::{Path, PathBuf};

use crate::isolated;

fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

fn sebx(args: &[&std::ffi::OsStr], cwd: &Path) -> std::process::Output {
    isolated::sebx()
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run sebx")
}

/// The scored text with every `"elapsed_ms":<number>` value blanked (wall time varies).
fn without_timings(text: &str) -> String {
    let key = "\"elapsed_ms\":";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = rest[at + key.len()..].trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+')
        });
    }
    out.push_str(rest);
    out
}

#[test]
fn sharded_then_merged_equals_unsharded() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Two real files plus one with bad lines, so shard boundaries cross files and load failures.
    let bad = dir.path().join("bad.jsonl");
    let first_demo_line = std::fs::read_to_string(demo("rollouts_run2.jsonl"))
        .expect("demo")
        .lines()
        .next()
        .expect("line")
        .to_string();
    std::fs::write(
        &bad,
        format!("not json\n{first_demo_line}\n{{\"query\": 1}}\n"),
    )
    .expect("write");
    let inputs = [demo("rollouts.jsonl"), demo("rollouts_run2.jsonl"), bad];
    let grade = |extra: &[&str], out: &Path| {
        let mut args: Vec<&std::ffi::OsStr> =
            vec!["grade".as_ref(), "-q".as_ref(), "-j".as_ref(), "2".as_ref()];
        let api = demo("api_doc.jsonl");
        args.push("--api-doc".as_ref());
        args.push(api.as_os_str());
        for e in extra {
            args.push(e.as_ref());
        }
        for i in &inputs {
            args.push(i.as_os_str());
        }
        args.push("-o".as_ref());
        args.push(out.as_os_str());
        let o = sebx(&args, dir.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let whole = dir.path().join("whole.jsonl");
    grade(&[], &whole);
    let whole_text = std::fs::read_to_string(&whole).expect("whole");
    let total = whole_text.lines().count();
    assert_eq!(total, 36 + 16 + 3);

    for count in [3usize, 7] {
        let mut shards = Vec::new();
        let mut sizes = Vec::new();
        for index in 0..count {
            let out = dir.path().join(format!("shard-{count}-{index:02}.jsonl"));
            let spec = format!("{index}/{count}");
            let log = grade(&["--shard", &spec], &out);
            assert!(log.contains(&format!("shard {index}/{count}")), "{log}");
            sizes.push(
                std::fs::read_to_string(&out)
                    .expect("shard")
                    .lines()
                    .count(),
            );
            shards.push(out);
        }
        assert_eq!(
            sizes.iter().sum::<usize>(),
            total,
            "every line in exactly one shard"
        );
        assert!(
            sizes.iter().all(|s| s.abs_diff(total / count) <= 1),
            "{sizes:?}"
        );
        let merged = dir.path().join(format!("merged-{count}.jsonl"));
        let mut args: Vec<&std::ffi::OsStr> = vec!["merge".as_ref()];
        for s in &shards {
            args.push(s.as_os_str());
        }
        args.push("-o".as_ref());
        args.push(merged.as_os_str());
        let o = sebx(&args, dir.path());
        let log = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{log}");
        assert!(log.contains(&format!("merged {total} lines")), "{log}");
        let merged_text = std::fs::read_to_string(&merged).expect("merged");
        assert_eq!(
            without_timings(&merged_text),
            without_timings(&whole_text),
            "{count} shards merged differ from the unsharded run"
        );
    }
    // A shard given twice is refused, naming the line.
    let shard = dir.path().join("shard-3-00.jsonl");
    let o = sebx(
        &["merge".as_ref(), shard.as_os_str(), shard.as_os_str()],
        dir.path(),
    );
    assert!(!o.status.success());
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(log.contains("was already graded in"), "{log}");
    // A bad shard spec is a clear error.
    let o = sebx(
        &[
            "grade".as_ref(),
            "--shard".as_ref(),
            "3/3".as_ref(),
            demo("rollouts.jsonl").as_os_str(),
        ],
        dir.path(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("out of range"));
}
