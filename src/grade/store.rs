//! The store the score cache and the run cache are made of: one SQLite database in the
//! cache folder (`cache.sqlite3`) holding every namespace (a grader version and zwc
//! mapping's reports, `<grader>-<api>`, and its program runs, `<grader>-<api>-runs`), each
//! a table of key → JSON value. A lookup is one indexed read; opening reads no records.
//!
//! Why SQLite and not a single-process store such as redb: several sebx processes (the
//! explorer, `sebx grade`, `sebx serve`, tests) read and write the cache at once, and redb
//! takes an exclusive lock per process. SQLite in WAL mode lets readers go on while one
//! writer commits, and a busy timeout makes concurrent writers wait their turn instead of
//! failing. Each put is one small `BEGIN IMMEDIATE` transaction (`synchronous=NORMAL`:
//! a power cut may lose the last puts, never the database's consistency; a killed process
//! loses at most the put it was in).
//!
//! Growth is bounded: each namespace's records and bytes (namespace, key and value) are
//! kept as running totals by triggers (so neither a count nor the size check reads the
//! records), and the total is checked on every put; past the limit ([`DEFAULT_LIMIT`],
//! `$SEBX_CACHE_MAX_MB`) the least recently used records go until the total is under 90%
//! of it (the put that crosses the limit pays for evicting about a tenth of the store, so
//! the next few thousand puts do not). The limit counts the records' bytes; the file adds
//! SQLite's pages around them, and pages freed by eviction are reused by later puts
//! (`sebx cache prune` gives them back to the file system).
//!
//! "Used" is coarse on purpose, so that a lookup-heavy session does not turn every read
//! into a write: a read marks its record only when the stored mark is older than a minute
//! ([`TOUCH_AFTER`]), and the marks are written in a batch with the next put, when a few
//! thousand have gathered, or when the store is dropped. Marks are milliseconds since the
//! epoch, strictly increasing within a process. A read of facts marks the facts row only:
//! marking the record too moves it in the `used` index, which made marking a 200,000-row
//! run 10× dearer than reading it (benches/README.md, training_scale); eviction takes a
//! record's latest mark as the later of the two (see [`evict`]).
//!
//! Beside a record, a writer may keep its *facts* (`facts` table: a few dozen bytes the
//! score cache derives from the report), so that a bulk lookup reads them without reading,
//! let alone parsing, the record: the facts table is a B-tree of small rows, where the
//! records' values take overflow pages. Triggers keep the two consistent whoever writes:
//! a record replaced or deleted loses its facts (a writer that does not know them, such as
//! an earlier sebx on the same file, leaves the record without facts), and the namespace's
//! totals count the facts rows, so that a reader knows when every record has them
//! ([`Reader::complete`]). The facts table came after the first layout: opening a store
//! without it adds it (no record is rewritten, and an earlier sebx reads the file as before).
//! Facts are not counted in the size limit (they are ~1% of a report).
//!
//! Files of the earlier format (one JSONL log per namespace, `<grader>-<api>.jsonl` and
//! `<grader>-<api>-runs.jsonl`) are removed when the store is opened, with a note: their
//! grader version can never match again.
//!
//! Also what names the namespaces: [`grader_version`] (a hash of the grader's sources,
//! from `build.rs`: see `source_hash`) and [`api_hash`] (the zwc mapping).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use sha2::{Digest, Sha256};

use crate::model::ApiMap;

/// The database's file name in the cache folder.
pub const FILE_NAME: &str = "cache.sqlite3";

/// The size limit when `$SEBX_CACHE_MAX_MB` does not set one: 1 GiB of records.
pub const DEFAULT_LIMIT: u64 = 1 << 30;

/// A read marks its record used again only when the mark is older than this.
pub const TOUCH_AFTER: Duration = Duration::from_secs(60);

/// Marks gathered past this many are written at once, without waiting for a put.
const TOUCH_BATCH: usize = 4096;

/// The layout this code reads and writes (`PRAGMA user_version`).
const SCHEMA: i64 = 1;

/// How long a writer waits for another process's transaction before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Eviction stops under this share of the limit, so that the next puts do not evict again.
const EVICT_TO: f64 = 0.9;

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

