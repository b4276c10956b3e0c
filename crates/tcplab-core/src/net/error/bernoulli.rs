//! Bernoulli errors: each transmitted packet is lost independently with probability `p`.

use super::{check_prob, ErrorCx, ErrorModel};
use crate::config::ScenarioError;
use crate::rng::{SimRng, Stream};
use schemars::JsonSchema;
use serde::Deserialize;

/// `{ model = "bernoulli", p = 0.01 }` (same as `loss = 0.01`).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BernoulliSpec {
    /// Loss probability per transmitted packet, in [0, 1).
    pub p: f64,
    /// Where the model acts: "after_link" (the default: on transmitted packets) or
    /// "before_queue" (on arriving packets; a lost one takes no buffer space or link time).
    #[serde(default)]
    pub placement: super::Placement,
}

impl BernoulliSpec {
    pub fn build(&self, field: &str, cx: &ErrorCx) -> Result<ErrorModel, ScenarioError> {
        check_prob(format!("{field}.p"), self.p, true)?;
        // The link's loss stream, exactly as `loss = p` uses it.
        let rng = SimRng::derive(cx.seed, Stream::LinkLoss, cx.link);
        Ok(ErrorModel::from_loss(self.p, rng))
    }
}

#[derive(Clone, Debug)]
pub struct Bernoulli {
    p: f64,
    rng: SimRng,
}

impl Bernoulli {
    /// The stream the losses are drawn from (`run.stochastic`).
    pub(crate) fn rng(&self) -> &SimRng {
        &self.rng
    }

    pub fn new(p: f64, rng: SimRng) -> Self {
        Bernoulli { p, rng }
    }

    #[inline]
    pub fn lost(&mut self) -> bool {
        self.rng.bernoulli(self.p)
    }
}
