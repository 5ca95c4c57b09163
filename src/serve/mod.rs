//! `sebx serve`: the official SE-Bench sandbox API (`POST /run`) and a grading and
//! reward API, over HTTP, with the warm sandboxed pool behind it.
//!
//! A front end beside the CLI and the TUI: it uses `grade` and `model`; nothing
//! imports it. The server is stateless (every request carries all it needs), so any
//! number of instances can sit behind a load balancer (see `deploy/`).
//!
//! Admission: at most `jobs` requests run at once (one pool worker each; a batch takes
//! up to `jobs`) and at most `queue` more wait for a worker; past that a request is
//! answered `503` with `Retry-After` at once. Grading runs on tokio's blocking
//! threads, never on the async workers, and a request past `--request-timeout` is
//! answered `504`. A request nobody waits for any more (its client closed the connection,
//! or it timed out) is abandoned (`abandon`): the programs it started finish, the ones it
//! had not started are not run, and the log says how many were dropped.
//!
//! Output encoding of `/run`: the official app runs `python main.py` and returns the
//! captured bytes as JSON strings. Bytes that are not UTF-8 become U+FFFD, one per
//! maximal invalid subsequence, exactly as Python's `bytes.decode("utf-8",
//! "replace")` does (a Flask app decoding strictly would fail with a 500 instead;
//! replacing is the only answer that keeps a JSON string and the rest of the output).

mod abandon;
mod metrics;

use crate::model::discovery::ContextArgs;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::grade::batch::grade_all_scored;
use crate::grade::engine::Engine;
use crate::grade::grader::note_entry_mismatch;
use crate::grade::report::GradeReport;
use crate::grade::reward::Scorer;
use crate::grade::settings::parse_timeout;
use crate::model::rollout::{json_kind, parse_rollout_bytes};
use crate::model::{Dataset, Verdict};

use metrics::Metrics;

const AFTER_HELP: &str = concat!(
    "Endpoints:\n",
    "  POST /run          {\"code\": \"...\"} -> {\"stdout\": \"...\", \"stderr\": \"...\"}, the official sandbox API\n",
    "                     (past the timeout: stdout \"\", stderr \"TLE\")\n",
    "  POST /grade        one rollout object (query, response, test_cases, right_exe_result) -> sebx's report\n",
    "  POST /grade/batch  a JSON array of rollouts -> an array of reports, in order\n",
    "    ?reward=1        on either: {\"score\": 1.0 | 0.0, \"verdict\": ..., \"reward_reason\": ...} instead of\n",
    "                     the report; score is the official RL reward (SE-Bench's verl compute_score)\n",
    "                     unless the server runs with --reward verdict (score = 1.0 iff the verdict is right)\n",
    "    ?scorer=both     the full report with the reward too (verdict | reward | both; default verdict)\n",
    "  GET  /healthz      200 when ready, 503 while draining\n",
    "  GET  /metrics      Prometheus text: requests, verdicts, queue depth, latency, worker restarts\n",
    "\n",
    "Full queue: 503 with Retry-After. Bad body: 400 with a reason. SIGTERM or Ctrl-C: stop\n",
    "accepting, finish what is running, exit. With --token-file every endpoint but /healthz\n",
    "needs `Authorization: Bearer <token>`. One log line per request goes to stderr.",
);

/// Serve the official sandbox API and sebx's grader over HTTP.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ServeArgs {
    /// Address to listen on (loopback by default; use 0.0.0.0:PORT in a container).
    #[arg(long, default_value = "127.0.0.1:8111")]
    pub bind: SocketAddr,
    /// Programs run at once (pool workers; default: number of cores).
    #[arg(short, long)]
    pub jobs: Option<usize>,
    /// Requests that may wait for a worker beyond those running; more get 503.
    #[arg(long, default_value_t = 64)]
    pub queue: usize,
    #[command(flatten)]
    pub context: ContextArgs,
    /// File holding a bearer token that requests must present.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Wall-clock timeout per program in seconds (official: 3).
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = parse_timeout,
          allow_negative_numbers = true)]
    pub timeout: Duration,
    /// Seconds a request may take, queueing included, before it is answered 504.
    #[arg(long, default_value_t = 300.0)]
    pub request_timeout: f64,
    /// Largest request body in bytes (413 past it).
    #[arg(long, default_value_t = 32 << 20)]
    pub max_body: usize,
    /// Bytes of a program's stdout (and of its stderr) kept; past it the middle is
    /// dropped and the `x-sebx-stdout-omitted` / `x-sebx-stderr-omitted` headers say how much.
    #[arg(long, default_value_t = 16 << 20)]
    pub max_output: usize,
    /// Seconds to wait for running work after SIGTERM before exiting anyway.
    #[arg(long, default_value_t = 60.0)]
    pub drain_timeout: f64,
    /// No per-request log lines.
    #[arg(short, long)]
    pub quiet: bool,
    /// What `score` is on `?reward=1`: the official RL reward SE-Bench trains with
    /// (`official`), or 1.0 exactly when the evaluation verdict is `right` (`verdict`:
    /// training on what is evaluated).
    #[arg(long, value_enum, default_value_t = RewardSource::Official)]
    pub reward: RewardSource,
}

