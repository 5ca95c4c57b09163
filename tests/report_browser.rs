//! `sebx report` in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `.ci/run`) opens the demo's report offline. A probe script put in front of the page
//! records script errors, console errors and every resource the page fetched, and once the
//! page has loaded lists the figures whose SVG is laid out with a size and text; the DOM
//! Chromium dumps carries that record. A screenshot of the page is taken too, and the
//! layout must fit the window (nothing wider than the viewport). Skipped when Chromium is
//! missing, except under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::isolated;

fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

/// The Chromium binary, or `None` (the test is skipped) when it is not installed.
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "chromium is required under CI=true (.ci/run installs it)"
        );
        eprintln!("chromium not installed: skipping");
    }
    found
}

/// Runs headless Chromium on `url` with the flags that keep it offline and quiet, a fresh
/// profile in `profile`, and `extra` flags; kills it if it has not finished in two minutes.
/// Its output goes to files beside the profile (a pipe would fill with a big DOM and stall
/// it); returns (stdout, stderr).
fn run_chromium(bin: &str, profile: &Path, extra: &[String], url: &str) -> (String, String) {
    let (out_path, err_path) = (profile.with_extension("out"), profile.with_extension("err"));
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("start chromium");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    (read(&out_path), read(&err_path))
}

/// Records errors and fetched resources from the first moment, and after `load` writes
/// what it saw into `<pre id="sebx-probe">` as JSON.
const PROBE: &str = r#"<script>
window.__probe = { errors: [] };
window.addEventListener('error', function (e) {
  window.__probe.errors.push('error: ' + (e.message || (e.target && (e.target.src || e.target.href)) || 'resource'));
}, true);
(function () {
  var original = console.error;
  console.error = function () {
    window.__probe.errors.push('console: ' + Array.prototype.join.call(arguments, ' '));
    return original.apply(console, arguments);
  };
})();
window.addEventListener('load', function () {
  var figures = Array.prototype.slice.call(document.querySelectorAll('figure'));
  var drawn = figures.filter(function (f) {
    var svg = f.querySelector('svg');
    if (!svg) return false;
    var box = svg.getBoundingClientRect();
    var shapes = svg.querySelectorAll('rect, path, polyline, line, circle').length;
    return box.width > 200 && box.height > 80 && svg.querySelectorAll('text').length > 0 && shapes > 0;
  }).map(function (f) { return f.id; });
  var examples = Array.prototype.slice.call(document.querySelectorAll('div.example'));
  var shown = examples.filter(function (e) {
    var pre = e.querySelector('pre');
    if (!pre) return false;
    var box = pre.getBoundingClientRect();
    return box.width > 200 && box.height > 40 && pre.textContent.indexOf('.jsonl:') >= 0;
  }).map(function (e) { return e.id; });
  var data = JSON.parse(document.getElementById('sebx-report-data').textContent);
  var pre = document.createElement('pre');
  pre.id = 'sebx-probe';
  pre.textContent = JSON.stringify({
    figures: figures.map(function (f) { return f.id; }),
    drawn: drawn,
    examples: examples.map(function (e) { return e.id; }),
    shown: shown,
    errors: window.__probe.errors,
    resources: performance.getEntriesByType('resource').map(function (r) { return r.name; }),
    runs: data.runs.length,
    overflow: document.documentElement.scrollWidth > window.innerWidth
  });
  document.body.appendChild(pre);
});
</script>"#;

#[test]
fn chromium_draws_every_figure_offline_without_errors() {
    let Some(bin) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("report.html");
    let mut cmd = isolated::sebx();
    cmd.arg("report")
        .arg(demo("training/rollout"))
        .args(
            [
                "rollouts.jsonl",
                "rollouts_run2.jsonl",
                "rollouts.scored.jsonl",
                "tasks.jsonl",
                "api_doc.jsonl",
            ]
            .map(demo),
        )
        .arg("-q")
        .arg("-o")
        .arg(&page);
    let out = cmd.output().expect("sebx report");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).expect("page");
    let probed = html.replacen("<head>", &format!("<head>\n{PROBE}"), 1);
    assert_ne!(probed, html, "the page has a <head>");
    let probe_page = dir.path().join("probe.html");
    std::fs::write(&probe_page, probed).expect("write");

    let dom = run_chromium(
        bin,
        &dir.path().join("profile-dom"),
        &["--window-size=900,1400".into(), "--dump-dom".into()],
        &format!("file://{}", probe_page.display()),
    );
    let (dom, _) = dom;
    let start = dom
        .find("<pre id=\"sebx-probe\">")
        .unwrap_or_else(|| panic!("no probe record in the dumped DOM: {dom:.2000}"))
        + "<pre id=\"sebx-probe\">".len();
    let end = start + dom[start..].find("</pre>").expect("probe end");
    let record = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let probe: Value = serde_json::from_str(&record).expect("probe JSON");

    assert_eq!(probe["errors"], Value::Array(Vec::new()), "errors: {probe}");
    assert_eq!(
        probe["resources"],
        Value::Array(Vec::new()),
        "the page fetched something: {probe}"
    );
    let figures = probe["figures"].as_array().expect("figures");
    // The training and evaluation parts and the comparison all reached the page.
    for id in [
        "training-curves",
        "internalization-steps-1",
        "verdict-mix",
        "comparison-flips",
    ] {
        assert!(figures.iter().any(|f| f == id), "{id} missing: {probe}");
    }
    assert_eq!(probe["drawn"], probe["figures"], "a figure was not drawn");
    // The examples are laid out too, each a view with its text.
    assert!(
        probe["examples"].as_array().is_some_and(|e| !e.is_empty()),
        "no examples: {probe}"
    );
    assert_eq!(
        probe["shown"], probe["examples"],
        "an example was not laid out"
    );
    assert_eq!(probe["runs"], 3, "the embedded data did not parse");
    assert_eq!(
        probe["overflow"], false,
        "the page is wider than the window"
    );

    // The screenshot: the page as a 900 px wide PNG of the window's size.
    let shot = dir.path().join("report.png");
    let (_, stderr) = run_chromium(
        bin,
        &dir.path().join("profile-shot"),
        &[
            "--window-size=900,1400".into(),
            "--hide-scrollbars".into(),
            format!("--screenshot={}", shot.display()),
        ],
        &format!("file://{}", page.display()),
    );
    let png = std::fs::read(&shot).unwrap_or_else(|_| panic!("no screenshot: {}", stderr));
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().expect("4 bytes"));
    let height = u32::from_be_bytes(png[20..24].try_into().expect("4 bytes"));
    assert_eq!((width, height), (900, 1400));
}
