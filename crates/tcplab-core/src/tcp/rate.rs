//! Delivery-rate sampling (draft-cheng-iccrg-delivery-rate-estimation-02; Linux
//! `net/ipv4/tcp_rate.c`), for algorithms that ask for it (BBR:
//! [`crate::cc::CongestionControl::wants_rate_samples`]).
//!
//! Per connection: `delivered` (bytes cumulatively acknowledged), `delivered_time` (when
//! `delivered` last grew) and `first_sent` (send time of the most recently acknowledged
//! segment, or of the first segment of a flight that started from idle). Each segment is
//! stamped, when it is sent, with those three values and its own send time:
//!
//! - `send_elapsed = P.sent − P.first_sent`, `ack_elapsed = now − P.delivered_time`
//! - `interval = max(send_elapsed, ack_elapsed)`; `delivered = delivered_now − P.delivered`
//! - `delivery_rate = delivered / interval`, invalid when `interval < min_rtt` (as Linux,
//!   against ack compression)
//!
//! where P is the most recently sent of the segments this ack delivers. Flows whose
//! application ran out of data mark the samples taken until the data sent in that phase is
//! delivered as application-limited (`app_limited = delivered + in_flight`, Linux's
//! `tp->app_limited`).
//!
//! Storage: one record per sent segment in a ring (`VecDeque`) in sequence order covering
//! `[snd_una, snd_max)`; it grows to the largest window in segments and is then reused (no
//! per-packet allocation in steady state). An ack pops the records it covers: O(1) amortized
//! per ack. A retransmission re-stamps its record, found by binary search (O(log w), only on
//! retransmissions).
//!
//! SACK: `delivered` grows by RFC 6937's DeliveredData (bytes newly acknowledged or
//! SACKed), and the segment holding the last byte of the newest SACK block that covered new
//! data is a sample candidate (marked so that it is not used again when the cumulative ack
//! passes it). Differences from Linux (documented choices): of a SACK block only that
//! segment is a candidate (Linux considers every newly SACKed segment; the newest block's
//! last segment is the most recently sent of them in the common case), and `delivered`
//! counts bytes, not packets.

pub use crate::cc_api::RateSample;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
struct SentRec {
    start: u64,
    end: u64,
    sent: SimTime,
    first_sent: SimTime,
    delivered_time: SimTime,
    delivered: u64,
    app_limited: bool,
    /// Already delivered by a SACK (not a sample candidate again).
    sacked: bool,
}

/// The per-connection delivery-rate state (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    recs: VecDeque<SentRec>,
    delivered: u64,
    delivered_time: SimTime,
    first_sent: SimTime,
    /// Linux `tp->app_limited`: 0, or the `delivered` value past which samples are no
    /// longer application-limited.
    app_limited: u64,
}

impl RateSampler {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Segment `[seq, seq + len)` leaves at `now`; `in_flight` is what was outstanding
    /// before it (0: the flight starts from idle).
    pub fn on_send(&mut self, now: SimTime, seq: u64, len: u64, retx: bool, in_flight: u64) {
        if in_flight == 0 {
            self.first_sent = now;
            self.delivered_time = now;
        }
        let rec = SentRec {
            start: seq,
            end: seq + len,
            sent: now,
            first_sent: self.first_sent,
            delivered_time: self.delivered_time,
            delivered: self.delivered,
            app_limited: self.app_limited != 0,
            sacked: false,
        };
        if retx {
            // Re-stamp the record holding `seq` (binary search: records are in order).
            let i = self.recs.partition_point(|r| r.end <= seq);
            if let Some(r) = self.recs.get_mut(i) {
                if r.start <= seq {
                    let (start, end) = (r.start, r.end);
                    *r = SentRec { start, end, ..rec };
                }
            }
        } else {
            self.recs.push_back(rec);
        }
    }

