//! The store's tests: records, eviction order, marks, facts and the old format, each
//! through the store's own operations on a temporary folder.

use super::schema::is_old_format;
use super::*;

fn options(limit: u64) -> Options {
    Options {
        limit,
        touch_after: Duration::ZERO,
    }
}

#[test]
fn the_grader_version_is_the_build_hash_of_the_sources() {
    assert_eq!(GRADER_SOURCES.len(), 16);
    assert!(GRADER_SOURCES.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(grader_version().len(), 16);
}

#[test]
fn a_later_put_wins_and_reopening_keeps_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sub = dir.path().join("sub");
    {
        let table = Table::open(&sub, "a-b".into()).expect("open");
        assert!(table.get("k").is_none());
        table.put("k", b"1").expect("put");
        table.put("k", b"22").expect("put");
        table.put("j", b"3").expect("put");
        assert_eq!(table.get("k").as_deref(), Some(&b"22"[..]));
        // Another namespace of the same file does not see them.
        let other = Table::new(table.store().clone(), "a-b-runs".into());
        assert!(other.get("k").is_none());
        assert!(other.is_empty());
    }
    let table = Table::open(&sub, "a-b".into()).expect("reopen");
    assert_eq!(table.path(), sub.join(FILE_NAME));
    assert_eq!(table.len(), 2);
    assert_eq!(table.get("k").as_deref(), Some(&b"22"[..]));
    // The running total counts each record once, at its latest size.
    assert_eq!(
        table.store().bytes().expect("bytes"),
        (3 + 1 + 2) + (3 + 1 + 1)
    );
}

#[test]
fn eviction_removes_the_least_recently_used_first_and_keeps_under_the_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Each record: "ns" + 4-byte key + 94-byte value = 100 bytes; the limit holds 10.
    let store = Store::open_with(dir.path(), options(1000)).expect("open");
    let value = vec![b'x'; 94];
    for i in 0..10 {
        store.put("ns", &format!("k{i:03}"), &value).expect("put");
    }
    assert_eq!(store.bytes().expect("bytes"), 1000);
    assert_eq!(store.count("ns").expect("count"), 10);
    // The 11th goes past the limit: the oldest go until under 90% (900 bytes).
    store.put("ns", "k010", &value).expect("put");
    assert!(store.bytes().expect("bytes") <= 900);
    assert_eq!(store.count("ns").expect("count"), 9);
    for gone in ["k000", "k001"] {
        assert!(store.get("ns", gone).expect("get").is_none(), "{gone}");
    }
    for kept in ["k002", "k009", "k010"] {
        assert!(store.get("ns", kept).expect("get").is_some(), "{kept}");
    }
    let size = store.size().expect("size");
    assert_eq!(size.bytes, 900);
    assert_eq!(
        size.namespaces,
        vec![Namespace {
            name: "ns".into(),
            records: 9,
            bytes: 900
        }]
    );
    // An explicit prune down to 500 bytes.
    let evicted = store.prune(500).expect("prune");
    assert_eq!(
        evicted,
        Evicted {
            records: 4,
            bytes: 400
        }
    );
    assert_eq!(store.bytes().expect("bytes"), 500);
}

#[test]
fn a_read_makes_a_record_recent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1000)).expect("open");
    let value = vec![b'x'; 94];
    for i in 0..10 {
        store.put("ns", &format!("k{i:03}"), &value).expect("put");
    }
    // The oldest two are read: the next two oldest go instead.
    assert!(store.get("ns", "k000").expect("get").is_some());
    assert!(store.get("ns", "k001").expect("get").is_some());
    store.put("ns", "k010", &value).expect("put");
    assert!(store.get("ns", "k000").expect("get").is_some());
    assert!(store.get("ns", "k001").expect("get").is_some());
    assert!(store.get("ns", "k002").expect("get").is_none());
    assert!(store.get("ns", "k003").expect("get").is_none());
}

