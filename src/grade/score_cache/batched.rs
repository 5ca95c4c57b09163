//! Puts gathered and written in batches: for front ends that remember reports one at a time
//! as they arrive (`sebx grade`, the explorer's background grading), so that a run's
//! reports cost one commit per batch rather than one each. Apart from the cache itself
//! because it only schedules [`ScoreCache::put_many`] and owns no part of the format.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};

use super::{ScoreCache, carried};
use crate::grade::report::GradeReport;
use crate::model::Rollout;

/// Puts gathered and written in batches ([`ScoreCache::put_many`]): when [`BATCH`] reports
/// have gathered, when the oldest waited [`BATCH_AGE`] (checked at each put), on
/// [`Batched::flush`] and when dropped. For front ends that remember reports one at a time
/// as they arrive (`sebx grade`, the explorer's background grading): a report still
/// gathering when the process is killed is graded again next time.
pub struct Batched {
    cache: Arc<ScoreCache>,
    pending: Mutex<Pending>,
}

/// Reports a [`Batched`] writes at once.
pub const BATCH: usize = 256;

/// How long a report may wait in a [`Batched`] for others (checked when one is put).
pub const BATCH_AGE: Duration = Duration::from_secs(2);

#[derive(Default)]
struct Pending {
    reports: Vec<(Rollout, GradeReport)>,
    since: Option<Instant>,
}

impl Batched {
    pub fn new(cache: Arc<ScoreCache>) -> Batched {
        Batched {
            cache,
            pending: Mutex::new(Pending::default()),
        }
    }

    /// The cache written to.
    pub fn cache(&self) -> &Arc<ScoreCache> {
        &self.cache
    }

    /// Gathers `report` of `rollout`; writes the batch if it is full or old.
    pub fn put(&self, rollout: &Rollout, report: &GradeReport) -> Result<()> {
        if carried(report).is_none() {
            return Ok(());
        }
        let ready = {
            let mut pending = self.lock()?;
            pending.reports.push((rollout.clone(), report.clone()));
            let since = *pending.since.get_or_insert_with(Instant::now);
            if pending.reports.len() >= BATCH || since.elapsed() >= BATCH_AGE {
                pending.since = None;
                std::mem::take(&mut pending.reports)
            } else {
                Vec::new()
            }
        };
        self.write(&ready)
    }

    /// Writes what has gathered.
    pub fn flush(&self) -> Result<()> {
        let ready = {
            let mut pending = self.lock()?;
            pending.since = None;
            std::mem::take(&mut pending.reports)
        };
        self.write(&ready)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Pending>> {
        self.pending
            .lock()
            .map_err(|_| anyhow!("the score cache's batch lock is poisoned"))
    }

    fn write(&self, reports: &[(Rollout, GradeReport)]) -> Result<()> {
        if reports.is_empty() {
            return Ok(());
        }
        let pairs: Vec<(&Rollout, &GradeReport)> = reports.iter().map(|(r, g)| (r, g)).collect();
        self.cache.put_many(&pairs)
    }
}

impl Drop for Batched {
    fn drop(&mut self) {
        // A batch that cannot be written only costs a regrade next time.
        let _ = self.flush();
    }
}
