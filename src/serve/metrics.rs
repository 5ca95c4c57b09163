//! Counters for `GET /metrics`, rendered in the Prometheus text format (0.0.4).
//!
//! A handful of counters, two gauges and one histogram: written out by hand in
//! ~100 lines rather than pulling a metrics registry crate for them.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds (seconds) of the latency histogram's buckets.
const BUCKETS: [f64; 13] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

#[derive(Default)]
struct Histogram {
    /// Per bucket (non-cumulative), plus the overflow past the last bound.
    counts: [u64; BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

/// Everything `/metrics` reports. Shared by all handlers.
#[derive(Default)]
pub struct Metrics {
    /// (endpoint, status) → requests answered.
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    /// endpoint → latency histogram.
    latency: Mutex<BTreeMap<String, Histogram>>,
    /// verdict (or `ungraded`) → rollouts graded.
    verdicts: Mutex<BTreeMap<String, u64>>,
    /// Programs run for `/run`, and how many of them hit the timeout.
    pub runs: AtomicU64,
    pub timeouts: AtomicU64,
    /// Requests refused with 503 because the queue was full.
    pub rejected: AtomicU64,
    /// Requests admitted and waiting for a worker.
    pub queued: AtomicI64,
    /// Requests admitted and running.
    pub running: AtomicI64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Metrics {
    /// Records one answered request.
    pub fn observe(&self, endpoint: &str, status: u16, elapsed: Duration) {
        *lock(&self.requests)
            .entry((endpoint.to_string(), status))
            .or_insert(0) += 1;
        let secs = elapsed.as_secs_f64();
        let mut latency = lock(&self.latency);
        let h = latency.entry(endpoint.to_string()).or_default();
        let bucket = BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(BUCKETS.len());
        h.counts[bucket] += 1;
        h.sum += secs;
        h.count += 1;
    }

    /// Requests answered so far, e.g. `/run 200=118, /run 503=2` (the log line at exit,
    /// so an instance's totals survive it).
    pub fn answered(&self) -> String {
        let parts: Vec<String> = lock(&self.requests)
            .iter()
            .map(|((endpoint, status), n)| format!("{endpoint} {status}={n}"))
            .collect();
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// Records one graded rollout (`None`: not graded).
    pub fn verdict(&self, verdict: Option<&str>) {
        *lock(&self.verdicts)
            .entry(verdict.unwrap_or("ungraded").to_string())
            .or_insert(0) += 1;
    }

    /// The Prometheus text exposition; `workers` and `restarts` come from the pool.
    pub fn render(&self, workers: usize, restarts: u64, draining: bool) -> String {
        let mut text = String::from(
            "# HELP sebx_requests_total HTTP requests answered, by endpoint and status code.\n# TYPE sebx_requests_total counter\n",
        );
        for ((endpoint, status), n) in lock(&self.requests).iter() {
            let _ = writeln!(
                text,
                "sebx_requests_total{{endpoint=\"{endpoint}\",code=\"{status}\"}} {n}"
            );
        }
        let _ = writeln!(
            text,
            "# HELP sebx_request_duration_seconds Time from request to response, by endpoint.\n# TYPE sebx_request_duration_seconds histogram"
        );
        for (endpoint, h) in lock(&self.latency).iter() {
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(h.counts.iter()) {
                cumulative += n;
                let _ = writeln!(
                    text,
                    "sebx_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                text,
                "sebx_request_duration_seconds_bucket{{endpoint=\"{endpoint}\",le=\"+Inf\"}} {}\n\
                 sebx_request_duration_seconds_sum{{endpoint=\"{endpoint}\"}} {}\n\
                 sebx_request_duration_seconds_count{{endpoint=\"{endpoint}\"}} {}",
                h.count, h.sum, h.count
            );
        }
        let _ = writeln!(
            text,
            "# HELP sebx_verdicts_total Rollouts graded, by verdict (ungraded: could not be loaded or run).\n# TYPE sebx_verdicts_total counter"
        );
        for (verdict, n) in lock(&self.verdicts).iter() {
            let _ = writeln!(text, "sebx_verdicts_total{{verdict=\"{verdict}\"}} {n}");
        }
        let simple = [
            (
                "sebx_runs_total",
                "counter",
                "Programs run for /run.",
                self.runs.load(Ordering::Relaxed) as i64,
            ),
            (
                "sebx_run_timeouts_total",
                "counter",
                "/run programs past the timeout (answered TLE).",
                self.timeouts.load(Ordering::Relaxed) as i64,
            ),
            (
                "sebx_rejected_total",
                "counter",
                "Requests refused with 503 because the queue was full.",
                self.rejected.load(Ordering::Relaxed) as i64,
            ),
            (
                "sebx_queue_depth",
                "gauge",
                "Requests admitted and waiting for a worker.",
                self.queued.load(Ordering::Relaxed).max(0),
            ),
            (
                "sebx_in_flight",
                "gauge",
                "Requests admitted and running.",
                self.running.load(Ordering::Relaxed).max(0),
            ),
            (
                "sebx_workers",
                "gauge",
                "Python worker slots.",
                workers as i64,
            ),
            (
                "sebx_worker_restarts_total",
                "counter",
                "Workers lost (crashed, wedged) and replaced.",
                restarts as i64,
            ),
            (
                "sebx_draining",
                "gauge",
                "1 after SIGTERM while in-flight work finishes.",
                draining as i64,
            ),
        ];
        for (name, kind, help, value) in simple {
            let _ = writeln!(
                text,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative_and_counts_add_up() {
        let m = Metrics::default();
        m.observe("/run", 200, Duration::from_millis(3));
        m.observe("/run", 200, Duration::from_millis(70));
        m.observe("/run", 503, Duration::from_secs(100));
        m.verdict(Some("right"));
        m.verdict(None);
        let text = m.render(2, 1, false);
        assert!(text.contains("sebx_requests_total{endpoint=\"/run\",code=\"200\"} 2"));
        assert!(text.contains("sebx_requests_total{endpoint=\"/run\",code=\"503\"} 1"));
        assert!(
            text.contains("sebx_request_duration_seconds_bucket{endpoint=\"/run\",le=\"0.005\"} 1")
        );
        assert!(
            text.contains("sebx_request_duration_seconds_bucket{endpoint=\"/run\",le=\"0.1\"} 2")
        );
        assert!(
            text.contains("sebx_request_duration_seconds_bucket{endpoint=\"/run\",le=\"60\"} 2")
        );
        assert!(
            text.contains("sebx_request_duration_seconds_bucket{endpoint=\"/run\",le=\"+Inf\"} 3")
        );
        assert!(text.contains("sebx_request_duration_seconds_count{endpoint=\"/run\"} 3"));
        assert!(text.contains("sebx_verdicts_total{verdict=\"right\"} 1"));
        assert!(text.contains("sebx_verdicts_total{verdict=\"ungraded\"} 1"));
        assert!(text.contains("sebx_worker_restarts_total 1"));
        assert!(text.contains("sebx_workers 2"));
    }
}
