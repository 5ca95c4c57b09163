//! Taxonomy files (parsing, validation errors with file and line, discovery) and the
//! suggested-category rules.

use std::path::Path;

use sebx::model::Verdict;
use sebx::model::taxonomy::{CategoryId, Taxonomy, suggest_category};

fn parse_err(text: &str) -> (Option<usize>, String, String) {
    let e = Taxonomy::parse(text, Some(Path::new("proj/sebx-taxonomy.toml")))
        .expect_err("should be rejected");
    (e.line, e.message.clone(), e.to_string())
}

const TWO: &str = r#"
[[category]]
id = "bad_axis"
label = "Wrong axis"
key = "a"
description = "axis=0 where axis=1 was meant"

[[category]]
id = "other"
label = "Other"
"#;

#[test]
fn a_valid_custom_taxonomy_parses_in_order() {
    let t = Taxonomy::parse(TWO, None).expect("valid");
    assert_eq!(
        t.ids(),
        vec![CategoryId::new("bad_axis"), CategoryId::new("other")]
    );
    assert_eq!(t.by_key('a').expect("key a").label, "Wrong axis");
    assert_eq!(t.categories[1].key, None);
    assert_eq!(t.categories[1].description, "");
}

#[test]
fn toml_syntax_errors_name_file_and_line() {
    let (line, _, shown) = parse_err("[[category]]\nid = \"x\"\nlabel = \"X\nkey = \"1\"\n");
    assert_eq!(line, Some(3));
    assert!(shown.starts_with("proj/sebx-taxonomy.toml:3: "), "{shown}");
}

#[test]
fn validation_errors_point_at_the_offending_line() {
    let dup_id = format!("{TWO}\n[[category]]\nid = \"other\"\nlabel = \"Again\"\n");
    let (line, msg, _) = parse_err(&dup_id);
    assert_eq!(line, Some(13));
    assert!(msg.contains("`other` is used twice"), "{msg}");

    let (line, msg, _) = parse_err("[[category]]\nlabel = \"NumPy\"\nid = \"NumPy Import\"\n");
    assert_eq!(line, Some(3));
    assert!(msg.contains("snake_case"), "{msg}");

    let (line, msg, _) = parse_err("[[category]]\nid = \"a\"\nlabel = \"A\"\nkey = \"12\"\n");
    assert_eq!(line, Some(4));
    assert!(msg.contains("exactly one character"), "{msg}");

    let dup_key = "[[category]]\nid = \"a\"\nlabel = \"A\"\nkey = \"1\"\n\n[[category]]\nid = \"b\"\nlabel = \"B\"\nkey = \"1\"\n";
    let (line, msg, _) = parse_err(dup_key);
    assert_eq!(line, Some(9));
    assert!(
        msg.contains("key `1`") && msg.contains("already used"),
        "{msg}"
    );

    let (line, msg, _) = parse_err("[[category]]\nid = \"a\"\nlabel = \"  \"\n");
    assert_eq!(line, Some(3));
    assert!(msg.contains("empty label"), "{msg}");
}

#[test]
fn unknown_fields_missing_fields_and_empty_files_are_rejected() {
    let (line, msg, _) = parse_err("[[category]]\nid = \"a\"\nlable = \"A\"\n");
    assert!(line.is_some());
    assert!(msg.contains("lable"), "{msg}");

    let (_, msg, _) = parse_err("[[category]]\nid = \"a\"\n");
    assert!(msg.contains("label"), "{msg}");

    let (line, msg, shown) = parse_err("# nothing yet\n");
    assert_eq!(line, None);
    assert!(msg.contains("no categories"), "{msg}");
    assert!(shown.starts_with("proj/sebx-taxonomy.toml: "), "{shown}");
}