/// A record's key and value with the facts derived from it (owned): what
/// [`Store::backfill_facts`] writes, and what a writer gathers before [`Store::put_many`].
#[derive(Debug, Clone)]
pub struct Filing {
    pub key: String,
    pub value: Vec<u8>,
    pub facts: Vec<u8>,
}

impl Filing {
    /// The record to put, with its facts.
    pub fn put(&self) -> Put<'_> {
        Put {
            key: &self.key,
            value: &self.value,
            facts: Some(&self.facts),
        }
    }
}

/// One record to file with [`Store::put_many`]: its key, value and, if known, its facts.
#[derive(Debug, Clone, Copy)]
pub struct Put<'a> {
    pub key: &'a str,
    pub value: &'a [u8],
    pub facts: Option<&'a [u8]>,
}

/// How a store is opened: its size limit and how coarse "used" is.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The records' bytes past which the least recently used go.
    pub limit: u64,
    /// A read marks its record used only when the mark is older than this.
    pub touch_after: Duration,
}

impl Default for Options {
    /// [`DEFAULT_LIMIT`] or `$SEBX_CACHE_MAX_MB` (mebibytes), and [`TOUCH_AFTER`].
    fn default() -> Options {
        Options {
            limit: limit_from_env().unwrap_or(DEFAULT_LIMIT),
            touch_after: TOUCH_AFTER,
        }
    }
}

/// The limit `$SEBX_CACHE_MAX_MB` sets, if it is a number of mebibytes.
pub fn limit_from_env() -> Option<u64> {
    let mb: u64 = std::env::var("SEBX_CACHE_MAX_MB")
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(mb.saturating_mul(1 << 20))
}

/// One namespace's records and bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    pub name: String,
    pub records: u64,
    pub bytes: u64,
}

/// What a store holds (see [`Store::size`]).
#[derive(Debug, Clone)]
pub struct Size {
    pub path: PathBuf,
    /// The database file and its write-ahead log on disk.
    pub on_disk: u64,
    /// The records' bytes (the running total the limit is checked against).
    pub bytes: u64,
    pub limit: u64,
    pub namespaces: Vec<Namespace>,
}

/// What an eviction removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Evicted {
    pub records: u64,
    pub bytes: u64,
}

/// A read to be marked: when, and whether the record is marked too (else its facts only).
#[derive(Debug, Clone, Copy)]
struct Mark {
    when: i64,
    record: bool,
}

/// Marks gathered: (namespace, key) → the mark.
type Marks = HashMap<(String, String), Mark>;

/// Writes `marks` in `tx`: the facts row of each, and the record where the read was of
/// the record itself.
fn write_marks(tx: &rusqlite::Transaction, marks: &Marks) -> Result<()> {
    if marks.is_empty() {
        return Ok(());
    }
    let mut mark =
        tx.prepare_cached("UPDATE records SET used = max(used, ?3) WHERE ns = ?1 AND key = ?2")?;
    let mut mark_facts =
        tx.prepare_cached("UPDATE facts SET used = max(used, ?3) WHERE ns = ?1 AND key = ?2")?;
    for ((ns, key), m) in marks {
        if m.record {
            mark.execute(params![ns, key, m.when])?;
        }
        mark_facts.execute(params![ns, key, m.when])?;
    }
    Ok(())
}

/// The thread that writes the marks of bulk reads, on a connection of its own: a bulk
/// lookup of 200,000 facts wrote their marks (with the log's checkpoints and syncs) for
/// longer than it read them, and the verdicts waited (benches/README.md, training_scale).
/// WAL lets the reads go on meanwhile; a mark that cannot be written only makes eviction
/// a little less exact.
struct Marker {
    tx: std::sync::mpsc::Sender<Marks>,
    thread: std::thread::JoinHandle<()>,
}

