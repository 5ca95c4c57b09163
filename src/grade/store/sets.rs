//! Sets of facts: the facts of many records read as one row, so that reopening a big run
//! reads and marks a few hundred rows instead of a row per rollout (a reader looking up
//! 200,000 facts one by one spent a third of a reopen's CPU on the B-tree and its marks,
//! benches/README.md, training_scale). What a set holds is the caller's (the score cache
//! decides its members and encodes their facts); the store keeps it true:
//!
//! - a set is written with the counters of the facts' changes its reads saw ([`Counters`],
//!   kept by triggers whoever writes), and only if they have not moved since;
//! - it holds while no facts were deleted or replaced since then, and, unless every member's
//!   answer was *settled* (no later record can change it), while none were added either;
//! - it counts as a use of its members: its mark is spread to their facts before an
//!   eviction walks them ([`spread_marks`]), so a run opened through its sets keeps its
//!   records; sets that no longer hold go then and whenever sets are written.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::{Key, Read, Reader, Store, ns_id};

/// How far the facts have changed: every facts row deleted or replaced, and every one
/// added, since the store had sets (any namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counters {
    pub deletes: i64,
    pub inserts: i64,
}

/// A set to write ([`Store::put_sets`]).
#[derive(Debug, Clone)]
pub struct NewSet<'a> {
    pub key: String,
    /// The keys of the records whose facts it holds, in its order.
    pub members: Vec<&'a str>,
    /// The members' facts, as the caller encodes them.
    pub facts: Vec<u8>,
    /// Every member's answer is final: only a deletion of facts could change it (else an
    /// added record could too).
    pub settled: bool,
}

/// Members whose keys are all 32 hexadecimal digits are kept as their 16 bytes (a tag
/// byte first); others as lines.
const HEX_MEMBERS: u8 = 1;
const LINE_MEMBERS: u8 = 2;

fn encode_members(keys: &[&str]) -> Vec<u8> {
    let hex = keys
        .iter()
        .all(|k| k.len() == 32 && k.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
    if hex {
        let mut out = Vec::with_capacity(1 + keys.len() * 16);
        out.push(HEX_MEMBERS);
        for k in keys {
            let b = k.as_bytes();
            for pair in b.chunks_exact(2) {
                out.push((nibble(pair[0]) << 4) | nibble(pair[1]));
            }
        }
        out
    } else {
        let mut out = vec![LINE_MEMBERS];
        out.extend_from_slice(keys.join("\n").as_bytes());
        out
    }
}

fn nibble(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        _ => b - b'a' + 10,
    }
}

/// The member keys of an encoded set (none: not a known encoding).
pub(super) fn decode_members(bytes: &[u8]) -> Option<Vec<String>> {
    match bytes.split_first()? {
        (&HEX_MEMBERS, rest) if rest.len() % 16 == 0 => Some(
            rest.chunks_exact(16)
                .map(crate::model::rollout::hex)
                .collect(),
        ),
        (&LINE_MEMBERS, rest) => Some(
            std::str::from_utf8(rest)
                .ok()?
                .split('\n')
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

fn counters(conn: &rusqlite::Connection) -> Result<Counters> {
    Ok(conn
        .prepare_cached("SELECT deletes, inserts FROM counters_v2 WHERE id = 0")?
        .query_row([], |row| {
            Ok(Counters {
                deletes: row.get(0)?,
                inserts: row.get(1)?,
            })
        })?)
}

/// Deletes the sets that no longer hold under `now`.
fn drop_stale(tx: &rusqlite::Transaction, now: Counters) -> Result<()> {
    tx.prepare_cached(
        "DELETE FROM sets_v2 WHERE deletes <> ?1 OR (inserts IS NOT NULL AND inserts <> ?2)",
    )?
    .execute(params![now.deletes, now.inserts])?;
    Ok(())
}

/// Gives the facts of every set's members the set's mark where it is later (the sets used
/// since the last spread), then drops the sets that no longer hold: run before an eviction
/// walks the records, so that a use through a set counts as a use of its members.
pub(super) fn spread_marks(tx: &rusqlite::Transaction) -> Result<()> {
    let used: Vec<(String, String, i64, Vec<u8>)> = tx
        .prepare_cached("SELECT ns, key, used, members FROM sets_v2 WHERE used > spread")?
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut mark = tx.prepare_cached(concat!(
        "UPDATE facts_v2 SET used = max(used, ?3) WHERE ns = ",
        ns_id!(),
        " AND key = ?2"
    ))?;
    let mut spread =
        tx.prepare_cached("UPDATE sets_v2 SET spread = used WHERE ns = ?1 AND key = ?2")?;
    for (ns, key, when, members) in &used {
        for member in decode_members(members).unwrap_or_default() {
            mark.execute(params![ns, Key(&member), when])?;
        }
        spread.execute(params![ns, key])?;
    }
    drop_stale(tx, counters(tx)?)
}

impl Reader<'_> {
    /// The counters of the facts' changes as this read sees them.
    pub fn counters(&self) -> Result<Counters> {
        counters(self.tx)
    }

    /// The facts of the set under `key` in `ns`, if it holds under `now` (this read's
    /// [`Reader::counters`]); marks it used.
    pub fn set(&self, ns: &str, key: &str, now: Counters) -> Result<Option<Vec<u8>>> {
        let found = self
            .tx
            .prepare_cached(
                "SELECT facts, used, deletes, inserts FROM sets_v2 WHERE ns = ?1 AND key = ?2",
            )?
            .query_row(params![ns, key], |row| {
                Ok((
                    row.get::<_, Vec<u8>>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Option<i64>>(3)?,
                ))
            })
            .optional()?;
        let Some((facts, used, deletes, inserts)) = found else {
            return Ok(None);
        };
        if deletes != now.deletes || inserts.is_some_and(|i| i != now.inserts) {
            return Ok(None);
        }
        self.store.note_use(Read::Set, ns, key, used, false)?;
        Ok(Some(facts))
    }
}

impl Store {
    /// Writes `sets` of `ns`, read when the counters were `seen`: those that still hold
    /// (none if a facts row was deleted or replaced since, the unsettled ones if one was
    /// added); the sets that no longer hold go. How many were written.
    pub fn put_sets(&self, ns: &str, sets: &[NewSet], seen: Counters) -> Result<usize> {
        if sets.is_empty() {
            return Ok(0);
        }
        self.write(|tx| {
            let now = counters(tx)?;
            drop_stale(tx, now)?;
            if now.deletes != seen.deletes {
                return Ok(0);
            }
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO sets_v2 (ns, key, used, spread, deletes, inserts, members, facts)
                 VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let mut written = 0;
            for set in sets {
                if !set.settled && now.inserts != seen.inserts {
                    continue;
                }
                let inserts = (!set.settled).then_some(now.inserts);
                put.execute(params![
                    ns,
                    set.key,
                    self.now(),
                    now.deletes,
                    inserts,
                    encode_members(&set.members),
                    set.facts
                ])?;
                written += 1;
            }
            Ok(written)
        })
    }

    /// Forgets every set (the facts stay), so that the next lookups read row by row: for
    /// the benchmark and tests that measure that read. How many went.
    pub fn forget_sets(&self) -> Result<usize> {
        self.write(|tx| Ok(tx.execute("DELETE FROM sets_v2", [])?))
    }

    /// How many sets the store holds (whether or not they still hold).
    pub fn set_count(&self) -> Result<u64> {
        Ok(self
            .conn()?
            .query_row("SELECT COUNT(*) FROM sets_v2", [], |row| {
                row.get::<_, i64>(0)
            })?
            .max(0) as u64)
    }
}