/// What the `score` of `?reward=1` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RewardSource {
    /// The official RL reward (`compute_score` of SE-Bench's verl fork).
    Official,
    /// The evaluation verdict: 1.0 for `right`, else 0.0.
    Verdict,
}

struct AppState {
    engine: Engine,
    /// Running plus waiting requests (jobs + queue permits).
    admission: Arc<Semaphore>,
    /// Pool workers (jobs permits).
    workers: Arc<Semaphore>,
    jobs: usize,
    timeout: Duration,
    request_timeout: Duration,
    token: Option<String>,
    dataset: Dataset,
    metrics: Metrics,
    draining: AtomicBool,
    log: bool,
    reward: RewardSource,
}

/// Parses the flags, starts the pool and serves until SIGTERM / Ctrl-C.
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    // No paths: the API doc and datasets come from the flags, $SEBX_API_DOC or a checkout.
    let session = crate::session::Session::build(crate::session::SessionArgs {
        command: "serve",
        paths: &[],
        correct: &[],
        context: &args.context,
        cache: &crate::session::CacheChoice::Off,
    })?
    .say();
    let api = session.require_api()?.clone();
    let dataset = Dataset::clone(&session.dataset);
    let token = match &args.token_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the token file {}", path.display()))?;
            let token = text.trim().to_string();
            if token.is_empty() {
                bail!("the token file {} is empty", path.display());
            }
            Some(token)
        }
        None => None,
    };
    if !args.bind.ip().is_loopback() && token.is_none() {
        crate::warnln!(
            "warning: listening on {} without --token-file: anyone who can reach it can run code in the sandbox",
            args.bind
        );
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        })
        .max(1);
    let mut config = crate::grade::settings::GradingSettings::official().pool_config(jobs);
    config.capture_cap = args.max_output.max(4096);
    let engine = Engine::start_with(&api, config)?;
    for note in engine.notes() {
        crate::warnln!("sandbox: {note}");
    }
    let state = Arc::new(AppState {
        engine,
        admission: Arc::new(Semaphore::new(jobs + args.queue)),
        workers: Arc::new(Semaphore::new(jobs)),
        jobs,
        timeout: args.timeout,
        request_timeout: Duration::from_secs_f64(args.request_timeout.max(0.1)),
        token,
        dataset,
        metrics: Metrics::default(),
        draining: AtomicBool::new(false),
        log: !args.quiet,
        reward: args.reward,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("sebx-serve")
        .build()
        .context("cannot start the async runtime")?;
    let drain = Duration::from_secs_f64(args.drain_timeout.max(0.0));
    runtime.block_on(serve(state.clone(), args.bind, args.max_body, drain))?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    // Dropping the last reference stops the workers.
    drop(state);
    Ok(ExitCode::SUCCESS)
}

async fn serve(
    state: Arc<AppState>,
    bind: SocketAddr,
    max_body: usize,
    drain: Duration,
) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(bind)
        .await
        .with_context(|| format!("cannot listen on {bind}"))?;
    let local = listener.local_addr().unwrap_or(bind);
    // Tests and scripts wait for this exact line.
    crate::warnln!(
        "sebx serve: listening on http://{local} ({} workers, queue {})",
        state.jobs,
        state.admission.available_permits() - state.jobs
    );
    let app = router(state.clone(), max_body);
    let shutdown_state = state.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            shutdown_state.draining.store(true, Ordering::SeqCst);
            crate::warnln!("sebx serve: draining (no new connections; finishing running requests)");
        })
        .await
        .context("server failed")?;
    // Requests that timed out still hold workers until their programs end.
    let all = state.jobs as u32;
    if tokio::time::timeout(drain, state.workers.acquire_many(all))
        .await
        .is_err()
    {
        crate::warnln!(
            "sebx serve: work still running after {} s; exiting anyway",
            drain.as_secs()
        );
    }
    crate::warnln!(
        "sebx serve: stopped; answered: {}",
        state.metrics.answered()
    );
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

