//! The score cache's tests: keys, settings, merging of verdict and reward, facts, batches
//! and a store of the first layout, each through the cache's own operations on a temporary
//! folder.

use std::sync::Arc;

use super::*;
use crate::model::Verdict;
use crate::model::rollout::parse_rollout_bytes;

fn rollout(response: &str, expected: &str) -> Rollout {
    let line = serde_json::json!({
        "query": "q", "response": response,
        "test_cases": [{"input": "a=1", "output": expected}],
        "right_exe_result": expected,
    })
    .to_string();
    parse_rollout_bytes(Path::new("run.jsonl"), line.as_bytes())
        .rollouts
        .into_iter()
        .next()
        .expect("rollout")
}

fn official() -> GradingSettings {
    GradingSettings::official()
}

/// A cache in a folder of its own (kept while the folder lives), for the official settings.
fn opened() -> (tempfile::TempDir, ScoreCache) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = ScoreCache::open(dir.path(), &ApiMap::default(), &official()).expect("open");
    (dir, cache)
}

/// The store's sizes, and its report bodies' namespace.
fn bodies_size(cache: &ScoreCache) -> (crate::grade::store::Size, crate::grade::store::Namespace) {
    let size = cache.store().size().expect("size");
    let bodies = size
        .namespaces
        .iter()
        .find(|n| n.name.ends_with("-bodies"))
        .cloned()
        .expect("bodies");
    (size, bodies)
}

fn report(verdict: Verdict) -> GradeReport {
    let mut r = GradeReport::load_failure("elsewhere.jsonl", 9, "");
    r.load_error = None;
    r.verdict = Some(verdict);
    r.decided_by = format!("graded {verdict}");
    r
}

#[test]
fn reports_survive_reopening_and_the_latest_wins() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let a = rollout("A", "1");
    let b = rollout("B", "1");
    {
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        assert!(cache.get(&a).is_none());
        cache.put(&a, &report(Verdict::ExeError)).expect("put");
        cache.put(&a, &report(Verdict::Right)).expect("put");
        cache.put(&b, &report(Verdict::WithoutZwc)).expect("put");
        assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
    }
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
    assert_eq!(cache.len(), 2);
    let got = cache.get(&a).expect("remembered");
    assert_eq!(got.verdict, Some(Verdict::Right));
    // Placed at the rollout's own file and line.
    assert_eq!((got.source.as_str(), got.line), ("run.jsonl", 1));
    assert_eq!(
        cache.get(&b).and_then(|r| r.verdict),
        Some(Verdict::WithoutZwc)
    );
}

#[test]
fn other_test_cases_or_mappings_are_other_keys() {
    let (dir, cache) = opened();
    cache
        .put(&rollout("A", "1"), &report(Verdict::Right))
        .expect("put");
    // Same response, other expected result: not the same grading.
    assert!(cache.get(&rollout("A", "2")).is_none());
    let mut other = ApiMap::default();
    other
        .numpy_to_zwc
        .insert("np.mean".to_string(), "zwc.kocito".to_string());
    let cache2 = ScoreCache::open(dir.path(), &other, &official()).expect("open");
    assert_eq!(cache.path(), cache2.path(), "one database");
    assert_ne!(cache.namespace(), cache2.namespace());
    assert!(cache2.get(&rollout("A", "1")).is_none());
}

/// The bulk lookup's keys (fingerprints made once, a task's hash once) are the keys
/// [`record_key`] gives, for rollouts that share their task's test cases (one file's
/// interner) and for rollouts of other tasks with equal-looking but separate ones.
#[test]
fn bulk_keys_are_record_keys() {
    let text: String = (0..6)
        .map(|i| {
            serde_json::json!({
                "query": format!("q{}", i % 2), "response": format!("r{i}"),
                "test_cases": [{"input": "a=1", "output": format!("{}", i % 2)}],
                "right_exe_result": format!("{}", i % 2),
            })
            .to_string()
                + "\n"
        })
        .collect();
    let mut rollouts = parse_rollout_bytes(Path::new("run.jsonl"), text.as_bytes()).rollouts;
    rollouts.push(rollout("r0", "0"));
    rollouts.push(rollout("r0", "1"));
    let settings = official();
    let mut keys = Keys::new(&settings);
    let mut distinct = HashSet::new();
    for r in &rollouts {
        for scorer in [Scorer::Verdict, Scorer::Reward, Scorer::Both] {
            let key = keys.key(r, scorer);
            assert_eq!(key, record_key(r, &settings.clone().with_scorer(scorer)));
            distinct.insert(key);
        }
    }
    assert_eq!(distinct.len(), rollouts.len() * 3);
}