impl Marker {
    /// None when the second connection cannot be opened (the marks are then written by
    /// the reader).
    fn start(path: &Path) -> Option<Marker> {
        let mut conn = connect(path).ok()?;
        let (tx, rx) = std::sync::mpsc::channel::<Marks>();
        let thread = std::thread::Builder::new()
            .name("sebx-cache-marks".into())
            .spawn(move || {
                for marks in rx {
                    let written = conn
                        .transaction_with_behavior(TransactionBehavior::Immediate)
                        .map_err(anyhow::Error::from)
                        .and_then(|tx| {
                            write_marks(&tx, &marks)?;
                            tx.commit().map_err(anyhow::Error::from)
                        });
                    drop(written);
                }
            })
            .ok()?;
        Some(Marker { tx, thread })
    }
}

/// The database: one connection, shared by the tables opened on it.
pub struct Store {
    path: PathBuf,
    conn: Mutex<Connection>,
    options: Options,
    /// Reads whose records are to be marked used: (namespace, key) → the mark.
    touched: Mutex<Marks>,
    /// The latest mark given, so marks from this process strictly increase.
    clock: AtomicI64,
    /// Writes the marks of bulk reads in the background (started by the first).
    marker: Mutex<Option<Marker>>,
    notes: Vec<String>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("options", &self.options)
            .finish()
    }
}

impl Store {
    /// Opens (creating it and `dir`) the store in `dir` with the default [`Options`],
    /// removing files of the earlier format (see [`Store::notes`]).
    pub fn open(dir: &Path) -> Result<Arc<Store>> {
        Store::open_with(dir, Options::default())
    }