fn router(state: Arc<AppState>, max_body: usize) -> Router {
    Router::new()
        .route("/run", post(run_code))
        .route("/grade", post(grade_one))
        .route("/grade/batch", post(grade_batch))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn_with_state(state.clone(), frame))
        .with_state(state)
}

/// An error answer: a status and a JSON `{"error": reason}`.
struct ApiError {
    status: StatusCode,
    reason: String,
}

impl ApiError {
    fn new(status: StatusCode, reason: impl Into<String>) -> ApiError {
        ApiError {
            status,
            reason: reason.into(),
        }
    }

    fn bad_request(reason: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, reason)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, axum::Json(json!({ "error": self.reason }))).into_response();
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

/// Auth, the request log line and the request metrics, around every route.
async fn frame(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let endpoint = match path.as_str() {
        "/run" | "/grade" | "/grade/batch" | "/healthz" | "/metrics" => path.clone(),
        _ => "other".to_string(),
    };
    let authorized = match &state.token {
        None => true,
        Some(_) if path == "/healthz" => true,
        Some(token) => request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| constant_time_eq(given.trim().as_bytes(), token.as_bytes())),
    };
    let response = if authorized {
        next.run(request).await
    } else {
        let mut r = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token (Authorization: Bearer <token>)",
        )
        .into_response();
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        r
    };
    let elapsed = start.elapsed();
    let status = response.status().as_u16();
    state.metrics.observe(&endpoint, status, elapsed);
    if state.log {
        // An RFC 3339 time in UTC (`2026-12-02T10:03:07.101Z`), as the label files write it.
        let now = crate::model::labels::rfc3339_utc(SystemTime::now());
        crate::warnln!(
            "{now} {method} {path} {status} {:.1}ms",
            elapsed.as_secs_f64() * 1000.0
        );
    }
    response
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Decrements a gauge when dropped (also when the client goes away mid-wait).
struct GaugeGuard<'a>(&'a AtomicI64);

impl<'a> GaugeGuard<'a> {
    fn enter(gauge: &'a AtomicI64) -> GaugeGuard<'a> {
        gauge.fetch_add(1, Ordering::Relaxed);
        GaugeGuard(gauge)
    }
}

impl Drop for GaugeGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Admits a request (or answers 503), waits for `workers` pool workers, then runs
/// `work` on a blocking thread; the request as a whole is bounded by the request timeout.
async fn execute<T: Send + 'static>(
    state: &Arc<AppState>,
    workers: usize,
    work: impl FnOnce(&AppState, &abandon::Flag) -> T + Send + 'static,
) -> Result<T, ApiError> {
    if state.draining.load(Ordering::SeqCst) {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is shutting down",
        ));
    }
    let Ok(admitted) = state.admission.clone().try_acquire_owned() else {
        state.metrics.rejected.fetch_add(1, Ordering::Relaxed);
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "all workers are busy and the queue is full; retry later",
        ));
    };
    // Raised if this future is dropped (the client left) or returns without the answer.
    let flag = Arc::new(abandon::Flag::default());
    let guard = abandon::Abandon::new(flag.clone());
    let deadline = tokio::time::Instant::now() + state.request_timeout;
    let timed_out = || {
        ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "the request took longer than {} s",
                state.request_timeout.as_secs_f64()
            ),
        )
    };
    let wanted = workers.clamp(1, state.jobs) as u32;
    let permit = {
        let _queued = GaugeGuard::enter(&state.metrics.queued);
        match tokio::time::timeout_at(deadline, state.workers.clone().acquire_many_owned(wanted))
            .await
        {
            Err(_) => return Err(timed_out()),
            Ok(Err(_)) => {
                return Err(ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the server is shutting down",
                ));
            }
            Ok(Ok(permit)) => permit,
        }
    };
    let worker_state = state.clone();
    let task = tokio::task::spawn_blocking(move || {
        // Both permits live until the work ends, even if the client has gone.
        let _held = (permit, admitted);
        let _running = GaugeGuard::enter(&worker_state.metrics.running);
        let value = work(&worker_state, &flag);
        if flag.skipped() > 0 && worker_state.log {
            let now = crate::model::labels::rfc3339_utc(SystemTime::now());
            crate::warnln!(
                "{now} abandoned: the client gave up on a request; {} of its programs were not run",
                flag.skipped()
            );
        }
        value
    });
    match tokio::time::timeout_at(deadline, task).await {
        Err(_) => Err(timed_out()),
        Ok(Err(err)) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("grading failed: {err}"),
        )),
        Ok(Ok(value)) => {
            guard.finish();
            Ok(value)
        }
    }
}

