//! `sebx report` on the demo's training run and evaluation runs: the page embeds exactly the
//! JSON `sebx stats --by step --format json` prints for the same inputs, every expected
//! figure is on it as an SVG with labelled axes, the same inputs give the same bytes, the page
//! loads nothing from elsewhere, and `--figures DIR` writes each figure as its own SVG.
//! (The training run is graded: Python runtime required, `sebx runtime install`.)

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::demo_files;
use crate::isolated;

use demo_files::demo_copy_with_training as demo_copy;

fn training_inputs(dir: &Path) -> Vec<PathBuf> {
    ["training/rollout", "tasks.jsonl", "api_doc.jsonl"]
        .iter()
        .map(|f| dir.join(f))
        .collect()
}

fn eval_inputs(dir: &Path) -> Vec<PathBuf> {
    [
        "rollouts.jsonl",
        "rollouts_run2.jsonl",
        "rollouts.scored.jsonl",
        "tasks.jsonl",
        "api_doc.jsonl",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect()
}

/// The training run and the evaluation runs together.
fn all_inputs(dir: &Path) -> Vec<PathBuf> {
    let mut inputs = eval_inputs(dir);
    inputs.push(dir.join("training/rollout"));
    inputs
}

/// The binary with a score cache of its own (so every run grades the same way and says
/// so in the same notes), run from `cwd`.
fn sebx(cwd: &Path) -> Command {
    let mut c = isolated::assert_sebx();
    c.current_dir(cwd);
    c
}

fn success(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Writes the report of `inputs` to `out` (and the figures to `figures`), returns the page.
fn report(dir: &Path, inputs: &[PathBuf], out: &Path, figures: Option<&Path>) -> String {
    let mut cmd = sebx(dir);
    cmd.arg("report").args(inputs).arg("-q").arg("-o").arg(out);
    if let Some(f) = figures {
        cmd.arg("--figures").arg(f);
    }
    success(&mut cmd);
    std::fs::read_to_string(out).expect("the page")
}

/// The text of the page's data element, parsed.
fn embedded(page: &str) -> Value {
    let text = sebx::cli::report::embedded_json(page).expect("a sebx-report-data element");
    serde_json::from_str(text).expect("the embedded data is JSON")
}

/// The ids of the page's `<figure>` elements, in order.
fn figure_ids(page: &str) -> Vec<String> {
    page.match_indices("<figure id=\"")
        .map(|(i, m)| {
            let rest = &page[i + m.len()..];
            rest[..rest.find('"').expect("closing quote")].to_string()
        })
        .collect()
}

/// The page's examples: (id, the view's text without tags, the view's HTML), in order.
fn examples(page: &str) -> Vec<(String, String, String)> {
    page.match_indices("<div class=\"example\" id=\"")
        .map(|(i, m)| {
            let rest = &page[i + m.len()..];
            let id = rest[..rest.find('"').expect("closing quote")].to_string();
            let body = &rest[rest.find("\">").expect("the tag's end") + 2..];
            let html = &body[..body.find("</div>").expect("the example's end")];
            let mut text = String::new();
            let mut in_tag = false;
            for c in html.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            let text = text
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
            (id, text, html.to_string())
        })
        .collect()
}

/// The value after the last `key` in an example's caption, up to `end` (its run, step,
/// line...); panics naming the example when the caption has none.
fn caption_field<'a>(id: &str, text: &'a str, key: &str, end: char) -> &'a str {
    text.rsplit(key)
        .next()
        .filter(|_| text.contains(key))
        .and_then(|r| r.split(end).next())
        .unwrap_or_else(|| panic!("{id} names no{key}: {text}"))
}

/// The inline SVG of the figure `id`.
fn figure_svg<'a>(page: &'a str, id: &str) -> &'a str {
    let open = format!("<figure id=\"{id}\">");
    let start = page.find(&open).expect("the figure") + open.len();
    let rest = &page[start..];
    let s = rest.find("<svg").expect("an svg in the figure");
    let e = rest.find("</svg>").expect("the svg's end") + "</svg>".len();
    &rest[s..e]
}