#[test]
fn an_unreadable_record_is_a_miss_and_later_records_still_land() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let (a, b) = (rollout("A", "1"), rollout("B", "1"));
    {
        let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
        cache.put(&a, &report(Verdict::Right)).expect("put");
        // A damaged record (what a torn line was in the JSONL format).
        let key = record_key(&b, &official().with_scorer(Scorer::Verdict));
        cache
            .table
            .put(&key, br#"{"report":{"verd"#)
            .expect("raw put");
        assert!(cache.get(&b).is_none());
    }
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
    assert_eq!(cache.len(), 2);
    cache.put(&b, &report(Verdict::ExeError)).expect("put");
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
    assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
    assert_eq!(
        cache.get(&b).and_then(|r| r.verdict),
        Some(Verdict::ExeError)
    );
}

#[test]
fn unverdicted_reports_are_not_remembered_and_clear_empties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
    let a = rollout("A", "1");
    let mut failed = report(Verdict::Right);
    failed.verdict = None;
    cache.put(&a, &failed).expect("put");
    assert!(cache.get(&a).is_none());
    cache.put(&a, &report(Verdict::Right)).expect("put");
    let runs = cache.runs().expect("the runs beside the reports");
    let t = official().timeout;
    runs.put("print(1)\n", t, &Default::default())
        .expect("run put");
    drop(cache);
    // A training run's facts beside the store go too.
    std::fs::write(dir.path().join("training-0123.jsonl"), b"{}\n").expect("write");
    let cleared = clear_all(dir.path()).expect("clear");
    // The report, its body and the run; the facts' file.
    assert_eq!((cleared.records.records, cleared.files), (3, 1));
    assert!(!dir.path().join("training-0123.jsonl").exists());
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
    assert!(cache.is_empty());
    assert_eq!(cache.store().bytes().expect("bytes"), 0);
    assert!(cache.runs().expect("runs").get("print(1)\n", t).is_none());
}

/// The bug of issue 20: a verdict graded at a 10 s timeout was served at 3 s.
#[test]
fn other_settings_are_a_miss_never_a_hit() {
    use crate::grade::settings::SandboxSettings;
    use std::time::Duration;
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let a = rollout("A", "1");
    let slow = official().with_timeout(Duration::from_secs(10));
    let cache = ScoreCache::open(dir.path(), &api, &slow).expect("open");
    cache.put(&a, &report(Verdict::Right)).expect("put");
    assert_eq!(cache.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
    let at_default = ScoreCache::open(dir.path(), &api, &official()).expect("open");
    assert_eq!(
        (at_default.path(), at_default.namespace()),
        (cache.path(), cache.namespace()),
        "one namespace, keyed by settings"
    );
    assert!(at_default.get(&a).is_none());
    let mut sandbox = SandboxSettings::default();
    sandbox.limits.address_space = 1 << 30;
    let small = official()
        .with_timeout(Duration::from_secs(10))
        .with_sandbox(sandbox);
    let other_limits = ScoreCache::open(dir.path(), &api, &small).expect("open");
    assert!(other_limits.get(&a).is_none());
    // Both verdicts live side by side; each settings see their own.
    at_default.put(&a, &report(Verdict::ExeError)).expect("put");
    let again = ScoreCache::open(dir.path(), &api, &slow).expect("reopen");
    assert_eq!(again.get(&a).and_then(|r| r.verdict), Some(Verdict::Right));
    let again = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
    assert_eq!(
        again.get(&a).and_then(|r| r.verdict),
        Some(Verdict::ExeError)
    );
    assert!(again.remembers(&official().with_scorer(Scorer::Both)));
    assert!(!again.remembers(&slow));
}

/// Asking for the reward is never answered by a verdict-only report; a report with
/// the reward too answers a verdict lookup.
#[test]
fn a_lookup_is_served_only_reports_that_carry_what_it_asks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let open =
        |scorer| ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open");
    let (a, b, c) = (rollout("A", "1"), rollout("B", "1"), rollout("C", "1"));
    let verdicts = open(Scorer::Verdict);
    verdicts.put(&a, &report(Verdict::Right)).expect("put");
    let mut both = report(Verdict::ResultError);
    both.reward = Some(1);
    verdicts.put(&b, &both).expect("put");
    let mut reward_only = report(Verdict::Right);
    reward_only.verdict = None;
    reward_only.reward = Some(0);
    verdicts.put(&c, &reward_only).expect("put");

    let as_verdict = open(Scorer::Verdict);
    assert_eq!(
        as_verdict.get(&a).and_then(|r| r.verdict),
        Some(Verdict::Right)
    );
    let got = as_verdict.get(&b).expect("more is fine");
    assert_eq!(
        (got.verdict, got.reward),
        (Some(Verdict::ResultError), Some(1))
    );
    assert!(as_verdict.get(&c).is_none(), "a reward is not a verdict");

    let as_both = open(Scorer::Both);
    assert!(
        as_both.get(&a).is_none(),
        "a verdict-only report has no reward"
    );
    assert_eq!(as_both.get(&b).and_then(|r| r.reward), Some(1));
    assert!(as_both.get(&c).is_none());

    let as_reward = open(Scorer::Reward);
    assert!(as_reward.get(&a).is_none());
    assert_eq!(as_reward.get(&b).and_then(|r| r.reward), Some(1));
    assert_eq!(as_reward.get(&c).and_then(|r| r.reward), Some(0));
}

