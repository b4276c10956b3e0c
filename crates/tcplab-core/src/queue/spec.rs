//! The parameters of a link direction's queue as a scenario writes them: the discipline,
//! chosen by `type` (each one's parameters live in its own module), and the capacity.

use crate::config::units;
use crate::config::ScenarioError;
use schemars::JsonSchema;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

crate::tagged_enum! {
    #[derive(PartialEq)]
    /// Outgoing queue discipline of a link direction: `queue = { type = "red", … }` (one
    /// line per discipline; each one's parameters live in its own module under `queue/`).
    pub enum QueueSpec, tag "type" {
        /// FIFO that drops arrivals when full (optionally ECN step marking).
        "droptail" => Droptail(crate::queue::droptail::DropTailSpec),
        /// End-host ack priority (seed 000 §4).
        "ackprio" => Ackprio(crate::queue::ackprio::AckPrioSpec),
        /// End-host data/ack bandwidth allocation (seed 000 §6).
        "bwalloc" => Bwalloc(crate::queue::bwalloc::BwallocSpec),
        /// RED on the averaged queue (Floyd & Jacobson 1993).
        "red" => Red(crate::queue::red::RedSpec),
        /// RED on the instantaneous queue (seed 002).
        "red_i" => RedI(crate::queue::red::RedISpec),
        /// CHOKe over RED (Pan, Prabhakar & Psounis 2000).
        "choke" => Choke(crate::queue::choke::ChokeSpec),
        /// Seed 002's CHOKe/RED-I: periodic CHOKe drops, RED-I marks.
        "choke_red_i" => ChokeRedI(crate::queue::choke::ChokeRedISpec),
        /// CoDel (RFC 8289): drops at dequeue on the packets' sojourn time.
        "codel" => Codel(crate::queue::codel::CodelSpec),
        /// FQ-CoDel (RFC 8290): flow hashing, DRR over new and old flows, CoDel per flow.
        "fq_codel" => FqCodel(crate::queue::fq_codel::FqCodelSpec),
        /// PIE (RFC 8033): random early drop steered by the queueing delay.
        "pie" => Pie(crate::queue::pie::PieSpec),
        /// XCP router: explicit per-packet feedback (Katabi, Handley & Rohrs 2002).
        "xcp" => Xcp(crate::queue::xcp::XcpSpec),
    }
}

impl QueueSpec {
    /// The keys profile `p` sets in this queue's table (expansion writes them where the
    /// table does not set them). Each discipline decides in its own file.
    pub fn profile_keys(
        &self,
        p: crate::config::profile::Profile,
    ) -> Vec<(&'static str, serde_json::Value)> {
        match self {
            QueueSpec::Droptail(s) => s.profile_keys(p),
            QueueSpec::Red(s) => s.profile_keys(p),
            _ => Vec::new(),
        }
    }
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail(Default::default())
    }
}

/// The capacity of a queue that names none: 1000 packets.
pub(crate) fn default_limit() -> LimitSpec {
    LimitSpec::Packets(1000)
}

impl LimitSpec {
    /// The queue limit, rejecting a zero one (`field` names the limit).
    pub fn to_limit(self, field: &str) -> Result<crate::queue::Limit, ScenarioError> {
        use crate::queue::Limit;
        match self {
            LimitSpec::Packets(0) | LimitSpec::Bytes(0) => {
                Err(ScenarioError::new(field, "must be positive"))
            }
            LimitSpec::Packets(n) => Ok(Limit::Packets(n)),
            LimitSpec::Bytes(b) => Ok(Limit::Bytes(b)),
            LimitSpec::Unlimited => Ok(Limit::Unlimited),
        }
    }
}

/// Queue capacity: packets (integer, "100p" or "100pkt"), bytes (string with a size unit), or "unlimited".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSpec {
    Packets(u32),
    Bytes(u64),
    Unlimited,
}

impl<'de> Deserialize<'de> for LimitSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LimitSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a packet count (100 or \"100p\"), a byte size (\"64KiB\") or \"unlimited\"",
                )
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LimitSpec, E> {
                u32::try_from(v)
                    .map(LimitSpec::Packets)
                    .map_err(|_| E::custom("packet limit too large"))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LimitSpec, E> {
                if v < 0 {
                    Err(E::custom(format!("'{v}' is negative")))
                } else {
                    self.visit_u64(v as u64)
                }
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<LimitSpec, E> {
                let t = s.trim();
                if t == "unlimited" {
                    return Ok(LimitSpec::Unlimited);
                }
                if let Some(m) = units::bdp_elsewhere(s) {
                    return Err(E::custom(m));
                }
                for suf in ["packets", "pkts", "pkt", "p"] {
                    if let Some(n) = t.strip_suffix(suf) {
                        return n
                            .trim()
                            .parse::<u32>()
                            .map(LimitSpec::Packets)
                            .map_err(|_| E::custom(format!("'{s}' is not a packet count")));
                    }
                }
                // A plain integer means packets; the same digits in a string would read as
                // bytes, so a string needs its unit.
                if t.parse::<f64>().is_ok() {
                    return Err(E::custom(format!(
                        "'{s}' has no unit; write {t} or \"{t}p\" for packets, \"{t}B\" for bytes"
                    )));
                }
                units::parse_size(t)
                    .map(LimitSpec::Bytes)
                    .map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for LimitSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LimitSpec".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Packets (100 or \"100p\"), bytes (\"64KiB\") or \"unlimited\"",
            "anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]
        })
    }
}
