//! The worker pool against hostile and well-behaved programs: each hostile one
//! is contained and reported, nothing of it is left running afterwards, and
//! well-behaved programs see exactly the official `python main.py` run.
//!
//! Needs Python 3.11 with NumPy 2.3.0 (`sebx runtime install`); fails, not skips, without it.

use crate::isolated;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use std::sync::OnceLock;
use std::time::Duration;

use sebx::grade::pool::{ExecOutcome, Pool, PoolConfig, SandboxReport, Session};
use sebx::grade::runtime::{PythonRuntime, find_runtime};
use sebx::grade::zwc_runtime::ensure_zwc_package;
use sebx::model::ApiMap;

const MAPPING: &str =
    r#"{"main": {"mean": "kocito", "array": "yitaf"}, "linalg": {"inv": "quvohe"}}"#;

/// The timeout of a test program unless it says otherwise.
const TIMEOUT: Duration = Duration::from_secs(3);

fn runtime() -> &'static PythonRuntime {
    static RUNTIME: OnceLock<PythonRuntime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        find_runtime().unwrap_or_else(|err| panic!("these tests need the grading runtime: {err}"))
    })
}

fn zwc_root() -> &'static PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let value: serde_json::Value = serde_json::from_str(MAPPING).expect("mapping is JSON");
        let api = ApiMap::from_mappings_json(&value).expect("mapping loads");
        // Content-addressed: reused by later runs, never half-written.
        let cache = std::env::temp_dir().join("sebx-test-zwc-cache");
        ensure_zwc_package(&api, &cache).expect("package written")
    })
}

/// A pool of its own, so leftover checks see only this test's processes.
fn pool(workers: usize) -> Pool {
    Pool::start(runtime(), zwc_root(), workers).expect("pool starts")
}

/// A pool of its own of `workers` workers, its default config changed by `configure`.
fn pool_with(workers: usize, configure: impl FnOnce(&mut PoolConfig)) -> Pool {
    let mut config = PoolConfig::with_workers(workers);
    configure(&mut config);
    Pool::start_with(runtime(), zwc_root(), config).expect("pool starts")
}

/// A one-worker pool with its sandbox report and its worker's pid (for [`next_is_right`]).
fn watched_pool() -> (Pool, SandboxReport, Vec<u32>) {
    let pool = pool(1);
    let report = pool.sandbox_report();
    let workers = pool.worker_pids();
    (pool, report, workers)
}

/// One pool with the fast exit and one with the full interpreter exit, one worker each.
fn fast_and_full_pools() -> (Pool, Pool) {
    (
        pool(1),
        pool_with(1, |config| config.full_interpreter_exit = true),
    )
}

/// Runs `program` with the usual [`TIMEOUT`].
fn run(pool: &Pool, program: &str) -> ExecOutcome {
    run_for(pool, program, TIMEOUT)
}

/// Runs `program`, stopped after `timeout`.
fn run_for(pool: &Pool, program: &str, timeout: Duration) -> ExecOutcome {
    pool.run(program, timeout)
        .expect("the pool runs the program")
}

/// The next result of `session`, which must be there and have run.
fn next_result(session: &mut Session<'_>) -> ExecOutcome {
    session
        .next_result()
        .expect("a result")
        .expect("the session runs the program")
}

/// Kills the process `pid` (a worker of the test's pool) with SIGKILL.
fn kill(pid: u32) {
    // SAFETY: kill(2) on a pid we own has no memory-safety preconditions.
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
}

/// Every process's pid and command line (NULs as spaces), as /proc lists them now.
fn processes() -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(raw) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        found.push((pid, String::from_utf8_lossy(&raw).replace('\0', " ")));
    }
    found
}

