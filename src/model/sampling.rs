//! Seeded randomness that must give the same numbers on every machine and version: the
//! bootstrap of run statistics and the random labelling order. A hand-written SplitMix64
//! (ten lines) keeps a fixed seed's output fixed forever, which a general RNG crate does
//! not promise across releases.

use super::rollout::RolloutId;

/// Seed of the random labelling order and of the bootstrap when none is given.
pub const DEFAULT_SEED: u64 = 0x5EB5_2026;

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and good enough for resampling.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (`n > 0`), by Lemire's multiply-shift (bias below 2^-32
    /// for the sizes used here).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Where a rollout falls in the seeded random labelling order: smaller comes first. The key
/// depends only on the seed and the rollout's id, so the order of a set of rollouts does not
/// change when the file is reordered or other rollouts are added.
pub fn label_order_key(seed: u64, id: &RolloutId) -> u64 {
    // FNV-1a of the id, then mixed with the seed.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.0.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    SplitMix64::new(h ^ seed.rotate_left(17)).next_u64()
}

/// How a labelling order is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LabelOrder {
    /// The order of the file (the list as shown).
    #[default]
    File,
    /// A seeded random order, so the labelled failures are a random sample.
    Random,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // Reference values of SplitMix64 seeded with 0 (as published with the algorithm).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [0usize; 5];
        for _ in 0..1000 {
            seen[r.below(5)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 150), "{seen:?}");
    }

    #[test]
    fn order_key_depends_on_seed_and_id_only() {
        let a = RolloutId("abc".into());
        let b = RolloutId("abd".into());
        assert_eq!(label_order_key(1, &a), label_order_key(1, &a));
        assert_ne!(label_order_key(1, &a), label_order_key(2, &a));
        assert_ne!(label_order_key(1, &a), label_order_key(1, &b));
    }
}