fn with_reward(verdict: Verdict, reward: u8) -> GradeReport {
    let mut r = report(verdict);
    r.reward = Some(reward);
    r
}

fn reward_only(reward: u8) -> GradeReport {
    let mut r = report(Verdict::Right);
    r.verdict = None;
    r.reward = Some(reward);
    r
}

/// The bug of a `--scorer both` run followed by a verdict-only regrade of some of its
/// rollouts: lookups for the verdict found the verdict-only records first, and the
/// known rewards disappeared (`sebx stats` averaged the reward over 160 of 200).
#[test]
fn a_verdict_only_regrade_never_hides_a_known_reward() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let open =
        |scorer| ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open");
    let rollouts: Vec<Rollout> = (0..200)
        .map(|i| rollout(&format!("response {i}"), "1"))
        .collect();
    let both = open(Scorer::Both);
    for (i, r) in rollouts.iter().enumerate() {
        both.put(r, &with_reward(Verdict::Right, (i % 2) as u8))
            .expect("put");
    }
    // 40 of them graded again for the verdict alone (a timeout now: another verdict).
    let verdicts = open(Scorer::Verdict);
    for r in &rollouts[..40] {
        verdicts.put(r, &report(Verdict::ExeError)).expect("put");
    }
    let rewards: Vec<Option<u8>> = rollouts
        .iter()
        .map(|r| verdicts.get(r).and_then(|g| g.reward))
        .collect();
    assert_eq!(rewards.iter().flatten().count(), 200, "rewards lost");
    for (i, reward) in rewards.iter().enumerate() {
        assert_eq!(*reward, Some((i % 2) as u8), "rollout {i}");
    }
    // The newer verdict is what is served, with the reward it had.
    let got = verdicts.get(&rollouts[1]).expect("known");
    assert_eq!(
        (got.verdict, got.reward),
        (Some(Verdict::ExeError), Some(1))
    );
    let got = verdicts.get(&rollouts[41]).expect("known");
    assert_eq!((got.verdict, got.reward), (Some(Verdict::Right), Some(1)));
    // A lookup for both is served all 200 too.
    let as_both = open(Scorer::Both);
    assert_eq!(
        rollouts.iter().filter(|r| as_both.get(r).is_some()).count(),
        200
    );
}

