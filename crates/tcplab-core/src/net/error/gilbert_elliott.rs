//! Gilbert-Elliott errors: a two-state Markov chain (good, bad) stepped once per transmitted
//! packet. A packet is lost with probability `loss_good` or `loss_bad` according to the
//! current state; then the state moves good → bad with probability `p_gb` or bad → good with
//! probability `p_bg`. The chain starts in the good state.
//!
//! Long-run loss rate: `pi_bad * loss_bad + (1 - pi_bad) * loss_good` with
//! `pi_bad = p_gb / (p_gb + p_bg)`; with `loss_bad = 1`, `loss_good = 0` the losses come in
//! bursts of mean length `1 / p_bg` packets (tested below).
//!
//! Random numbers: stream `Stream::LinkError` with the link's index; per packet one draw
//! for the loss when the state's loss probability is strictly between 0 and 1 (none when
//! it is 0 or 1), then one draw for the transition.

use super::{check_prob, ErrorCx, ErrorModel};
use crate::config::ScenarioError;
use crate::rng::{SimRng, Stream};
use schemars::JsonSchema;
use serde::Deserialize;

/// `{ model = "gilbert_elliott", p_gb = 0.01, p_bg = 0.3 }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    /// Probability of moving from the good to the bad state, per packet, in [0, 1].
    pub p_gb: f64,
    /// Probability of moving from the bad to the good state, per packet, in (0, 1].
    pub p_bg: f64,
    /// Loss probability in the good state, in [0, 1] (default 0).
    #[serde(default)]
    pub loss_good: f64,
    /// Loss probability in the bad state, in [0, 1] (default 1).
    #[serde(default = "one")]
    pub loss_bad: f64,
    /// Where the model acts: "after_link" (the default: on transmitted packets) or
    /// "before_queue" (on arriving packets; a lost one takes no buffer space or link time).
    #[serde(default)]
    pub placement: super::Placement,
}

fn one() -> f64 {
    1.0
}

impl GilbertElliottSpec {
    pub fn build(&self, field: &str, cx: &ErrorCx) -> Result<ErrorModel, ScenarioError> {
        check_prob(format!("{field}.p_gb"), self.p_gb, false)?;
        check_prob(format!("{field}.p_bg"), self.p_bg, false)?;
        if self.p_bg == 0.0 {
            return Err(ScenarioError::new(
                format!("{field}.p_bg"),
                "must be positive (with 0 the bad state would never end)",
            ));
        }
        check_prob(format!("{field}.loss_good"), self.loss_good, false)?;
        check_prob(format!("{field}.loss_bad"), self.loss_bad, false)?;
        Ok(ErrorModel::GilbertElliott(Box::new(GilbertElliott::new(
            self.p_gb,
            self.p_bg,
            self.loss_good,
            self.loss_bad,
            SimRng::derive(cx.seed, Stream::LinkError, cx.link),
        ))))
    }
}

#[derive(Clone, Debug)]
pub struct GilbertElliott {
    p_gb: f64,
    p_bg: f64,
    loss_good: f64,
    loss_bad: f64,
    bad: bool,
    rng: SimRng,
}

impl GilbertElliott {
    /// The stream the state changes and losses are drawn from (`run.stochastic`).
    pub(crate) fn rng(&self) -> &SimRng {
        &self.rng
    }
}

impl GilbertElliott {
    pub fn new(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, rng: SimRng) -> Self {
        GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
            bad: false,
            rng,
        }
    }

    /// Whether the chain is in the bad state (for the next packet).
    pub fn is_bad(&self) -> bool {
        self.bad
    }

    #[inline]
    pub fn lost(&mut self) -> bool {
        let l = if self.bad {
            self.loss_bad
        } else {
            self.loss_good
        };
        let lost = if l <= 0.0 {
            false
        } else if l >= 1.0 {
            true
        } else {
            self.rng.next_f64() < l
        };
        let p = if self.bad { self.p_bg } else { self.p_gb };
        if self.rng.next_f64() < p {
            self.bad = !self.bad;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(p_gb: f64, p_bg: f64, lg: f64, lb: f64, seed: u64) -> GilbertElliott {
        GilbertElliott::new(
            p_gb,
            p_bg,
            lg,
            lb,
            SimRng::derive(seed, Stream::LinkError, 0),
        )
    }

    /// Asymptotic variance per packet of the loss indicator's mean: the Bernoulli noise given
    /// the states plus the autocorrelated state term (lambda = 1 - p_gb - p_bg).
    fn var_per_packet(p_gb: f64, p_bg: f64, lg: f64, lb: f64) -> f64 {
        let pb = p_gb / (p_gb + p_bg);
        let pg = 1.0 - pb;
        let lam = 1.0 - p_gb - p_bg;
        pg * lg * (1.0 - lg)
            + pb * lb * (1.0 - lb)
            + (lb - lg).powi(2) * pb * pg * (1.0 + lam) / (1.0 - lam)
    }

    #[test]
    fn long_run_loss_rate_matches_stationary_distribution() {
        let n = 2_000_000u64;
        for (i, &(p_gb, p_bg, lg, lb)) in [
            (0.01, 0.3, 0.0, 1.0),
            (0.05, 0.2, 0.01, 0.5),
            (0.2, 0.6, 0.1, 0.9),
        ]
        .iter()
        .enumerate()
        {
            let mut m = chain(p_gb, p_bg, lg, lb, 11 + i as u64);
            let lost = (0..n).filter(|_| m.lost()).count() as f64;
            let rate = lost / n as f64;
            let pb = p_gb / (p_gb + p_bg);
            let want = pb * lb + (1.0 - pb) * lg;
            let sigma = (var_per_packet(p_gb, p_bg, lg, lb) / n as f64).sqrt();
            assert!(
                (rate - want).abs() < 4.0 * sigma,
                "case {i}: rate {rate} want {want} sigma {sigma}"
            );
            // The tolerance is tight enough to tell the model from plain Bernoulli at the
            // bad-state rate or from a chain that never leaves the good state.
            assert!(4.0 * sigma < want / 10.0, "case {i}: test too weak");
        }
    }

    #[test]
    fn loss_bursts_have_mean_length_one_over_p_bg() {
        for (i, &(p_gb, p_bg)) in [(0.01, 0.3), (0.05, 0.5), (0.002, 0.1)].iter().enumerate() {
            let mut m = chain(p_gb, p_bg, 0.0, 1.0, 40 + i as u64);
            let (mut bursts, mut in_burst, mut total) = (0u64, false, 0u64);
            // Count complete bursts until there are enough for a tight estimate.
            while bursts < 50_000 {
                let l = m.lost();
                if l {
                    total += 1;
                    in_burst = true;
                } else if in_burst {
                    bursts += 1;
                    in_burst = false;
                }
            }
            let mean = total as f64 / bursts as f64;
            let want = 1.0 / p_bg;
            // Burst length is geometric on {1, 2, ...}: variance (1 - p) / p^2.
            let sigma = ((1.0 - p_bg) / (p_bg * p_bg) / bursts as f64).sqrt();
            assert!(
                (mean - want).abs() < 4.0 * sigma,
                "case {i}: mean burst {mean} want {want} sigma {sigma}"
            );
        }
    }

    #[test]
    fn zero_and_one_loss_states_draw_only_for_transitions() {
        // With loss_bad = 1 and loss_good = 0 a packet is lost exactly when the chain is bad.
        let mut m = chain(0.1, 0.4, 0.0, 1.0, 3);
        for _ in 0..10_000 {
            let bad = m.is_bad();
            assert_eq!(m.lost(), bad);
        }
    }
}
