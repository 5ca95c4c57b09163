//! The store the score cache and the run cache are made of: one SQLite database in the
//! cache folder (`cache.sqlite3`) holding every namespace (a grader version and zwc
//! mapping's reports, `<grader>-<api>`, and its program runs, `<grader>-<api>-runs`), each
//! a table of key → value. A lookup is one indexed read; opening reads no records.
//!
//! Its layout is sized for a big run whose every program is distinct, where the cache is
//! mostly its rollouts' small records (issue 42): a namespace is a number in each row, a
//! hexadecimal key its bytes, and values past [`LARGE`] bytes (bodies, runs) sit in a table
//! of their own (`schema.rs` says why). A file of the first layout (text namespaces and
//! keys) is rebuilt when opened, with a note: its records were an earlier grader version's,
//! which no lookup of this build asks for.
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
//! Not every record is worth the same: a rollout's record holds its facts, which figures
//! read, while a report's body and a program's run are made again by grading the rollout
//! (*regradable*, [`regradable`]: the `-bodies` and `-runs` namespaces). Eviction takes the
//! regradable records first, and they have a budget of their own besides the limit
//! ([`DEFAULT_REGRADABLE`], `$SEBX_CACHE_BODIES_MB`), checked when one is put: with every
//! program of a big run distinct, a body per sample was 1.5× the dump. They are kept packed
//! (`packed.rs`: deflate, an earlier sebx's plain JSON read as it is).
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
//! an earlier sebx's whole reports, leaves the record without facts), and the namespace's
//! totals count the facts rows, so that a reader knows when every record has them
//! ([`Reader::complete`]). Facts are not counted in the size limit (they are ~1% of a report).
//!
//! *Sets* hold the facts of many records as one row (`sets.rs`: a reopened run's loading
//! batches, so that a reopening reads and marks a few hundred rows, not one per rollout).
//! Triggers count every facts row added, replaced or deleted; a set is written with the
//! counts its reads saw and holds only while they say nothing it read could have changed.
//! A read through a set counts as a use of its members when eviction walks them. Sets are
//! not counted in the size limit either (about 20 bytes per member).
//!
//! Files of the earlier format (one JSONL log per namespace, `<grader>-<api>.jsonl` and
//! `<grader>-<api>-runs.jsonl`) are removed when the store is opened, with a note: their
//! grader version can never match again.
//!
//! Also what names the namespaces: [`grader_version`] (a hash of the grader's sources,
//! from `build.rs`: see `source_hash`) and [`api_hash`] (the zwc mapping).
//!
//! Its parts: this file holds the store's types, its writes and totals, [`Table`] and the
//! namespace names; `schema.rs` opens the file and owns its SQL layout, `reads.rs` the
//! lookups and their marks, `sets.rs` the sets, `eviction.rs` the least-recently-used
//! walk, `packed.rs` the packing of bodies and runs; `tests.rs` tests them together.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, OptionalExtension, ToSql, TransactionBehavior, params};
use sha2::{Digest, Sha256};

use crate::model::ApiMap;

mod eviction;
mod packed;
mod reads;
mod schema;
mod sets;
#[cfg(test)]
mod tests;

pub use eviction::regradable;
use eviction::{EVICT_TO, evict, evict_regradable, regradable_total, total};
pub use packed::{pack, unpack};
pub use reads::Reader;
use schema::{connect, connect_noting, file_namespace, ns_id, remove_old_format, value_of};
pub use sets::{Counters, NewSet};

/// The database's file name in the cache folder.
pub const FILE_NAME: &str = "cache.sqlite3";

/// The size limit when `$SEBX_CACHE_MAX_MB` does not set one: 1 GiB of records.
pub const DEFAULT_LIMIT: u64 = 1 << 30;