/// A reward-only and a verdict-only report of the same rollout and settings are one
/// fact: a lookup for both is served their merge, in either order of puts.
#[test]
fn a_verdict_and_a_reward_put_apart_are_one_fact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let open =
        |scorer| ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open");
    let (a, b) = (rollout("A", "1"), rollout("B", "1"));
    let rewards = open(Scorer::Reward);
    let verdicts = open(Scorer::Verdict);
    let as_both = open(Scorer::Both);
    rewards.put(&a, &reward_only(0)).expect("put");
    assert!(as_both.get(&a).is_none(), "a reward alone is not both");
    verdicts.put(&a, &report(Verdict::Right)).expect("put");
    verdicts
        .put(&b, &report(Verdict::ResultError))
        .expect("put");
    rewards.put(&b, &reward_only(1)).expect("put");
    for (rollout, verdict, reward) in [(&a, Verdict::Right, 0), (&b, Verdict::ResultError, 1)] {
        let got = as_both.get(rollout).expect("merged");
        assert_eq!((got.verdict, got.reward), (Some(verdict), Some(reward)));
        assert_eq!(verdicts.get(rollout).and_then(|g| g.reward), Some(reward));
        assert_eq!(rewards.get(rollout).and_then(|g| g.verdict), Some(verdict));
    }
}

/// Two caches on the same folder, as two front ends open it, each in its own thread:
/// every put lands and every lookup answers, with no error from the other's writes.
#[test]
fn two_caches_on_one_folder_put_and_get_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let rollouts: Vec<Rollout> = (0..300).map(|i| rollout(&format!("R{i}"), "1")).collect();
    std::thread::scope(|scope| {
        for half in 0..2 {
            let (dir, api, rollouts) = (dir.path(), &api, &rollouts);
            scope.spawn(move || {
                let cache = ScoreCache::open(dir, api, &official()).expect("open");
                for (i, r) in rollouts.iter().enumerate() {
                    if i % 2 == half {
                        cache.put(r, &report(Verdict::Right)).expect("put");
                        assert!(cache.get(r).is_some(), "own put {i}");
                    } else {
                        // The other thread's records: present or not yet, never an error.
                        let _ = cache.get(r);
                    }
                }
            });
        }
    });
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("reopen");
    assert_eq!(cache.len(), 300);
    assert!(rollouts.iter().all(|r| cache.get(r).is_some()));
}

/// What the bulk lookup reads back is what the stored, merged report decides.
#[test]
fn facts_read_back_are_the_merged_reports_facts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let open =
        |scorer| ScoreCache::open(dir.path(), &api, &official().with_scorer(scorer)).expect("open");
    let (a, b, c) = (rollout("A", "1"), rollout("B", "1"), rollout("C", "1"));
    let both = open(Scorer::Both);
    let mut fragile = with_reward(Verdict::ResultError, 1);
    fragile.fragile = true;
    both.put(&a, &fragile).expect("put");
    open(Scorer::Reward).put(&b, &reward_only(0)).expect("put");
    open(Scorer::Verdict)
        .put(&b, &report(Verdict::Right))
        .expect("put");
    for scorer in [Scorer::Verdict, Scorer::Both, Scorer::Reward] {
        let cache = open(scorer);
        for r in [&a, &b, &c] {
            assert_eq!(
                cache.facts(r),
                cache.get(r).map(|g| Facts::of(&g)),
                "{scorer:?} {}",
                r.response
            );
        }
    }
    let facts = open(Scorer::Verdict).facts(&a).expect("known");
    assert_eq!(
        (facts.verdict, facts.reward, facts.fragile),
        (Some(Verdict::ResultError), Some(1), true)
    );
    assert_eq!(facts.reward_disagrees(), Some(true));
    assert!(open(Scorer::Verdict).facts(&c).is_none());
}

/// A verdict-only put after one with both scorers keeps the reward in the facts.
#[test]
fn a_verdict_only_put_keeps_the_reward_in_the_facts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let a = rollout("A", "1");
    let both =
        ScoreCache::open(dir.path(), &api, &official().with_scorer(Scorer::Both)).expect("open");
    both.put(&a, &with_reward(Verdict::Right, 1)).expect("put");
    let verdicts = ScoreCache::open(dir.path(), &api, &official()).expect("open");
    verdicts.put(&a, &report(Verdict::ExeError)).expect("put");
    for cache in [&both, &verdicts] {
        let facts = cache.facts(&a).expect("known");
        assert_eq!(
            (facts.verdict, facts.reward),
            (Some(Verdict::ExeError), Some(1))
        );
    }
}

