#!/usr/bin/env python3
"""ns-3 side of one `ns3_compare.py --algo` case with packet-level traces (a diagnostic).

    target/ns3-venv/bin/python bench/ns3_tx_trace.py CASE SECONDS WARMUP T0 T1 OUT [--prr-rfc]

Runs the case's ns-3 dumbbell (bench/ns3_dumbbell.cc, configured as ns3_compare.py does)
for SECONDS and writes, for simulated times in [T0, T1]:
  OUT.samples  every 1 ms: time, then per flow cwnd, ssthresh and BytesInFlight (segments),
               then the packets waiting at the bottleneck;
  OUT.tx       one line per data segment a sender transmits, "T time flow segment retx
               bytes_in_flight_segments", and per packet dropped at r1 (the bottleneck's
               traffic-control layer), "D time source_address segment", and per pure ack
               a sender receives, "A time flow acked_segment";
  OUT.json     every entry into recovery or loss as (time, flow, kind) as in ns3_compare.
--prr-rfc replaces ns-3.44's TcpPrrRecovery by ns3_compare.PRR_RFC (RFC 6937 as tcplab has it).
docs/performance.md ("HighSpeed TCP and RED against ns-3", point 3) used it to find what
the first flow sends after its fast retransmit. Not part of any make target.
"""
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ns3_compare as nc  # noqa: E402

DIAG = r'''
namespace tcplab_diag {
static std::vector<uint32_t> infl;
static std::vector<uint64_t> high;
static FILE* samples = nullptr;
static FILE* tx = nullptr;
static double T0 = 0, T1 = 0;
static void Infl(size_t i, uint32_t, uint32_t now) { infl[i] = now; }
static void Tx(size_t i, ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h,
               ns3::Ptr<const ns3::TcpSocketBase>) {
  if (p->GetSize() == 0) return;
  double t = ns3::Simulator::Now().GetSeconds();
  uint64_t s = h.GetSequenceNumber().GetValue();
  bool re = s + p->GetSize() <= high[i];
  if (!re) high[i] = s + p->GetSize();
  uint32_t mss = 1460;
  if (t >= T0 && t <= T1)
    fprintf(tx, "T %.6f %zu %lu %d %u\n", t, i, (unsigned long)(s / mss), re ? 1 : 0, infl[i] / mss);
}
static void Rx(size_t i, ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h,
               ns3::Ptr<const ns3::TcpSocketBase>) {
  if (p->GetSize() != 0) return;
  double t = ns3::Simulator::Now().GetSeconds();
  if (t >= T0 && t <= T1)
    fprintf(tx, "A %.6f %zu %lu\n", t, i, (unsigned long)(h.GetAckNumber().GetValue() / 1460));
}
static void Drop(ns3::Ptr<const ns3::Packet> p) {
  double t = ns3::Simulator::Now().GetSeconds();
  if (t < T0 || t > T1) return;
  ns3::Ptr<ns3::Packet> c = p->Copy();
  ns3::Ipv4Header ip;
  c->RemoveHeader(ip);
  ns3::TcpHeader th;
  c->PeekHeader(th);
  fprintf(tx, "D %.6f %u %lu\n", t, ip.GetSource().Get(),
          (unsigned long)(th.GetSequenceNumber().GetValue() / 1460));
}
static void Connect() {
  size_t n = tcplab_ns3::g_apps.size();
  infl.assign(n, 0);
  high.assign(n, 0);
  for (size_t i = 0; i < n; i++) {
    auto s = tcplab_ns3::g_apps[i]->GetSocket();
    tcplab_ns3::Must(s->TraceConnectWithoutContext("BytesInFlight", ns3::MakeBoundCallback(&Infl, i)), "BytesInFlight");
    tcplab_ns3::Must(s->TraceConnectWithoutContext("Tx", ns3::MakeBoundCallback(&Tx, i)), "Tx");
    tcplab_ns3::Must(s->TraceConnectWithoutContext("Rx", ns3::MakeBoundCallback(&Rx, i)), "Rx");
  }
}
static void Sample() {
  fprintf(samples, "%.4f", ns3::Simulator::Now().GetSeconds());
  for (size_t i = 0; i < infl.size(); i++)
    fprintf(samples, " %u %u %u", tcplab_ns3::g_cwnd[i] / 1460, tcplab_ns3::g_ssthresh[i] / 1460, infl[i] / 1460);
  fprintf(samples, " %u\n", tcplab_ns3::BottWaiting());
  if (ns3::Simulator::Now().GetSeconds() < T1) ns3::Simulator::Schedule(ns3::MilliSeconds(1), &Sample);
}
void Setup(double t0, double t1, std::string out) {
  samples = fopen((out + ".samples").c_str(), "w");
  tx = fopen((out + ".tx").c_str(), "w");
  T0 = t0;
  T1 = t1;
  tcplab_ns3::g_before_run = []() {
    // Every flow has started by 0.5 s (start times are below 100 ms).
    ns3::Simulator::Schedule(ns3::Seconds(0.5), &Connect);
    ns3::Simulator::Schedule(ns3::Seconds(T0), &Sample);
    ns3::NodeList::GetNode(0)->GetObject<ns3::TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", ns3::MakeCallback(&Drop));
  };
}
void Close() { fclose(samples); fclose(tx); }
}
'''


def main() -> int:
    case, secs, warm, t0, t1, out = sys.argv[1], *map(float, sys.argv[2:6]), sys.argv[6]
    prr_rfc = "--prr-rfc" in sys.argv[7:]
    c = nc.ALGO_CASES[case]
    tl = nc.run_tcplab_case(str(nc.ROOT / "target/release/tcplab-bench"), c, 0.001, 0.0, 0)
    import cppyy
    from ns import ns  # noqa: F401

    cppyy.cppdef((HERE / "ns3_dumbbell.cc").read_text())
    cppyy.cppdef(DIAG)
    if prr_rfc:
        nc.define_prr_rfc(cppyy)
    cppyy.gbl.tcplab_diag.Setup(t0, t1, out)
    extra = cppyy.gbl.tcplab_ns3.Extra()
    ex = dict(c["ns3_extra"])
    ex["defaults"] = (ex.get("defaults", "").replace("{buffer}", tl["bottleneck_buffer"])
                      .replace("{rate}", str(tl["rate_bps"])))
    ex["watch"] = True
    if prr_rfc:
        ex["recovery"] = nc.PRR_RFC_TYPE
    for k, v in ex.items():
        setattr(extra, k, v)
    r = cppyy.gbl.tcplab_ns3.Run(
        int(tl["flows"]), int(tl["rate_bps"]), int(tl["bottleneck_delay_us"]), int(tl["mss"]),
        str(tl["bottleneck_buffer"]), int(tl["access_limit_packets"]), nc.snd_buf(tl),
        0xFFFFFFFF, secs, warm, c["ns3_cc"], 10, 0, 0, 0, 0.0, extra)
    cppyy.gbl.tcplab_diag.Close()
    ev = [list(r.cong_events[k:k + 3]) for k in range(0, len(r.cong_events), 3)]
    Path(out + ".json").write_text(json.dumps({"cong_events": ev}))
    print(f"wrote {out}.samples, {out}.tx, {out}.json ({r.wall_seconds:.1f} s)", flush=True)
    # Leave without the interpreter's teardown, which can abort in ns-3's and cppyy's
    # static destructors after a run with extra trace sinks.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
