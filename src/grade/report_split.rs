//! A report as the score cache files it: split into what its program decides and what is
//! the rollout's own, so that samples sharing a program share one stored report.
//!
//! Training samples repeat their code far more than their prose: 200,000 samples of a
//! GRPO run hold a few thousand distinct programs. What a report says about the program
//! (the code, the static and NumPy checks, the run, every case, the reward's steps) is the
//! same for each of them; what differs is where the code sits in the response (the graded
//! block's byte span, how many blocks there were, the reward's block lines) and the sentence
//! naming those lines (`reward_reason`), plus the file, line and id a lookup sets anyway.
//! [`split`] takes the latter out as a [`Place`] (a few dozen bytes) and leaves the *body*,
//! which the cache files once under the hash of its stored form ([`body_key`]); [`join`]
//! puts a report back together. A field not listed here that differs from sample to sample
//! only makes the bodies differ (less sharing, never a wrong report).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::grade::report::GradeReport;

/// What of a report is the rollout's own (see the module doc). Serialized with one-letter
/// names, unset fields left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// Byte range of the graded code in the response.
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    pub span: Option<(usize, usize)>,
    /// Python blocks the response has.
    #[serde(rename = "n", default, skip_serializing_if = "is_zero")]
    pub blocks_found: usize,
    /// The reward's scored block, as response lines.
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub reward_block_lines: Option<(usize, usize)>,
    /// Python blocks the reward saw.
    #[serde(rename = "m", default, skip_serializing_if = "is_zero")]
    pub reward_blocks_found: usize,
    /// Why reward and verdict disagree (names response lines).
    #[serde(rename = "w", default, skip_serializing_if = "Option::is_none")]
    pub reward_reason: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `report` as its place and its body (the body has no file, line or id).
pub fn split(report: &GradeReport) -> (Place, GradeReport) {
    let mut body = report.clone();
    body.source = String::new();
    body.line = 0;
    body.id = None;
    let mut place = Place {
        span: body.extraction.span.take(),
        blocks_found: std::mem::take(&mut body.extraction.blocks_found),
        reward_reason: body.reward_reason.take(),
        ..Place::default()
    };
    if let Some(detail) = body.reward_detail.as_mut() {
        place.reward_block_lines = detail.block_lines.take();
        place.reward_blocks_found = std::mem::take(&mut detail.blocks_found);
    }
    (place, body)
}

/// The report [`split`] took apart (file, line and id are the caller's to set).
pub fn join(place: Place, mut body: GradeReport) -> GradeReport {
    body.extraction.span = place.span;
    body.extraction.blocks_found = place.blocks_found;
    body.reward_reason = place.reward_reason;
    if let Some(detail) = body.reward_detail.as_mut() {
        detail.block_lines = place.reward_block_lines;
        detail.blocks_found = place.reward_blocks_found;
    }
    body
}

/// The key a body's stored form is filed under: a hash of it (128 bits).
pub fn body_key(stored: &[u8]) -> String {
    crate::grade::store::hex(&Sha256::digest(stored)[..16])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::report::RewardReport;
    use crate::model::Verdict;

    fn report(span: (usize, usize), lines: (usize, usize)) -> GradeReport {
        let mut r = GradeReport::load_failure("run.jsonl", 7, "");
        r.load_error = None;
        r.verdict = Some(Verdict::Right);
        r.extraction.found = true;
        r.extraction.code = "def f():\n    return 1\n".to_string();
        r.extraction.span = Some(span);
        r.extraction.blocks_found = 2;
        r.reward = Some(0);
        r.reward_reason = Some(format!("the reward scored lines {}–{}", lines.0, lines.1));
        r.reward_detail = Some(RewardReport {
            block_lines: Some(lines),
            blocks_found: 2,
            ..RewardReport::default()
        });
        r
    }

    #[test]
    fn two_samples_of_one_program_share_a_body_and_join_back_whole() {
        let a = report((10, 40), (3, 5));
        let b = report((900, 930), (40, 42));
        let (pa, ba) = split(&a);
        let (pb, bb) = split(&b);
        assert_ne!(pa, pb);
        let stored = |body: &GradeReport| serde_json::to_vec(body).expect("json");
        assert_eq!(body_key(&stored(&ba)), body_key(&stored(&bb)));
        let mut back = join(pb, bb);
        back.source = b.source.clone();
        back.line = b.line;
        back.id = b.id.clone();
        assert_eq!(back, b);
        // The place is small: a reference's worth, not a report's.
        assert!(serde_json::to_vec(&pa).expect("json").len() < 80);
    }
}