/// Every text an SVG draws, with the XML parsed (so a broken document fails here).
fn svg_texts(svg: &str) -> Vec<String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(svg);
    let mut texts = Vec::new();
    let mut current: Option<String> = None;
    loop {
        match reader.read_event().expect("well-formed SVG") {
            Event::Start(e) if AsRef::<str>::as_ref(&e.name()) == "text" => {
                current = Some(String::new())
            }
            Event::End(e) if AsRef::<str>::as_ref(&e.name()) == "text" => {
                texts.extend(current.take().map(|t| t.trim().to_string()))
            }
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::GeneralRef(r) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(match r.to_string().as_str() {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        _ => "'",
                    });
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    texts
}

#[test]
fn the_embedded_data_is_the_stats_json_for_the_same_inputs() {
    let dir = demo_copy();
    let inputs = all_inputs(dir.path());
    let page = report(dir.path(), &inputs, &dir.path().join("r.html"), None);
    let stats = success(
        sebx(dir.path())
            .arg("stats")
            .args(&inputs)
            .args(["--by", "step", "--format", "json", "-q"]),
    );
    let stats: Value = serde_json::from_slice(&stats).expect("stats JSON");
    let data = embedded(&page);
    assert_eq!(data, stats, "the page's data differs from sebx stats' JSON");
    // A training run and evaluation runs both reached the data.
    assert!(data["steps"].as_array().is_some_and(|s| !s.is_empty()));
    assert_eq!(data["runs"].as_array().map(Vec::len), Some(3));
}

#[test]
fn a_training_run_gets_every_training_figure() {
    let dir = demo_copy();
    let page = report(
        dir.path(),
        &training_inputs(dir.path()),
        &dir.path().join("t.html"),
        None,
    );
    let ids = figure_ids(&page);
    for id in [
        "training-curves",
        "loophole-share",
        "response-length",
        "empty-cut-off",
        "zero-advantage",
        "reward-verdict-gap",
        "internalization-steps-1",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} missing: {ids:?}");
    }
    // A training run alone has no evaluation figures.
    assert!(!ids.iter().any(|i| i == "verdict-mix"), "{ids:?}");
    // Axes are labelled with units, and the curves name what they draw.
    let texts = svg_texts(figure_svg(&page, "training-curves"));
    for t in [
        "training step",
        "share of samples (mean, 0–1)",
        "accuracy (verdict right)",
        "official RL reward",
        "stored score",
    ] {
        assert!(texts.iter().any(|x| x == t), "{t:?} not in {texts:?}");
    }
    let texts = svg_texts(figure_svg(&page, "response-length"));
    assert!(texts.iter().any(|x| x == "response length (characters)"));
    // The reward-verdict gap names every reason the steps count.
    let gap = svg_texts(figure_svg(&page, "reward-verdict-gap"));
    let data = embedded(&page);
    let mut reasons = 0;
    for step in data["steps"].as_array().expect("steps") {
        for reason in step["reward_reasons"].as_object().expect("reasons").keys() {
            reasons += 1;
            assert!(
                gap.contains(&format!("reason: {reason}")),
                "{reason} not in {gap:?}"
            );
        }
    }
    assert!(
        reasons > 0,
        "the demo's training run has disagreements with reasons"
    );
    // The heat map has a row per function of the course table, by its zwc and NumPy names.
    let heat = svg_texts(figure_svg(&page, "internalization-steps-1"));
    for c in data["function_courses"].as_array().expect("courses") {
        let row = format!(
            "{} ({})",
            c["name"].as_str().expect("name"),
            c["numpy"].as_str().expect("numpy")
        );
        assert!(heat.contains(&row), "{row} not in the heat map: {heat:?}");
    }
    // The course table counts what the data says.
    let learned = data["function_courses"]
        .as_array()
        .expect("courses")
        .iter()
        .filter(|c| c["status"] == "learned")
        .count();
    assert!(
        page.contains(&format!("<td>learned</td><td class=\"n\">{learned}</td>")),
        "no learned row with {learned} functions"
    );
    // Examples of a training run are samples of a step, drawn from that step's file.
    let ex = examples(&page);
    assert!(!ex.is_empty(), "no examples");
    for (id, text, _) in &ex {
        let step = caption_field(id, text, ", step ", ',');
        let line = caption_field(id, text, ", line ", ':');
        assert!(
            text.trim_start()
                .starts_with(&format!("{step}.jsonl:{line} ")),
            "{id} is not drawn from step {step}'s file, line {line}: {text}"
        );
    }
}