#[test]
fn marks_are_coarse_and_reach_the_file_when_the_store_is_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let value = vec![b'x'; 94];
    {
        // With the default coarseness a fresh record's read is not a write.
        let store = Store::open_with(
            dir.path(),
            Options {
                limit: 1000,
                touch_after: TOUCH_AFTER,
            },
        )
        .expect("open");
        store.put("ns", "k000", &value).expect("put");
        assert!(store.get("ns", "k000").expect("get").is_some());
        assert!(store.touched.lock().expect("lock").is_empty());
    }
    {
        let store = Store::open_with(dir.path(), options(1000)).expect("open");
        for i in 1..10 {
            store.put("ns", &format!("k{i:03}"), &value).expect("put");
        }
        // Read, then dropped before any put: the mark is written on drop.
        assert!(store.get("ns", "k000").expect("get").is_some());
    }
    let store = Store::open_with(dir.path(), options(1000)).expect("open");
    store.put("ns", "k010", &value).expect("put");
    assert!(store.get("ns", "k000").expect("get").is_some(), "marked");
    assert!(store.get("ns", "k001").expect("get").is_none());
}

#[test]
fn old_format_files_are_removed_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = [
        "0123456789abcdef-fedcba9876543210.jsonl",
        "0123456789abcdef-fedcba9876543210-runs.jsonl",
    ];
    for name in old {
        std::fs::write(dir.path().join(name), vec![b'{'; 1536]).expect("write");
    }
    // Not the cache's: a training run's facts, and anything else.
    let kept = ["training-0123456789abcdef.jsonl", "notes.jsonl"];
    for name in kept {
        std::fs::write(dir.path().join(name), b"{}\n").expect("write");
    }
    let store = Store::open(dir.path()).expect("open");
    assert_eq!(
        store.notes(),
        ["score cache: removed 2 file(s) of an earlier sebx's cache format (3.0 KB freed)"]
    );
    for name in old {
        assert!(!dir.path().join(name).exists(), "{name}");
    }
    for name in kept {
        assert!(dir.path().join(name).exists(), "{name}");
    }
    drop(store);
    assert!(Store::open(dir.path()).expect("reopen").notes().is_empty());
}

#[test]
fn a_prune_gives_pages_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1 << 30)).expect("open");
    for i in 0..300 {
        store
            .put("ns", &format!("k{i}"), &[7u8; 4000])
            .expect("put");
    }
    store.prune(0).expect("prune");
    let free: i64 = store
        .conn()
        .expect("conn")
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .expect("freelist");
    assert_eq!(free, 0, "free pages left in the file");
    assert!(std::fs::metadata(store.path()).expect("file").len() < 100 << 10);
}

#[test]
fn clear_empties_every_namespace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    store.put("a", "k", b"1").expect("put");
    store.put("a-runs", "k", b"2").expect("put");
    // ("a" "k" "1") and ("a-runs" "k" "2").
    assert_eq!(
        store.clear().expect("clear"),
        Evicted {
            records: 2,
            bytes: 3 + 8
        }
    );
    assert_eq!(store.bytes().expect("bytes"), 0);
    assert!(store.get("a", "k").expect("get").is_none());
}

#[test]
fn sizes_read_well() {
    assert_eq!(human_bytes(512), "512 B");
    assert_eq!(human_bytes(3 << 20), "3.0 MB");
    assert_eq!(human_bytes(970 << 20), "970.0 MB");
    assert!(is_old_format(
        "0123456789abcdef-0123456789abcdef-runs.jsonl"
    ));
    assert!(!is_old_format("training-0123456789abcdef.jsonl"));
    assert!(!is_old_format("0123456789abcdef-0123456789abcdef.sqlite3"));
}

