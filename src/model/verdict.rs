use serde::{Deserialize, Serialize};

/// The five official SE-Bench verdicts, in the order the grader decides them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Static zwc-usage check failed (or no code, or a syntax error). Official code 4.
    WithoutZwc,
    /// The program imports numpy. Official code 2.
    UseNumpy,
    /// The program printed nothing on stdout. Official code 3.
    ExeError,
    /// Every expected result matched. Official code 1.
    Right,
    /// Ran and printed, but some result did not match. Official code 0.
    ResultError,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [
        Verdict::Right,
        Verdict::ResultError,
        Verdict::ExeError,
        Verdict::UseNumpy,
        Verdict::WithoutZwc,
    ];

    /// The official numeric code.
    pub fn code(self) -> u8 {
        match self {
            Verdict::ResultError => 0,
            Verdict::Right => 1,
            Verdict::UseNumpy => 2,
            Verdict::ExeError => 3,
            Verdict::WithoutZwc => 4,
        }
    }

    /// The official snake_case name (`right`, `result_error`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::WithoutZwc => "without_zwc",
            Verdict::UseNumpy => "use_numpy",
            Verdict::ExeError => "exe_error",
            Verdict::Right => "right",
            Verdict::ResultError => "result_error",
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
