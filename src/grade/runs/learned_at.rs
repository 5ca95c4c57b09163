//! When a step solves a task or function: at least a share of its graded samples right
//! (`--learned-at`, half by default: one right sample of eight is luck, not learning). The
//! one threshold every course, the heat map's "first step solved" order and the Training
//! screen's course line read ([`super::steps`]); the JSON states it (`"learned_at": 0.5`).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// The share of a step's graded samples that must be right for the step to solve a task or
/// function: in (0, 1].
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct LearnedAt(f64);

impl Default for LearnedAt {
    fn default() -> Self {
        LearnedAt(Self::DEFAULT)
    }
}

impl LearnedAt {
    /// Half of a step's samples.
    pub const DEFAULT: f64 = 0.5;

    /// A threshold, when `share` is in (0, 1].
    pub fn new(share: f64) -> Option<LearnedAt> {
        (share.is_finite() && share > 0.0 && share <= 1.0).then_some(LearnedAt(share))
    }

    /// The share, in (0, 1].
    pub fn share(self) -> f64 {
        self.0
    }

    /// Whether `right` of `graded` samples reach the threshold (a step with no graded sample
    /// solves nothing). A hair of slack so that 3 of 10 reach 0.3 despite binary fractions.
    pub fn solves(self, right: usize, graded: usize) -> bool {
        graded > 0 && right as f64 >= self.0 * graded as f64 - 1e-9
    }

    /// `--learned-at`'s parser: a share (`0.5`) or a percentage (`75%`), in (0, 1].
    pub fn parse(text: &str) -> Result<LearnedAt, String> {
        LearnedAt::new(parse_share(text)?).ok_or_else(|| {
            format!(
                "the share must be above 0 and at most 1 (or 100%), found {text}: it is the part of a step's samples that must be right"
            )
        })
    }
}

/// A share (`0.5`) or a percentage (`75%`) as a number (`0.5`, `0.75`), unchecked.
pub fn parse_share(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (number, scale) = match t.strip_suffix('%') {
        Some(p) => (p.trim(), 100.0),
        None => (t, 1.0),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a share (e.g. 0.5) or a percentage (50%)"))?;
    Ok(value / scale)
}

/// A share as a percentage: `50%`, `37.5%`.
pub fn share_pct(share: f64) -> String {
    let p = share * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round())
    } else {
        format!("{}%", (p * 100.0).round() / 100.0)
    }
}

impl FromStr for LearnedAt {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LearnedAt::parse(s)
    }
}

/// As a percentage: `50%`, `37.5%`.
impl fmt::Display for LearnedAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&share_pct(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_percentages_parse_and_out_of_range_is_refused() {
        for (text, share) in [("0.5", 0.5), ("75%", 0.75), (" 1 ", 1.0), ("37.5 %", 0.375)] {
            assert_eq!(LearnedAt::parse(text).map(LearnedAt::share), Ok(share));
        }
        for bad in ["0", "0%", "1.5", "101%", "-0.2", "NaN", "inf", "half", ""] {
            let e = LearnedAt::parse(bad).expect_err(bad);
            assert!(e.contains(bad.trim()) || bad.is_empty(), "{bad}: {e}");
        }
        assert_eq!(LearnedAt::default().to_string(), "50%");
        assert_eq!(LearnedAt(0.375).to_string(), "37.5%");
    }

    #[test]
    fn three_of_eight_reach_three_eighths_not_half() {
        let at = |s| LearnedAt::new(s).expect("share");
        assert!(at(0.375).solves(3, 8) && at(0.25).solves(3, 8));
        assert!(!at(0.5).solves(3, 8) && at(0.5).solves(4, 8));
        assert!(at(0.3).solves(3, 10) && !at(0.3).solves(2, 10));
        assert!(!at(0.01).solves(0, 0));
        assert!(at(1.0).solves(8, 8) && !at(1.0).solves(7, 8));
    }
}