/// Facts live and die with their record, whoever writes: a value replaced without
/// facts (an earlier sebx) or evicted takes them along, and the counts say so.
#[test]
fn facts_follow_their_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1000)).expect("open");
    let value = vec![b'x'; 94];
    let put = |key: &str, facts: Option<&[u8]>| {
        store
            .put_many(
                "ns",
                &[Put {
                    key,
                    value: &value,
                    facts,
                }],
            )
            .expect("put")
    };
    let facts = |key: &str| store.read(|r| r.facts("ns", key)).expect("read");
    let complete = || store.read(|r| r.complete("ns")).expect("read");
    put("k000", Some(b"{}"));
    put("k001", Some(b"{\"v\":1}"));
    assert_eq!(facts("k001").as_deref(), Some(&b"{\"v\":1}"[..]));
    assert!(complete());
    // Replaced by a writer that does not know the facts: they go.
    store.put("ns", "k001", &value).expect("put");
    assert!(facts("k001").is_none());
    assert!(!complete());
    assert!(store.get("ns", "k001").expect("get").is_some());
    // Written back only against the value they were derived from.
    let stale = Filing {
        key: "k001".into(),
        value: b"other".to_vec(),
        facts: b"{}".to_vec(),
    };
    store.backfill_facts("ns", &[stale]).expect("backfill");
    assert!(facts("k001").is_none());
    let right = Filing {
        key: "k001".into(),
        value: value.clone(),
        facts: b"{}".to_vec(),
    };
    store.backfill_facts("ns", &[right]).expect("backfill");
    assert_eq!(facts("k001").as_deref(), Some(&b"{}"[..]));
    assert!(complete());
    // Eviction takes the facts of the records it removes.
    for i in 2..11 {
        put(&format!("k{i:03}"), Some(b"{}"));
    }
    assert!(store.get("ns", "k000").expect("get").is_none());
    assert!(facts("k000").is_none());
    assert!(complete());
    store.clear().expect("clear");
    assert!(facts("k010").is_none());
    assert!(complete());
}

/// Reading a record's facts (not the record) makes it recent too.
#[test]
fn a_facts_read_makes_a_record_recent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1000)).expect("open");
    let value = vec![b'x'; 94];
    for i in 0..10 {
        let key = format!("k{i:03}");
        let put = Put {
            key: &key,
            value: &value,
            facts: Some(b"{}"),
        };
        store.put_many("ns", &[put]).expect("put");
    }
    store
        .read(|r| {
            assert!(r.facts("ns", "k000")?.is_some());
            assert!(r.facts("ns", "k001")?.is_some());
            Ok(())
        })
        .expect("read");
    store.put("ns", "k010", &value).expect("put");
    for kept in ["k000", "k001"] {
        assert!(store.get("ns", kept).expect("get").is_some(), "{kept}");
    }
    for gone in ["k002", "k003"] {
        assert!(store.get("ns", gone).expect("get").is_none(), "{gone}");
    }
}

/// A facts read marks the facts row only (the record's own mark, and so its place in
/// the `used` index, stays), yet eviction orders records by the later of the two: a
/// record whose facts were read between two puts goes exactly between them.
#[test]
fn eviction_orders_by_the_later_of_a_record_and_its_facts_marks() {
    let value = vec![b'x'; 94];
    let with_facts_read_after_k009 = |dir: &Path| {
        let store = Store::open_with(dir, options(100_000)).expect("open");
        let put = |key: &str| {
            let put = Put {
                key,
                value: &value,
                facts: Some(b"{}"),
            };
            store.put_many("ns", &[put]).expect("put");
        };
        for i in 0..10 {
            put(&format!("k{i:03}"));
        }
        store
            .read(|r| r.facts("ns", "k000").map(|f| assert!(f.is_some())))
            .expect("read");
        // The mark is written with the next write; the record's own mark stays.
        for i in 10..15 {
            put(&format!("k{i:03}"));
        }
        let used = |table: &str| -> i64 {
            store
                .conn()
                .expect("conn")
                .query_row(
                    &format!(
                        "SELECT used FROM {table}_v2
                         WHERE ns = (SELECT id FROM namespaces_v2 WHERE name = 'ns')
                         AND key = 'k000'"
                    ),
                    [],
                    |r| r.get(0),
                )
                .expect("used")
        };
        assert!(used("facts") > used("records"), "only the facts are marked");
        store
    };
    let kept = |store: &Store| -> Vec<String> {
        (0..15)
            .map(|i| format!("k{i:03}"))
            .filter(|k| {
                store
                    .read(|r| {
                        r.tx.query_row(
                            "SELECT COUNT(*) FROM records_v2
                             WHERE ns = (SELECT id FROM namespaces_v2 WHERE name = 'ns')
                             AND key = ?1",
                            [k],
                            |row| row.get::<_, i64>(0),
                        )
                        .map_err(Into::into)
                    })
                    .expect("count")
                    == 1
            })
            .collect()
    };
    // Six kept: k000 (its facts read after k009) and the five put after that read.
    let dir = tempfile::tempdir().expect("tempdir");
    let store = with_facts_read_after_k009(dir.path());
    store.prune(600).expect("prune");
    assert_eq!(
        kept(&store),
        ["k000", "k010", "k011", "k012", "k013", "k014"]
    );
    // Five kept: k000 went after k009 and before k010.
    let dir = tempfile::tempdir().expect("tempdir");
    let store = with_facts_read_after_k009(dir.path());
    store.prune(500).expect("prune");
    assert_eq!(kept(&store), ["k010", "k011", "k012", "k013", "k014"]);
    // Kept once, k000 now carries its facts' mark: the next eviction needs no heap.
    let dir = tempfile::tempdir().expect("tempdir");
    let store = with_facts_read_after_k009(dir.path());
    store.prune(1200).expect("prune");
    store.prune(600).expect("prune");
    assert_eq!(
        kept(&store),
        ["k000", "k010", "k011", "k012", "k013", "k014"]
    );
}

