//! # tcplab-core
//!
//! A deterministic packet-level network simulator for TCP congestion-control and queue
//! management research. No Python in here; `tcplab-py` wraps it.
//!
//! Layers, bottom up:
//!
//! ```text
//!  time / event / rng   integer picoseconds; a binary event heap whose ties run in a per-instant
//!                       hashed order (the same for any partitioning); seeded streams
//!  packet               packets (Copy headers): the leaf that queues, links and stats share
//!  net                  nodes, link directions, routes (ECMP), error models
//!  queue                queue disciplines: DropTail, RED / RED-I, CHOKe, CoDel, FQ-CoDel, PIE,
//!                       the XCP router, end-host ack priority and bandwidth allocation
//!  tcp                  sender / receiver mechanics: sequence space, acks, RTO, recovery
//!  cc_api               what transport and congestion control share (ConnView, AckSample, ...)
//!  cc                   congestion control behind one trait (one file per algorithm)
//!  udp                  datagram sender / receiver (no acks; losses from sequence gaps)
//!  app                  traffic sources (bulk, transfer, cbr, onoff, poisson, train), active ones tick
//!  stats                streaming counters; one column registry for intervals, traces, event traces
//!  analysis             closed-form models from the papers
//!  scenario             TOML / JSON scenario schema, builders, profiles, validation, build → Sim
//!  sim / report         the event loop; summary.json
//!  par                  one simulation split into partitions on threads, bit-identical to one
//! ```
#![forbid(unsafe_code)]

pub mod analysis;
pub mod app;
pub mod audit;
pub mod cc;
pub mod cc_api;
pub mod config;
pub mod event;
#[doc(hidden)]
pub mod fuzzing;
pub mod ids;
pub mod net;
pub mod packet;
pub mod par;
pub mod queue;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
pub mod time;
pub mod udp;

use scenario::{Built, ScenarioError};

/// Parse and build a scenario from TOML text.
pub fn load_toml(text: &str, seed: Option<u64>) -> Result<Built, ScenarioError> {
    scenario::build(scenario::from_toml(text)?, seed)
}

/// Parse and build a scenario from JSON text.
pub fn load_json(text: &str, seed: Option<u64>) -> Result<Built, ScenarioError> {
    scenario::build(scenario::from_json(text)?, seed)
}

/// [`load_json`] with an explicit memory limit (`None`: half the available memory).
pub fn load_json_limited(
    text: &str,
    seed: Option<u64>,
    max_memory: Option<u64>,
) -> Result<Built, ScenarioError> {
    let limit = max_memory.map_or(
        scenario::memory::MemoryLimit::Auto,
        scenario::memory::MemoryLimit::Bytes,
    );
    scenario::build_limited(scenario::from_json_limited(text, limit)?, seed, limit)
}