#[test]
fn the_nearest_taxonomy_file_is_found_and_an_explicit_one_wins() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nested = dir.path().join("runs").join("model-a");
    std::fs::create_dir_all(&nested).expect("mkdir");
    let rollouts = nested.join("rollouts.jsonl");

    // Nothing in the tree: the built-in default.
    let t = Taxonomy::for_rollout_file(&rollouts, None).expect("default");
    assert_eq!(t.source, None);
    assert_eq!(t.categories.len(), 13);

    std::fs::write(dir.path().join("sebx-taxonomy.toml"), TWO).expect("write");
    let t = Taxonomy::for_rollout_file(&rollouts, None).expect("found in a parent");
    assert_eq!(t.categories.len(), 2);
    assert_eq!(
        t.source.as_deref(),
        Some(dir.path().join("sebx-taxonomy.toml").as_path())
    );

    let closer = "[[category]]\nid = \"near\"\nlabel = \"Near\"\n";
    std::fs::write(nested.join("sebx-taxonomy.toml"), closer).expect("write");
    let t = Taxonomy::for_rollout_file(&rollouts, None).expect("nearest");
    assert_eq!(t.ids(), vec![CategoryId::new("near")]);

    let explicit = dir.path().join("mine.toml");
    std::fs::write(&explicit, "[[category]]\nid = \"mine\"\nlabel = \"Mine\"\n").expect("write");
    let t = Taxonomy::for_rollout_file(&rollouts, Some(&explicit)).expect("explicit");
    assert_eq!(t.ids(), vec![CategoryId::new("mine")]);

    std::fs::write(nested.join("sebx-taxonomy.toml"), "[[category]]\nid = 3\n").expect("write");
    let e = Taxonomy::for_rollout_file(&rollouts, None).expect_err("broken file is an error");
    assert!(
        e.to_string().contains("model-a/sebx-taxonomy.toml:2"),
        "{e}"
    );
}

fn suggest(v: Option<Verdict>, kinds: &[&str], timed_out: bool, found: bool) -> Option<String> {
    suggest_category(v, kinds, timed_out, found).map(|c| c.0)
}

#[test]
fn suggestion_rules() {
    use Verdict::*;
    let s = |x: &str| Some(x.to_string());
    assert_eq!(suggest(Some(Right), &["numpy_import"], false, true), None);
    assert_eq!(
        suggest(Some(UseNumpy), &["numpy_import"], false, true),
        s("numpy_import")
    );
    assert_eq!(
        suggest(Some(ExeError), &["numpy_name_on_zwc"], false, true),
        s("numpy_name_on_zwc")
    );
    assert_eq!(
        suggest(Some(ExeError), &["unknown_zwc_name"], false, true),
        s("invented_zwc_name")
    );
    assert_eq!(
        suggest(Some(ExeError), &["array_method"], false, true),
        s("numpy_method_on_zwcarray")
    );
    // A NumPy name on zwc is the more specific diagnosis than an off-task call.
    assert_eq!(
        suggest(
            Some(ExeError),
            &["off_task_function", "numpy_name_on_zwc"],
            false,
            true
        ),
        s("numpy_name_on_zwc")
    );
    assert_eq!(
        suggest(Some(ExeError), &["off_task_function"], false, true),
        s("wrong_zwc_function")
    );
    assert_eq!(
        suggest(Some(ExeError), &["numpy_attribute"], false, true),
        s("numpy_import")
    );
    assert_eq!(suggest(Some(ExeError), &[], false, true), None);
    assert_eq!(
        suggest(Some(ExeError), &["off_task_function"], true, true),
        s("timeout")
    );
    assert_eq!(suggest(Some(WithoutZwc), &[], false, false), s("no_code"));
    assert_eq!(
        suggest(Some(WithoutZwc), &["syntax_error"], false, true),
        s("no_code")
    );
    assert_eq!(
        suggest(Some(WithoutZwc), &["numpy_import"], false, true),
        s("not_using_zwc")
    );
    assert_eq!(
        suggest(Some(ResultError), &[], false, true),
        s("logic_error")
    );
    assert_eq!(
        suggest(Some(ResultError), &["off_task_function"], false, true),
        s("wrong_zwc_function")
    );
    assert_eq!(
        suggest(Some(ResultError), &["array_method"], false, true),
        s("numpy_method_on_zwcarray")
    );
    assert_eq!(suggest(None, &[], false, false), s("no_code"));
    assert_eq!(
        suggest(None, &["unknown_zwc_name"], false, true),
        s("invented_zwc_name")
    );
    assert_eq!(suggest(None, &[], false, true), None);
}

#[test]
fn taxonomy_suggest_drops_categories_it_does_not_have() {
    let custom = Taxonomy::parse(TWO, None).expect("valid");
    assert!(
        custom
            .suggest(Some(Verdict::UseNumpy), &[], false, true)
            .is_none()
    );
    let default = Taxonomy::default_set();
    let c = default
        .suggest(Some(Verdict::UseNumpy), &[], false, true)
        .expect("suggestion");
    assert_eq!(c.label, "NumPy import");
    assert_eq!(c.key, Some('1'));
}