/// The budget of the regradable records (report bodies and program runs, [`regradable`])
/// when `$SEBX_CACHE_BODIES_MB` does not set one: 4 MiB, a few thousand packed bodies.
/// A body is for the rows a user opens (a report evicted is graded again when its row is
/// opened); with every program of a big run distinct, bodies kept for every sample were
/// 1.5× the dump (benches/README.md, "A cache sized by its facts").
pub const DEFAULT_REGRADABLE: u64 = 4 << 20;

/// Values longer than this are kept in a table of their own (`large_v2`, see `schema.rs`)
/// and named by their record: report bodies and program runs, not a rollout's reference.
pub const LARGE: usize = 256;

/// A read marks its record used again only when the mark is older than this.
pub const TOUCH_AFTER: Duration = Duration::from_secs(60);

/// Marks gathered past this many are written at once, without waiting for a put.
const TOUCH_BATCH: usize = 4096;

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

/// A key as the store keeps it (`schema.rs`): lower-case hexadecimal of an even number of
/// digits (the score cache's and the run cache's keys, hashes) as its bytes, half the size;
/// any other key as its text. A BLOB never equals a TEXT, so two keys never share a row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key<'a>(pub &'a str);

impl ToSql for Key<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match unhex(self.0) {
            Some(bytes) => ToSqlOutput::Owned(Value::Blob(bytes)),
            None => ToSqlOutput::Borrowed(ValueRef::Text(self.0.as_bytes())),
        })
    }
}

/// The bytes of `key` if it is lower-case hexadecimal of an even number of digits (and not
/// empty): the one spelling [`hex`] gives back, so the key reads back as it was filed.
fn unhex(key: &str) -> Option<Vec<u8>> {
    let digit = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let b = key.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2)
        .map(|pair| Some((digit(pair[0])? << 4) | digit(pair[1])?))
        .collect()
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
    mebibytes_from_env("SEBX_CACHE_MAX_MB")
}

/// The regradable records' budget `$SEBX_CACHE_BODIES_MB` sets, if it is a number of
/// mebibytes.
pub fn regradable_budget_from_env() -> Option<u64> {
    mebibytes_from_env("SEBX_CACHE_BODIES_MB")
}

fn mebibytes_from_env(var: &str) -> Option<u64> {
    let mb: u64 = std::env::var(var).ok()?.trim().parse().ok()?;
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
    /// The budget of the regradable records (bodies and runs, [`regradable`]).
    pub regradable_budget: u64,
    /// Sets of facts (`sets.rs`, outside the limit): how many, and their bytes.
    pub sets: (u64, u64),
}

/// What an eviction removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Evicted {
    pub records: u64,
    pub bytes: u64,
}

/// A read to be marked: when, and whether the record is marked too (else its facts only;
/// a set has no record).
#[derive(Debug, Clone, Copy)]
struct Mark {
    when: i64,
    record: bool,
}

/// What was read: a record's row (its facts, and the record itself) or a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Read {
    Row,
    Set,
}

/// Marks gathered: (what was read, namespace, key) → the mark.
type Marks = HashMap<(Read, String, String), Mark>;