    pub fn open_with(dir: &Path, options: Options) -> Result<Arc<Store>> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the cache folder {}", dir.display()))?;
        let notes = remove_old_format(dir).into_iter().collect();
        let path = dir.join(FILE_NAME);
        let conn = connect(&path).with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Arc::new(Store {
            path,
            conn: Mutex::new(conn),
            options,
            touched: Mutex::new(HashMap::new()),
            clock: AtomicI64::new(0),
            marker: Mutex::new(None),
            notes,
        }))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// What opening did that a front end may show (old-format files removed).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    fn conn(&self) -> Result<MutexGuard<'_, Connection>> {
        self.conn
            .lock()
            .map_err(|_| anyhow!("the cache's connection lock is poisoned"))
    }

    /// A mark later than any this process gave, near the clock (milliseconds).
    fn now(&self) -> i64 {
        let wall = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        // Equal marks would leave the order of eviction to chance.
        let mut prev = self.clock.load(Ordering::Relaxed);
        loop {
            let next = wall.max(prev + 1);
            match self
                .clock
                .compare_exchange(prev, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return next,
                Err(seen) => prev = seen,
            }
        }
    }

    /// The value under `key` in `ns`; marks it used (see the module doc).
    pub fn get(&self, ns: &str, key: &str) -> Result<Option<Vec<u8>>> {
        self.read(|r| r.value(ns, key))
    }

    /// Runs `f` with a reader of the store: one read transaction, so that many lookups
    /// cost one lock and one snapshot, their statements prepared once. The marks of what
    /// was read are written with the next write (see the module doc).
    pub fn read<T>(&self, f: impl FnOnce(&Reader) -> Result<T>) -> Result<T> {
        let out = {
            let mut conn = self.conn()?;
            let tx = conn.transaction_with_behavior(TransactionBehavior::Deferred)?;
            let out = f(&Reader {
                store: self,
                tx: &tx,
            })?;
            tx.commit()?;
            out
        };
        let full = {
            let mut touched = self
                .touched
                .lock()
                .map_err(|_| anyhow!("the cache's touch lock is poisoned"))?;
            (touched.len() >= TOUCH_BATCH).then(|| std::mem::take(&mut *touched))
        };
        if let Some(marks) = full {
            self.mark_in_background(marks)?;
        }
        Ok(out)
    }

    /// Hands `marks` to the marker (started at the first call, on a connection of its
    /// own), so that the reads go on while they are written; without a marker, they are
    /// written here.
    fn mark_in_background(&self, marks: Marks) -> Result<()> {
        let mut marker = self
            .marker
            .lock()
            .map_err(|_| anyhow!("the cache's marker lock is poisoned"))?;
        if marker.is_none() {
            *marker = Marker::start(&self.path);
        }
        let marks = match marker.as_ref() {
            Some(m) => match m.tx.send(marks) {
                Ok(()) => return Ok(()),
                Err(std::sync::mpsc::SendError(marks)) => marks,
            },
            None => marks,
        };
        drop(marker);
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        write_marks(&tx, &marks)?;
        tx.commit()?;
        Ok(())
    }

    /// Remembers that `key` of `ns`, last marked `used`, was read now (if the mark is old):
    /// its record and facts when `record`, else (a read of facts) its facts only.
    fn note_use(&self, ns: &str, key: &str, used: i64, record: bool) -> Result<()> {
        let now = self.now();
        if now.saturating_sub(used) >= self.options.touch_after.as_millis() as i64 {
            let mut touched = self
                .touched
                .lock()
                .map_err(|_| anyhow!("the cache's touch lock is poisoned"))?;
            let mark = touched
                .entry((ns.to_string(), key.to_string()))
                .or_insert(Mark { when: now, record });
            mark.when = mark.when.max(now);
            mark.record |= record;
        }
        Ok(())
    }

    /// Files `value` under `key` in `ns` (replacing what was there), then evicts the least
    /// recently used records if the store is past its limit.
    pub fn put(&self, ns: &str, key: &str, value: &[u8]) -> Result<()> {
        self.put_many(
            ns,
            &[Put {
                key,
                value,
                facts: None,
            }],
        )
    }

    /// Files every record of `puts` in `ns` (each replacing what was there, with its facts
    /// or none) in one transaction, then evicts the least recently used records if the
    /// store is past its limit: a batch costs one commit, not one per record.
    pub fn put_many(&self, ns: &str, puts: &[Put]) -> Result<()> {
        if puts.is_empty() {
            return Ok(());
        }
        self.write(|tx| {
            let mut record = tx.prepare_cached(
                "INSERT INTO records (ns, key, value, bytes, used) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (ns, key) DO UPDATE
                 SET value = excluded.value, bytes = excluded.bytes, used = excluded.used",
            )?;
            let mut facts = tx.prepare_cached(
                "INSERT INTO facts (ns, key, used, facts) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (ns, key) DO UPDATE SET used = excluded.used, facts = excluded.facts",
            )?;
            for put in puts {
                let bytes = (ns.len() + put.key.len() + put.value.len()) as i64;
                let now = self.now();
                // Replacing the value drops its old facts (a trigger).
                record.execute(params![ns, put.key, put.value, bytes, now])?;
                if let Some(f) = put.facts {
                    facts.execute(params![ns, put.key, now, f])?;
                }
            }
            if total(tx)? > self.options.limit {
                evict(tx, (self.options.limit as f64 * EVICT_TO) as u64)?;
            }
            Ok(())
        })
    }

    /// Gives records of `ns` that have none the facts derived from them: each of `found`
    /// is written only if the record still holds the value its facts were derived from
    /// (another process may have replaced it since).
    pub fn backfill_facts(&self, ns: &str, found: &[Filing]) -> Result<()> {
        if found.is_empty() {
            return Ok(());
        }
        self.write(|tx| {
            let mut add = tx.prepare_cached(
                "INSERT OR IGNORE INTO facts (ns, key, used, facts)
                 SELECT ns, key, used, ?3 FROM records WHERE ns = ?1 AND key = ?2 AND value = ?4",
            )?;
            for f in found {
                add.execute(params![ns, f.key, f.facts, f.value])?;
            }
            Ok(())
        })
    }

    /// Runs `f` in one immediate transaction, with the gathered marks written first.
    fn write<T>(&self, f: impl FnOnce(&rusqlite::Transaction) -> Result<T>) -> Result<T> {
        let touched = std::mem::take(
            &mut *self
                .touched
                .lock()
                .map_err(|_| anyhow!("the cache's touch lock is poisoned"))?,
        );
        let mut conn = self.conn()?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        write_marks(&tx, &touched)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }

    /// How many records `ns` holds (a running count: no record is read).
    pub fn count(&self, ns: &str) -> Result<u64> {
        Ok(self
            .conn()?
            .prepare_cached("SELECT records FROM namespaces WHERE ns = ?1")?
            .query_row([ns], |row| row.get::<_, i64>(0))
            .optional()?
            .unwrap_or(0)
            .max(0) as u64)
    }

    /// The records' bytes (the running total).
    pub fn bytes(&self) -> Result<u64> {
        total(&*self.conn()?)
    }

    /// What the store holds, by namespace (from the running totals).
    pub fn size(&self) -> Result<Size> {
        let conn = self.conn()?;
        let namespaces = conn
            .prepare("SELECT ns, records, bytes FROM namespaces ORDER BY ns")?
            .query_map([], |row| {
                Ok(Namespace {
                    name: row.get(0)?,
                    records: row.get::<_, i64>(1)? as u64,
                    bytes: row.get::<_, i64>(2)? as u64,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let bytes = total(&conn)?;
        drop(conn);
        Ok(Size {
            path: self.path.clone(),
            on_disk: on_disk(&self.path),
            bytes,
            limit: self.options.limit,
            namespaces,
        })
    }

    /// Evicts the least recently used records until their bytes are at most `max`, and
    /// gives the freed pages back to the file system.
    pub fn prune(&self, max: u64) -> Result<Evicted> {
        let evicted = self.write(|tx| evict(tx, max))?;
        self.shrink()?;
        Ok(evicted)
    }

    /// Removes every record.
    pub fn clear(&self) -> Result<Evicted> {
        self.touched
            .lock()
            .map_err(|_| anyhow!("the cache's touch lock is poisoned"))?
            .clear();
        let evicted = self.write(|tx| {
            let gone = Evicted {
                records: tx.query_row(
                    "SELECT COALESCE(SUM(records), 0) FROM namespaces",
                    [],
                    |r| r.get::<_, i64>(0),
                )? as u64,
                bytes: total(tx)?,
            };
            tx.execute("DELETE FROM records", [])?;
            Ok(gone)
        })?;
        self.shrink()?;
        Ok(evicted)
    }

    /// Returns free pages to the file system and folds the write-ahead log back in.
    fn shrink(&self) -> Result<()> {
        let conn = self.conn()?;
        // Each step of the pragma frees a page: stepped to the end.
        let mut vacuum = conn.prepare("PRAGMA incremental_vacuum")?;
        let mut steps = vacuum.query([])?;
        while steps.next()?.is_some() {}
        drop(steps);
        drop(vacuum);
        // Another reader may hold the log; then it is folded in later.
        let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
        Ok(())
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // The marks handed over are written before the store goes.
        if let Some(marker) = self.marker.get_mut().ok().and_then(Option::take) {
            drop(marker.tx);
            let _ = marker.thread.join();
        }
        let pending = self
            .touched
            .get_mut()
            .map(|t| !t.is_empty())
            .unwrap_or(false);
        if pending {
            // Marks that cannot be written only make eviction a little less exact.
            let _ = self.write(|_| Ok(()));
        }
    }
}

/// Opens the database at `path`: WAL, a busy timeout, and the schema.
fn connect(path: &Path) -> Result<Connection> {
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
    Ok(conn)
}

/// Whether the store has the facts table (a store of the first layout does not).
fn has_facts(conn: &Connection) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'facts'",
            [],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// Lookups in one read transaction of a [`Store`] (see [`Store::read`]).
pub struct Reader<'a> {
    store: &'a Store,
    tx: &'a rusqlite::Transaction<'a>,
}

impl Reader<'_> {
    /// The value under `key` in `ns`; marks it used.
    pub fn value(&self, ns: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let found = self
            .tx
            .prepare_cached("SELECT value, used FROM records WHERE ns = ?1 AND key = ?2")?
            .query_row(params![ns, key], |row| {
                Ok((row.get::<_, Vec<u8>>(0)?, row.get::<_, i64>(1)?))
            })
            .optional()?;
        let Some((value, used)) = found else {
            return Ok(None);
        };
        self.store.note_use(ns, key, used, true)?;
        Ok(Some(value))
    }

    /// The facts kept beside the record under `key` in `ns` (none: no record, or a record
    /// without facts); marks the record used. The record itself is not read.
    pub fn facts(&self, ns: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let found = self
            .tx
            .prepare_cached("SELECT facts, used FROM facts WHERE ns = ?1 AND key = ?2")?
            .query_row(params![ns, key], |row| {
                Ok((row.get::<_, Vec<u8>>(0)?, row.get::<_, i64>(1)?))
            })
            .optional()?;
        let Some((facts, used)) = found else {
            return Ok(None);
        };
        self.store.note_use(ns, key, used, false)?;
        Ok(Some(facts))
    }

    /// Whether every record of `ns` has its facts: then a key without facts has no record.
    pub fn complete(&self, ns: &str) -> Result<bool> {
        let counts = self
            .tx
            .prepare_cached("SELECT records, facts FROM namespaces WHERE ns = ?1")?
            .query_row([ns], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
            })
            .optional()?;
        Ok(counts.is_none_or(|(records, facts)| facts >= records))
    }
}