fn parse_json(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("the body is not valid JSON: {e}")))
}

/// The `code` of a `/run` body.
fn run_code_field(body: &[u8]) -> Result<String, ApiError> {
    let value = parse_json(body)?;
    let Value::Object(mut obj) = value else {
        return Err(ApiError::bad_request(format!(
            "the body must be a JSON object with a `code` string, found {}",
            json_kind(&value)
        )));
    };
    match obj.remove("code") {
        None => Err(ApiError::bad_request(
            "missing field `code` (the program to run, a string)",
        )),
        Some(Value::String(code)) => Ok(code),
        Some(other) => Err(ApiError::bad_request(format!(
            "`code` must be a string, found {}",
            json_kind(&other)
        ))),
    }
}

async fn run_code(State(state): State<Arc<AppState>>, body: Bytes) -> Result<Response, ApiError> {
    let code = run_code_field(&body)?;
    let outcome = execute(&state, 1, move |s, _| s.engine.pool().run(&code, s.timeout)).await?;
    let outcome = outcome.map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the sandbox could not run the program: {e:#}"),
        )
    })?;
    state.metrics.runs.fetch_add(1, Ordering::Relaxed);
    let body = if outcome.timed_out {
        state.metrics.timeouts.fetch_add(1, Ordering::Relaxed);
        // The official answer to a timeout.
        json!({"stdout": "", "stderr": "TLE"})
    } else {
        json!({"stdout": outcome.stdout, "stderr": outcome.stderr})
    };
    let mut response = axum::Json(body).into_response();
    for (name, omitted) in [
        ("x-sebx-stdout-omitted", outcome.stdout_omitted),
        ("x-sebx-stderr-omitted", outcome.stderr_omitted),
    ] {
        if omitted > 0 && !outcome.timed_out {
            response
                .headers_mut()
                .insert(name, HeaderValue::from(omitted));
        }
    }
    Ok(response)
}

#[derive(Debug, Deserialize)]
struct GradeQuery {
    #[serde(default)]
    reward: Option<String>,
    #[serde(default)]
    scorer: Option<String>,
}

impl GradeQuery {
    /// The scorers a request needs: the reward (with the verdict beside it, for the body)
    /// on `?reward=1`, else `?scorer=` (default: the verdict alone).
    fn scorer(&self, source: RewardSource) -> Result<(bool, Scorer), ApiError> {
        let reward = self.reward()?;
        if reward {
            return Ok((
                true,
                match source {
                    RewardSource::Official => Scorer::Both,
                    RewardSource::Verdict => Scorer::Verdict,
                },
            ));
        }
        let scorer = match self.scorer.as_deref() {
            None | Some("verdict") => Scorer::Verdict,
            Some("reward") => Scorer::Reward,
            Some("both") => Scorer::Both,
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "`scorer` must be verdict, reward or both, found {other:?}"
                )));
            }
        };
        Ok((false, scorer))
    }

    fn reward(&self) -> Result<bool, ApiError> {
        match self.reward.as_deref() {
            None | Some("0") | Some("false") => Ok(false),
            Some("1") | Some("true") | Some("") => Ok(true),
            Some(other) => Err(ApiError::bad_request(format!(
                "`reward` must be 1 or 0, found {other:?}"
            ))),
        }
    }
}

/// The `?reward=1` answer for one report: `score` (the official RL reward, or 1.0 for
/// `right` under `--reward verdict`), the verdict, and why they differ (null where they
/// agree); `error` when the rollout could not be scored.
fn reward_of(report: &GradeReport, source: RewardSource) -> Value {
    let score = match source {
        RewardSource::Official => report.reward.map(f64::from),
        RewardSource::Verdict => report
            .verdict
            .map(|v| if v == Verdict::Right { 1.0 } else { 0.0 }),
    };
    let mut reward = json!({
        "score": score.unwrap_or(0.0),
        "verdict": report.verdict.map(Verdict::as_str),
        "reward_reason": report.reward_reason,
    });
    if score.is_none() {
        let why = match (source, &report.reward_detail) {
            (RewardSource::Official, Some(d)) if report.verdict.is_some() => d.decided_by.clone(),
            _ => report.decided_by.clone(),
        };
        reward["error"] = Value::String(why);
    }
    reward
}