/// Calls `find` until it finds nothing, up to 50 times 20 ms apart (killed processes take
/// a moment to disappear from /proc), and returns what it found last.
fn until_none(mut find: impl FnMut() -> Vec<String>) -> Vec<String> {
    let mut found = Vec::new();
    for _ in 0..50 {
        found = find();
        if found.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    found
}

/// Processes of this pool other than its idle workers (and their parents, which
/// only wait for a worker that is its own pid namespace's init), plus any process
/// whose command line carries `marker`. Retries briefly: killed processes take a
/// moment to disappear from /proc.
fn leftovers(pool: &Pool, marker: Option<&str>) -> Vec<String> {
    let script = pool.worker_script().to_string_lossy().into_owned();
    let mut workers = pool.worker_pids();
    let parents: Vec<u32> = workers.iter().filter_map(|pid| parent_of(*pid)).collect();
    workers.extend(parents);
    until_none(|| {
        processes()
            .into_iter()
            .filter(|(pid, cmdline)| {
                let ours = cmdline.contains(&script) && !workers.contains(pid);
                let marked = marker.is_some_and(|m| cmdline.contains(m));
                ours || marked
            })
            .map(|(pid, cmdline)| format!("{pid}: {cmdline}"))
            .collect()
    })
}

/// A program that starts a proper daemon (own session, stdio on /dev/null, a
/// 30 s sleeper whose command line carries `marker`), waits for its first child
/// and prints `done`.
fn daemon_program(marker: &str) -> String {
    format!(
        "import os, sys\n\
         if os.fork() == 0:\n\
         \x20   os.setsid()\n\
         \x20   if os.fork() == 0:\n\
         \x20       null = os.open('/dev/null', os.O_RDWR)\n\
         \x20       for fd in (0, 1, 2):\n\
         \x20           os.dup2(null, fd)\n\
         \x20       os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', {marker:?}])\n\
         \x20   os._exit(0)\n\
         os.wait()\n\
         print('done')\n"
    )
}

/// A program that leaves a double-forked, setsid 30 s sleeper whose command line carries
/// `marker`, then hangs; with `settle` it first waits until the sleeper runs (the end of a
/// pipe the sleeper's exec closes, and the middle process's exit), not for a guessed time.
fn escapee_program(marker: &str, settle: bool) -> String {
    format!(
        "import os, sys, time\n\
         r, w = os.pipe()\n\
         if os.fork() == 0:\n\
         \x20   os.setsid()\n\
         \x20   if os.fork() == 0:\n\
         \x20       os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', {marker:?}])\n\
         \x20   os._exit(0)\n\
         os.close(w)\n\
         {settle}\
         while True:\n\
         \x20   time.sleep(0.1)\n",
        settle = if settle { "os.read(r, 1)\n" } else { "" },
    )
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn assert_nothing_left(pool: &Pool, marker: Option<&str>) {
    let left = leftovers(pool, marker);
    assert!(left.is_empty(), "processes left running: {left:#?}");
}

/// Runs [`escapee_program`] for 1 s: it times out, and its sleeper is killed with it.
fn assert_escapee_killed(pool: &Pool, marker: &str, settle: bool) {
    let outcome = run_for(
        pool,
        &escapee_program(marker, settle),
        Duration::from_secs(1),
    );
    assert_timed_out(&outcome);
    assert_nothing_left(pool, Some(marker));
}

/// Runs [`daemon_program`]: it ends at once, and its daemon is reported and killed.
fn assert_daemon_killed(pool: &Pool, marker: &str) {
    let outcome = run(pool, &daemon_program(marker));
    assert_stdout(&outcome, "done\n");
    assert!(!outcome.timed_out);
    assert_contained(&outcome, "background");
    assert_nothing_left(pool, Some(marker));
}

fn contained(outcome: &ExecOutcome) -> &str {
    outcome.contained.as_deref().unwrap_or("")
}

/// Asserts the program was stopped at its timeout and its stdout dropped (as the official
/// run drops it).
fn assert_timed_out(outcome: &ExecOutcome) {
    assert!(outcome.timed_out, "{outcome:?}");
    assert_eq!(outcome.stdout, "", "a timeout yields empty stdout");
}

/// Asserts the program printed exactly `expected` (its stderr shown otherwise).
fn assert_stdout(outcome: &ExecOutcome, expected: &str) {
    assert_eq!(outcome.stdout, expected, "{}", outcome.stderr);
}

/// Asserts the pool says it contained the program, for a reason mentioning `why`.
fn assert_contained(outcome: &ExecOutcome, why: &str) {
    assert!(contained(outcome).contains(why), "{outcome:?}");
}

/// Asserts the program printed some lines and every one of them is `refused`.
fn assert_all_refused(outcome: &ExecOutcome) {
    assert!(
        outcome.stdout.lines().all(|l| l == "refused") && !outcome.stdout.is_empty(),
        "{}{}",
        outcome.stdout,
        outcome.stderr
    );
}

/// Asserts a line of the sandbox report mentions one of `needles` (how it tells of a
/// missing protection).
fn assert_reported(report: &SandboxReport, needles: &[&str]) {
    assert!(
        report
            .lines()
            .iter()
            .any(|l| needles.iter().any(|n| l.contains(n))),
        "{report}"
    );
}

/// Asserts the program did not create `path` on the host.
fn assert_not_written(path: &Path) {
    assert!(!path.exists(), "the program wrote {}", path.display());
}

fn unique(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("sebx-{tag}-{}-{nanos}", std::process::id())
}

/// A new path in the build's own temp folder (wherever the clone lives, possibly under
/// /tmp): outside every program's directory.
fn outside_path(tag: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(unique(tag))
}

/// The pool's temporary folder (its worker script and the programs' work folders).
fn pool_dir(pool: &Pool) -> PathBuf {
    pool.worker_script()
        .parent()
        .expect("pool dir")
        .to_path_buf()
}

const ASSEMBLED: &str = "import zwc\n\
def solve(x):\n    return zwc.kocito(zwc.yitaf(x), axis=0)\n\
import zwc\n\
if __name__== \"__main__\":\n\
\x20   test_cases = [{'input': 'x=[[1, 2], [3, 4]]', 'output': '[2. 3.]'}]\n\
\x20   result_list = []\n\
\x20   result_list.append(solve(x=[[1, 2], [3, 4]]))\n\
\x20   result_list.append(solve(x=[[1.5, 2], [3, 4]]))\n\
\x20   print(\"====================\")\n\
\x20   for i in range(len(result_list)):\n\
\x20       print(result_list[i])\n\
\x20       print(\"#\")";

/// What [`ASSEMBLED`] prints, as the official run prints it.
const ASSEMBLED_STDOUT: &str = "====================\n[2. 3.]\n#\n[2.25 3.  ]\n#\n";

#[test]
fn well_behaved_program_prints_exactly_what_python_prints() {
    let pool = pool(1);
    let outcome = run(&pool, ASSEMBLED);
    assert_stdout(&outcome, ASSEMBLED_STDOUT);
    assert_eq!(outcome.stderr, "");
    assert_eq!(outcome.exit_code, Some(0));
    assert!(!outcome.timed_out);
    assert_eq!(outcome.contained, None);
}

#[test]
fn the_program_sees_a_fresh_python_main_py_run() {
    let pool = pool(1);
    let outcome = run(
        &pool,
        "import os, sys\n\
         print(__name__, sys.argv, sys.path[0] == os.getcwd(), os.listdir('.'))\n\
         print(os.path.basename(__file__), os.path.dirname(__file__) == os.getcwd())\n\
         print(repr(sys.stdin.read()), sys.stdout.encoding, os.environ['HOME'] == os.getcwd())\n\
         print('é✓')\n\
         print(sorted(k for k in os.environ if not k.startswith(('LC_', 'OPENBLAS', 'OMP', 'MKL', 'NUMEXPR'))))\n\
         open('out.txt', 'w').write('written here')\nprint(open('out.txt').read())\n",
    );
    assert_stdout(
        &outcome,
        "__main__ ['main.py'] True ['main.py']\nmain.py True\n'' utf-8 True\né✓\n\
         ['HOME', 'PATH', 'PYTHONPATH', 'TMPDIR']\nwritten here\n",
    );
}

#[test]
fn buffered_stdout_is_flushed_at_exit_as_cpython_does() {
    let pool = pool(1);
    let raised = run(&pool, "print('a')\nprint('b')\nraise ValueError('boom')\n");
    assert_eq!(raised.stdout, "a\nb\n");
    assert_eq!(raised.exit_code, Some(1));
    assert!(
        raised
            .stderr
            .starts_with("Traceback (most recent call last):\n  File \"/"),
        "{}",
        raised.stderr
    );
    assert!(
        raised.stderr.contains("/main.py\", line 3, in <module>"),
        "{}",
        raised.stderr
    );
    assert!(!raised.stderr.contains("worker.py"), "{}", raised.stderr);
    assert!(raised.stderr.ends_with("ValueError: boom\n"));

    let exited = run(&pool, "import sys\nprint('kept')\nsys.exit(3)\n");
    assert_eq!(
        (exited.stdout.as_str(), exited.exit_code),
        ("kept\n", Some(3))
    );

    let message = run(&pool, "import sys\nprint('x')\nsys.exit('bad')\n");
    assert_eq!(
        (message.stdout.as_str(), message.exit_code),
        ("x\n", Some(1))
    );
    assert_eq!(message.stderr, "bad\n");

    // os._exit skips the flush in CPython, so the buffered text is lost there too.
    let hard = run(&pool, "import os\nprint('lost')\nos._exit(0)\n");
    assert_eq!((hard.stdout.as_str(), hard.exit_code), ("", Some(0)));

    let at_exit = run(
        &pool,
        "import atexit, threading, time\n\
         atexit.register(lambda: print('atexit'))\n\
         threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n\
         print('main')\n",
    );
    assert_eq!(at_exit.stdout, "main\nthread\natexit\n");

    let syntax = run(&pool, "print('never')\ndef f(:\n");
    assert_eq!(syntax.stdout, "");
    assert!(syntax.stderr.contains("SyntaxError"), "{}", syntax.stderr);
    assert!(!syntax.stderr.contains("Traceback"), "{}", syntax.stderr);
    assert_nothing_left(&pool, None);
}

#[test]
fn forked_programs_do_not_share_random_state() {
    let pool = pool(1);
    let program = "import random, numpy\nprint(random.random(), numpy.random.rand())\n";
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..4 {
        let outcome = run(&pool, program);
        assert!(!outcome.stdout.is_empty(), "{}", outcome.stderr);
        assert!(
            seen.insert(outcome.stdout.clone()),
            "repeated: {}",
            outcome.stdout
        );
    }
    // NumPy's global generator is in the state a fresh `import numpy` leaves (the worker
    // writes it straight into the generator's memory): MT19937, first word 2**31, the
    // other 623 from the system's entropy, position 623, no cached Gaussian.
    let shape = "import numpy\n\
        s = numpy.random.get_state()\n\
        print(s[0], s[1][0], s[2], s[3], s[4], len(set(s[1][1:].tolist())) > 600)\n";
    let expected = "MT19937 2147483648 623 0 0.0 True\n";
    assert_eq!(fresh_python(shape).0, expected);
    for _ in 0..2 {
        assert_stdout(&run(&pool, shape), expected);
    }
}

#[test]
fn infinite_loop_times_out_with_empty_stdout() {
    let pool = pool(1);
    let outcome = run(
        &pool,
        "print('before', flush=True)\nwhile True:\n    pass\n",
    );
    assert_timed_out(&outcome);
    assert!(contained(&outcome).starts_with("timeout"), "{outcome:?}");
    assert!(outcome.elapsed >= TIMEOUT);
    assert_nothing_left(&pool, None);
    // The worker is still usable afterwards.
    assert_eq!(run(&pool, "print(1)").stdout, "1\n");
}

#[test]
fn fork_bomb_is_contained_and_fully_killed() {
    // A low cap, so that the bomb reaches it well within the timeout even on a
    // busy machine (forking a Python with NumPy loaded is not free).
    let pool = pool_with(1, |config| config.limits.max_processes = 32);
    let report = pool.sandbox_report();
    let outcome = run_for(
        &pool,
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        Duration::from_secs(2),
    );
    assert_timed_out(&outcome);
    if report.is_active("process limit") {
        assert_contained(&outcome, "process limit");
    }
    assert_nothing_left(&pool, None);
    assert_eq!(run(&pool, "print(2)").stdout, "2\n");
}

#[test]
fn ten_gigabyte_allocation_fails_fast_with_memory_error() {
    let pool = pool(1);
    for program in [
        "import numpy\na = numpy.ones(10 * 2**30 // 8)\nprint(a[0])\n",
        "b = bytearray(10 * 2**30)\nprint(len(b))\n",
    ] {
        let outcome = run(&pool, program);
        assert_eq!(outcome.stdout, "", "{program}");
        assert!(!outcome.timed_out);
        assert!(outcome.stderr.contains("MemoryError"), "{}", outcome.stderr);
        assert_contained(&outcome, "memory limit");
    }
}

#[test]
fn writing_outside_the_program_directory_is_prevented() {
    let pool = pool(1);
    let report = pool.sandbox_report();
    // The build's own folder, the host's temp dir, and the root folder (never under /tmp).
    let outside = outside_path("escape");
    let host_tmp = std::env::temp_dir().join(unique("tmp-escape"));
    let at_root = Path::new("/").join(unique("root-escape"));
    let outcome = run(
        &pool,
        &format!(
            "for path in [{:?}, {:?}]:\n\
             \x20   try:\n\
             \x20       open(path, 'w').write('escaped')\n\
             \x20       print('wrote', path == {:?})\n\
             \x20   except OSError as e:\n\
             \x20       print('refused', e.errno)\n\
             open({:?}, 'w').write('x')\n",
            outside.to_string_lossy(),
            host_tmp.to_string_lossy(),
            host_tmp.to_string_lossy(),
            at_root.to_string_lossy(),
        ),
    );
    if report.is_active("read-only filesystem") {
        // Outside the program's folder everything is read-only (EROFS, 30), except /tmp,
        // which is the worker's private tmpfs: a host path under /tmp does not exist there
        // (ENOENT, 2), and a new file in it is the program's own.
        let host_tmp_dir = std::env::temp_dir();
        let expected_errno = if outside.starts_with(&host_tmp_dir) || outside.starts_with("/tmp") {
            2
        } else {
            30
        };
        assert_stdout(&outcome, &format!("refused {expected_errno}\nwrote True\n"));
        assert_contained(&outcome, "read-only");
        assert_not_written(&outside);
        assert_not_written(&host_tmp);
        assert_not_written(&at_root);
    } else {
        let _ = std::fs::remove_file(&outside);
        let _ = std::fs::remove_file(&host_tmp);
        let _ = std::fs::remove_file(&at_root);
        let why = report
            .missing()
            .iter()
            .map(|p| p.detail.clone())
            .collect::<Vec<_>>();
        assert!(!why.is_empty(), "an inactive protection must say why");
    }
}

#[test]
fn network_connections_fail_fast() {
    let pool = pool(1);
    let report = pool.sandbox_report();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    let program = format!(
        "import socket, time\n\
         for addr in [('127.0.0.1', {port}), ('10.255.255.1', 80)]:\n\
         \x20   t = time.time()\n\
         \x20   try:\n\
         \x20       socket.create_connection(addr, timeout=10).close()\n\
         \x20       print('connected')\n\
         \x20   except OSError as e:\n\
         \x20       print('failed', e.errno, time.time() - t < 0.5)\n"
    );
    let outcome = run(&pool, &program);
    if report.is_active("no network") {
        assert_stdout(&outcome, "failed 101 True\nfailed 101 True\n");
        assert!(!outcome.timed_out);
        let last = run(
            &pool,
            &format!("import socket\nsocket.create_connection(('127.0.0.1', {port}))\n"),
        );
        assert_contained(&last, "network");
    } else {
        assert_reported(&report, &["[off] no network"]);
    }
    drop(listener);
}

#[test]
fn a_child_that_outlives_the_timeout_is_killed() {
    let pool = pool(1);
    // A double-forked, setsid sleeper, then the main program hangs.
    assert_escapee_killed(&pool, &unique("sleeper"), true);
}

#[test]
fn background_processes_left_by_a_finished_program_are_killed() {
    let pool = pool(1);
    // A proper daemon (stdio closed) outlives a program that ends at once; the
    // official run returns then, and so must we, killing the daemon.
    assert_daemon_killed(&pool, &unique("daemon"));
}

#[test]
fn a_child_holding_stdout_open_keeps_the_run_going_like_subprocess_run() {
    let pool = pool(1);
    let outcome = run_for(
        &pool,
        "import os, time\nprint('parent', flush=True)\nif os.fork() == 0:\n    time.sleep(30)\n",
        Duration::from_secs(1),
    );
    assert_timed_out(&outcome);
    assert_nothing_left(&pool, None);
}

#[test]
fn huge_output_is_capped_without_deadlock() {
    let pool = pool(1);
    let outcome = run_for(
        &pool,
        "import sys\nfor i in range(400000):\n    print('line', i)\nprint('====================')\nprint('end')\n",
        Duration::from_secs(10),
    );
    assert!(!outcome.timed_out, "{outcome:?}");
    assert!(outcome.stdout_omitted > 0);
    assert!(outcome.stdout.len() <= 1 << 20);
    assert!(outcome.stdout.starts_with("line 0\nline 1\n"));
    assert!(
        outcome
            .stdout
            .ends_with("line 399999\n====================\nend\n")
    );
}

#[test]
fn a_killed_worker_is_replaced_transparently() {
    let pool = pool(1);
    let before = pool.worker_pids();
    assert_eq!(before.len(), 1);
    kill(before[0]);
    // Gone (or a zombie left for the pool to reap): waited for, with a generous limit.
    let dead = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
    };
    let start = std::time::Instant::now();
    while !dead(before[0]) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(dead(before[0]), "the killed worker is gone");
    let outcome = run(&pool, "print('still fine')");
    assert_eq!(outcome.stdout, "still fine\n");
    let after = pool.worker_pids();
    assert_eq!(after.len(), 1);
    assert_ne!(after, before);
}

#[test]
fn many_threads_share_one_pool() {
    let pool = pool(2);
    std::thread::scope(|scope| {
        for t in 0..4 {
            let pool = &pool;
            scope.spawn(move || {
                for i in 0..5 {
                    let outcome = run_for(
                        pool,
                        &format!("import zwc\nprint(zwc.kocito(zwc.yitaf([{t}, {i}])))\n"),
                        Duration::from_secs(5),
                    );
                    assert_eq!(outcome.stdout, format!("{:?}\n", (t + i) as f64 / 2.0));
                }
            });
        }
    });
}

#[test]
fn fast_exit_matches_the_interpreter_exit() {
    let program = "import atexit, threading, time\n\
        class Noisy:\n\
        \x20   def __del__(self):\n\
        \x20       print('del', self.name)\n\
        def gen():\n\
        \x20   try:\n\
        \x20       yield 1\n\
        \x20   finally:\n\
        \x20       print('generator closed')\n\
        keep = Noisy(); keep.name = 'global'\n\
        g = gen(); next(g)\n\
        atexit.register(lambda: print('atexit'))\n\
        threading.Thread(target=lambda: (time.sleep(0.1), print('thread'))).start()\n\
        print('main', end='')\n";
    let (fast, full) = fast_and_full_pools();
    for extra in ["", "import sys\nsys.exit(4)\n", "raise KeyError('k')\n"] {
        let text = format!("{program}{extra}");
        let a = run(&fast, &text);
        let b = run(&full, &text);
        assert_eq!(a.stdout, b.stdout, "program:\n{text}");
        assert_eq!(a.exit_code, b.exit_code, "program:\n{text}");
        assert_eq!(a.stderr, b.stderr, "program:\n{text}");
        assert!(
            a.stdout.starts_with("mainthread\natexit\n"),
            "{:?}",
            a.stdout
        );
        assert!(a.stdout.contains("del global\n"), "{:?}", a.stdout);
    }
}

/// `Pool::run_all` answers every program, in program order, across its sessions, a
/// program that fails or times out in the middle taking its own place only.
#[test]
fn run_all_answers_in_program_order_across_sessions() {
    let pool = pool(2);
    let mut programs: Vec<String> = (0..9).map(|i| format!("print({i})\n")).collect();
    programs[4] = "raise SystemExit(3)\n".to_string();
    programs[6] = "while True: pass\n".to_string();
    let results = pool.run_all(&programs, Duration::from_millis(500), 2);
    assert_eq!(results.len(), programs.len());
    for (i, result) in results.iter().enumerate() {
        let outcome = result.as_ref().expect("the pool runs the program");
        match i {
            4 => assert_eq!((outcome.stdout.as_str(), outcome.exit_code), ("", Some(3))),
            6 => assert_timed_out(outcome),
            _ => assert_stdout(outcome, &format!("{i}\n")),
        }
    }
}

/// What a fresh `python main.py` prints for `program` (in a folder of its own, zwc
/// importable): the reference the fast exit is held to.
fn fresh_python(program: &str) -> (String, Option<i32>) {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::write(dir.path().join("main.py"), program).expect("main.py written");
    let out = std::process::Command::new(&runtime().python)
        .arg("main.py")
        .current_dir(dir.path())
        .env("PYTHONPATH", zwc_root())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("python runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

/// The fast exit collects only the young generations when no older collection ran during
/// the program: a cycle with a finalizer must still be finalized at exit when it is young,
/// and when the program's own allocations moved it to the oldest generation; a thread
/// pool's exit hook (`threading._register_atexit`) must still join its worker. Held to a
/// fresh interpreter (the full-exit pool skips the cycle's finalizer here, which a fresh
/// `python main.py` runs).
#[test]
fn fast_exit_finalizes_cycles_and_joins_pools_as_a_fresh_interpreter_does() {
    let cycle = "class Cycle:\n\
        \x20   def __del__(self):\n\
        \x20       print('cycle del', self.name)\n";
    let cases = [
        (
            format!("{cycle}c = Cycle(); c.name = 'young'; c.me = c\nprint('main')\n"),
            "cycle del young\n",
        ),
        (
            format!(
                "{cycle}c = Cycle(); c.name = 'old'; c.me = c\n\
                 junk = [[] for _ in range(300000)]\ndel junk\nprint('main')\n"
            ),
            "cycle del old\n",
        ),
        (
            "import time\nfrom concurrent.futures import ThreadPoolExecutor\n\
             ex = ThreadPoolExecutor(1)\n\
             ex.submit(lambda: (time.sleep(0.1), print('pooled job')))\nprint('main')\n"
                .to_string(),
            "pooled job\n",
        ),
    ];
    prints_as_fresh_python(&cases);
}

/// Each program, run by the pool, prints and exits as a fresh `python` does, and that
/// output holds what the case says it must print.
fn prints_as_fresh_python(cases: &[(String, &str)]) {
    let pool = pool(1);
    for (program, printed) in cases {
        let ours = run(&pool, program);
        let (stdout, code) = fresh_python(program);
        assert!(
            stdout.contains(printed),
            "a fresh python prints {printed:?}: {stdout:?}"
        );
        assert_eq!(ours.stdout, stdout, "program:\n{program}");
        assert_eq!(ours.exit_code, code, "program:\n{program}");
    }
}

/// Objects with a finalizer alive at exit, kept in the program's globals (a `__del__` that
/// uses a module the globals hold) or where clearing them does not free them (another
/// module, `sys.modules`, zwc, a crash's traceback) are finalized as a fresh interpreter's
/// teardown finalizes them: a `__del__` that writes, a buffered file on stdout flushed when
/// it is destroyed. What they write is what the official run prints.
#[test]
fn objects_kept_outside_the_program_are_finalized_as_at_interpreter_exit() {
    let noisy = "import os, sys, json\n\
        class K:\n\
        \x20   def __del__(self):\n\
        \x20       os.write(1, b'del ' + self.name.encode() + b'\\n')\n";
    let cases = [
        (format!("{noisy}k = K(); k.name = 'global'\nprint('main')\n"), "del global\n"),
        (format!("{noisy}k = K(); k.name = 'json'; json.keep = [k]\ndel k\nprint('main')\n"), "del json\n"),
        (
            format!("{noisy}m = type(sys)('kept'); m.k = K(); m.k.name = 'module'; sys.modules['kept'] = m\ndel m\nprint('main')\n"),
            "del module\n",
        ),
        (format!("{noisy}import zwc\nzwc._keep = K(); zwc._keep.name = 'zwc'\nprint('main')\n"), "del zwc\n"),
        (
            "import json\njson.w = open(1, 'w', closefd=False)\njson.w.write('buffered\\n')\nprint('main')\n"
                .to_string(),
            "buffered\n",
        ),
        (
            format!("{noisy}def f():\n    k = K(); k.name = 'frame'\n    raise KeyError('k')\nprint('main')\nf()\n"),
            "del frame\n",
        ),
    ];
    prints_as_fresh_python(&cases);
}

/// Without namespaces (as on a machine that refuses them) the process-group,
/// cgroup and descendant sweep must still leave nothing running.
#[test]
fn without_namespaces_escapees_are_still_killed() {
    let pool = pool_with(1, |config| config.isolate = false);
    let report = pool.sandbox_report();
    assert!(!report.is_active("no network"), "{report}");
    assert_reported(&report, &["[off] read-only filesystem"]);
    assert_escapee_killed(&pool, &unique("plain-sleeper"), false);
    assert_daemon_killed(&pool, &unique("plain-daemon"));

    let outcome = run_for(&pool, "while True:\n    pass\n", Duration::from_secs(1));
    assert_timed_out(&outcome);
    assert_nothing_left(&pool, None);
    assert_eq!(run(&pool, ASSEMBLED).stdout, ASSEMBLED_STDOUT);
}

#[test]
fn ordinary_python_facilities_work_in_the_sandbox() {
    let pool = pool(1);
    let outcome = run_for(
        &pool,
        "import tempfile, os, multiprocessing, subprocess, sys, concurrent.futures as cf\n\
         open('/dev/null', 'w').write('x')\n\
         fd, path = tempfile.mkstemp()\n\
         print(path.startswith(os.getcwd()))\n\
         with multiprocessing.Pool(2) as workers:\n\
         \x20   print(workers.map(abs, [-1, -2]))\n\
         print(subprocess.run([sys.executable, '-c', 'import zwc; print(zwc.kocito(zwc.yitaf([1, 2])))'], capture_output=True, text=True).stdout.strip())\n\
         with cf.ThreadPoolExecutor(8) as ex:\n\
         \x20   print(list(ex.map(abs, [-3])))\n",
        Duration::from_secs(5),
    );
    assert_stdout(&outcome, "True\n[1, 2]\n1.5\n[3]\n");
    assert_nothing_left(&pool, None);
}

#[test]
fn output_left_in_a_replaced_stdout_is_flushed_at_exit() {
    let program =
        "import io, sys\nprint('kept', end='')\nsys.stdout = io.StringIO()\nprint('hidden')\n";
    let (fast, full) = fast_and_full_pools();
    let a = run(&fast, program);
    let b = run(&full, program);
    assert_stdout(&b, "kept");
    assert_eq!(a.stdout, b.stdout, "{}", a.stderr);
}

#[test]
fn the_program_sees_only_its_own_processes() {
    let (pool, report, workers) = watched_pool();
    let outcome = run(
        &pool,
        "import os\n\
         pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n\
         print(os.getpid(), os.readlink('/proc/self'), pids)\n",
    );
    if report.is_active("private /proc") {
        // Only the namespace's init (the worker, or the program's own init) and the
        // program itself, which /proc knows by the pid getpid() gives.
        let own = outcome.stdout.split_whitespace().next().unwrap_or("?");
        assert_stdout(&outcome, &format!("{own} {own} [1, {own}]\n"));
    } else {
        assert!(!outcome.stdout.is_empty(), "{}", outcome.stderr);
    }
    // Whatever /proc shows, signalling the worker must be impossible from inside.
    let outcome = run(
        &pool,
        &format!(
            "import os, signal\ntry:\n    os.kill({}, signal.SIGKILL)\n    print('sent')\nexcept ProcessLookupError:\n    print('no such process')\n",
            workers[0]
        ),
    );
    if report.is_active("process tree kill") && report.is_active("private /proc") {
        assert_stdout(&outcome, "no such process\n");
        assert_eq!(pool.worker_pids(), workers, "the worker survived");
    }
}

#[test]
fn a_session_returns_queued_results_in_order() {
    let pool = pool(1);
    let mut session = pool.session();
    // The second and third programs are queued while the first one runs.
    session.submit("import time\ntime.sleep(0.3)\nprint('first')", TIMEOUT);
    session.submit("print('second')", TIMEOUT);
    session.submit("import sys\nsys.exit(3)", TIMEOUT);
    assert_stdout(&next_result(&mut session), "first\n");
    assert_stdout(&next_result(&mut session), "second\n");
    let third = next_result(&mut session);
    assert_eq!((third.stdout.as_str(), third.exit_code), ("", Some(3)));
    assert!(session.next_result().is_none());
    drop(session);
    assert_eq!(
        pool.worker_pids().len(),
        1,
        "the worker is back in the pool"
    );
    assert_nothing_left(&pool, None);
}

#[test]
fn a_session_survives_its_worker_being_killed() {
    let pool = pool(1);
    let worker = pool.worker_pids()[0];
    let mut session = pool.session();
    // The slow program's second waits in a child whose command line carries a marker, so
    // the worker is killed once the program runs (a condition, not a pause).
    let marker = unique("slow-program");
    session.submit(
        &format!(
            "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import time; time.sleep(1)', {marker:?}])\nprint('slow')"
        ),
        TIMEOUT,
    );
    session.submit("print('queued')", TIMEOUT);
    let start = std::time::Instant::now();
    while !processes()
        .iter()
        .any(|(_, cmdline)| cmdline.contains(&marker))
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the slow program did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    kill(worker);
    // Both are run again, in order, on a replacement worker.
    assert_stdout(&next_result(&mut session), "slow\n");
    assert_stdout(&next_result(&mut session), "queued\n");
    drop(session);
    assert_ne!(pool.worker_pids(), vec![worker]);
}

#[test]
fn every_program_gets_fresh_stdio() {
    let pool = pool(1);
    // Buffered output lost to os._exit must not reach the next program's stdout,
    // and a closed or reconfigured stream must not stay that way.
    let first = run(
        &pool,
        "import os, sys\nprint('lost')\nsys.stderr.reconfigure(errors='strict')\nsys.stdin.close()\nos._exit(0)",
    );
    assert_eq!(first.stdout, "");
    let second = run(
        &pool,
        "import sys\nprint(sys.stdin.closed, sys.stderr.errors, sys.stdout.seekable(), sys.stdout.buffer.raw.name, sys.stdout.line_buffering)",
    );
    assert_stdout(&second, "False backslashreplace False <stdout> False\n");
}

// ---------------------------------------------------------------------------------------
// Hostile programs beyond the basics (issue 14). Each is contained and reported, and the
// next good program still prints exactly what the official run prints (so it is graded
// `right`). Where this machine lacks a protection, the test checks the degraded behaviour
// the README states and that the sandbox report says so.

/// The next good program is unaffected, on the same worker, and nothing is left running.
fn next_is_right(pool: &Pool, workers_before: &[u32]) {
    let outcome = run(pool, ASSEMBLED);
    assert_stdout(&outcome, ASSEMBLED_STDOUT);
    assert_eq!(outcome.contained, None, "{outcome:?}");
    assert_eq!(
        pool.worker_pids(),
        workers_before,
        "the worker had to be replaced: the program broke it"
    );
    assert_nothing_left(pool, None);
}

/// `errno` of each attempt, as the program prints it.
const PTRACE: &str = "import ctypes, os\n\
libc = ctypes.CDLL(None, use_errno=True)\n\
targets = sorted({1, os.getppid()})\n\
for pid in targets:\n\
\x20   for request in (16, 0x4206):  # PTRACE_ATTACH, PTRACE_SEIZE\n\
\x20       ctypes.set_errno(0)\n\
\x20       r = libc.ptrace(ctypes.c_long(request), ctypes.c_long(pid), None, None)\n\
\x20       print('attached' if r == 0 else 'refused')\n";

#[test]
fn ptrace_of_the_worker_is_refused() {
    let (pool, report, workers) = watched_pool();
    let outcome = run(&pool, PTRACE);
    assert!(!outcome.timed_out, "{outcome:?}");
    if report.is_active("no privileges") {
        assert_all_refused(&outcome);
    } else {
        assert_reported(&report, &["[off] no privileges"]);
    }
    next_is_right(&pool, &workers);
}

#[test]
fn the_workers_memory_cannot_be_opened() {
    let (pool, report, workers) = watched_pool();
    let outcome = run(
        &pool,
        "import os\n\
         for pid in sorted({1, os.getppid()}):\n\
         \x20   for mode in ('rb', 'r+b'):\n\
         \x20       try:\n\
         \x20           open(f'/proc/{pid}/mem', mode).close()\n\
         \x20           print('opened', pid, mode)\n\
         \x20       except OSError as e:\n\
         \x20           print('refused')\n",
    );
    if report.is_active("no privileges") {
        assert_all_refused(&outcome);
    }
    next_is_right(&pool, &workers);
}

/// Every capability set of the program is empty and no_new_privs holds, though the worker
/// drops the inherited sets once for all its programs and each program only its own.
#[test]
fn programs_hold_no_capability_of_any_set() {
    let (pool, report, workers) = watched_pool();
    let program = "fields = {}\n\
                   for line in open('/proc/self/status'):\n\
                   \x20   key, _, value = line.partition(':')\n\
                   \x20   fields[key] = value.strip()\n\
                   for key in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs'):\n\
                   \x20   print(key, fields.get(key))\n";
    for _ in 0..2 {
        let outcome = run(&pool, program);
        if report.is_active("no privileges") {
            assert_stdout(
                &outcome,
                "CapInh 0000000000000000\nCapPrm 0000000000000000\nCapEff 0000000000000000\n\
                 CapBnd 0000000000000000\nCapAmb 0000000000000000\nNoNewPrivs 1\n",
            );
        }
    }
    // Where the worker gave up its own capabilities before serving (it is the namespace's
    // init, pid 1 in the program's /proc), it holds none: nothing is left for a program to
    // gain through it, and programs need no capset of their own.
    let gave_up = report
        .protections
        .iter()
        .any(|p| p.name == "no privileges" && p.active && p.detail.contains("gave up its own"));
    if gave_up {
        let outcome = run(
            &pool,
            "for line in open('/proc/1/status'):\n\
             \x20   if line.startswith(('CapInh', 'CapPrm', 'CapEff')):\n\
             \x20       print(line.split()[1])\n",
        );
        assert_stdout(&outcome, "0000000000000000\n".repeat(3).as_str());
    }
    next_is_right(&pool, &workers);
}

/// A program cannot reach the terminal sebx runs in: it has no controlling terminal
/// (`/proc/self/stat`'s tty_nr is 0, `/dev/tty` cannot be opened), though it no longer
/// gets a session of its own (its worker leads one without a terminal). The pool runs in a
/// child process of the test given a terminal of its own by `script` (util-linux), so
/// this holds whatever the test itself runs in.
#[test]
fn programs_cannot_reach_sebxs_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("`script` (util-linux) is needed to give the pool a terminal");
    }
    if std::env::var_os("SEBX_SANDBOX_TTY_CHILD").is_some() {
        // In the child, under `script`: sebx's own process has a controlling terminal.
        let tty_of = |stat: &str| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(4).map(str::to_string))
                .unwrap_or_default()
        };
        let own = std::fs::read_to_string("/proc/self/stat").expect("own stat");
        println!("sebx tty_nr {}", tty_of(&own));
        let pool = pool(1);
        let outcome = run(
            &pool,
            "import os\n\
             stat = open('/proc/self/stat').read()\n\
             print('program tty_nr', stat.rsplit(')', 1)[1].split()[4])\n\
             try:\n\
             \x20   os.close(os.open('/dev/tty', os.O_RDWR))\n\
             \x20   print('/dev/tty opened')\n\
             except OSError as e:\n\
             \x20   print('/dev/tty refused')\n",
        );
        print!("{}", outcome.stdout);
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    let command = format!(
        "{} --exact {} --nocapture --test-threads 1",
        shell_quote(&exe.to_string_lossy()),
        isolated::test_name(module_path!(), "programs_cannot_reach_sebxs_terminal")
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("SEBX_SANDBOX_TTY_CHILD", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(out.status.success(), "{text}");
    let line = |prefix: &str| {
        text.lines()
            .find_map(|l| l.split_once(prefix).map(|(_, rest)| rest))
            .unwrap_or_else(|| panic!("no `{prefix}` in:\n{text}"))
            .trim()
            .to_string()
    };
    assert_ne!(
        line("sebx tty_nr"),
        "0",
        "the child has no terminal:\n{text}"
    );
    assert_eq!(line("program tty_nr"), "0", "{text}");
    assert!(text.contains("/dev/tty refused"), "{text}");
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn unshare_and_mount_cannot_make_the_filesystem_writable() {
    let (pool, report, workers) = watched_pool();
    let outside = outside_path("remount");
    let program = format!(
        "import ctypes, os\n\
         libc = ctypes.CDLL(None, use_errno=True)\n\
         MS_REMOUNT, MS_BIND = 32, 4096\n\
         for flags in (0x00020000, 0x10000000 | 0x00020000, 0x20000000, 0x40000000):\n\
         \x20   print('unshare', 'ok' if libc.unshare(flags) == 0 else 'refused')\n\
         for target in (b'/', b'/tmp', {dir:?}.encode()):\n\
         \x20   for flags in (MS_REMOUNT, MS_REMOUNT | MS_BIND):\n\
         \x20       libc.mount(None, target, None, flags, None)\n\
         libc.mount(b'tmpfs', {dir:?}.encode(), b'tmpfs', 0, None)\n\
         try:\n\
         \x20   open({path:?}, 'w').write('escaped')\n\
         \x20   print('wrote')\n\
         except OSError as e:\n\
         \x20   print('write refused')\n",
        dir = outside.parent().expect("parent").to_string_lossy(),
        path = outside.to_string_lossy(),
    );
    let outcome = run(&pool, &program);
    if report.is_active("read-only filesystem") && report.is_active("no privileges") {
        assert!(
            outcome.stdout.ends_with("write refused\n"),
            "{}{}",
            outcome.stdout,
            outcome.stderr
        );
        assert_not_written(&outside);
        // Without privileges a mount namespace alone is refused; with a user namespace of
        // its own (where the kernel allows them) the program gets namespaces, but the
        // mounts it inherits stay locked read-only.
        assert!(
            outcome.stdout.starts_with("unshare refused\n"),
            "{}",
            outcome.stdout
        );
    } else {
        // Degraded (README): without a mount namespace writes outside are possible.
        let _ = std::fs::remove_file(&outside);
        assert_reported(
            &report,
            &["[off] read-only filesystem", "[off] no privileges"],
        );
    }
    next_is_right(&pool, &workers);
}

#[test]
fn limits_cannot_be_raised() {
    let (pool, _, workers) = watched_pool();
    let outcome = run(
        &pool,
        "import resource\n\
         for r in ('RLIMIT_AS', 'RLIMIT_NOFILE', 'RLIMIT_CPU', 'RLIMIT_FSIZE', 'RLIMIT_NPROC'):\n\
         \x20   which = getattr(resource, r)\n\
         \x20   soft, hard = resource.getrlimit(which)\n\
         \x20   try:\n\
         \x20       resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n\
         \x20       raised = resource.getrlimit(which) != (soft, hard)\n\
         \x20   except (ValueError, OSError):\n\
         \x20       raised = False\n\
         \x20   print(r, 'raised' if raised and hard != resource.RLIM_INFINITY else 'kept')\n\
         b = bytearray(10 * 2**30)\n",
    );
    assert_stdout(
        &outcome,
        "RLIMIT_AS kept\nRLIMIT_NOFILE kept\nRLIMIT_CPU kept\nRLIMIT_FSIZE kept\nRLIMIT_NPROC kept\n",
    );
    assert!(outcome.stderr.contains("MemoryError"), "{}", outcome.stderr);
    assert_contained(&outcome, "memory limit");
    next_is_right(&pool, &workers);
}

#[test]
fn kill_of_every_process_reaches_only_the_program() {
    let (pool, report, workers) = watched_pool();
    if !(report.is_active("private /proc") && report.is_active("process tree kill")) {
        // Degraded (README): without a pid namespace a program can signal every process
        // of its user, so kill(-1) is not run here; the report must say so.
        assert_reported(
            &report,
            &[
                "programs can see and signal other processes",
                "[off] private /proc",
            ],
        );
        return;
    }
    let mut bystander = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("sleep starts");
    let outcome = run(
        &pool,
        "import os, signal, time\n\
         child = os.fork()\n\
         if child == 0:\n\
         \x20   time.sleep(30)\n\
         \x20   os._exit(0)\n\
         for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP):\n\
         \x20   try:\n\
         \x20       os.kill(-1, sig)\n\
         \x20   except OSError:\n\
         \x20       pass\n\
         print('child', os.waitpid(child, 0)[1] & 0x7f)\n",
    );
    assert_stdout(&outcome, "child 15\n");
    assert!(
        matches!(bystander.try_wait(), Ok(None)),
        "a process outside the sandbox was killed"
    );
    let _ = bystander.kill();
    let _ = bystander.wait();
    next_is_right(&pool, &workers);
}

#[test]
fn the_program_inherits_no_descriptor_of_the_worker() {
    let (pool, _, workers) = watched_pool();
    let outcome = run(
        &pool,
        "import os\n\
         def ok(fd):\n\
         \x20   try:\n\
         \x20       os.fstat(fd)\n\
         \x20       return True\n\
         \x20   except OSError:\n\
         \x20       return False\n\
         print([fd for fd in range(4096) if ok(fd)])\n\
         print(os.readlink('/proc/self/fd/0'))\n",
    );
    assert_stdout(&outcome, "[0, 1, 2]\n/dev/null\n");
    next_is_right(&pool, &workers);
}

/// Python lines that connect to the abstract Unix socket `name` and print `reached`, or
/// `refused` when the connection fails.
fn connect_abstract(name: &str, reached: &str, refused: &str) -> String {
    format!(
        "c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n\
         try:\n\
         \x20   c.connect(b'\\0' + {name:?}.encode())\n\
         \x20   print({reached:?})\n\
         except OSError:\n\
         \x20   print({refused:?})\n"
    )
}

#[test]
fn shared_memory_and_abstract_sockets_stay_private() {
    let (pool, report, workers) = watched_pool();
    let name = unique("abstract");
    let mine = format!("{name}-mine");
    // A socket of the host the program must not reach.
    let host = std::os::unix::net::UnixListener::bind_addr(
        &<std::os::unix::net::SocketAddr as std::os::linux::net::SocketAddrExt>::from_abstract_name(
            name.as_bytes(),
        )
            .expect("abstract name"),
    )
    .expect("host socket");
    let shm = format!("/dev/shm/{}", unique("shm"));
    let program = format!(
        "import os, socket\n\
         open({shm:?}, 'w').write('left behind')\n\
         s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n\
         s.bind(b'\\0' + {mine:?}.encode()); s.listen(1)\n\
         {}",
        connect_abstract(&name, "reached the host", "host unreachable"),
    );
    let outcome = run(&pool, &program);
    let shm_private = report.is_active("private /tmp");
    if report.is_active("no network") {
        assert_stdout(&outcome, "host unreachable\n");
    } else {
        // Degraded (README): without a network namespace abstract sockets are shared.
        assert_stdout(&outcome, "reached the host\n");
    }
    if shm_private {
        assert!(
            !Path::new(&shm).exists(),
            "{shm} reached the host's /dev/shm"
        );
    } else {
        let _ = std::fs::remove_file(&shm);
    }
    // The next program sees neither the file nor the socket.
    let outcome = run(
        &pool,
        &format!(
            "import os, socket\n\
             print(os.path.exists({shm:?}))\n\
             {}",
            connect_abstract(&mine, "still listening", "gone"),
        ),
    );
    if shm_private {
        assert_stdout(&outcome, "False\ngone\n");
    } else {
        assert!(outcome.stdout.ends_with("gone\n"), "{}", outcome.stderr);
    }
    drop(host);
    next_is_right(&pool, &workers);
}

#[test]
fn symlinks_out_of_the_program_directory() {
    let (pool, report, workers) = watched_pool();
    // Under /tmp the program sees the worker's private /tmp instead, where the target
    // does not exist.
    let victim = outside_path("victim");
    let hidden = victim.starts_with(std::env::temp_dir()) || victim.starts_with("/tmp");
    std::fs::create_dir_all(&victim).expect("victim dir");
    std::fs::write(victim.join("keep.txt"), "host data").expect("victim file");
    let program = format!(
        "import os\n\
         os.symlink({v:?}, 'out')\n\
         os.symlink({f:?}, 'file')\n\
         try:\n\
         \x20   print(open('out/keep.txt').read())\n\
         except FileNotFoundError:\n\
         \x20   print('not visible')\n\
         for attempt in (lambda: open('out/new.txt', 'w').write('x'), lambda: open('file', 'w').write('x'), lambda: os.unlink('out/keep.txt')):\n\
         \x20   try:\n\
         \x20       attempt()\n\
         \x20       print('changed the host')\n\
         \x20   except OSError:\n\
         \x20       print('refused')\n\
         os.mkdir('locked'); open('locked/x', 'w').write('x'); os.chmod('locked', 0)\n",
        v = victim.to_string_lossy(),
        f = victim.join("keep.txt").to_string_lossy(),
    );
    let outcome = run(&pool, &program);
    if report.is_active("read-only filesystem") {
        // Reading outside is allowed (README); writing through a link is not.
        let read = if hidden { "not visible" } else { "host data" };
        assert_stdout(&outcome, &format!("{read}\nrefused\nrefused\nrefused\n"));
        assert_not_written(&victim.join("new.txt"));
    } else {
        assert!(
            outcome.stdout.starts_with("host data\n"),
            "{}",
            outcome.stderr
        );
    }
    // Cleaning the program's directory removed the links, never what they point to.
    if report.is_active("read-only filesystem") {
        assert_eq!(
            std::fs::read_to_string(victim.join("keep.txt"))
                .ok()
                .as_deref(),
            Some("host data")
        );
    }
    let _ = std::fs::remove_dir_all(&victim);
    next_is_right(&pool, &workers);
}

#[test]
fn shell_tools_run_but_stay_contained() {
    let (pool, report, workers) = watched_pool();
    let outside = outside_path("shell");
    let marker = unique("shell-sleeper");
    let program = format!(
        "import os, subprocess, sys\n\
         os.system('echo from-sh; touch {out} 2>/dev/null && echo touched || echo refused')\n\
         r = subprocess.run(['sh', '-c', 'grep CapEff /proc/self/status | tr -d \"\\\\t\"; echo started'], capture_output=True, text=True)\n\
         print(r.stdout.strip().replace(chr(10), ' '))\n\
         os.system(sys.executable + \" -c 'import time; time.sleep(30)' {marker} >/dev/null 2>&1 &\")\n",
        out = outside.to_string_lossy(),
    );
    let outcome = run(&pool, &program);
    if report.is_active("read-only filesystem") {
        assert_stdout(
            &outcome,
            "from-sh\nrefused\nCapEff:0000000000000000 started\n",
        );
        assert_not_written(&outside);
    } else {
        let _ = std::fs::remove_file(&outside);
        assert!(
            outcome.stdout.starts_with("from-sh\n"),
            "{}",
            outcome.stderr
        );
    }
    // The shell's background sleeper is killed with the program.
    assert_contained(&outcome, "background");
    assert_nothing_left(&pool, Some(&marker));
    next_is_right(&pool, &workers);
}

#[test]
fn closing_or_flooding_stdout_and_stderr() {
    let (pool, _, workers) = watched_pool();
    let closed = run(
        &pool,
        "import os, sys\nprint('before', flush=True)\nos.close(1)\nos.close(2)\nprint('after')\nraise SystemExit(5)\n",
    );
    assert_eq!(closed.stdout, "before\n");
    assert!(!closed.timed_out, "{closed:?}");
    next_is_right(&pool, &workers);
    // Both streams flooded at once (a pipe buffer each many times over), then a result.
    let flooded = run_for(
        &pool,
        "import sys, threading\n\
         def err():\n\
         \x20   for i in range(200000):\n\
         \x20       sys.stderr.write('e' * 60 + '\\n')\n\
         t = threading.Thread(target=err); t.start()\n\
         for i in range(200000):\n\
         \x20   sys.stdout.write('o' * 60 + '\\n')\n\
         t.join()\n\
         print('====================')\nprint('end')\n",
        Duration::from_secs(10),
    );
    assert!(!flooded.timed_out, "{flooded:?}");
    assert!(flooded.stdout.ends_with("====================\nend\n"));
    assert!(flooded.stdout.len() <= 1 << 20 && flooded.stderr.len() <= 1 << 20);
    assert!(flooded.stdout_omitted > 0);
    // stdout replaced by a closed file object, and the standard descriptors duplicated away.
    let odd = run(
        &pool,
        "import os, sys\nos.dup2(os.open('/dev/null', os.O_WRONLY), 1)\nsys.stdout.close()\nsys.stderr = None\nprint('lost')\n",
    );
    assert_eq!(odd.stdout, "");
    next_is_right(&pool, &workers);
}

#[test]
fn a_program_cannot_read_another_running_programs_files() {
    let pool = pool(2);
    let report = pool.sandbox_report();
    let secret = unique("secret");
    let dir = pool_dir(&pool).to_string_lossy().into_owned();
    let writer = format!(
        "import time\nopen('secret.txt', 'w').write({secret:?})\nprint('written', flush=True)\ntime.sleep(1.5)\n"
    );
    // The reader's own source must not contain the secret: it searches for it reversed back.
    let reversed: String = secret.chars().rev().collect();
    // Searches everywhere a program's directory could be: /tmp, the pool's work folder.
    let reader = format!(
        "import os, time\n\
         time.sleep(0.5)\n\
         found = False\n\
         secret = {reversed:?}[::-1]\n\
         for top in ('/tmp', {dir:?}, '/dev/shm'):\n\
         \x20   for root, dirs, files in os.walk(top):\n\
         \x20       for f in files:\n\
         \x20           try:\n\
         \x20               if secret in open(os.path.join(root, f), errors='replace').read(4096):\n\
         \x20                   found = True\n\
         \x20           except OSError:\n\
         \x20               pass\n\
         print('found' if found else 'not found')\n"
    );
    let (a, b) = std::thread::scope(|scope| {
        let pool = &pool;
        let a = scope.spawn(move || run_for(pool, &writer, Duration::from_secs(5)));
        std::thread::sleep(Duration::from_millis(100));
        let b = scope.spawn(move || run_for(pool, &reader, Duration::from_secs(5)));
        (
            a.join().expect("writer thread"),
            b.join().expect("reader thread"),
        )
    });
    assert_stdout(&a, "written\n");
    if report.is_active("private /tmp") {
        assert_stdout(&b, "not found\n");
    } else {
        // Degraded (README): without a mount namespace work folders share the host's disk.
        assert_reported(&report, &["[off] private /tmp"]);
    }
    let workers = pool.worker_pids();
    next_is_right(&pool, &workers);
}

/// Grading leaves nothing behind: after hostile programs and the pool's end, no process
/// of the pool runs and its temporary folder (and cgroup) are gone.
#[test]
fn nothing_is_left_after_the_pool_ends() {
    for isolate in [true, false] {
        let pool = pool_with(2, |config| config.isolate = isolate);
        let marker = unique("left");
        let dir = pool_dir(&pool);
        for program in [
            daemon_program(&marker),
            "import os\nos.makedirs('a/b/c')\nopen('a/b/c/f', 'w').write('x')\nos.chmod('a/b', 0)\nos.chmod('a', 0o500)\nos.mkfifo('fifo')\nos.symlink('/', 'root')\n".to_string(),
            "import os, time\nos.chmod('.', 0)\nwhile True:\n    time.sleep(1)\n".to_string(),
        ] {
            let _ = run_for(&pool, &program, Duration::from_secs(1));
        }
        let worker_dir_files: Vec<_> = walk(&dir.join("work"));
        assert!(
            worker_dir_files.is_empty(),
            "program folders left (isolate={isolate}): {worker_dir_files:?}"
        );
        let script = pool.worker_script().to_string_lossy().into_owned();
        drop(pool);
        assert!(!dir.exists(), "{} left behind", dir.display());
        let left = until_none(|| processes_with(&[&script, &marker]));
        assert!(
            left.is_empty(),
            "processes left (isolate={isolate}): {left:?}"
        );
    }
}

/// Files (not folders) under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(walk(&p));
            if std::fs::read_dir(&p).is_err() {
                out.push(p);
            }
        } else {
            out.push(p);
        }
    }
    out
}