/// The records' bytes, from the running totals.
fn total(conn: &Connection) -> Result<u64> {
    Ok(conn
        .prepare_cached("SELECT COALESCE(SUM(bytes), 0) FROM namespaces")?
        .query_row([], |row| row.get::<_, i64>(0))?
        .max(0) as u64)
}

/// Deletes the least recently used records until the total is at most `max`. A record's
/// latest use is the later of its own mark and its facts' (a bulk lookup marks only the
/// facts): records are walked by their own mark, and one whose facts were used later waits
/// in a heap until the walk passes that mark, so the order is exact. The records it passed
/// over and kept take their facts' mark, so the next eviction walks past them at once.
fn evict(tx: &rusqlite::Transaction, max: u64) -> Result<Evicted> {
    let mut evicted = Evicted::default();
    let mut left = total(tx)?;
    if left <= max {
        return Ok(evicted);
    }
    let (victims, kept_later) = {
        let mut oldest = tx.prepare_cached(
            "SELECT r.ns, r.key, r.bytes, r.used, COALESCE(f.used, r.used) FROM records r
             LEFT JOIN facts f ON f.ns = r.ns AND f.key = r.key ORDER BY r.used",
        )?;
        let mut rows = oldest.query([])?;
        let mut victims: Vec<(String, String)> = Vec::new();
        // Records whose facts were used after their own mark: (that use, ns, key, bytes).
        let mut later: BinaryHeap<Reverse<(i64, String, String, u64)>> = BinaryHeap::new();
        let mut take = |ns: String, key: String, bytes: u64, left: &mut u64| {
            victims.push((ns, key));
            *left = left.saturating_sub(bytes);
            evicted.bytes += bytes;
        };
        while left > max {
            let next = match rows.next()? {
                Some(row) => Some((
                    row.get::<_, String>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, i64>(2)?.max(0) as u64,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                )),
                None => None,
            };
            // What waits in the heap and was used before the next record goes first.
            let bound = next.as_ref().map_or(i64::MAX, |n| n.3);
            while left > max && later.peek().is_some_and(|Reverse(w)| w.0 <= bound) {
                let Some(Reverse((_, ns, key, bytes))) = later.pop() else {
                    break;
                };
                take(ns, key, bytes, &mut left);
            }
            let Some((ns, key, bytes, used, facts_used)) = next else {
                break;
            };
            if left <= max {
                break;
            }
            if facts_used > used {
                later.push(Reverse((facts_used, ns, key, bytes)));
            } else {
                take(ns, key, bytes, &mut left);
            }
        }
        (victims, later.into_vec())
    };
    let mut delete = tx.prepare_cached("DELETE FROM records WHERE ns = ?1 AND key = ?2")?;
    for (ns, key) in &victims {
        delete.execute(params![ns, key])?;
    }
    let mut mark = tx.prepare_cached("UPDATE records SET used = ?3 WHERE ns = ?1 AND key = ?2")?;
    for Reverse((when, ns, key, _)) in &kept_later {
        mark.execute(params![ns, key, when])?;
    }
    evicted.records = victims.len() as u64;
    Ok(evicted)
}