#[test]
fn examples_show_each_counted_loophole_and_label_category_as_the_code_pane_draws_it() {
    let dir = demo_copy();
    let figures = dir.path().join("figs");
    let page = report(
        dir.path(),
        &eval_inputs(dir.path()),
        &dir.path().join("p.html"),
        Some(&figures),
    );
    let data = embedded(&page);
    let ex = examples(&page);
    let group_of = |prefix: &str| -> Vec<&(String, String, String)> {
        ex.iter()
            .filter(|(id, _, _)| id.starts_with(&format!("example-{prefix}-")))
            .collect()
    };
    // Every loophole kind a run's figures count has examples, and each shows that finding;
    // no kind the figures do not count has any.
    let mut counted = std::collections::BTreeSet::new();
    for run in data["runs"].as_array().expect("runs") {
        for (kind, c) in run["loopholes"]["by_kind"].as_object().expect("by_kind") {
            if c["rollouts"].as_u64().unwrap_or(0) > 0 {
                counted.insert(kind.clone());
            }
        }
    }
    assert!(!counted.is_empty(), "the demo's runs go through loopholes");
    for spec in sebx::model::finding_kinds::KINDS.iter() {
        let shown = group_of(&format!("loophole-{}", spec.name));
        if !counted.contains(spec.name) {
            assert!(shown.is_empty(), "{} is not counted but shown", spec.name);
            continue;
        }
        assert!(!shown.is_empty(), "no example of {}", spec.name);
        for (id, text, _) in shown {
            assert!(
                text.contains(spec.label),
                "{id} does not show a {} finding: {text}",
                spec.label
            );
        }
    }
    // Every hand-label category with labelled failures has examples.
    let mut categories = 0;
    for annotator in data["labels"].as_array().expect("labels") {
        for c in annotator["categories"].as_array().expect("categories") {
            if c["count"].as_u64().unwrap_or(0) > 0 {
                categories += 1;
                let name = c["category"].as_str().expect("category");
                assert!(
                    !group_of(&format!("label-{name}")).is_empty(),
                    "no example of {name}"
                );
            }
        }
    }
    assert!(categories > 0, "the demo's run 1 is labelled");
    // Drawn as the Code pane: the header (file:line, verdict), the numbered code with its
    // syntax colours, the static check; the caption agrees with the header's line.
    for (id, text, html) in &ex {
        let line = caption_field(id, text, ", line ", ':');
        assert!(
            text.contains(&format!(".jsonl:{line} ")),
            "{id}: the view is not of line {line}: {text}"
        );
        // A response without code says so; any other shows its code and the static check.
        if !text.contains("No ```python block") {
            assert!(text.contains("Static zwc-usage check"), "{id}: {text}");
            assert!(
                text.lines().any(|l| l.trim_start().starts_with("1 ")),
                "{id} has no numbered code: {text}"
            );
        }
        assert!(
            html.contains("<pre ") && html.contains("<span style=\"color:"),
            "{id} is not highlighted"
        );
        // A page is read, not driven: no key hints.
        assert!(!text.contains("y: run to settle"), "{id}: {text}");
        // --figures writes each example's view as SVG too.
        let svg = std::fs::read_to_string(figures.join(format!("{id}.svg"))).expect("svg");
        assert!(svg.starts_with("<?xml"), "{id}.svg is not a standalone SVG");
        let first = text.trim_start().lines().next().unwrap_or_default();
        let first = first.split("  ").next().unwrap_or_default();
        assert!(
            svg_texts(&svg).iter().any(|t| t.starts_with(first)),
            "{id}.svg does not draw {first:?}"
        );
    }
    // The same page without examples.
    let mut cmd = sebx(dir.path());
    cmd.arg("report")
        .args(eval_inputs(dir.path()))
        .args(["-q", "--examples", "0", "-o"])
        .arg(dir.path().join("none.html"));
    success(&mut cmd);
    let none = std::fs::read_to_string(dir.path().join("none.html")).expect("page");
    assert!(examples(&none).is_empty() && !none.contains("id=\"examples\""));
}

#[test]
fn evaluation_runs_get_every_evaluation_figure_and_the_comparison() {
    let dir = demo_copy();
    let page = report(
        dir.path(),
        &eval_inputs(dir.path()),
        &dir.path().join("e.html"),
        None,
    );
    let ids = figure_ids(&page);
    for id in [
        "verdict-mix",
        "accuracy",
        "pass-at-k",
        "internalization-1",
        "internalization-2",
        "wrong-names",
        "label-prevalence-1",
        "comparison-flips",
    ] {
        assert!(ids.iter().any(|i| i == id), "{id} missing: {ids:?}");
    }
    assert!(!ids.iter().any(|i| i == "training-curves"), "{ids:?}");
    let data = embedded(&page);
    // Every run is a row of the verdict mix and of the accuracy chart.
    for run in data["runs"].as_array().expect("runs") {
        let name = run["name"].as_str().expect("name").to_string();
        assert!(svg_texts(figure_svg(&page, "verdict-mix")).contains(&name));
        assert!(svg_texts(figure_svg(&page, "accuracy")).contains(&name));
    }
    // The most frequent wrong name leads its chart.
    let top = &data["wrong_names"][0];
    let label = format!(
        "{} [{}]",
        top["name"].as_str().expect("name"),
        top["kind"].as_str().expect("kind")
    );
    assert!(svg_texts(figure_svg(&page, "wrong-names")).contains(&label));
    // pass@k carries its interval in the data, and the figure says it draws it.
    let detail = &data["runs"][0]["pass_at_k_detail"][0];
    assert!(detail["ci95"].is_array(), "no pass@k interval: {detail}");
    assert!(page.contains("pass@k per run, with its 95% interval"));
    // The comparison states the flips and McNemar's p.
    assert!(page.contains("McNemar exact p = "));
}