    /// The application has nothing more to send while `in_flight` bytes are outstanding
    /// and the window would allow more (Linux `tcp_rate_check_app_limited`).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// An ack at `now` moved `snd_una` to `una` and delivered `delivered` bytes (cumulative
    /// plus newly SACKed, RFC 6937's DeliveredData); `sack_end` is the end of the newest
    /// SACK block that covered new data. The records below `una` are popped, the record
    /// holding the last SACKed byte is marked delivered, and the sample is built from the
    /// most recently sent of them (Linux: the most recently sent of the newly delivered).
    /// `None` when nothing was delivered; an invalid sample (`interval = 0`) when no
    /// not-yet-delivered record was found or the interval is shorter than `min_rtt`.
    pub fn on_ack(
        &mut self,
        now: SimTime,
        una: u64,
        delivered: u64,
        sack_end: Option<u64>,
        min_rtt: Option<SimDuration>,
    ) -> Option<RateSample> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        self.delivered_time = now;
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let later = |r: &SentRec, b: &Option<SentRec>| {
            b.is_none_or(|b| r.sent > b.sent || (r.sent == b.sent && r.delivered > b.delivered))
        };
        let mut best: Option<SentRec> = None;
        while let Some(r) = self.recs.front() {
            if r.end > una {
                break;
            }
            let r = self.recs.pop_front().expect("front exists");
            if !r.sacked && later(&r, &best) {
                best = Some(r);
            }
        }
        if let Some(e) = sack_end {
            let last = e - 1;
            let i = self.recs.partition_point(|r| r.end <= last);
            if let Some(r) = self.recs.get_mut(i) {
                if r.start <= last && !r.sacked {
                    r.sacked = true;
                    let r = *r;
                    if later(&r, &best) {
                        best = Some(r);
                    }
                }
            }
        }
        let acked = delivered;
        let Some(p) = best else {
            return Some(RateSample {
                prior_delivered: 0,
                delivered: 0,
                interval: SimDuration::ZERO,
                is_app_limited: false,
                delivered_total: self.delivered,
                acked,
            });
        };
        self.first_sent = p.sent;
        let send_elapsed = p.sent.since(p.first_sent);
        let ack_elapsed = now.since(p.delivered_time);
        let mut interval = send_elapsed.max(ack_elapsed);
        if min_rtt.is_some_and(|m| interval < m) {
            interval = SimDuration::ZERO;
        }
        Some(RateSample {
            prior_delivered: p.delivered,
            delivered: self.delivered - p.delivered,
            interval,
            is_app_limited: p.app_limited,
            delivered_total: self.delivered,
            acked,
        })
    }

    /// Records held (the window in segments; tests and memory checks).
    pub fn len(&self) -> usize {
        self.recs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(k: u64) -> SimTime {
        SimTime(k * 1_000_000_000)
    }

    #[test]
    fn steady_flight_measures_the_ack_rate() {
        // 1000-byte segments sent every 1 ms from t = 0; each acked 40 ms later.
        let mut r = RateSampler::new();
        let min_rtt = Some(SimDuration::from_ms(40));
        let mut last = None;
        for k in 0..200u64 {
            let t = ms(k);
            // Acks of segment k - 40 arrive before segment k leaves.
            if k >= 40 {
                let una = (k - 39) * 1000;
                last = r.on_ack(t, una, 1000, None, min_rtt);
            }
            let inflight = if k >= 40 { 39_000 } else { k * 1000 };
            r.on_send(t, k * 1000, 1000, false, inflight);
        }
        let s = last.expect("a sample");
        assert!(s.valid());
        // One segment per ms: 1 MB/s.
        assert!((s.rate_bps() - 1e6).abs() < 1e6 * 0.03, "{}", s.rate_bps());
        // The ring holds only the flight.
        assert_eq!(r.len(), 40);
    }

    #[test]
    fn short_interval_is_invalid_and_app_limited_is_marked() {
        let mut r = RateSampler::new();
        r.on_send(ms(0), 0, 1000, false, 0);
        r.mark_app_limited(1000);
        r.on_send(ms(1), 1000, 1000, false, 1000);
        // Acked after 2 ms while min RTT is 40 ms: interval too short.
        let s = r
            .on_ack(ms(2), 1000, 1000, None, Some(SimDuration::from_ms(40)))
            .unwrap();
        assert!(!s.valid());
        assert!(!s.is_app_limited);
        let s = r
            .on_ack(ms(50), 2000, 1000, None, Some(SimDuration::from_ms(40)))
            .unwrap();
        assert!(s.is_app_limited);
        assert!(s.valid());
        // delivered = 2000 is beyond app_limited (0 + 1000 when marked): cleared, so the
        // next segment is not application-limited.
        r.on_send(ms(50), 2000, 1000, false, 0);
        let s = r.on_ack(ms(90), 3000, 1000, None, None).unwrap();
        assert!(!s.is_app_limited);
        assert_eq!(s.prior_delivered, 2000);
        assert_eq!(s.delivered, 1000);
    }

    #[test]
    fn sacked_segment_is_sampled_once() {
        // Segments 0..5 (1000 B) sent at 0..4 ms; segment 0 is lost, 1..4 are SACKed.
        let mut r = RateSampler::new();
        for k in 0..5u64 {
            r.on_send(ms(k), k * 1000, 1000, false, k * 1000);
        }
        // SACK of [1000, 2000) at 41 ms: delivered 1000, sampled from segment 1.
        let s = r.on_ack(ms(41), 0, 1000, Some(2000), None).unwrap();
        assert!(s.valid());
        assert_eq!(s.delivered, 1000);
        assert_eq!(s.delivered_total, 1000);
        // Segment 0 retransmitted at 45 ms and acked at 85 ms together with 1 (already
        // SACKed, not a candidate) and 2..4 SACKed meanwhile (no blocks on this ack).
        r.on_send(ms(45), 0, 1000, true, 5000);
        let s = r.on_ack(ms(85), 5000, 4000, None, None).unwrap();
        // The most recently sent of the newly delivered is the retransmission.
        assert_eq!(s.prior_delivered, 1000);
        assert_eq!(s.delivered, 4000);
        assert!(r.is_empty());
    }
}
