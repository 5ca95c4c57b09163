//! Reading the store: one read transaction per batch of lookups ([`Reader`]), and the
//! coarse "used" marks a read gathers (written with the next write, see the store's module
//! doc). Apart from the writes because a lookup-heavy session lives here, and what a read
//! may cost (no write, a mark only when the last is old) is decided in this file alone.

use anyhow::{Result, anyhow};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

use super::{Key, Mark, Marker, Marks, Read, Store, TOUCH_BATCH, ns_id, value_of, write_marks};

impl Store {
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

    /// Remembers that `key` of `ns` (a set's when `read` is a set), last marked `used`, was
    /// read now (if the mark is old): a row's record and facts when `record`, else (a read
    /// of facts) its facts only.
    pub(super) fn note_use(
        &self,
        read: Read,
        ns: &str,
        key: &str,
        used: i64,
        record: bool,
    ) -> Result<()> {
        let now = self.now();
        if now.saturating_sub(used) >= self.options.touch_after.as_millis() as i64 {
            let mut touched = self
                .touched
                .lock()
                .map_err(|_| anyhow!("the cache's touch lock is poisoned"))?;
            let mark = touched
                .entry((read, ns.to_string(), key.to_string()))
                .or_insert(Mark { when: now, record });
            mark.when = mark.when.max(now);
            mark.record |= record;
        }
        Ok(())
    }
}

/// Lookups in one read transaction of a [`Store`] (see [`Store::read`]).
pub struct Reader<'a> {
    pub(super) store: &'a Store,
    /// Read by the tests as well, for what the store's API does not show.
    pub(super) tx: &'a rusqlite::Transaction<'a>,
}

impl Reader<'_> {
    /// The value under `key` in `ns`; marks it used.
    pub fn value(&self, ns: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let found = self
            .tx
            .prepare_cached(concat!(
                "SELECT ",
                value_of!(),
                ", used FROM records_v2 WHERE ns = ",
                ns_id!(),
                " AND key = ?2"
            ))?
            .query_row(params![ns, Key(key)], |row| {
                Ok((row.get::<_, Vec<u8>>(0)?, row.get::<_, i64>(1)?))
            })
            .optional()?;
        let Some((value, used)) = found else {
            return Ok(None);
        };
        self.store.note_use(Read::Row, ns, key, used, true)?;
        Ok(Some(value))
    }

    /// The facts kept beside the record under `key` in `ns` (none: no record, or a record
    /// without facts); marks the record used. The record itself is not read.
    pub fn facts(&self, ns: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let found = self
            .tx
            .prepare_cached(concat!(
                "SELECT facts, used FROM facts_v2 WHERE ns = ",
                ns_id!(),
                " AND key = ?2"
            ))?
            .query_row(params![ns, Key(key)], |row| {
                Ok((row.get::<_, Vec<u8>>(0)?, row.get::<_, i64>(1)?))
            })
            .optional()?;
        let Some((facts, used)) = found else {
            return Ok(None);
        };
        self.store.note_use(Read::Row, ns, key, used, false)?;
        Ok(Some(facts))
    }

    /// Whether every record of `ns` has its facts: then a key without facts has no record.
    pub fn complete(&self, ns: &str) -> Result<bool> {
        let counts = self
            .tx
            .prepare_cached("SELECT records, facts FROM namespaces_v2 WHERE name = ?1")?
            .query_row([ns], |row| {
                Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
            })
            .optional()?;
        Ok(counts.is_none_or(|(records, facts)| facts >= records))
    }
}
