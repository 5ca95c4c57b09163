//! Cohen's kappa on a worked example computed by hand.
//!
//! Ten rollouts r0..r9 labelled by alice (a) and bob (b):
//!
//! | rollout | a | b |
//! |---|---|---|
//! | r0–r3 | numpy_import | numpy_import |
//! | r4 | numpy_import | (nothing, with a note) |
//! | r5 | (nothing, with a note) | numpy_import |
//! | r6, r7 | logic_error | logic_error |
//! | r8, r9 | logic_error | (nothing, with a note) |
//!
//! numpy_import: both 4, only a 1, only b 1, neither 4. p_o = 8/10 = 0.8;
//! p_a = p_b = 0.5, p_e = 0.25 + 0.25 = 0.5; kappa = (0.8 − 0.5) / 0.5 = 0.6.
//!
//! logic_error: both 2, only a 2, only b 0, neither 6. p_o = 0.8; p_a = 0.4, p_b = 0.2,
//! p_e = 0.4·0.2 + 0.6·0.8 = 0.56; kappa = 0.24 / 0.44 = 6/11 ≈ 0.5455.
//!
//! timeout (never used): p_e = 1, kappa undefined, left out of the mean.
//! Mean kappa = (0.6 + 6/11) / 2 = 0.572727…; identical label sets 6/10.

use sebx::model::RolloutId;
use sebx::model::agreement::{binary_agreement, compare_annotators};
use sebx::model::labels::{LabelRecord, LabelStore};
use sebx::model::taxonomy::CategoryId;

fn label(store: &mut LabelStore, rollout: &str, cats: &[&str], note: &str, who: &str) {
    let categories = cats.iter().map(|c| CategoryId::new(c)).collect();
    store
        .append(LabelRecord::now(
            RolloutId(rollout.into()),
            categories,
            note,
            who,
        ))
        .expect("append");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn worked_example_matches_hand_computed_kappas() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut store, _) = LabelStore::open(&dir.path().join("run.jsonl")).expect("open");
    for r in ["r0", "r1", "r2", "r3"] {
        label(&mut store, r, &["numpy_import"], "", "alice");
        label(&mut store, r, &["numpy_import"], "", "bob");
    }
    label(&mut store, "r4", &["numpy_import"], "", "alice");
    // Bob first agreed on r4, then changed his mind: only the latest counts.
    label(&mut store, "r4", &["numpy_import"], "", "bob");
    label(&mut store, "r4", &[], "no error here", "bob");
    label(&mut store, "r5", &[], "fine", "alice");
    label(&mut store, "r5", &["numpy_import"], "", "bob");
    for r in ["r6", "r7"] {
        label(&mut store, r, &["logic_error"], "", "alice");
        label(&mut store, r, &["logic_error"], "", "bob");
    }
    for r in ["r8", "r9"] {
        label(&mut store, r, &["logic_error"], "", "alice");
        label(&mut store, r, &[], "looks right", "bob");
    }
    // Outside the comparison: labelled by one side only, and a third annotator.
    label(&mut store, "r10", &["timeout"], "", "alice");
    label(&mut store, "r11", &["other"], "", "bob");
    label(&mut store, "r0", &["other"], "", "carol");
    // A cleared label does not count as labelled.
    label(&mut store, "r12", &["other"], "", "bob");
    label(&mut store, "r12", &[], "", "bob");

    let current = store.all_current();
    let order = [
        CategoryId::new("numpy_import"),
        CategoryId::new("logic_error"),
        CategoryId::new("timeout"),
    ];
    let ag = compare_annotators(&current, "alice", "bob", &order);

    assert_eq!(ag.compared, 10);
    assert_eq!(ag.only_labelled_by_a, 1);
    assert_eq!(ag.only_labelled_by_b, 1);
    let rows: Vec<&str> = ag
        .per_category
        .iter()
        .map(|c| c.category.as_str())
        .collect();
    assert_eq!(rows, vec!["numpy_import", "logic_error", "timeout"]);

    let np = &ag.per_category[0];
    assert_eq!((np.both, np.only_a, np.only_b, np.neither), (4, 1, 1, 4));
    assert!(close(np.observed, 0.8) && close(np.expected, 0.5));
    assert!(close(np.kappa.expect("defined"), 0.6));

    let logic = &ag.per_category[1];
    assert_eq!(
        (logic.both, logic.only_a, logic.only_b, logic.neither),
        (2, 2, 0, 6)
    );
    assert!(close(logic.expected, 0.56));
    assert!(close(logic.kappa.expect("defined"), 6.0 / 11.0));

    let timeout = &ag.per_category[2];
    assert_eq!(timeout.neither, 10);
    assert_eq!(timeout.kappa, None);

    assert!(close(
        ag.mean_kappa.expect("mean"),
        (0.6 + 6.0 / 11.0) / 2.0
    ));
    assert!(close(ag.exact_set_agreement.expect("share"), 0.6));

    let disagreements: Vec<&str> = ag
        .disagreements
        .iter()
        .map(|d| d.rollout.0.as_str())
        .collect();
    assert_eq!(disagreements, vec!["r4", "r5", "r8", "r9"]);
    let r4 = &ag.disagreements[0];
    assert_eq!(r4.categories_a, vec![CategoryId::new("numpy_import")]);
    assert!(r4.categories_b.is_empty());
    assert_eq!(r4.note_b, "no error here");
}

#[test]
fn categories_seen_in_labels_are_added_after_the_given_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut store, _) = LabelStore::open(&dir.path().join("run.jsonl")).expect("open");
    label(&mut store, "r0", &["custom_thing"], "", "alice");
    label(&mut store, "r0", &["logic_error"], "", "bob");
    let current = store.all_current();
    let ag = compare_annotators(&current, "alice", "bob", &[CategoryId::new("logic_error")]);
    let rows: Vec<&str> = ag
        .per_category
        .iter()
        .map(|c| c.category.as_str())
        .collect();
    assert_eq!(rows, vec!["logic_error", "custom_thing"]);
    // One rollout, opposite answers: p_o = 0, p_e = 0·1 + 1·0 = 0, kappa = (0 − 0)/1 = 0.
    assert_eq!(ag.per_category[0].kappa, Some(0.0));
}

#[test]
fn perfect_and_chance_level_agreement() {
    let c = CategoryId::new("x");
    let perfect = binary_agreement(c.clone(), &[(true, true), (false, false), (true, true)]);
    assert_eq!(perfect.kappa, Some(1.0));
    // Agreement exactly at chance: a = [T,T,F,F], b = [T,F,T,F] → p_o = 0.5 = p_e.
    let chance = binary_agreement(
        c.clone(),
        &[(true, true), (true, false), (false, true), (false, false)],
    );
    assert!(close(chance.kappa.expect("defined"), 0.0));
    // Systematic disagreement is negative.
    let opposite = binary_agreement(c.clone(), &[(true, false), (false, true)]);
    assert!(close(opposite.kappa.expect("defined"), -1.0));
    let nothing = binary_agreement(c, &[]);
    assert_eq!(nothing.kappa, None);
}
