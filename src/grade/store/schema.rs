//! The store's file and layout: opening the database (write-ahead log, busy timeout,
//! pragmas), the schema of records, namespaces, facts and sets with the triggers that keep
//! their totals, the upgrades that add the facts and the sets to an earlier layout, and the
//! removal of the earlier format's JSONL files. Apart from the store's operations because
//! it runs once per open and is the one place that knows the SQL layout as a whole.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use super::human_bytes;

/// The layout this code reads and writes (`PRAGMA user_version`).
const SCHEMA: i64 = 1;

/// How long a writer waits for another process's transaction before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

const CREATE: &str = "
CREATE TABLE IF NOT EXISTS records (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    bytes INTEGER NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_used ON records (used);
CREATE TABLE IF NOT EXISTS namespaces (
    ns TEXT PRIMARY KEY,
    records INTEGER NOT NULL,
    bytes INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS records_insert AFTER INSERT ON records BEGIN
    INSERT INTO namespaces (ns, records, bytes) VALUES (NEW.ns, 1, NEW.bytes)
    ON CONFLICT (ns) DO UPDATE SET records = records + 1, bytes = bytes + excluded.bytes;
END;
CREATE TRIGGER IF NOT EXISTS records_delete AFTER DELETE ON records BEGIN
    UPDATE namespaces SET records = records - 1, bytes = bytes - OLD.bytes WHERE ns = OLD.ns;
    DELETE FROM namespaces WHERE ns = OLD.ns AND records = 0;
END;
CREATE TRIGGER IF NOT EXISTS records_update AFTER UPDATE OF bytes ON records BEGIN
    UPDATE namespaces SET bytes = bytes - OLD.bytes + NEW.bytes WHERE ns = NEW.ns;
END;
";

/// The facts beside the records (see the module doc), added to a store of the first layout
/// without changing its version: an earlier sebx ignores the table, and its writes keep it
/// consistent through the triggers.
const CREATE_FACTS: &str = "
ALTER TABLE namespaces ADD COLUMN facts INTEGER NOT NULL DEFAULT 0;
CREATE TABLE facts (
    ns TEXT NOT NULL,
    key TEXT NOT NULL,
    used INTEGER NOT NULL,
    facts BLOB NOT NULL,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE TRIGGER records_facts_delete AFTER DELETE ON records BEGIN
    DELETE FROM facts WHERE ns = OLD.ns AND key = OLD.key;
END;
CREATE TRIGGER records_facts_stale AFTER UPDATE OF value ON records BEGIN
    DELETE FROM facts WHERE ns = NEW.ns AND key = NEW.key;
END;
CREATE TRIGGER facts_insert AFTER INSERT ON facts BEGIN
    UPDATE namespaces SET facts = facts + 1 WHERE ns = NEW.ns;
END;
CREATE TRIGGER facts_delete AFTER DELETE ON facts BEGIN
    UPDATE namespaces SET facts = facts - 1 WHERE ns = OLD.ns;
END;
";

/// Sets of facts (see `sets.rs`), added like the facts table: the sets, the counters of the
/// facts' changes that say whether a set still holds, and the facts triggers again with the
/// counting added (an earlier sebx writing the file fires them too, so its changes count).
const CREATE_SETS: &str = "
CREATE TABLE sets (
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
CREATE TABLE counters (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    deletes INTEGER NOT NULL,
    inserts INTEGER NOT NULL
);
INSERT INTO counters (id, deletes, inserts) VALUES (0, 0, 0);
DROP TRIGGER IF EXISTS facts_insert;
DROP TRIGGER IF EXISTS facts_delete;
CREATE TRIGGER facts_insert AFTER INSERT ON facts BEGIN
    UPDATE namespaces SET facts = facts + 1 WHERE ns = NEW.ns;
    UPDATE counters SET inserts = inserts + 1;
END;
CREATE TRIGGER facts_delete AFTER DELETE ON facts BEGIN
    UPDATE namespaces SET facts = facts - 1 WHERE ns = OLD.ns;
    UPDATE counters SET deletes = deletes + 1;
END;
CREATE TRIGGER facts_change AFTER UPDATE OF ns, key, facts ON facts BEGIN
    UPDATE counters SET deletes = deletes + 1;
END;
";

/// Opens the database at `path`: WAL, a busy timeout, and the schema.
pub(super) fn connect(path: &Path) -> Result<Connection> {
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
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if version != SCHEMA {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have just made it.
        let version: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version != SCHEMA {
            if version != 0 {
                // Another layout (a cache: what it held is graded again when asked).
                tx.execute_batch(
                    "DROP TABLE IF EXISTS records; DROP TABLE IF EXISTS namespaces;
                     DROP TRIGGER IF EXISTS records_insert; DROP TRIGGER IF EXISTS records_delete;
                     DROP TRIGGER IF EXISTS records_update;",
                )?;
            }
            tx.execute_batch(CREATE)?;
            tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA};"))?;
        }
        tx.commit()?;
    }
    if !has_facts(&conn)? {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again under the write lock, as above.
        if !has_facts(&tx)? {
            tx.execute_batch(CREATE_FACTS)?;
        }
        tx.commit()?;
    }
    if !has_table(&conn, "sets")? {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if !has_table(&tx, "sets")? {
            tx.execute_batch(CREATE_SETS)?;
        }
        tx.commit()?;
    }
    Ok(conn)
}

/// Whether the store has the facts table (a store of the first layout does not).
fn has_facts(conn: &Connection) -> Result<bool> {
    has_table(conn, "facts")
}

/// Whether the store has the table `name`.
fn has_table(conn: &Connection, name: &str) -> Result<bool> {
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