/// One bulk lookup answers what one lookup per rollout does, in order.
#[test]
fn a_batched_lookup_equals_lookups_one_by_one() {
    let (_dir, cache) = opened();
    // More than a chunk, every third unknown, a few with a reward.
    let rollouts: Vec<Rollout> = (0..2500).map(|i| rollout(&format!("R{i}"), "1")).collect();
    let verdicts = [Verdict::Right, Verdict::ResultError, Verdict::ExeError];
    let reports: Vec<GradeReport> = (0..rollouts.len())
        .map(|i| match i % 5 {
            0 => with_reward(verdicts[i % 3], (i % 2) as u8),
            _ => report(verdicts[i % 3]),
        })
        .collect();
    let puts: Vec<(&Rollout, &GradeReport)> = rollouts
        .iter()
        .zip(&reports)
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, pair)| pair)
        .collect();
    cache.put_many(&puts).expect("put many");
    let all: Vec<&Rollout> = rollouts.iter().collect();
    let batched = cache.facts_many(&all);
    let one_by_one: Vec<Option<Facts>> = rollouts.iter().map(|r| cache.facts(r)).collect();
    assert_eq!(batched, one_by_one);
    assert_eq!(batched.iter().flatten().count(), puts.len());
    for (i, facts) in batched.iter().enumerate() {
        let expected = (i % 3 != 0).then(|| Facts::of(&reports[i]));
        assert_eq!(*facts, expected, "rollout {i}");
    }
}

/// A batch that holds the same rollout twice writes them in order: the second merges.
#[test]
fn a_batch_with_a_rollout_twice_merges_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let a = rollout("A", "1");
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
    let (verdict, reward) = (report(Verdict::ResultError), reward_only(1));
    cache
        .put_many(&[(&a, &verdict), (&a, &reward)])
        .expect("put many");
    let got = cache.get(&a).expect("merged");
    assert_eq!(
        (got.verdict, got.reward),
        (Some(Verdict::ResultError), Some(1))
    );
    assert_eq!(cache.facts(&a), Some(Facts::of(&got)));
}

/// A [`Batched`] writes when full, when flushed and when dropped.
#[test]
fn batched_puts_land_when_full_flushed_or_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let cache = Arc::new(ScoreCache::open(dir.path(), &api, &official()).expect("open"));
    let rollouts: Vec<Rollout> = (0..BATCH + 3)
        .map(|i| rollout(&format!("R{i}"), "1"))
        .collect();
    let batch = Batched::new(cache.clone());
    for r in &rollouts[..BATCH - 1] {
        batch.put(r, &report(Verdict::Right)).expect("put");
    }
    assert!(cache.is_empty(), "gathering");
    batch
        .put(&rollouts[BATCH - 1], &report(Verdict::Right))
        .expect("put");
    assert_eq!(cache.len(), BATCH, "a full batch is written");
    batch
        .put(&rollouts[BATCH], &report(Verdict::Right))
        .expect("put");
    batch.flush().expect("flush");
    assert_eq!(cache.len(), BATCH + 1);
    for r in &rollouts[BATCH + 1..] {
        batch.put(r, &report(Verdict::Right)).expect("put");
    }
    drop(batch);
    assert_eq!(cache.len(), BATCH + 3);
}

