//! Typed ids of the simulation's arenas: a [`LinkId`] indexes `Sim::links`, a [`FlowId`]
//! `Sim::flows`, a [`NodeId`] `Sim::nodes`. Each is a `u32` newtype, so one kind of id can
//! not be passed where another is meant; [`LinkId::index`] (and the others') gives the
//! arena index. Events carry ids in 21 bits (see `event::MAX_EVENT_ID`); the flow and link
//! columns of the result tables hold them and are exported as names.
//!
//! ```compile_fail
//! use tcplab_core::ids::{FlowId, LinkId};
//! fn flow_only(_: FlowId) {}
//! flow_only(LinkId(0)); // a link id is not a flow id
//! ```

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The arena index this id names.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
            /// The id of arena entry `i`.
            #[inline]
            pub fn from_index(i: usize) -> Self {
                $name(u32::try_from(i).expect(concat!(stringify!($name), " overflows u32")))
            }
        }

        /// The bare number, as in tables and messages.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id_type!(
    /// A link direction: index into `Sim::links`.
    LinkId
);
id_type!(
    /// A flow (TCP connection or UDP flow): index into `Sim::flows`.
    FlowId
);
id_type!(
    /// A node (host or router): index into `Sim::nodes`.
    NodeId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_bare_u32s_that_index_and_print_as_numbers() {
        assert_eq!(std::mem::size_of::<LinkId>(), 4);
        assert_eq!(FlowId::from_index(7), FlowId(7));
        assert_eq!(NodeId(12).index(), 12);
        assert_eq!(LinkId(3).to_string(), "3");
    }
}