/// A bulk read past [`TOUCH_BATCH`] hands its marks to the marker thread: once the
/// store is dropped every facts row read carries its mark, the records their own.
#[test]
fn the_marks_of_a_bulk_read_are_written_by_the_marker() {
    let dir = tempfile::tempdir().expect("tempdir");
    let n = TOUCH_BATCH + 100;
    let keys: Vec<String> = (0..n).map(|i| format!("k{i:05}")).collect();
    let before = {
        let store = Store::open_with(dir.path(), options(u64::MAX)).expect("open");
        let puts: Vec<Put> = keys
            .iter()
            .map(|k| Put {
                key: k,
                value: b"v",
                facts: Some(b"{}"),
            })
            .collect();
        store.put_many("ns", &puts).expect("put");
        let before = store.now();
        store
            .read(|r| {
                for k in &keys {
                    assert!(r.facts("ns", k)?.is_some());
                }
                Ok(())
            })
            .expect("read");
        assert!(
            store.marker.lock().expect("lock").is_some(),
            "the marker took the batch"
        );
        before
    };
    let store = Store::open_with(dir.path(), options(u64::MAX)).expect("reopen");
    let conn = store.conn().expect("conn");
    let marked: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM facts_v2
             WHERE ns = (SELECT id FROM namespaces_v2 WHERE name = 'ns') AND used > ?1",
            [before],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(marked as usize, n, "every facts row read is marked");
    let records: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM records_v2
             WHERE ns = (SELECT id FROM namespaces_v2 WHERE name = 'ns') AND used > ?1",
            [before],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(records, 0, "the records keep their own marks");
}

fn put_with_facts(store: &Store, key: &str, value: &[u8]) {
    let put = Put {
        key,
        value,
        facts: Some(b"{}"),
    };
    store.put_many("ns", &[put]).expect("put");
}

/// A set holds while its reads could not have changed: a settled one until a facts row is
/// deleted or replaced, an unsettled one until one is added as well; one read under
/// counters that have moved since is not written.
#[test]
fn a_set_holds_until_the_facts_it_was_read_from_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1 << 20)).expect("open");
    for i in 0..4 {
        put_with_facts(&store, &format!("k{i:03}"), b"v");
    }
    let counters = || store.read(|r| r.counters()).expect("read");
    let set = |key: &str, settled: bool| NewSet {
        key: key.into(),
        members: vec!["k000", "k001"],
        facts: key.as_bytes().to_vec(),
        settled,
    };
    let read = |key: &str| {
        store
            .read(|r| {
                let now = r.counters()?;
                r.set("ns", key, now)
            })
            .expect("read")
    };
    let seen = counters();
    let written = store
        .put_sets("ns", &[set("settled", true), set("open", false)], seen)
        .expect("put");
    assert_eq!(written, 2);
    assert_eq!(read("settled").as_deref(), Some(&b"settled"[..]));
    assert_eq!(read("open").as_deref(), Some(&b"open"[..]));
    assert!(read("other").is_none());
    // Another record with facts: only the settled set holds.
    put_with_facts(&store, "k004", b"v");
    assert!(read("settled").is_some());
    assert!(read("open").is_none());
    // Read before that record came: the unsettled one is not written.
    let written = store
        .put_sets("ns", &[set("settled", true), set("open", false)], seen)
        .expect("put");
    assert_eq!(written, 1);
    // A record replaced (its facts go, new ones come): none holds, none is written from
    // reads made before, and the stale ones go when sets are written.
    put_with_facts(&store, "k002", b"w");
    assert!(read("settled").is_none());
    let before = counters();
    assert_ne!(before.deletes, seen.deletes);
    assert_eq!(
        store
            .put_sets("ns", &[set("settled", true)], seen)
            .expect("put"),
        0
    );
    assert_eq!(store.set_count().expect("count"), 0);
    assert_eq!(
        store
            .put_sets("ns", &[set("again", true)], before)
            .expect("put"),
        1
    );
    assert!(read("again").is_some());
    // Sized apart from the records: one set, its members (a tag and two keys as lines) and
    // its facts.
    assert_eq!(store.size().expect("size").sets, (1, 1 + 9 + 5));
    // Clearing the store takes the sets too.
    store.clear().expect("clear");
    assert_eq!(store.set_count().expect("count"), 0);
}

