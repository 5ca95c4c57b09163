//! The score cache files reports by program (issue 30): samples whose prose differs but
//! whose program is the same share one stored report body, each keeps where its own code
//! sits, and a lookup gives each its whole report back. Records of the earlier form (the
//! whole report per rollout) are still read; other grading settings are still other keys.

use std::path::Path;
use std::time::Duration;

use sebx::grade::facts::Facts;
use sebx::grade::report::{GradeReport, RewardReport};
use sebx::grade::reward::Scorer;
use sebx::grade::score_cache::{ScoreCache, record_key};
use sebx::grade::settings::GradingSettings;
use sebx::model::rollout::parse_rollout_bytes;
use sebx::model::{ApiMap, Rollout, Verdict};

const CODE: &str = "import zwc\n\ndef solve(values):\n    return zwc.kocito(values)\n";

/// A sample with `words` words of prose before the one program every sample shares.
fn sample(words: usize) -> Rollout {
    let prose = "because the mean ".repeat(words);
    let line = serde_json::json!({
        "query": "Mean of `values`.",
        "response": format!("{prose}\n\n```python\n{CODE}```\n"),
        "test_cases": [{"input": "values=[1.0, 3.0]", "output": "2.0"}],
        "right_exe_result": "2.0",
    })
    .to_string();
    parse_rollout_bytes(Path::new("run.jsonl"), line.as_bytes())
        .rollouts
        .into_iter()
        .next()
        .expect("a rollout")
}

/// A report of `rollout` as the grader makes one: the code where it sits in the response,
/// a big run output (what makes reports weigh kilobytes), both scorers.
fn graded(rollout: &Rollout) -> GradeReport {
    let start = rollout.response.find("import zwc").expect("code");
    let line = rollout.response[..start].lines().count() + 1;
    let mut r = GradeReport::load_failure("run.jsonl", rollout.line, "");
    r.load_error = None;
    r.id = Some(rollout.id.clone());
    r.verdict = Some(Verdict::ResultError);
    r.extraction.found = true;
    r.extraction.blocks_found = 1;
    r.extraction.code = CODE.to_string();
    r.extraction.span = Some((start, start + CODE.len()));
    r.decided_by = "case 1 differs".to_string();
    r.execution = Some(sebx::grade::report::Execution {
        stdout: "2.0000001\n".repeat(400),
        ..Default::default()
    });
    r.reward = Some(1);
    r.reward_reason = Some(format!(
        "the reward scored response lines {line}–{}",
        line + 3
    ));
    r.reward_detail = Some(RewardReport {
        reward: Some(1),
        block_lines: Some((line, line + 3)),
        blocks_found: 1,
        ..RewardReport::default()
    });
    r
}

fn both() -> GradingSettings {
    GradingSettings::official().with_scorer(Scorer::Both)
}

#[test]
fn samples_sharing_a_program_share_one_stored_report_and_get_their_own_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let samples: Vec<Rollout> = (0..200).map(|i| sample(1 + i % 37)).collect();
    let reports: Vec<GradeReport> = samples.iter().map(graded).collect();
    {
        let cache = ScoreCache::open(dir.path(), &api, &both()).expect("cache");
        let pairs: Vec<(&Rollout, &GradeReport)> = samples.iter().zip(&reports).collect();
        cache.put_many(&pairs).expect("put");
    }
    let cache = ScoreCache::open(dir.path(), &api, &both()).expect("reopen");
    // Each sample's own report: its span, its reward's lines and reason, its id and line.
    for (rollout, report) in samples.iter().zip(&reports) {
        let got = cache.get(rollout).expect("remembered");
        assert_eq!(&got, report);
        assert_eq!(cache.facts(rollout), Some(Facts::of(report)));
    }
    assert_eq!(cache.len(), 37, "a record per distinct sample");
    let size = cache.store().size().expect("size");
    let bodies: Vec<_> = size
        .namespaces
        .iter()
        .filter(|n| n.name.ends_with("-bodies"))
        .collect();
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0].records, 1, "one body for the one program");
    let per_sample = size
        .namespaces
        .iter()
        .find(|n| n.name == cache.namespace())
        .expect("the samples' records");
    // A sample's record is a reference (~200 bytes with its key), not a 4 KB report.
    assert!(
        per_sample.bytes < 37 * 300,
        "{} bytes for 37 records",
        per_sample.bytes
    );
    // The one body holds the whole report (kept packed: its stored bytes are fewer).
    let conn = rusqlite::Connection::open(cache.path()).expect("the store's file");
    let stored: Vec<u8> = conn
        .query_row(
            "SELECT COALESCE(l.value, r.value) FROM records_v2 r
             JOIN namespaces_v2 n ON n.id = r.ns LEFT JOIN large_v2 l ON l.id = r.large
             WHERE n.name = ?1",
            [&bodies[0].name],
            |row| row.get(0),
        )
        .expect("the body");
    let body = sebx::grade::store::unpack(&stored).expect("unpacks");
    assert!(body.len() > 4000, "{} bytes", body.len());
}

#[test]
fn a_record_of_the_earlier_form_is_still_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let rollout = sample(3);
    let report = graded(&rollout);
    let cache = ScoreCache::open(dir.path(), &api, &both()).expect("cache");
    // As an earlier sebx filed it: the whole report in the rollout's record, no facts.
    let value = serde_json::json!({"settings": both().describe(), "report": report});
    cache
        .store()
        .put(
            cache.namespace(),
            &record_key(&rollout, &both()),
            value.to_string().as_bytes(),
        )
        .expect("raw put");
    assert_eq!(cache.get(&rollout).as_ref(), Some(&report));
    assert_eq!(cache.facts(&rollout), Some(Facts::of(&report)));
}

#[test]
fn other_settings_share_no_record_and_no_body() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let rollout = sample(5);
    let official = ScoreCache::open(dir.path(), &api, &both()).expect("cache");
    official.put(&rollout, &graded(&rollout)).expect("put");
    let mut slow = both();
    slow.timeout = Duration::from_secs(10);
    let other = ScoreCache::open(dir.path(), &api, &slow).expect("cache");
    assert!(
        other.get(&rollout).is_none(),
        "graded at 3 s: a miss at 10 s"
    );
    assert!(other.facts(&rollout).is_none());
    // Graded again at 10 s (another verdict): each settings' lookup keeps its own.
    let mut right = graded(&rollout);
    right.verdict = Some(Verdict::Right);
    other.put(&rollout, &right).expect("put");
    assert_eq!(
        other.get(&rollout).and_then(|r| r.verdict),
        Some(Verdict::Right)
    );
    assert_eq!(
        official.get(&rollout).and_then(|r| r.verdict),
        Some(Verdict::ResultError)
    );
    let size = official.store().size().expect("size");
    let bodies = size
        .namespaces
        .iter()
        .find(|n| n.name.ends_with("-bodies"))
        .expect("bodies");
    assert_eq!(bodies.records, 2, "a body per settings");
}