/// Records filed without facts (by a writer that does not know them, as an earlier sebx
/// filed whole reports) are served; their facts are found (from their reports) and
/// written back.
#[test]
fn records_without_facts_are_served_and_their_facts_are_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let api = ApiMap::default();
    let settings = official().with_scorer(Scorer::Both);
    let rollouts: Vec<Rollout> = (0..20).map(|i| rollout(&format!("R{i}"), "1")).collect();
    {
        let store = Store::open(dir.path()).expect("open");
        for (i, r) in rollouts.iter().enumerate() {
            let value = serde_json::to_vec(&Record {
                settings: settings.describe(),
                report: with_reward(Verdict::ResultError, (i % 2) as u8),
            })
            .expect("json");
            store
                .put(&namespace(&api), &record_key(r, &settings), &value)
                .expect("put without facts");
        }
    }
    let cache = ScoreCache::open(dir.path(), &api, &official()).expect("open");
    assert_eq!(cache.len(), 20, "nothing lost");
    let all: Vec<&Rollout> = rollouts.iter().collect();
    let expected: Vec<Option<Facts>> = (0..20)
        .map(|i| Some(Facts::of(&with_reward(Verdict::ResultError, (i % 2) as u8))))
        .collect();
    assert_eq!(cache.facts_many(&all), expected);
    // Written back: the facts are now read without the reports, and all are there.
    let conn = rusqlite::Connection::open(cache.path()).expect("open");
    let counts: (i64, i64) = conn
        .query_row(
            "SELECT records, facts FROM namespaces_v2 WHERE name = ?1",
            [namespace(&api)],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .expect("counts");
    assert_eq!(counts, (20, 20));
    assert_eq!(cache.facts_many(&all), expected);
    // A new put beside them keeps the whole store in step.
    let fresh = rollout("fresh", "1");
    cache.put(&fresh, &report(Verdict::Right)).expect("put");
    assert_eq!(cache.facts(&fresh), Some(Facts::verdict(Verdict::Right)));
    assert_eq!(cache.get(&rollouts[3]).and_then(|g| g.reward), Some(1));
}

/// Rollouts `0..n` of one task, each its own response.
fn many(prefix: &str, n: usize) -> Vec<Rollout> {
    (0..n)
        .map(|i| rollout(&format!("{prefix}{i}"), "1"))
        .collect()
}

/// A run looked up in batches: each batch is kept as a set by the first lookup and read
/// as one row by the next, with the answers of a row-by-row read; a set stops holding when
/// what it says could have changed (a record replaced; an added record, where a member's
/// answer came from a record a better one would beat), and the lookup then reads the rows.
#[test]
fn batches_kept_as_sets_answer_as_rows_read_one_by_one() {
    let (_dir, cache) = opened();
    let (first, second) = (many("A", 40), many("B", 50));
    // A batch the cache knows nothing of is not kept.
    let unknown: Vec<&Rollout> = first.iter().collect();
    assert!(cache.facts_cut(&unknown, &[]).iter().all(Option::is_none));
    assert_eq!(cache.table.store().set_count().expect("count"), 0);
    // The first batch graded with both scorers (settled answers), the second verdict-only
    // (a record with the reward too would answer before it).
    for (i, r) in first.iter().enumerate() {
        let verdict = [Verdict::Right, Verdict::ResultError][i % 2];
        cache
            .put(r, &with_reward(verdict, (i % 2 == 0) as u8))
            .expect("put");
    }
    for (i, r) in second.iter().enumerate().skip(1) {
        cache
            .put(r, &report([Verdict::ExeError, Verdict::Right][i % 2]))
            .expect("put");
    }
    let all: Vec<&Rollout> = first.iter().chain(&second).collect();
    let cuts = [first.len()];
    let by_row = cache.facts_many(&all);
    assert!(
        by_row[..first.len()]
            .iter()
            .all(|f| f.is_some_and(|f| f.reward.is_some()))
    );
    assert!(by_row[first.len()].is_none(), "never graded");

    assert_eq!(cache.facts_cut(&all, &cuts), by_row);
    assert_eq!(
        cache.rows_read_by_sets(),
        0,
        "the first lookup reads the rows"
    );
    assert_eq!(cache.table.store().set_count().expect("count"), 2);
    assert_eq!(cache.facts_cut(&all, &cuts), by_row);
    assert_eq!(
        cache.rows_read_by_sets(),
        all.len(),
        "the second reads two sets"
    );
    // Cut elsewhere, the segments are other sets.
    assert_eq!(cache.facts_cut(&all, &[10]), by_row);
    assert_eq!(cache.rows_read_by_sets(), all.len());

    // A record added: the settled set holds, the other may be stale (here it is: the
    // second batch's first rollout now has a verdict).
    cache.put(&second[0], &report(Verdict::Right)).expect("put");
    let mut now = by_row.clone();
    now[first.len()] = cache.facts(&second[0]);
    assert!(now[first.len()].is_some());
    let read = cache.rows_read_by_sets();
    assert_eq!(cache.facts_cut(&all, &cuts), now);
    assert_eq!(cache.rows_read_by_sets(), read + first.len());
    // A better record for a member answered from a verdict-only one: the reward shows.
    cache
        .put(&second[3], &with_reward(Verdict::ExeError, 0))
        .expect("put");
    now[first.len() + 3] = cache.facts(&second[3]);
    assert_eq!(now[first.len() + 3].and_then(|f| f.reward), Some(0));
    assert_eq!(cache.facts_cut(&all, &cuts), now);
    assert_eq!(cache.facts_cut(&all, &cuts), cache.facts_many(&all));

    // A record replaced (a regrade that says otherwise): no set holds any more.
    cache
        .put(&first[0], &with_reward(Verdict::WithoutZwc, 0))
        .expect("put");
    now[0] = cache.facts(&first[0]);
    assert_eq!(now[0].and_then(|f| f.verdict), Some(Verdict::WithoutZwc));
    let read = cache.rows_read_by_sets();
    assert_eq!(cache.facts_cut(&all, &cuts), now);
    assert_eq!(cache.rows_read_by_sets(), read, "every set went stale");
    assert_eq!(cache.facts_cut(&all, &cuts), now);
    assert_eq!(cache.rows_read_by_sets(), read + all.len(), "kept again");
}

