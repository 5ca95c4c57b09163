//! The store's file and layout: opening the database (write-ahead log, busy timeout,
//! pragmas), the schema of records, namespaces, facts and sets with the triggers that keep
//! their totals, the rebuilding of a file of the first layout, and the removal of the
//! earlier format's JSONL files. Apart from the store's operations because
//! it runs once per open and is the one place that knows the SQL layout as a whole.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use super::human_bytes;

/// The layout this code reads and writes (`PRAGMA user_version`). The second layout (issue
/// 42) keeps a record's namespace as a number (`namespaces_v2.id`) and a hexadecimal key as
/// its bytes, where the first repeated the 33-character namespace and the 32-character key
/// in the record, its `used` index and its facts: with every program of a big run distinct,
/// that was most of the cache (benches/README.md, "A cache sized by its facts").
const SCHEMA: i64 = 2;

/// How long a writer waits for another process's transaction before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The second layout. Its tables have names of their own, so that an earlier sebx opening
/// the file (which drops and makes again only the first layout's `records` and
/// `namespaces`) never writes into them, and this one never into its.
///
/// - `namespaces_v2`: a namespace's number and name, and its running totals (records,
///   bytes, facts), kept by triggers. A namespace's row stays when its records go (its
///   number is found by the statements that name it by name, `ns_id!`).
/// - `records_v2`: key → value, keyed by (namespace number, key); `key` has no type of its
///   own: a key in lower-case hexadecimal is kept as its bytes (a BLOB), any other as text
///   ([`Key`](super::Key)), so the two never collide. The `used` index is eviction's walk.
/// - `large_v2`: values past [`LARGE`](super::LARGE) bytes (report bodies, program runs),
///   which the record names (`large`; its own `value` is then empty) and which go with it
///   (triggers). In the records' table, whose rows are stored like an index's, a value of
///   more than ~1,000 bytes took an overflow page of 4 KiB of its own, mostly empty: a
///   budget of 4 MiB of packed bodies took 13 MB of the file. A table keyed by number
///   holds a value of up to ~4,000 bytes in its row.
/// - `facts_v2`: the facts beside a record, deleted or made stale with it by triggers.
/// - `sets_v2` and `counters_v2`: sets of facts (`sets.rs`) and the counts of the facts'
///   changes that say whether a set still holds.
const CREATE: &str = "
CREATE TABLE IF NOT EXISTS namespaces_v2 (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    records INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    facts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS records_v2 (
    ns INTEGER NOT NULL,
    key BLOB NOT NULL,
    value BLOB NOT NULL,
    bytes INTEGER NOT NULL,
    used INTEGER NOT NULL,
    large INTEGER,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_v2_used ON records_v2 (used);
CREATE TABLE IF NOT EXISTS large_v2 (
    id INTEGER PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS facts_v2 (
    ns INTEGER NOT NULL,
    key BLOB NOT NULL,
    used INTEGER NOT NULL,
    facts BLOB NOT NULL,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sets_v2 (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    used INTEGER NOT NULL,
    spread INTEGER NOT NULL,
    deletes INTEGER NOT NULL,
    inserts INTEGER,
    members BLOB NOT NULL,
    facts BLOB NOT NULL,
    PRIMARY KEY (ns, key)
);
CREATE TABLE IF NOT EXISTS counters_v2 (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    deletes INTEGER NOT NULL,
    inserts INTEGER NOT NULL
);
INSERT OR IGNORE INTO counters_v2 (id, deletes, inserts) VALUES (0, 0, 0);
CREATE TRIGGER IF NOT EXISTS records_v2_insert AFTER INSERT ON records_v2 BEGIN
    UPDATE namespaces_v2 SET records = records + 1, bytes = bytes + NEW.bytes WHERE id = NEW.ns;
END;
CREATE TRIGGER IF NOT EXISTS records_v2_delete AFTER DELETE ON records_v2 BEGIN
    UPDATE namespaces_v2 SET records = records - 1, bytes = bytes - OLD.bytes WHERE id = OLD.ns;
    DELETE FROM facts_v2 WHERE ns = OLD.ns AND key = OLD.key;
    DELETE FROM large_v2 WHERE id = OLD.large;
END;
CREATE TRIGGER IF NOT EXISTS records_v2_large AFTER UPDATE OF large ON records_v2
WHEN OLD.large IS NOT NEW.large BEGIN
    DELETE FROM large_v2 WHERE id = OLD.large;
END;
CREATE TRIGGER IF NOT EXISTS records_v2_update AFTER UPDATE OF bytes ON records_v2 BEGIN
    UPDATE namespaces_v2 SET bytes = bytes - OLD.bytes + NEW.bytes WHERE id = NEW.ns;
END;
CREATE TRIGGER IF NOT EXISTS records_v2_stale AFTER UPDATE OF value ON records_v2 BEGIN
    DELETE FROM facts_v2 WHERE ns = NEW.ns AND key = NEW.key;
END;
CREATE TRIGGER IF NOT EXISTS facts_v2_insert AFTER INSERT ON facts_v2 BEGIN
    UPDATE namespaces_v2 SET facts = facts + 1 WHERE id = NEW.ns;
    UPDATE counters_v2 SET inserts = inserts + 1;
END;
CREATE TRIGGER IF NOT EXISTS facts_v2_delete AFTER DELETE ON facts_v2 BEGIN
    UPDATE namespaces_v2 SET facts = facts - 1 WHERE id = OLD.ns;
    UPDATE counters_v2 SET deletes = deletes + 1;
END;
CREATE TRIGGER IF NOT EXISTS facts_v2_change AFTER UPDATE OF ns, key, facts ON facts_v2 BEGIN
    UPDATE counters_v2 SET deletes = deletes + 1;
END;
";

/// The first layout's tables (their indexes and triggers go with them): dropped when a file
/// of it is opened. Its records were filed by an earlier build, whose grader version
/// ([`super::grader_version`], a hash of every source under `src/grade/`, this file
/// included) is never this one's, so no lookup of this build could find them.
const DROP_FIRST: &str = "
DROP TABLE IF EXISTS records; DROP TABLE IF EXISTS namespaces; DROP TABLE IF EXISTS facts;
DROP TABLE IF EXISTS sets; DROP TABLE IF EXISTS counters;
";

/// `?1`, a namespace's name, as its number in a statement (none when it has no row yet: a
/// lookup then finds nothing, and a write files its name first, [`file_namespace`]). A
/// macro so that statements stay literals (`concat!`).
macro_rules! ns_id {
    () => {
        "(SELECT id FROM namespaces_v2 WHERE name = ?1)"
    };
}
pub(super) use ns_id;

/// A record's value in a statement on `records_v2`: its own, or the large value it names.
macro_rules! value_of {
    () => {
        "CASE WHEN large IS NULL THEN value ELSE (SELECT l.value FROM large_v2 l WHERE l.id = large) END"
    };
}
pub(super) use value_of;

/// Gives the namespace `name` its row (and so its number) if it has none.
pub(super) fn file_namespace(tx: &rusqlite::Transaction, name: &str) -> Result<()> {
    tx.prepare_cached("INSERT OR IGNORE INTO namespaces_v2 (name) VALUES (?1)")?
        .execute([name])?;
    Ok(())
}

/// Opens the database at `path`: WAL, a busy timeout, and the schema; a file of the first
/// layout is rebuilt (a note says so).
pub(super) fn connect(path: &Path) -> Result<Connection> {
    connect_noting(path).map(|(conn, _)| conn)
}

/// [`connect`], and a note when it dropped a file's first layout.
pub(super) fn connect_noting(path: &Path) -> Result<(Connection, Option<String>)> {
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Before the first table: lets a prune give pages back (a no-op on an existing file).
    conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        anyhow::bail!("the cache database cannot use a write-ahead log (journal mode {mode})");
    }
    // No memory map: pages come through read calls (the kernel's page cache keeps them)
    // into 4 MiB of SQLite's own cache per connection. With a map, the pages a bulk lookup
    // of facts touched (and the kernel's neighbours of each) counted in the explorer's
    // resident memory: 3.3x a 100,000-rollout file on reopening, against 1.3x of its own;
    // a 16 MiB cache added 0.14x of its own (benches/README.md, cache_reopen).
    conn.execute_batch(
        "PRAGMA synchronous = NORMAL; PRAGMA mmap_size = 0; PRAGMA cache_size = -4096;",
    )?;
    let mut note = None;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version != SCHEMA || !has_table(&conn, "records_v2")? {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have just made it.
        let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version != SCHEMA || !has_table(&tx, "records_v2")? {
            // Another layout (a cache: what it held is graded again when asked).
            let earlier = has_table(&tx, "records")?;
            tx.execute_batch(DROP_FIRST)?;
            tx.execute_batch(CREATE)?;
            tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA};"))?;
            note = earlier.then(|| {
                "score cache: an earlier sebx's layout was dropped (its records were an earlier \
                 grader's; this one's are kept in a smaller layout)"
                    .to_string()
            });
        }
        tx.commit()?;
        if note.is_some() {
            // The dropped tables' pages go back to the file system.
            let mut vacuum = conn.prepare("PRAGMA incremental_vacuum")?;
            let mut steps = vacuum.query([])?;
            while steps.next()?.is_some() {}
            drop(steps);
            drop(vacuum);
        }
    }
    Ok((conn, note))
}

/// Whether the store has the table `name`.
pub(super) fn has_table(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Whether `name` is a file of the earlier format: `<grader>-<api>.jsonl` or
/// `<grader>-<api>-runs.jsonl`, both hashes 16 hexadecimal digits.
pub(super) fn is_old_format(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".jsonl") else {
        return false;
    };
    let stem = stem.strip_suffix("-runs").unwrap_or(stem);
    let mut parts = stem.split('-');
    let hash = |p: Option<&str>| {
        p.is_some_and(|p| p.len() == 16 && p.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    hash(parts.next()) && hash(parts.next()) && parts.next().is_none()
}

/// Removes the earlier format's files from `dir`; a note of what went, if anything did.
pub(super) fn remove_old_format(dir: &Path) -> Option<String> {
    let (mut files, mut bytes) = (0usize, 0u64);
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_old_format) {
            continue;
        }
        let size = entry.metadata().map_or(0, |m| m.len());
        // Another process opening at once may have removed it first.
        if std::fs::remove_file(entry.path()).is_ok() {
            files += 1;
            bytes += size;
        }
    }
    (files > 0).then(|| {
        format!(
            "score cache: removed {files} file(s) of an earlier sebx's cache format ({} freed)",
            human_bytes(bytes)
        )
    })
}