/// The command lines of the processes whose command line contains one of `needles`.
fn processes_with(needles: &[&str]) -> Vec<String> {
    processes()
        .into_iter()
        .map(|(_, cmdline)| cmdline)
        .filter(|cmdline| needles.iter().any(|n| cmdline.contains(n)))
        .collect()
}

/// What a program sees of its folder, stdin and /dev/shm: [`FRESH_FOLDER`] in a fresh
/// one (its main.py is this program itself, linked nowhere else), then /dev/shm's entries.
const FOLDER_STATE: &str = "import os, stat, fcntl\n\
     me = open(__file__).read()\n\
     st = os.stat('main.py')\n\
     print(sorted(os.listdir('.')), oct(stat.S_IMODE(os.stat('.').st_mode)), \
     oct(stat.S_IMODE(st.st_mode)), st.st_nlink, me.startswith('import os, stat'), \
     fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK)\n\
     print(sorted(os.listdir('/dev/shm')))\n";
const FRESH_FOLDER: &str = "['main.py'] 0o755 0o644 1 True 0\n";

#[test]
fn a_folder_kept_between_programs_is_as_fresh_as_a_new_one() {
    // A clean program's folder is kept for the next one, and /dev/shm is not listed, as
    // long as nothing there changed: every kind of change must still be undone.
    let (pool, report, workers) = watched_pool();
    let shm = if report.is_active("private /tmp") {
        "open('/dev/shm/left', 'w').write('x')\n"
    } else {
        ""
    };
    let changes = [
        "open('data.txt', 'w').write('left behind')\n".to_string(),
        "os.makedirs('a/b')\nopen('a/b/c', 'w').write('x')\n".to_string(),
        "os.chmod('.', 0o700)\n".to_string(),
        "os.chmod('main.py', 0o600)\n".to_string(),
        "os.utime('main.py', (0, 0))\n".to_string(),
        "os.link('main.py', os.path.join(os.environ['TMPDIR'], '..', 'linked.py'))\n".to_string(),
        "os.rename('main.py', 'other.py')\n".to_string(),
        "os.unlink('main.py')\nos.chdir('/')\nos.rmdir(os.environ['HOME'])\n".to_string(),
        "open('main.py', 'a').write('# more' * 100000)\nos.truncate('main.py', 3)\n".to_string(),
        "os.mkfifo('fifo')\nos.unlink('fifo')\n".to_string(),
        "fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)\n"
            .to_string(),
        shm.to_string(),
    ];
    for change in &changes {
        let program = format!("import os, fcntl\n{change}print('changed')\n");
        let outcome = run(&pool, &program);
        assert_stdout(&outcome, "changed\n");
        // Twice: the first after the change, the second in a folder kept from a clean run.
        for _ in 0..2 {
            let outcome = run(&pool, FOLDER_STATE);
            if report.is_active("private /tmp") {
                let fresh = format!("{FRESH_FOLDER}[]\n");
                assert_eq!(
                    outcome.stdout, fresh,
                    "after {change:?}: {}",
                    outcome.stderr
                );
            } else {
                assert!(
                    outcome.stdout.starts_with(FRESH_FOLDER),
                    "{change}: {outcome:?}"
                );
            }
        }
    }
    next_is_right(&pool, &workers);
}

