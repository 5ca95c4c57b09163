//! The one table of finding kinds: for each kind its JSON name, its label, its family, its
//! usual severity, what it means and what the official scorers do with it, and the label
//! category it suggests for each verdict. Everything that knows a kind (the analysis, the
//! category suggestion, the figures' bit sets, `analyze`'s JSON, the explorer's filters)
//! reads this table, so adding a kind is one entry here (and the code that finds it).
//! It lives in `model` because the taxonomy (also `model`) suggests categories from it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Changes the verdict or crashes the program.
    Error,
    /// Would crash the program if the value is what it most likely is (a ZWCArray), but
    /// the analysis cannot be sure; never counted as an error.
    Possible,
    /// Worth knowing, but the official grader does not act on it.
    Warning,
    Hint,
}

/// What a kind of finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// A wrong name where a zwc name belongs: a NumPy name or an invented one (what
    /// `sebx stats` tabulates as wrong names).
    WrongName,
    /// NumPy imported the way the official check sees.
    Numpy,
    /// A hint about the code (a zwc function the task did not select).
    Hint,
    /// The response has no gradable code.
    Code,
    /// A way both official scorers can be paid without internalizing zwc.
    Loophole,
}

impl Family {
    /// The family a finding read from old JSON (without one) is given until its kind says.
    pub fn hint() -> Family {
        Family::Hint
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Family::WrongName => "wrong_name",
            Family::Numpy => "numpy",
            Family::Hint => "hint",
            Family::Code => "code",
            Family::Loophole => "loophole",
        }
    }
}

/// Everything the program knows of one finding kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindSpec {
    pub kind: FindingKind,
    /// The snake_case name in JSON, CSV columns and label-suggestion rules.
    pub name: &'static str,
    /// Short label for people (status bar, Code pane, tables).
    pub label: &'static str,
    pub family: Family,
    /// The severity its findings usually have (a finding may say `possible` instead).
    pub severity: Severity,
    /// Can only be judged against the zwc API (without one it would be noise).
    pub needs_api: bool,
    /// Rank in the order a finding filter cycles in (the ones that break a program first).
    pub importance: u8,
    /// Rank among the kinds when a category is suggested (first match wins).
    pub suggest_rank: u8,
    /// The default-taxonomy category it suggests for an `exe_error` (or ungraded) rollout.
    pub exe_error_category: Option<&'static str>,
    /// ... for a `result_error` rollout.
    pub result_error_category: Option<&'static str>,
    /// ... for a `right` rollout (a loophole: paid without zwc).
    pub right_category: Option<&'static str>,
    /// What it means and what the official scorers do with it (help text, legends).
    pub about: &'static str,
}