/// Writes `marks` in `tx`: the facts row of each row read, and the record where the read
/// was of the record itself; each set read.
fn write_marks(tx: &rusqlite::Transaction, marks: &Marks) -> Result<()> {
    if marks.is_empty() {
        return Ok(());
    }
    let mut mark = tx.prepare_cached(concat!(
        "UPDATE records_v2 SET used = max(used, ?3) WHERE ns = ",
        ns_id!(),
        " AND key = ?2"
    ))?;
    let mut mark_facts = tx.prepare_cached(concat!(
        "UPDATE facts_v2 SET used = max(used, ?3) WHERE ns = ",
        ns_id!(),
        " AND key = ?2"
    ))?;
    let mut mark_set =
        tx.prepare_cached("UPDATE sets_v2 SET used = max(used, ?3) WHERE ns = ?1 AND key = ?2")?;
    // In key order: consecutive updates share their B-tree pages.
    let mut sorted: Vec<_> = marks.iter().collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for ((read, ns, key), m) in sorted {
        if *read == Read::Set {
            mark_set.execute(params![ns, key, m.when])?;
            continue;
        }
        if m.record {
            mark.execute(params![ns, Key(key), m.when])?;
        }
        mark_facts.execute(params![ns, Key(key), m.when])?;
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

/// The marks the marker gathers into one transaction at most, and how long it waits for
/// the next batch before writing what it has.
const MARKER_GATHER: usize = 65_536;
const MARKER_WAIT: std::time::Duration = std::time::Duration::from_millis(300);

impl Marker {
    /// None when the second connection cannot be opened (the marks are then written by
    /// the reader).
    fn start(path: &Path) -> Option<Marker> {
        let mut conn = connect(path).ok()?;
        let (tx, rx) = std::sync::mpsc::channel::<Marks>();
        let thread = std::thread::Builder::new()
            .name("sebx-cache-marks".into())
            .spawn(move || {
                while let Ok(mut marks) = rx.recv() {
                    // The batches that come meanwhile join it, up to MARKER_GATHER: each
                    // transaction writes a page once however many of its rows are marked
                    // (one transaction per batch of 4,096 wrote ~600,000 pages for a
                    // 200,000-row lookup). Marks are no hurry.
                    while marks.len() < MARKER_GATHER {
                        match rx.recv_timeout(MARKER_WAIT) {
                            Ok(more) => {
                                for (k, m) in more {
                                    let mark = marks.entry(k).or_insert(m);
                                    mark.when = mark.when.max(m.when);
                                    mark.record |= m.record;
                                }
                            }
                            Err(_) => break,
                        }
                    }
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
    /// The regradable records' budget ([`DEFAULT_REGRADABLE`]).
    regradable_budget: AtomicU64,
    /// Evictions this store made (see [`Store::evictions`]).
    evictions: AtomicU64,
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
        let mut notes: Vec<String> = remove_old_format(dir).into_iter().collect();
        let path = dir.join(FILE_NAME);
        let (conn, rebuilt) =
            connect_noting(&path).with_context(|| format!("cannot open {}", path.display()))?;
        notes.extend(rebuilt);
        Ok(Arc::new(Store {
            path,
            conn: Mutex::new(conn),
            options,
            touched: Mutex::new(HashMap::new()),
            clock: AtomicI64::new(0),
            marker: Mutex::new(None),
            regradable_budget: AtomicU64::new(
                regradable_budget_from_env().unwrap_or(DEFAULT_REGRADABLE),
            ),
            evictions: AtomicU64::new(0),
            notes,
        }))
    }

    /// The bytes the regradable records (report bodies and program runs, [`regradable`])
    /// may take: past it, the least recently used of them go until they are under 90% of
    /// it, whatever the store's limit. Rollouts' records and their facts are not counted.
    pub fn regradable_budget(&self) -> u64 {
        self.regradable_budget.load(Ordering::Relaxed)
    }

    /// Sets [`Store::regradable_budget`] for this process (tests, benches).
    pub fn set_regradable_budget(&self, bytes: u64) {
        self.regradable_budget.store(bytes, Ordering::Relaxed);
    }

    /// How many evictions this store has made (a writer that remembers what it filed
    /// files it again once this moves).
    pub fn evictions(&self) -> u64 {
        self.evictions.load(Ordering::Relaxed)
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
            file_namespace(tx, ns)?;
            let mut record = tx.prepare_cached(concat!(
                "INSERT INTO records_v2 (ns, key, value, bytes, used, large) VALUES (",
                ns_id!(),
                ", ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (ns, key) DO UPDATE
                 SET value = excluded.value, bytes = excluded.bytes, used = excluded.used,
                     large = excluded.large"
            ))?;
            let mut large = tx.prepare_cached("INSERT INTO large_v2 (value) VALUES (?1)")?;
            let mut facts = tx.prepare_cached(concat!(
                "INSERT INTO facts_v2 (ns, key, used, facts) VALUES (",
                ns_id!(),
                ", ?2, ?3, ?4)
                 ON CONFLICT (ns, key) DO UPDATE SET used = excluded.used, facts = excluded.facts"
            ))?;
            for put in puts {
                let bytes = (ns.len() + put.key.len() + put.value.len()) as i64;
                let now = self.now();
                // Replacing the value drops its old facts (a trigger).
                // A large value in its own table, the record naming it (the one it replaces
                // goes: a trigger).
                let (value, id) = if put.value.len() > LARGE {
                    large.execute([put.value])?;
                    (&[][..], Some(tx.last_insert_rowid()))
                } else {
                    (put.value, None)
                };
                record.execute(params![ns, Key(put.key), value, bytes, now, id])?;
                if let Some(f) = put.facts {
                    facts.execute(params![ns, Key(put.key), now, f])?;
                }
            }
            let mut evicted = Evicted::default();
            if regradable(ns) {
                let budget = self.regradable_budget();
                if regradable_total(tx)? > budget {
                    evicted = evict_regradable(tx, (budget as f64 * EVICT_TO) as u64)?;
                }
            }
            if total(tx)? > self.options.limit {
                let more = evict(tx, (self.options.limit as f64 * EVICT_TO) as u64)?;
                evicted.records += more.records;
            }
            if evicted.records > 0 {
                self.evictions.fetch_add(1, Ordering::Relaxed);
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
            let mut add = tx.prepare_cached(concat!(
                "INSERT OR IGNORE INTO facts_v2 (ns, key, used, facts)
                 SELECT ns, key, used, ?3 FROM records_v2 WHERE ns = ",
                ns_id!(),
                " AND key = ?2 AND ",
                value_of!(),
                " = ?4"
            ))?;
            for f in found {
                add.execute(params![ns, Key(&f.key), f.facts, f.value])?;
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
            .prepare_cached("SELECT records FROM namespaces_v2 WHERE name = ?1")?
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
            .prepare(
                "SELECT name, records, bytes FROM namespaces_v2 WHERE records > 0 ORDER BY name",
            )?
            .query_map([], |row| {
                Ok(Namespace {
                    name: row.get(0)?,
                    records: row.get::<_, i64>(1)? as u64,
                    bytes: row.get::<_, i64>(2)? as u64,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let bytes = total(&conn)?;
        let sets = conn.query_row(
            "SELECT COUNT(*), COALESCE(SUM(length(members) + length(facts)), 0) FROM sets_v2",
            [],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?.max(0) as u64,
                    row.get::<_, i64>(1)?.max(0) as u64,
                ))
            },
        )?;
        drop(conn);
        Ok(Size {
            path: self.path.clone(),
            on_disk: on_disk(&self.path),
            bytes,
            limit: self.options.limit,
            namespaces,
            regradable_budget: self.regradable_budget(),
            sets,
        })
    }

    /// Evicts the least recently used records until their bytes are at most `max`, and
    /// gives the freed pages back to the file system.
    pub fn prune(&self, max: u64) -> Result<Evicted> {
        let evicted = self.write(|tx| evict(tx, max))?;
        self.evictions.fetch_add(1, Ordering::Relaxed);
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
                    "SELECT COALESCE(SUM(records), 0) FROM namespaces_v2",
                    [],
                    |r| r.get::<_, i64>(0),
                )? as u64,
                bytes: total(tx)?,
            };
            tx.execute("DELETE FROM records_v2", [])?;
            tx.execute("DELETE FROM large_v2", [])?;
            tx.execute("DELETE FROM sets_v2", [])?;
            Ok(gone)
        })?;
        self.evictions.fetch_add(1, Ordering::Relaxed);
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

/// Digests in lower-case hexadecimal: the model's one way of writing them.
pub(super) use crate::model::rollout::hex;

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