#[test]
fn refused_forks_are_reported_for_their_program_only() {
    // The cgroup's count of refused forks is read once per program (the last program's
    // count is the next one's start): a program that reached pids.max and ended by
    // itself is reported, the clean programs around it are not.
    let pool = pool_with(1, |config| config.limits.max_processes = 8);
    let report = pool.sandbox_report();
    let clean = run(&pool, "print(1)");
    assert_eq!(clean.contained, None);
    let outcome = run(
        &pool,
        "import os\npids = []\nrefused = 0\nfor _ in range(20):\n\
         \x20   try:\n\
         \x20       pid = os.fork()\n\
         \x20   except OSError:\n\
         \x20       refused += 1\n\
         \x20       continue\n\
         \x20   if pid == 0:\n\
         \x20       import time; time.sleep(0.5); os._exit(0)\n\
         \x20   pids.append(pid)\n\
         for pid in pids:\n\
         \x20   os.waitpid(pid, 0)\n\
         print(refused > 0)\n",
    );
    if report.is_active("process limit") {
        assert_stdout(&outcome, "True\n");
        assert_contained(&outcome, "process limit");
    }
    for _ in 0..2 {
        let next = run(&pool, "print(2)");
        assert_stdout(&next, "2\n");
        assert_eq!(next.contained, None);
    }
}
