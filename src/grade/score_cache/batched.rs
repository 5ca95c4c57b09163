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
    /// Held from taking a batch until it is written, so that a flush returns only once
    /// every report put before it is in the store (another thread's batch included): what
    /// the explorer's seal reads next.
    writing: Mutex<()>,
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
            writing: Mutex::new(()),
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
            pending.reports.len() >= BATCH || since.elapsed() >= BATCH_AGE
        };
        // Taken again under the write lock (a flush meanwhile may have written it).
        if ready { self.flush() } else { Ok(()) }
    }

    /// Writes what has gathered; returns once every report put before is written.
    pub fn flush(&self) -> Result<()> {
        let _writing = self.writing()?;
        let ready = {
            let mut pending = self.lock()?;
            pending.since = None;
            std::mem::take(&mut pending.reports)
        };
        self.write(&ready)
    }

    fn writing(&self) -> Result<std::sync::MutexGuard<'_, ()>> {
        self.writing
            .lock()
            .map_err(|_| anyhow!("the score cache's batch lock is poisoned"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::settings::GradingSettings;
    use crate::model::ApiMap;

    /// A flush while another thread writes a batch returns only once that batch is in the
    /// store (the explorer's seal reads the store right after its flush).
    #[test]
    fn a_flush_waits_for_the_batch_another_thread_is_writing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = Arc::new(
            ScoreCache::open(dir.path(), &ApiMap::default(), &GradingSettings::official())
                .expect("open"),
        );
        let batch = Arc::new(Batched::new(cache.clone()));
        let line = |i: usize| {
            serde_json::json!({"query": "q", "response": format!("R{i}"),
                "test_cases": [], "right_exe_result": "1"})
            .to_string()
        };
        let text: String = (0..BATCH).map(|i| line(i) + "\n").collect();
        let rollouts = crate::model::rollout::parse_rollout_bytes(
            std::path::Path::new("run.jsonl"),
            text.as_bytes(),
        )
        .rollouts;
        let mut report = GradeReport::load_failure("run.jsonl", 1, "");
        report.load_error = None;
        report.verdict = Some(crate::model::Verdict::Right);
        for r in &rollouts[..BATCH - 1] {
            batch.put(r, &report).expect("put");
        }
        // Another writer holds the write lock: the put that fills the batch, and a flush,
        // both wait for it.
        let held = batch.writing().expect("lock");
        let filler = {
            let (batch, r, report) = (batch.clone(), rollouts[BATCH - 1].clone(), report.clone());
            std::thread::spawn(move || batch.put(&r, &report).expect("put"))
        };
        let flusher = {
            let (batch, cache) = (batch.clone(), cache.clone());
            std::thread::spawn(move || {
                batch.flush().expect("flush");
                cache.len()
            })
        };
        // The filler's report gathered (it then waits for the lock).
        while batch.lock().expect("pending").reports.len() < BATCH {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(cache.is_empty(), "nothing written while the lock is held");
        drop(held);
        filler.join().expect("the filler");
        assert_eq!(flusher.join().expect("the flusher"), BATCH);
    }
}
