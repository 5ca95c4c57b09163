//! [`Session`]: programs pipelined on one worker, each sent while the one before runs,
//! their results returned in submission order.

use std::collections::VecDeque;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};

use super::report::ExecOutcome;
use super::run::Pool;
use super::worker::Worker;

/// Programs run one after another on one worker, the next queued while the current
/// one runs, so the worker never waits for the caller in between (the caller grades
/// one result while the worker runs the next program). Results come back in the
/// order the programs were submitted. A worker that fails is replaced and the
/// programs it had not answered are sent again; a program whose worker fails twice
/// while running it gets the error, as with [`Pool::run`].
pub struct Session<'p> {
    pool: &'p Pool,
    worker: Option<Worker>,
    queued: VecDeque<Queued>,
}

struct Queued {
    program: String,
    timeout: Duration,
    sent: bool,
    failures: u32,
}

impl Pool {
    /// A [`Session`] on one worker (checked out when the first program is sent).
    pub fn session(&self) -> Session<'_> {
        Session {
            pool: self,
            worker: None,
            queued: VecDeque::new(),
        }
    }

    /// Runs `programs` with `timeout` on `sessions` sessions at once (one thread each, a
    /// contiguous share each, the next program queued while one runs); the results in
    /// program order.
    pub fn run_all(
        &self,
        programs: &[String],
        timeout: Duration,
        sessions: usize,
    ) -> Vec<Result<ExecOutcome>> {
        let share = programs.len().div_ceil(sessions.max(1)).max(1);
        std::thread::scope(|scope| {
            let handles: Vec<_> = programs
                .chunks(share)
                .map(|part| {
                    let thread = scope.spawn(move || {
                        let mut session = self.session();
                        let mut out = Vec::with_capacity(part.len());
                        let mut sent = 0;
                        while sent < part.len().min(2) {
                            session.submit(&part[sent], timeout);
                            sent += 1;
                        }
                        while let Some(result) = session.next_result() {
                            if let Some(program) = part.get(sent) {
                                session.submit(program, timeout);
                                sent += 1;
                            }
                            out.push(result);
                        }
                        out
                    });
                    (part.len(), thread)
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|(n, thread)| {
                    thread.join().unwrap_or_else(|_| {
                        (0..n)
                            .map(|_| Err(anyhow!("a session thread failed")))
                            .collect()
                    })
                })
                .collect()
        })
    }
}

impl Session<'_> {
    /// Queues `program`; its result comes from [`Session::next_result`] in submission order.
    pub fn submit(&mut self, program: &str, timeout: Duration) {
        self.queued.push_back(Queued {
            program: program.to_string(),
            timeout,
            sent: false,
            failures: 0,
        });
        // A failure here shows up (and is handled) in `next_result`.
        let _ = self.send_queued();
    }

    /// The result of the oldest submitted program, or None when none is waiting.
    pub fn next_result(&mut self) -> Option<Result<ExecOutcome>> {
        loop {
            let timeout = self.queued.front()?.timeout;
            let outcome = self
                .send_queued()
                .and_then(|()| match self.worker.as_mut() {
                    Some(worker) => worker.result(timeout),
                    None => Err(anyhow!("no worker available")),
                });
            match outcome {
                Ok(outcome) => {
                    self.queued.pop_front();
                    return Some(Ok(outcome));
                }
                Err(err) => {
                    let id = self.worker.as_ref().map(|w| w.id);
                    if self.worker.take().is_some() {
                        self.pool.lost_worker();
                    }
                    for q in &mut self.queued {
                        q.sent = false;
                    }
                    let head = self.queued.front_mut()?;
                    head.failures += 1;
                    if head.failures >= 2 {
                        self.queued.pop_front();
                        let err = match id {
                            Some(id) => err.context(format!("worker {id} failed")),
                            None => err,
                        };
                        return Some(Err(err));
                    }
                }
            }
        }
    }

    /// Sends every queued program not sent yet, checking a worker out first if needed.
    fn send_queued(&mut self) -> Result<()> {
        if self.queued.iter().all(|q| q.sent) {
            return Ok(());
        }
        if self.worker.is_none() {
            self.worker = Some(self.pool.checkout()?);
        }
        let Some(worker) = self.worker.as_mut() else {
            bail!("no worker available");
        };
        for q in self.queued.iter_mut().filter(|q| !q.sent) {
            worker.send(&q.program, q.timeout)?;
            q.sent = true;
        }
        Ok(())
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Some(worker) = self.worker.take() {
            if self.queued.iter().any(|q| q.sent) {
                // Requests still in flight: this worker's answers would go astray.
                drop(worker);
                self.pool.lost_worker();
            } else {
                self.pool.checkin(worker);
            }
        }
    }
}
