//! How long the responses of a training step are, and how many were cut off (issue 30). A
//! response that grows step after step, empty outputs (aborted generation requests) and
//! responses that end inside an open code block (truncated at the response length limit)
//! are what a researcher reads a run's reward drop by; each is measured once per sample
//! ([`ResponseShape`], kept in the sample's facts) and summed per step ([`LengthFigures`]).
//!
//! - length: characters (Unicode scalar values) of the response as dumped;
//! - tokens, when a tokenizer is given (`--tokenizer tokenizer.json`,
//!   [`crate::model::tokenizer`]): the response's tokens, no special tokens added;
//!   `response_tokens_*` are over the responses it could encode, `null` without one;
//! - `response_chars_p90`, `response_tokens_p90`: the nearest-rank 90th percentile (the
//!   smallest length at least 90% of the step's responses do not exceed);
//! - empty: nothing but whitespace;
//! - open fence: an odd number of ```` ``` ```` in the response, so its last code block never
//!   closes (the grader's pattern finds no block there).

use serde::{Deserialize, Serialize};

use crate::model::tokenizer::TokenCounter;

/// What the step figures keep of one response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseShape {
    /// Characters.
    pub chars: u32,
    /// Tokens (`None`: no tokenizer given, or it failed on this response).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u32>,
    /// Empty or whitespace only.
    pub empty: bool,
    /// Ends inside an open code block (an odd number of fences).
    pub open_fence: bool,
}

impl ResponseShape {
    /// The shape of `response`, its tokens counted by `tokenizer` when one is given.
    pub fn of(response: &str, tokenizer: Option<&TokenCounter>) -> ResponseShape {
        ResponseShape {
            chars: u32::try_from(response.chars().count()).unwrap_or(u32::MAX),
            tokens: tokenizer.and_then(|t| t.count(response)),
            empty: response.trim().is_empty(),
            open_fence: response.matches("```").count() % 2 == 1,
        }
    }
}

/// A step's response lengths (flattened into its row: these are `stats --by step`'s keys).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LengthFigures {
    /// Mean characters per response (`None`: no sample).
    pub response_chars_mean: Option<f64>,
    /// The 90th percentile of characters per response (`None`: no sample).
    pub response_chars_p90: Option<u32>,
    /// Mean tokens per response (`None`: no tokenizer given, or no response it encoded).
    pub response_tokens_mean: Option<f64>,
    /// The 90th percentile of tokens per response (`None` as for the mean).
    pub response_tokens_p90: Option<u32>,
    /// Empty outputs (verl dumps an aborted request so).
    pub empty_outputs: usize,
    /// Responses ending inside an open code block (truncated).
    pub open_fence_responses: usize,
}

/// The shapes of one step's responses, as they are counted.
#[derive(Debug, Default)]
pub struct LengthAcc {
    chars: Vec<u32>,
    tokens: Vec<u32>,
    empty: usize,
    open_fence: usize,
}

impl LengthAcc {
    pub fn add(&mut self, shape: ResponseShape) {
        self.chars.push(shape.chars);
        self.tokens.extend(shape.tokens);
        self.empty += usize::from(shape.empty);
        self.open_fence += usize::from(shape.open_fence);
    }

    pub fn figures(self) -> LengthFigures {
        let (chars_mean, chars_p90) = mean_p90(self.chars);
        let (tokens_mean, tokens_p90) = mean_p90(self.tokens);
        LengthFigures {
            response_chars_mean: chars_mean,
            response_chars_p90: chars_p90,
            response_tokens_mean: tokens_mean,
            response_tokens_p90: tokens_p90,
            empty_outputs: self.empty,
            open_fence_responses: self.open_fence,
        }
    }
}

/// The mean and the nearest-rank 90th percentile (the ⌈0.9·n⌉-th smallest) of `values`
/// (`None`: no value).
fn mean_p90(mut values: Vec<u32>) -> (Option<f64>, Option<u32>) {
    let n = values.len();
    if n == 0 {
        return (None, None);
    }
    let mean = values.iter().map(|&c| f64::from(c)).sum::<f64>() / n as f64;
    values.sort_unstable();
    (Some(mean), Some(values[(n * 9).div_ceil(10) - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_responses() {
        let of = |r| ResponseShape::of(r, None);
        assert_eq!(
            of("héllo"),
            ResponseShape {
                chars: 5,
                tokens: None,
                empty: false,
                open_fence: false
            }
        );
        assert!(of("").empty);
        assert!(of(" \n\t").empty);
        assert!(of("```python\nx = 1\n```\nthen ```python\ny").open_fence);
        assert!(!of("```python\nx = 1\n```").open_fence);
    }

    #[test]
    fn mean_and_nearest_rank_p90() {
        let mut acc = LengthAcc::default();
        for c in 1..=10 {
            acc.add(ResponseShape {
                chars: c * 10,
                // Tokens for all but the first: their figures are over the nine.
                tokens: (c > 1).then_some(c),
                empty: c == 1,
                open_fence: c > 8,
            });
        }
        let f = acc.figures();
        assert_eq!(f.response_chars_mean, Some(55.0));
        // ⌈9⌉-th of 10: 90; of 11 values it would be the ⌈9.9⌉ = 10th.
        assert_eq!(f.response_chars_p90, Some(90));
        // 2..=10: mean 6, the ⌈8.1⌉ = 9th of nine is 10.
        assert_eq!(f.response_tokens_mean, Some(6.0));
        assert_eq!(f.response_tokens_p90, Some(10));
        assert_eq!((f.empty_outputs, f.open_fence_responses), (1, 2));
        let mut one = LengthAcc::default();
        one.add(ResponseShape::of("abc", None));
        let f = one.figures();
        assert_eq!(f.response_chars_p90, Some(3));
        assert_eq!(
            (f.response_tokens_mean, f.response_tokens_p90),
            (None, None)
        );
        assert_eq!(LengthAcc::default().figures().response_chars_mean, None);
    }
}