/// Grades rollouts given as JSON values (one per line of an in-memory JSONL named
/// `request`), in order; items that are not valid rollouts get a load-failure report.
fn grade_values(
    state: &AppState,
    flag: &abandon::Flag,
    items: &[Value],
    threads: usize,
    scorer: Scorer,
) -> Vec<GradeReport> {
    let mut jsonl = String::new();
    for item in items {
        // Compact JSON has no raw newline, so each item is exactly one line.
        jsonl.push_str(&item.to_string());
        jsonl.push('\n');
    }
    let source = std::path::Path::new("request");
    let loaded = parse_rollout_bytes(source, jsonl.as_bytes());
    let rollouts: Vec<_> = loaded.rollouts.iter().collect();
    let runner = abandon::Abandonable {
        inner: &state.engine,
        flag,
    };
    let graded = grade_all_scored(
        &rollouts,
        &runner,
        threads,
        state.timeout,
        scorer,
        &|_, _| {},
    );
    let mut graded = graded.into_iter();
    let mut reports = Vec::with_capacity(items.len());
    for entry in loaded.entries() {
        match entry {
            Ok(rollout) => {
                let mut report = graded.next().unwrap_or_else(|| {
                    GradeReport::load_failure("request", rollout.line, "grading thread failed")
                });
                if let Some(item) = state.dataset.get(&rollout.query) {
                    note_entry_mismatch(&mut report, &item.function_name);
                }
                reports.push(report);
            }
            Err(issue) => reports.push(GradeReport::load_failure(
                "request",
                issue.line,
                &issue.reason,
            )),
        }
    }
    for report in &reports {
        state.metrics.verdict(report.verdict.map(Verdict::as_str));
    }
    reports
}

async fn grade_one(
    State(state): State<Arc<AppState>>,
    Query(query): Query<GradeQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (reward, scorer) = query.scorer(state.reward)?;
    let value = parse_json(&body)?;
    if !value.is_object() {
        return Err(ApiError::bad_request(format!(
            "the body must be one rollout object (query, response, test_cases, right_exe_result), found {}",
            json_kind(&value)
        )));
    }
    // Checked before queueing: a bad rollout is the client's error, not a grade.
    let line = value.to_string();
    let loaded = parse_rollout_bytes(std::path::Path::new("request"), line.as_bytes());
    if let Some(issue) = loaded.issues.first() {
        return Err(ApiError::bad_request(format!(
            "not a rollout: {}",
            issue.reason
        )));
    }
    let mut reports = execute(&state, 1, move |s, flag| {
        grade_values(s, flag, &[value], 1, scorer)
    })
    .await?;
    let Some(report) = reports.pop() else {
        return Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "no report was produced",
        ));
    };
    Ok(if reward {
        axum::Json(reward_of(&report, state.reward)).into_response()
    } else {
        axum::Json(report).into_response()
    })
}

async fn grade_batch(
    State(state): State<Arc<AppState>>,
    Query(query): Query<GradeQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (reward, scorer) = query.scorer(state.reward)?;
    let Value::Array(items) = parse_json(&body)? else {
        return Err(ApiError::bad_request(
            "the body must be a JSON array of rollout objects",
        ));
    };
    let threads = items.len().clamp(1, state.jobs);
    let reports = execute(&state, threads, move |s, flag| {
        grade_values(s, flag, &items, threads, scorer)
    })
    .await?;
    Ok(if reward {
        let source = state.reward;
        axum::Json(
            reports
                .iter()
                .map(|r| reward_of(r, source))
                .collect::<Vec<_>>(),
        )
        .into_response()
    } else {
        axum::Json(reports).into_response()
    })
}

async fn healthz(State(state): State<Arc<AppState>>) -> Response {
    let (python, numpy) = state.engine.pool().versions();
    if state.draining.load(Ordering::SeqCst) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"status": "draining"})),
        )
            .into_response();
    }
    axum::Json(json!({
        "status": "ok",
        "workers": state.jobs,
        "python": python,
        "numpy": numpy,
    }))
    .into_response()
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let text = state.metrics.render(
        state.jobs,
        state.engine.pool().workers_lost(),
        state.draining.load(Ordering::SeqCst),
    );
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