/// The database's bytes on disk, its write-ahead log and shared memory included.
fn on_disk(path: &Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|suffix| {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            std::fs::metadata(PathBuf::from(name)).ok()
        })
        .map(|m| m.len())
        .sum()
}

/// Whether `name` is a file of the earlier format: `<grader>-<api>.jsonl` or
/// `<grader>-<api>-runs.jsonl`, both hashes 16 hexadecimal digits.
fn is_old_format(name: &str) -> bool {
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
fn remove_old_format(dir: &Path) -> Option<String> {
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

/// `bytes` for a person: "970.3 MB", "12.0 KB", "512 B" (powers of 1024).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// One namespace of a [`Store`]: what the score cache and the run cache are made of.
pub struct Table {
    store: Arc<Store>,
    ns: String,
}

impl Table {
    /// The namespace `ns` of `store`.
    pub fn new(store: Arc<Store>, ns: String) -> Table {
        Table { store, ns }
    }

    /// The namespace `ns` of the store in `dir`, opened for this table alone.
    pub fn open(dir: &Path, ns: String) -> Result<Table> {
        Ok(Table::new(Store::open(dir)?, ns))
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        self.store.path()
    }

    pub fn namespace(&self) -> &str {
        &self.ns
    }

    /// How many keys the namespace holds (a count: for notes, not for loops).
    pub fn len(&self) -> usize {
        self.store.count(&self.ns).unwrap_or(0) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value filed under `key` (none when it cannot be read: a cache miss).
    pub fn get(&self, key: &str) -> Option<Vec<u8>> {
        self.store.get(&self.ns, key).ok().flatten()
    }

    /// Files `value` under `key`.
    pub fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        self.store.put(&self.ns, key, value)
    }

    /// Files every record of `puts` in one transaction ([`Store::put_many`]).
    pub fn put_many(&self, puts: &[Put]) -> Result<()> {
        self.store.put_many(&self.ns, puts)
    }

    /// Runs `f` with a reader of the store, in one read transaction ([`Store::read`]).
    pub fn read<T>(&self, f: impl FnOnce(&Reader) -> Result<T>) -> Result<T> {
        self.store.read(f)
    }

    /// Gives records without facts the facts derived from them ([`Store::backfill_facts`]).
    pub fn backfill_facts(&self, found: &[Filing]) -> Result<()> {
        self.store.backfill_facts(&self.ns, found)
    }
}

/// The hash of the grader's sources, from `build.rs` (see `source_hash`).
const GRADER_SOURCES: &str = env!("SEBX_GRADER_SOURCES");

/// A short hash of the grader's sources and version: the cache's notion of "same grader".
pub fn grader_version() -> &'static str {
    static VERSION: LazyLock<String> = LazyLock::new(|| {
        let mut hasher = Sha256::new();
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.update([0u8]);
        hasher.update(GRADER_SOURCES.as_bytes());
        short_hex(&hasher.finalize())
    });
    &VERSION
}

/// `digest` in lower-case hexadecimal.
pub(super) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first 8 bytes of `digest` in hexadecimal (namespaces, key parts).
pub(super) fn short_hex(digest: &[u8]) -> String {
    hex(&digest[..digest.len().min(8)])
}

/// The namespace of `api`'s reports under this grader (`<grader>-<api>`; its runs add
/// `-runs`).
pub fn namespace(api: &ApiMap) -> String {
    format!("{}-{}", grader_version(), api_hash(api))
}

/// A short hash of the zwc mapping (what the generated runtime and the checks read).
pub fn api_hash(api: &ApiMap) -> String {
    let mut hasher = Sha256::new();
    for (numpy, zwc) in &api.numpy_to_zwc {
        hasher.update(numpy.as_bytes());
        hasher.update([0u8]);
        hasher.update(zwc.as_bytes());
        hasher.update([1u8]);
    }
    short_hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
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
                        &format!("SELECT used FROM {table} WHERE ns = 'ns' AND key = 'k000'"),
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
                                "SELECT COUNT(*) FROM records WHERE ns = 'ns' AND key = ?1",
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
                "SELECT COUNT(*) FROM facts WHERE ns = 'ns' AND used > ?1",
                [before],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(marked as usize, n, "every facts row read is marked");
        let records: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM records WHERE ns = 'ns' AND used > ?1",
                [before],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(records, 0, "the records keep their own marks");
    }
}
