//! The network: nodes, link directions, routes, packets.
//!
//! A link here is one **direction** (a simplex channel) with its own rate, propagation delay,
//! queue discipline and error model; a full-duplex link is two of them, so rate and delay are
//! set per direction. Every outgoing interface has a queue, **end hosts included** (P0: a
//! host's data segments and the acks it sends share one FIFO; that is where ack compression
//! happens). A link serialises one packet at a time (store-and-forward) and keeps packets in
//! propagation in a FIFO pipe, with only its head scheduled in the event queue.

pub mod error;
pub mod link;
pub use crate::packet;
pub mod ring;
pub mod routing;
pub mod snoop;

pub use error::ErrorModel;
pub use link::{Link, LinkStats};
pub use packet::{CcHeader, Packet, PacketKind};

use crate::event::LinkId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Terminates flows; may also forward.
    Host,
    /// Forwards only.
    Router,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// First-hop link towards each destination node (`None` if unreachable or self), for
    /// a node with several outgoing link directions; empty for the others, which send
    /// everything on `uplink` (see [`routing`]).
    pub routes: Vec<Option<LinkId>>,
    /// The node's only outgoing link direction, when it has exactly one.
    pub uplink: Option<LinkId>,
    /// Index of this node's agent in `Sim::agents` (`[agents]`: Snoop); `None` for
    /// plain forwarding.
    pub agent: Option<u32>,
}

impl Node {
    /// The first link towards `dst` (`dst` is not this node).
    #[inline(always)]
    pub fn route(&self, dst: crate::event::NodeId) -> Option<LinkId> {
        match self.routes.get(dst.index()) {
            Some(r) => *r,
            None => self.uplink,
        }
    }
}

/// The link a packet of `flow` at `node` takes towards `dst`: [`Node::route`], except at a
/// node with a per-flow ECMP table (`routing.ecmp = "flow"`; `ecmp` is indexed by node,
/// and empty in the other modes), which hashes the flow ([`routing::FlowEcmp::pick`]).
/// The simulation asks it for forwarded packets only (`Sim::receive`), the build for the
/// flows' paths.
pub fn route_flow(
    nodes: &[Node],
    ecmp: &[Option<Box<routing::FlowEcmp>>],
    node: crate::event::NodeId,
    dst: crate::event::NodeId,
    flow: crate::ids::FlowId,
) -> Option<LinkId> {
    match ecmp.get(node.index()) {
        Some(Some(t)) => t.pick(dst, flow),
        _ => nodes[node.index()].route(dst),
    }
}