/// A read through a set is a use of its members: eviction spares them as if their facts
/// had been read one by one.
#[test]
fn a_set_read_keeps_its_members_from_eviction() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Ten records of 100 bytes fill the limit.
    let store = Store::open_with(dir.path(), options(1000)).expect("open");
    let value = vec![b'x'; 94];
    for i in 0..10 {
        put_with_facts(&store, &format!("k{i:03}"), &value);
    }
    let seen = store.read(|r| r.counters()).expect("read");
    let set = NewSet {
        key: "s".into(),
        members: vec!["k000", "k001"],
        facts: b"f".to_vec(),
        settled: true,
    };
    assert_eq!(store.put_sets("ns", &[set], seen).expect("put"), 1);
    // Read later than every record's own mark.
    store
        .read(|r| {
            let now = r.counters()?;
            assert!(r.set("ns", "s", now)?.is_some());
            Ok(())
        })
        .expect("read");
    store.put("ns", "k010", &value).expect("put");
    for kept in ["k000", "k001", "k010"] {
        assert!(store.get("ns", kept).expect("get").is_some(), "{kept}");
    }
    for gone in ["k002", "k003"] {
        assert!(store.get("ns", gone).expect("get").is_none(), "{gone}");
    }
}

/// A file of the first layout (text namespaces and keys, as an earlier sebx made it, with
/// its facts and sets) is rebuilt on opening: its tables go with a note, their pages go back
/// to the file system, and the store works as a fresh one; reopening it notes nothing.
#[test]
fn a_file_of_the_first_layout_is_rebuilt_on_opening() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let conn = rusqlite::Connection::open(dir.path().join(FILE_NAME)).expect("db");
        conn.execute_batch(
            "PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL;
             CREATE TABLE records (ns TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                 bytes INTEGER NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (ns, key))
                 WITHOUT ROWID;
             CREATE INDEX records_used ON records (used);
             CREATE TABLE namespaces (ns TEXT PRIMARY KEY, records INTEGER NOT NULL,
                 bytes INTEGER NOT NULL, facts INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
             CREATE TABLE facts (ns TEXT NOT NULL, key TEXT NOT NULL, used INTEGER NOT NULL,
                 facts BLOB NOT NULL, PRIMARY KEY (ns, key)) WITHOUT ROWID;
             CREATE TABLE sets (ns TEXT NOT NULL, key TEXT NOT NULL, used INTEGER NOT NULL,
                 spread INTEGER NOT NULL, deletes INTEGER NOT NULL, inserts INTEGER,
                 members BLOB NOT NULL, facts BLOB NOT NULL, PRIMARY KEY (ns, key));
             CREATE TABLE counters (id INTEGER PRIMARY KEY CHECK (id = 0),
                 deletes INTEGER NOT NULL, inserts INTEGER NOT NULL);
             INSERT INTO counters VALUES (0, 0, 0);
             PRAGMA user_version = 1;",
        )
        .expect("the first layout");
        let value = vec![b'x'; 2_000];
        for i in 0..500 {
            let key = format!("{i:032x}");
            conn.execute(
                "INSERT INTO records VALUES ('g-a', ?1, ?2, 2000, 1)",
                rusqlite::params![key, value],
            )
            .expect("record");
            conn.execute("INSERT INTO facts VALUES ('g-a', ?1, 1, '{}')", [&key])
                .expect("facts");
        }
        conn.execute(
            "INSERT INTO namespaces VALUES ('g-a', 500, 1000000, 500)",
            [],
        )
        .expect("totals");
    }
    let size_of = |dir: &std::path::Path| std::fs::metadata(dir.join(FILE_NAME)).expect("db").len();
    let before = size_of(dir.path());
    assert!(before > 1_000_000, "{before}");
    let store = Store::open_with(dir.path(), options(1 << 20)).expect("open");
    assert_eq!(store.notes().len(), 1, "{:?}", store.notes());
    assert!(store.notes()[0].contains("earlier sebx's layout was dropped"));
    let conn = store.conn().expect("conn");
    for table in ["records", "namespaces", "facts", "sets", "counters"] {
        assert!(
            !schema::has_table(&conn, table).expect("read"),
            "{table} dropped"
        );
    }
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("version");
    assert_eq!(version, 2);
    drop(conn);
    assert_eq!(store.count("g-a").expect("count"), 0);
    assert_eq!(store.bytes().expect("bytes"), 0);
    assert!(
        store
            .get("g-a", &format!("{:032x}", 7))
            .expect("get")
            .is_none()
    );
    // A fresh store from then on: records, facts and their counts.
    put_with_facts(&store, "k000", b"v");
    let key = format!("{:032x}", 7);
    put_with_facts(&store, &key, b"w");
    assert_eq!(
        store.get("ns", &key).expect("get").as_deref(),
        Some(&b"w"[..])
    );
    assert_eq!(store.count("ns").expect("count"), 2);
    assert!(store.read(|r| r.complete("ns")).expect("read"));
    let counters = store.read(|r| r.counters()).expect("counters");
    assert_eq!((counters.deletes, counters.inserts), (0, 2));
    store.shrink().expect("shrink");
    drop(store);
    let after = size_of(dir.path());
    assert!(after * 4 < before, "pages given back: {after} of {before}");
    let store = Store::open_with(dir.path(), options(1 << 20)).expect("reopen");
    assert!(store.notes().is_empty(), "{:?}", store.notes());
    assert_eq!(store.count("ns").expect("count"), 2);
}

