//! Time left for a pool grading many programs, honestly. indicatif's own `{eta}` follows
//! the rate of the last few steps, so it is given at the very first results: when a
//! pool of N workers starts, the first to come back are the quick ones (a program that
//! does not parse, one answered by an identical program's run), and "41 s" shows for a
//! job of 3.5 minutes. [`PoolEta`] says nothing until a few programs per worker have
//! finished and some seconds have passed, then divides what is left by the rate of the
//! whole pool since the start (every worker's completed work, the slow ones included).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// Programs each worker finishes, on average, before an estimate is given.
pub const PER_WORKER: u64 = 3;
/// Time that must pass before an estimate is given (the pool's start-up is not its rate).
pub const SETTLING: Duration = Duration::from_secs(3);

/// The estimator of a pool of `workers` (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolEta {
    pub workers: usize,
}

impl PoolEta {
    pub fn new(workers: usize) -> PoolEta {
        PoolEta {
            workers: workers.max(1),
        }
    }

    /// Time left when `done` of `total` programs are finished after `elapsed`; `None` while
    /// too little is known (fewer than [`PER_WORKER`] per worker, or half of a job smaller
    /// than that, or under [`SETTLING`]).
    pub fn remaining(&self, done: u64, total: u64, elapsed: Duration) -> Option<Duration> {
        if done >= total {
            return Some(Duration::ZERO);
        }
        // A job smaller than that: half of it.
        let needed = (PER_WORKER * self.workers as u64).min((total / 2).max(1));
        if done < needed || elapsed < SETTLING {
            return None;
        }
        let per_program = elapsed.as_secs_f64() / done as f64;
        Some(Duration::from_secs_f64(per_program * (total - done) as f64))
    }

    /// `HH:MM:SS`, or `estimating…` while [`PoolEta::remaining`] says nothing.
    pub fn text(&self, done: u64, total: u64, elapsed: Duration) -> String {
        match self.remaining(done, total, elapsed) {
            Some(left) => {
                let s = left.as_secs();
                format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
            }
            None => "estimating…".to_string(),
        }
    }
}

/// A progress bar of `len` programs for a pool of `workers`:
/// `{what} [bar] pos/len [elapsed < time left] msg`, the time left from [`PoolEta`].
pub fn pool_bar(len: usize, what: &str, workers: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    let eta = PoolEta::new(workers);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{what} {{bar:40}} {{pos}}/{{len}} [{{elapsed_precise}} < {{pool_eta}}] {{msg}}"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "pool_eta",
            move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let text = eta.text(state.pos(), state.len().unwrap_or(0), state.elapsed());
                let _ = w.write_str(&text);
            },
        ),
    );
    // Redrawn as time passes, not only as programs finish: a slow program must not freeze
    // the clock (nor the estimate, which waits for time to pass).
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    /// When each of `durations` (in order) finishes on a pool of `workers`, each program
    /// taken by the first free worker: the finishing times, sorted.
    fn finish_times(durations: &[f64], workers: usize) -> Vec<f64> {
        let mut free = vec![0.0f64; workers];
        let mut done = Vec::new();
        for d in durations {
            let (i, start) = free
                .iter()
                .copied()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("a worker");
            free[i] = start + d;
            done.push(start + d);
        }
        done.sort_by(f64::total_cmp);
        done
    }

    #[test]
    fn nothing_is_said_before_a_few_programs_per_worker_and_a_few_seconds() {
        let eta = PoolEta::new(4);
        assert_eq!(eta.remaining(11, 100, Duration::from_secs(60)), None);
        assert_eq!(eta.remaining(12, 100, Duration::from_secs(2)), None);
        assert_eq!(
            eta.remaining(12, 100, Duration::from_secs(12)),
            Some(Duration::from_secs(88))
        );
        assert_eq!(eta.text(1, 100, Duration::from_secs(9)), "estimating…");
        assert_eq!(eta.text(50, 100, Duration::from_secs(3725)), "01:02:05");
        assert_eq!(
            eta.remaining(100, 100, Duration::ZERO),
            Some(Duration::ZERO)
        );
        // A job smaller than the pool's few-per-worker: once half of it is done.
        assert_eq!(PoolEta::new(64).remaining(4, 10, SETTLING), None);
        assert!(PoolEta::new(64).remaining(5, 10, SETTLING).is_some());
    }

    /// The first estimate shown for a job like the one reported (about 3.5 minutes on 8
    /// workers, its first results the quick ones) is within a factor of two of the truth,
    /// and so is every later one; indicatif's rate of the latest steps said 41 s.
    #[test]
    fn the_first_estimate_is_honest_when_the_quick_programs_come_back_first() {
        let workers = 8;
        // 300 programs: a quick one (a syntax error, an identical program's run) every
        // fifth, the rest 2–9 s, in a fixed pseudo-random order.
        let mut seed = 7u64;
        let durations: Vec<f64> = (0..300)
            .map(|i| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if i % 5 == 0 {
                    0.05
                } else {
                    2.0 + (seed >> 33) as f64 / (1u64 << 31) as f64 * 7.0
                }
            })
            .collect();
        let times = finish_times(&durations, workers);
        let end = *times.last().expect("finishes");
        assert!((150.0..300.0).contains(&end), "a job of minutes: {end}");
        // The scenario is the reported one: the rate of the first result alone promises
        // a small fraction of the real wait.
        let naive = times[0] * (times.len() - 1) as f64;
        assert!(naive < (end - times[0]) / 4.0, "{naive} vs {end}");
        let eta = PoolEta::new(workers);
        let mut first = None;
        for (k, t) in times.iter().enumerate() {
            let done = k as u64 + 1;
            let Some(left) = eta.remaining(done, times.len() as u64, Duration::from_secs_f64(*t))
            else {
                assert!(done < PER_WORKER * workers as u64 || *t < 3.0);
                continue;
            };
            first.get_or_insert(k);
            let truth = end - t;
            // Near the end both are seconds; only the ratio of real waits means something.
            if truth > 20.0 {
                let ratio = left.as_secs_f64() / truth;
                assert!(
                    (0.5..2.0).contains(&ratio),
                    "after {done} programs at {t:.1} s: {:.0} s left said, {truth:.0} s true",
                    left.as_secs_f64()
                );
            }
        }
        assert!(first.is_some_and(|k| k + 1 >= PER_WORKER as usize * workers));
    }
}