macro_rules! finding_kinds {
    ($( $(#[$doc:meta])* $variant:ident => $spec:expr ),* $(,)?) => {
        /// What kind of problem a finding is (one row of [`KINDS`] each).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum FindingKind {
            $( $(#[$doc])* $variant, )*
        }

        /// The table, in declaration order (the order of JSON and CSV columns).
        pub const KINDS: [KindSpec; [$(FindingKind::$variant),*].len()] = [
            $( { let mut s: KindSpec = $spec; s.kind = FindingKind::$variant; s }, )*
        ];

        impl FindingKind {
            /// Every kind, in declaration order.
            pub const ALL: [FindingKind; KINDS.len()] = [$(FindingKind::$variant),*];
        }
    };
}

/// A spec with the defaults most kinds share; `kind` is filled in by the table.
const fn spec(name: &'static str, label: &'static str, family: Family) -> KindSpec {
    KindSpec {
        kind: FindingKind::NoCode,
        name,
        label,
        family,
        severity: Severity::Error,
        needs_api: false,
        importance: u8::MAX,
        suggest_rank: u8::MAX,
        exe_error_category: None,
        result_error_category: None,
        right_category: None,
        about: "",
    }
}

finding_kinds! {
    /// Any import of numpy the official NumPy check sees (verdict `use_numpy`).
    NumpyImport => KindSpec {
        importance: 3,
        suggest_rank: 3,
        exe_error_category: Some("numpy_import"),
        about: "`import numpy` / `from numpy import …` anywhere in the program: the official NumPy check fails it (use_numpy, reward 0)",
        ..spec("numpy_import", "numpy import", Family::Numpy)
    },
    /// `np.x` / `numpy.x`, or a name imported from numpy, used in the code.
    NumpyAttribute => KindSpec {
        importance: 4,
        suggest_rank: 4,
        exe_error_category: Some("numpy_import"),
        about: "a NumPy name (`np.mean`) used in the code: without an import it is a NameError at run time",
        ..spec("numpy_attribute", "numpy attribute", Family::WrongName)
    },
    /// A NumPy name used on zwc (`zwc.mean`); the suggestion is the real zwc name.
    NumpyNameOnZwc => KindSpec {
        needs_api: true,
        importance: 1,
        suggest_rank: 0,
        exe_error_category: Some("numpy_name_on_zwc"),
        about: "a NumPy name called on zwc (`zwc.mean`), which zwc does not define: an AttributeError at run time",
        ..spec("numpy_name_on_zwc", "NumPy name on zwc", Family::WrongName)
    },
    /// `zwc.x` that is neither a zwc nor a NumPy name.
    UnknownZwcName => KindSpec {
        needs_api: true,
        importance: 0,
        suggest_rank: 1,
        exe_error_category: Some("invented_zwc_name"),
        about: "a zwc name that is neither zwc's nor NumPy's (invented): an AttributeError at run time",
        ..spec("unknown_zwc_name", "unknown zwc name", Family::WrongName)
    },
    /// A NumPy method/attribute or an operator that ZWCArray lacks, used on a ZWCArray.
    ArrayMethod => KindSpec {
        importance: 2,
        suggest_rank: 2,
        exe_error_category: Some("numpy_method_on_zwcarray"),
        result_error_category: Some("numpy_method_on_zwcarray"),
        about: "a NumPy method or operator a ZWCArray refuses (`.tolist()`, `-a`): an AttributeError or TypeError at run time",
        ..spec("array_method", "array method", Family::WrongName)
    },
    /// A real zwc function outside the task's selected functions (a hint).
    OffTaskFunction => KindSpec {
        severity: Severity::Hint,
        needs_api: true,
        importance: 5,
        suggest_rank: 5,
        exe_error_category: Some("wrong_zwc_function"),
        result_error_category: Some("wrong_zwc_function"),
        about: "a real zwc function the task did not select: a hint, the scorers do not act on it",
        ..spec("off_task_function", "off-task function", Family::Hint)
    },
    /// The response has no ```` ```python ```` block: the grader runs empty code.
    NoCode => KindSpec {
        importance: 6,
        about: "no ```python block: the grader runs empty code (without_zwc, reward 0)",
        ..spec("no_code", "no code block", Family::Code)
    },
    /// NumPy reached where the official NumPy check cannot see it (`__import__`,
    /// `importlib`, `exec` of an import, `zwc._np`, `sys.modules`).
    NumpyBackdoor => KindSpec {
        severity: Severity::Warning,
        importance: 7,
        suggest_rank: 6,
        right_category: Some("loophole"),
        about: "NumPy reached where the official NumPy check does not look (`__import__(\"numpy\")`, `importlib`, `exec(\"import numpy\")`, zwc's private `zwc._np`, `sys.modules`): the verdict stays, both scorers pay",
        ..spec("numpy_backdoor", "NumPy backdoor", Family::Loophole)
    },
    /// The returned value does not depend on a meaningful zwc call.
    HollowZwc => KindSpec {
        severity: Severity::Warning,
        importance: 8,
        suggest_rank: 7,
        right_category: Some("loophole"),
        about: "the zwc calls that pass the official zwc check carry nothing the answer needs (results thrown away, an unused default argument, or only `np.array`'s zwc name around a plain-Python answer): both scorers pay",
        ..spec("hollow_zwc", "hollow zwc use", Family::Loophole)
    },
    /// The program writes what the harness would print, or leaves before it prints.
    ForgedOutput => KindSpec {
        severity: Severity::Warning,
        importance: 9,
        suggest_rank: 8,
        right_category: Some("loophole"),
        about: "the program writes the harness's separator, takes over stdout, or prints and exits before the harness prints: the scorers compare the program's own text",
        ..spec("forged_output", "forged output", Family::Loophole)
    },
    /// The entry returns text the official comparison evaluates as an expression.
    GraderEval => KindSpec {
        severity: Severity::Warning,
        importance: 10,
        suggest_rank: 9,
        right_category: Some("loophole"),
        about: "the entry returns text the official comparison evaluates as an expression (`f\"{a}/{b}\"`, `\"np.mean(...)\"`): the judge's `eval` computes the answer, the program does not; both scorers pay",
        ..spec("grader_eval", "grader eval", Family::Loophole)
    },
    /// Printed code changed the official checker's lasting state (its class, its module,
    /// the builtins), seen when the checker ran it (`grade::judge_eval`).
    JudgeTampered => KindSpec {
        importance: 11,
        suggest_rank: 10,
        right_category: Some("loophole"),
        result_error_category: Some("loophole"),
        about: "printed code that patched the official checker (a method or attribute of its class or module, a builtin): the official scorers keep the change for every later line they judge in the same process; sebx judges each rollout afresh",
        ..spec("judge_tampered", "judge tampered", Family::Loophole)
    },
    /// The official zwc check read names the run never used as zwc: a stand-in module
    /// under the name `zwc`, or an entry whose first `def` (the one the check reads) is
    /// not the one the harness calls. Found by running only.
    ZwcCheckFooled => KindSpec {
        severity: Severity::Warning,
        importance: 12,
        suggest_rank: 11,
        right_category: Some("loophole"),
        about: "the official zwc check matched names the run never used as zwc: a stand-in module named `zwc` (`sys.modules[\"zwc\"] = ...`), or a later `def` of the entry that the harness calls instead of the first one the check read; no genuine zwc function ran in the entry's calls: both scorers pay",
        ..spec("zwc_check_fooled", "zwc check fooled", Family::Loophole)
    },
}

impl FindingKind {
    /// The kinds that are a wrong name standing where a zwc name belongs: a NumPy name
    /// (`np.mean`, `zwc.mean`, `.tolist()` on a ZWCArray) or an invented one.
    pub const WRONG_NAMES: [FindingKind; count_family(Family::WrongName)] =
        of_family(Family::WrongName);

    /// Every kind, the ones that break a program first: the order a finding filter cycles in.
    pub const BY_IMPORTANCE: [FindingKind; KINDS.len()] = by_importance();

    /// This kind's row of the table.
    pub const fn spec(self) -> &'static KindSpec {
        &KINDS[self as usize]
    }

    /// Short label for people (status bar, Code pane).
    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    pub fn family(self) -> Family {
        self.spec().family
    }

    /// Whether it can only be judged against the zwc API (without one it would be noise).
    pub fn needs_api(self) -> bool {
        self.spec().needs_api
    }

    /// The kind named `name` in JSON.
    pub fn from_name(name: &str) -> Option<FindingKind> {
        KINDS.iter().find(|s| s.name == name).map(|s| s.kind)
    }

    /// The kind's bit in a set of kinds ([`KindSet`]).
    pub const fn bit(self) -> KindSet {
        1 << (self as u32)
    }
}

/// A set of finding kinds, one bit each ([`FindingKind::bit`]); room for 32 kinds.
pub type KindSet = u32;

const _: () = assert!(KINDS.len() <= KindSet::BITS as usize, "widen KindSet");

/// The loophole family's bits: a rollout went through a loophole when its set meets them.
pub const LOOPHOLE_BITS: KindSet = family_bits(Family::Loophole);

/// The bits of every kind of `family`.
pub const fn family_bits(family: Family) -> KindSet {
    let mut bits = 0;
    let mut i = 0;
    while i < KINDS.len() {
        if KINDS[i].family as u8 == family as u8 {
            bits |= FindingKind::ALL[i].bit();
        }
        i += 1;
    }
    bits
}

const fn count_family(family: Family) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < KINDS.len() {
        if KINDS[i].family as u8 == family as u8 {
            n += 1;
        }
        i += 1;
    }
    n
}

const fn of_family<const N: usize>(family: Family) -> [FindingKind; N] {
    let mut out = [FindingKind::NoCode; N];
    let (mut i, mut n) = (0, 0);
    while i < KINDS.len() {
        if KINDS[i].family as u8 == family as u8 {
            out[n] = FindingKind::ALL[i];
            n += 1;
        }
        i += 1;
    }
    out
}

const fn by_importance() -> [FindingKind; KINDS.len()] {
    let mut out = FindingKind::ALL;
    // Insertion sort by importance (stable: ties keep declaration order).
    let mut i = 1;
    while i < out.len() {
        let mut j = i;
        while j > 0 && KINDS[out[j - 1] as usize].importance > KINDS[out[j] as usize].importance {
            let t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    out
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FindingKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FindingKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FindingKind, D::Error> {
        let name = String::deserialize(d)?;
        FindingKind::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = KINDS.iter().map(|s| s.name).collect();
            serde::de::Error::custom(format!(
                "unknown finding kind `{name}` (known: {})",
                known.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        for (i, s) in KINDS.iter().enumerate() {
            assert_eq!(s.kind as usize, i, "{}", s.name);
            assert_eq!(FindingKind::from_name(s.name), Some(s.kind));
            assert!(!s.about.is_empty(), "{} says what it is", s.name);
            assert!(
                s.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{}",
                s.name
            );
            let json = serde_json::to_string(&s.kind).expect("json");
            assert_eq!(json, format!("\"{}\"", s.name));
            let back: FindingKind = serde_json::from_str(&json).expect("back");
            assert_eq!(back, s.kind);
        }
        let mut names: Vec<&str> = KINDS.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), KINDS.len(), "names are unique");
    }

    #[test]
    fn derived_orders_follow_the_table() {
        assert_eq!(
            FindingKind::WRONG_NAMES,
            [
                FindingKind::NumpyAttribute,
                FindingKind::NumpyNameOnZwc,
                FindingKind::UnknownZwcName,
                FindingKind::ArrayMethod,
            ]
        );
        assert_eq!(FindingKind::BY_IMPORTANCE[0], FindingKind::UnknownZwcName);
        // The loopholes break nothing: they come last in the filter's cycle.
        assert_eq!(
            FindingKind::BY_IMPORTANCE[FindingKind::BY_IMPORTANCE.len() - 7..],
            [
                FindingKind::NoCode,
                FindingKind::NumpyBackdoor,
                FindingKind::HollowZwc,
                FindingKind::ForgedOutput,
                FindingKind::GraderEval,
                FindingKind::JudgeTampered,
                FindingKind::ZwcCheckFooled,
            ]
        );
        let mut bits = 0;
        for k in FindingKind::ALL {
            assert_eq!(bits & k.bit(), 0);
            bits |= k.bit();
        }
        assert!(serde_json::from_str::<FindingKind>("\"nope\"").is_err());
    }
}