/// A value past [`LARGE`] bytes is kept in a table of its own and reads back as filed;
/// replaced (by a large or a small value), evicted or cleared, it goes with its record.
#[test]
fn large_values_read_back_and_go_with_their_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1 << 20)).expect("open");
    let large_rows = |store: &Store| -> i64 {
        store
            .conn()
            .expect("conn")
            .query_row("SELECT COUNT(*) FROM large_v2", [], |r| r.get(0))
            .expect("count")
    };
    let big = |c: u8| vec![c; LARGE + 1];
    store.put("ns-bodies", "aa", &big(b'a')).expect("put");
    store.put("ns-bodies", "bb", &big(b'b')).expect("put");
    store.put("ns-bodies", "cc", &[b'c'; LARGE]).expect("put");
    assert_eq!(
        large_rows(&store),
        2,
        "a value of LARGE bytes stays in its record"
    );
    assert_eq!(store.get("ns-bodies", "aa").expect("get"), Some(big(b'a')));
    assert_eq!(
        store.get("ns-bodies", "cc").expect("get"),
        Some(vec![b'c'; LARGE])
    );
    // Replaced by another large value, then by a small one: the old ones go.
    store.put("ns-bodies", "aa", &big(b'x')).expect("put");
    assert_eq!(store.get("ns-bodies", "aa").expect("get"), Some(big(b'x')));
    assert_eq!(large_rows(&store), 2);
    store.put("ns-bodies", "aa", b"small").expect("put");
    assert_eq!(
        store.get("ns-bodies", "aa").expect("get").as_deref(),
        Some(&b"small"[..])
    );
    assert_eq!(large_rows(&store), 1);
    // Facts are kept beside a large value as beside any, and backfilled against it.
    let filing = Filing {
        key: "dd".into(),
        value: big(b'd'),
        facts: b"{}".to_vec(),
    };
    store.put("ns", "dd", &filing.value).expect("put");
    store.backfill_facts("ns", &[filing]).expect("backfill");
    assert!(store.read(|r| r.facts("ns", "dd")).expect("read").is_some());
    assert_eq!(large_rows(&store), 2);
    // Evicted with its record (the limit: below every record's bytes).
    store.prune(0).expect("prune");
    assert_eq!(store.count("ns-bodies").expect("count"), 0);
    assert_eq!(large_rows(&store), 0);
    store.put("ns-bodies", "ee", &big(b'e')).expect("put");
    store.clear().expect("clear");
    assert_eq!(large_rows(&store), 0);
    assert!(store.get("ns-bodies", "ee").expect("get").is_none());
}