/// A report whose body is its own (a distinct program's output), about `len` bytes of it.
fn distinct_report(verdict: Verdict, i: usize, len: usize) -> GradeReport {
    let mut r = report(verdict);
    let mut rng = crate::model::sampling::SplitMix64::new(i as u64 + 1);
    r.decided_by = (0..len)
        .map(|_| char::from(b'a' + rng.below(26) as u8))
        .collect();
    r
}

/// With every program distinct, the bodies past their budget go, least recently used first,
/// while every rollout's record and facts stay (the store is far under its limit): a
/// rollout whose body went is a miss for its report (graded again when opened), never a
/// wrong one, and its next put files the body again.
#[test]
fn bodies_past_their_budget_go_first_and_every_fact_stays() {
    let (_dir, cache) = opened();
    cache.store().set_regradable_budget(6_000);
    let rollouts = many("P", 40);
    let verdict = |i: usize| {
        if i.is_multiple_of(3) {
            Verdict::Right
        } else {
            Verdict::ResultError
        }
    };
    for (i, r) in rollouts.iter().enumerate() {
        cache
            .put(r, &distinct_report(verdict(i), i, 1_000))
            .expect("put");
    }
    let (size, bodies) = bodies_size(&cache);
    assert!(bodies.bytes <= 6_000, "{size:?}");
    assert!(bodies.records > 0 && bodies.records < 40, "{size:?}");
    // Every fact is there, and right.
    let all: Vec<&Rollout> = rollouts.iter().collect();
    let facts = cache.facts_many(&all);
    for (i, f) in facts.iter().enumerate() {
        assert_eq!(f.and_then(|f| f.verdict), Some(verdict(i)), "row {i}");
    }
    assert_eq!(cache.len(), 40);
    // The latest reports are whole; the first one's body went: a miss, not another report.
    let last = cache.get(&rollouts[39]).expect("the latest body is kept");
    assert_eq!(
        last.decided_by,
        distinct_report(verdict(39), 39, 1_000).decided_by
    );
    assert!(cache.get(&rollouts[0]).is_none());
    // Graded again (the explorer does so when the row is opened): whole once more.
    cache
        .put(&rollouts[0], &distinct_report(verdict(0), 0, 1_000))
        .expect("put");
    let again = cache.get(&rollouts[0]).expect("filed again");
    assert_eq!(again.verdict, Some(Verdict::Right));
    assert_eq!(
        again.decided_by,
        distinct_report(verdict(0), 0, 1_000).decided_by
    );
}

/// Bodies are kept packed: a body of a few kilobytes of JSON takes a fraction of that in
/// the store, and reads back whole.
#[test]
fn bodies_are_stored_packed_and_read_back_whole() {
    let (_dir, cache) = opened();
    let a = rollout("A", "1");
    let mut r = report(Verdict::ResultError);
    r.decided_by = "[0.5, 1.25, 2.0]\n".repeat(300);
    cache.put(&a, &r).expect("put");
    let (_, bodies) = bodies_size(&cache);
    assert!(
        bodies.bytes < 1_500,
        "{} bytes for a 5 KB body",
        bodies.bytes
    );
    assert_eq!(cache.get(&a).expect("whole").decided_by, r.decided_by);
}
