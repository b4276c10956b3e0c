//! A deterministic list of packet numbers to lose (for tests): packet n is the n-th packet
//! this direction transmits (1-based; data and acks alike; queue drops are not counted).

use super::{ErrorCx, ErrorModel};
use crate::config::ScenarioError;
use schemars::JsonSchema;
use serde::Deserialize;

/// `{ model = "list", packets = [3, 17] }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSpec {
    /// Packet numbers to lose, 1-based over the packets transmitted on this direction,
    /// strictly increasing.
    pub packets: Vec<u64>,
    /// Where the model acts: "after_link" (the default: on transmitted packets) or
    /// "before_queue" (on arriving packets; a lost one takes no buffer space or link time).
    #[serde(default)]
    pub placement: super::Placement,
}

impl ListSpec {
    pub fn build(&self, field: &str, _cx: &ErrorCx) -> Result<ErrorModel, ScenarioError> {
        let mut prev = 0u64;
        for (i, &n) in self.packets.iter().enumerate() {
            let f = format!("{field}.packets[{i}]");
            if n == 0 {
                return Err(ScenarioError::new(f, "packet numbers start at 1"));
            }
            if n <= prev {
                return Err(ScenarioError::new(
                    f,
                    format!(
                        "{n} is not greater than the previous number {prev}; list packet \
                         numbers in increasing order, each once"
                    ),
                ));
            }
            prev = n;
        }
        Ok(ErrorModel::List(DropList::new(self.packets.clone())))
    }
}

#[derive(Clone, Debug)]
pub struct DropList {
    /// Strictly increasing packet numbers.
    packets: Vec<u64>,
    /// Index of the next listed number not yet reached.
    next: usize,
    /// Packets transmitted so far.
    count: u64,
}

impl DropList {
    pub fn new(packets: Vec<u64>) -> Self {
        DropList {
            packets,
            next: 0,
            count: 0,
        }
    }

    #[inline]
    pub fn lost(&mut self) -> bool {
        self.count += 1;
        if self.packets.get(self.next) == Some(&self.count) {
            self.next += 1;
            true
        } else {
            false
        }
    }
}
