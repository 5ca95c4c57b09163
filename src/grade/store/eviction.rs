//! Eviction: past the size limit, the least recently used records go, a record's latest use
//! being the later of its own mark and its facts' mark (a read through a set having given
//! its members' facts the set's mark first). Apart from the rest of the store
//! because the walk (records by mark, a heap for those whose facts were used later) is the
//! one intricate algorithm of the store, and its tests read best against it alone.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use anyhow::Result;
use rusqlite::types::Value;
use rusqlite::{Connection, params};

use super::Evicted;

/// Eviction stops under this share of the limit, so that the next puts do not evict again.
pub(super) const EVICT_TO: f64 = 0.9;

/// The records' bytes, from the running totals.
pub(super) fn total(conn: &Connection) -> Result<u64> {
    Ok(conn
        .prepare_cached("SELECT COALESCE(SUM(bytes), 0) FROM namespaces_v2")?
        .query_row([], |row| row.get::<_, i64>(0))?
        .max(0) as u64)
}

/// Whether the records of `ns` are ones a grade makes again: report bodies (`<grader>-<api>
/// -bodies`) and program runs (`-runs`). They go before any rollout's record and its facts
/// (what the figures read), and are held to a budget of their own ([`super::Store`]).
pub fn regradable(ns: &str) -> bool {
    ns.ends_with("-bodies") || ns.ends_with("-runs")
}

/// The regradable records' bytes, from the running totals.
pub(super) fn regradable_total(conn: &Connection) -> Result<u64> {
    Ok(conn
        .prepare_cached(
            "SELECT COALESCE(SUM(bytes), 0) FROM namespaces_v2
             WHERE name LIKE '%-bodies' OR name LIKE '%-runs'",
        )?
        .query_row([], |row| row.get::<_, i64>(0))?
        .max(0) as u64)
}

/// Deletes the least recently used regradable records ([`regradable`]) until their bytes are
/// at most `max`. Read namespace by namespace through the primary key (each a few thousand
/// rows under a budget), not through the `used` index, whose oldest end holds the rollouts'
/// records.
pub(super) fn evict_regradable(tx: &rusqlite::Transaction, max: u64) -> Result<Evicted> {
    let mut evicted = Evicted::default();
    let mut left = regradable_total(tx)?;
    if left <= max {
        return Ok(evicted);
    }
    // By number: (id, name) of the regradable namespaces.
    let namespaces: Vec<i64> = tx
        .prepare_cached("SELECT id, name FROM namespaces_v2")?
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .filter(|(_, name)| regradable(name))
        .map(|(id, _)| id)
        .collect();
    // (used, namespace, key as stored, bytes).
    let mut rows: Vec<(i64, i64, Value, u64)> = Vec::new();
    {
        let mut of_ns =
            tx.prepare_cached("SELECT key, bytes, used FROM records_v2 WHERE ns = ?1")?;
        for &ns in &namespaces {
            let found = of_ns.query_map([ns], |row| {
                Ok((
                    row.get::<_, i64>(2)?,
                    ns,
                    row.get::<_, Value>(0)?,
                    row.get::<_, i64>(1)?.max(0) as u64,
                ))
            })?;
            for row in found {
                rows.push(row?);
            }
        }
    }
    // By mark (marks of one process never tie; keys break ties with another's).
    rows.sort_unstable_by_key(|a| (a.0, a.1));
    let mut delete = tx.prepare_cached("DELETE FROM records_v2 WHERE ns = ?1 AND key = ?2")?;
    for (_, ns, key, bytes) in rows {
        if left <= max {
            break;
        }
        delete.execute(params![ns, key])?;
        left = left.saturating_sub(bytes);
        evicted.bytes += bytes;
        evicted.records += 1;
    }
    Ok(evicted)
}

/// Deletes the least recently used records until the total is at most `max`: the
/// regradable ones first ([`evict_regradable`]: a body or a run is made again by grading,
/// a rollout's facts are what figures read), then the rest. A record's
/// latest use is the later of its own mark and its facts' (a bulk lookup marks only the
/// facts): records are walked by their own mark, and one whose facts were used later waits
/// in a heap until the walk passes that mark, so the order is exact. The records it passed
/// over and kept take their facts' mark, so the next eviction walks past them at once.
pub(super) fn evict(tx: &rusqlite::Transaction, max: u64) -> Result<Evicted> {
    let mut left = total(tx)?;
    if left <= max {
        return Ok(Evicted::default());
    }
    let regradable = regradable_total(tx)?;
    let mut evicted = evict_regradable(tx, regradable.saturating_sub(left - max))?;
    left = left.saturating_sub(evicted.bytes);
    if left <= max {
        return Ok(evicted);
    }
    // A read through a set is a use of its members.
    super::sets::spread_marks(tx)?;
    let (victims, kept_later) = {
        let mut oldest = tx.prepare_cached(
            "SELECT r.ns, r.key, r.bytes, r.used, COALESCE(f.used, r.used) FROM records_v2 r
             LEFT JOIN facts_v2 f ON f.ns = r.ns AND f.key = r.key ORDER BY r.used",
        )?;
        let mut rows = oldest.query([])?;
        let mut victims: Vec<(i64, StoredKey)> = Vec::new();
        // Records whose facts were used after their own mark: (that use, ns, key, bytes).
        let mut later: BinaryHeap<Reverse<(i64, i64, StoredKey, u64)>> = BinaryHeap::new();
        let mut take = |ns: i64, key: StoredKey, bytes: u64, left: &mut u64| {
            victims.push((ns, key));
            *left = left.saturating_sub(bytes);
            evicted.bytes += bytes;
        };
        while left > max {
            let next = match rows.next()? {
                Some(row) => Some((
                    row.get::<_, i64>(0)?,
                    StoredKey(row.get::<_, Value>(1)?),
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
    let mut delete = tx.prepare_cached("DELETE FROM records_v2 WHERE ns = ?1 AND key = ?2")?;
    for (ns, key) in &victims {
        delete.execute(params![ns, key.0])?;
    }
    let mut mark =
        tx.prepare_cached("UPDATE records_v2 SET used = ?3 WHERE ns = ?1 AND key = ?2")?;
    for Reverse((when, ns, key, _)) in &kept_later {
        mark.execute(params![ns, key.0, when])?;
    }
    evicted.records += victims.len() as u64;
    Ok(evicted)
}

/// A key as the store keeps it (a BLOB or a TEXT), ordered (for the heap of
/// [`evict`]) by its type, then its bytes: any order will do among records of one mark.
#[derive(Debug, Clone)]
struct StoredKey(Value);

impl PartialEq for StoredKey {
    fn eq(&self, other: &Self) -> bool {
        self.rank() == other.rank()
    }
}

impl Eq for StoredKey {}

impl StoredKey {
    fn rank(&self) -> (u8, &[u8]) {
        match &self.0 {
            Value::Blob(b) => (1, b),
            Value::Text(t) => (0, t.as_bytes()),
            _ => (2, &[]),
        }
    }
}

impl Ord for StoredKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl PartialOrd for StoredKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