/// Keys in lower-case hexadecimal are kept as their bytes and any other key as its text:
/// every spelling reads back as filed, and none shares another's row.
#[test]
fn hexadecimal_and_other_keys_read_back_as_filed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1 << 20)).expect("open");
    let keys = [
        "00ff",
        "00FF",
        "0",
        "000",
        "",
        "k000",
        "abcdef0123456789",
        "zz",
        "ab\u{e9}",
    ];
    for (i, key) in keys.iter().enumerate() {
        store
            .put("ns", key, format!("{i}").as_bytes())
            .expect("put");
    }
    for (i, key) in keys.iter().enumerate() {
        let got = store.get("ns", key).expect("get");
        assert_eq!(got.as_deref(), Some(format!("{i}").as_bytes()), "{key:?}");
    }
    assert_eq!(store.count("ns").expect("count"), keys.len() as u64);
    let conn = store.conn().expect("conn");
    let kinds: Vec<(String, i64)> = conn
        .prepare("SELECT typeof(key), length(key) FROM records_v2 ORDER BY typeof(key), key")
        .expect("query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<rusqlite::Result<_>>()
        .expect("rows");
    let blobs: Vec<i64> = kinds
        .iter()
        .filter(|k| k.0 == "blob")
        .map(|k| k.1)
        .collect();
    assert_eq!(blobs, [2, 8], "{kinds:?}");
}

/// Past the limit, the regradable records (report bodies, program runs) go before any other,
/// however recently they were used: a rollout's record holds the facts figures read.
#[test]
fn past_the_limit_bodies_and_runs_go_before_any_rollouts_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(2_000)).expect("open");
    let value = vec![b'x'; 90];
    // Ten rollouts' records first (the oldest), then bodies and runs.
    for i in 0..10 {
        store.put("g-a", &format!("k{i:03}"), &value).expect("put");
    }
    for i in 0..5 {
        store
            .put("g-a-bodies", &format!("b{i:03}"), &value)
            .expect("put");
        store
            .put("g-a-runs", &format!("r{i:03}"), &value)
            .expect("put");
    }
    // Past the limit: bodies and runs go (the oldest first) before the older records.
    store.put("g-a", "k010", &value).expect("put");
    for i in 0..=10 {
        assert!(
            store
                .get("g-a", &format!("k{i:03}"))
                .expect("get")
                .is_some(),
            "record {i} kept"
        );
    }
    assert!(store.get("g-a-bodies", "b000").expect("get").is_none());
    assert!(store.bytes().expect("bytes") <= 1_800);
    // A budget of their own: past it, the least recently used of them go, whatever the limit.
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with(dir.path(), options(1 << 30)).expect("open");
    store.set_regradable_budget(1_000);
    for i in 0..20 {
        store.put("g-a", &format!("k{i:03}"), &value).expect("put");
        store
            .put("g-a-bodies", &format!("b{i:03}"), &value)
            .expect("put");
    }
    let size = store.size().expect("size");
    let of = |name: &str| size.namespaces.iter().find(|n| n.name == name).cloned();
    assert_eq!(of("g-a").map(|n| n.records), Some(20));
    let bodies = of("g-a-bodies").expect("bodies");
    assert!(bodies.bytes <= 1_000 && bodies.records < 20, "{bodies:?}");
    assert!(store.get("g-a-bodies", "b019").expect("get").is_some());
    assert!(store.get("g-a-bodies", "b000").expect("get").is_none());
}