#[test]
fn the_same_inputs_give_the_same_bytes() {
    let dir = demo_copy();
    let inputs = all_inputs(dir.path());
    let (fa, fb) = (dir.path().join("fa"), dir.path().join("fb"));
    let a = report(dir.path(), &inputs, &dir.path().join("a.html"), Some(&fa));
    let b = report(dir.path(), &inputs, &dir.path().join("b.html"), Some(&fb));
    assert!(a == b, "two reports of the same inputs differ");
    for f in std::fs::read_dir(&fa).expect("figures") {
        let name = f.expect("entry").file_name();
        assert_eq!(
            std::fs::read(fa.join(&name)).expect("a"),
            std::fs::read(fb.join(&name)).expect("b"),
            "{name:?} differs"
        );
    }
}

#[test]
fn the_page_loads_nothing_and_figures_dir_holds_each_figure() {
    let dir = demo_copy();
    let figures = dir.path().join("figs");
    let page = report(
        dir.path(),
        &eval_inputs(dir.path()),
        &dir.path().join("p.html"),
        Some(&figures),
    );
    // Self-contained: no linked style sheet, script, image or font, no remote URL besides
    // the SVG namespace.
    for needle in ["<link", " src=", "@import", "url(", "@font-face"] {
        assert!(!page.contains(needle), "the page has {needle}");
    }
    // Only a followed page reloads itself.
    assert!(!page.contains("http-equiv"));
    let without_ns = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
    // --figures: one SVG per figure and example of the page, the same drawing.
    let ids = figure_ids(&page);
    let example_ids: Vec<String> = examples(&page).into_iter().map(|(id, _, _)| id).collect();
    assert!(!example_ids.is_empty(), "the page has no examples");
    let mut files: Vec<String> = std::fs::read_dir(&figures)
        .expect("figures dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = ids
        .iter()
        .chain(&example_ids)
        .map(|i| format!("{i}.svg"))
        .collect();
    expected.sort();
    assert_eq!(files, expected);
    for id in &ids {
        let file = std::fs::read_to_string(figures.join(format!("{id}.svg"))).expect("svg");
        assert!(
            file.starts_with("<?xml"),
            "{id}.svg is not a standalone SVG"
        );
        assert!(
            file.contains(figure_svg(&page, id)),
            "{id}.svg is not the page's"
        );
        assert!(!svg_texts(&file).is_empty());
    }
}

/// The distinct steps in the data of the page at `path` (`None`: no page, or not one yet).
fn page_steps(path: &Path) -> Option<Vec<u64>> {
    let page = std::fs::read_to_string(path).ok()?;
    let data: Value = serde_json::from_str(sebx::cli::report::embedded_json(&page)?).ok()?;
    let mut steps: Vec<u64> = data["steps"]
        .as_array()?
        .iter()
        .filter_map(|s| s["step"].as_u64())
        .collect();
    steps.dedup();
    Some(steps)
}

/// Polls `done` until it holds or three minutes pass; whether it held.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    done()
}

#[test]
fn follow_rewrites_the_page_as_steps_land() {
    let dir = demo_copy();
    let run = dir.path().join("training/rollout");
    // Step 3 lands while the report follows the run.
    let later = dir.path().join("3.jsonl.later");
    std::fs::rename(run.join("3.jsonl"), &later).expect("hold step 3 back");
    let page = dir.path().join("live.html");
    let mut child = isolated::sebx()
        .current_dir(dir.path())
        .arg("report")
        .args(training_inputs(dir.path()))
        .args(["-q", "--follow", "-o"])
        .arg(&page)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start sebx report --follow");
    let first = eventually(|| page_steps(&page) == Some(vec![1, 2]));
    let reloads = std::fs::read_to_string(&page)
        .unwrap_or_default()
        .contains("<meta http-equiv=\"refresh\"");
    if first {
        std::fs::copy(&later, run.join("3.jsonl")).expect("step 3 lands");
    }
    let rewritten = first && eventually(|| page_steps(&page) == Some(vec![1, 2, 3]));
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "no page of steps 1 and 2: {:?}", page_steps(&page));
    assert!(reloads, "a followed page reloads itself");
    assert!(
        rewritten,
        "step 3 never reached the page: {:?}",
        page_steps(&page)
    );
}
