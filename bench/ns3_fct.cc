// One bottleneck carrying a given list of finite TCP flows, in ns-3, for bench/ns3_fct.py:
// the flows tcplab generated for its web-search workload (fct.parquet: source, bytes,
// arrival), each a BulkSendApplication with MaxBytes, and each flow's completion time
// measured at the sender as tcplab measures it. Loaded with cppyy (the PyPI `ns3`
// package), so the setup and every per-packet trace sink are C++.
//
// Shape: senders s_0 .. s_{N-1}, each on its own point-to-point access link into a switch
// `sw`, and one link sw -> d to the receiver host d, all at the same rate. The queue under
// test is sw's device towards d: a RedQueueDisc as step marking (MinTh = MaxTh = K, QW 1, so
// that the "average" is the packets in the queue disc at each arrival; UseEcn, no hard drop,
// not gentle; MaxSize = the buffer), with a 1-packet device queue below it. Every other
// device has no queue disc (traffic control uninstalled) and a DropTail device queue of
// host_queue packets, as tcplab's link queues (its hosts' 1000-packet default).
//
// TCP: ns-3.44's defaults, as tcplab's `profile = "ns3"` writes them, except what the caller
// passes in `defaults` (bench/ns3_fct.py: TcpDctcp or one of the diagnostic classes below,
// UseEcn, SegmentSize, MinRto, ClockGranularity, LimitedTransmit, DataRetries; its docstring
// says why each).
//
// The FCT: from the application's start (the flow's arrival: BulkSend connects at once, so
// the SYN leaves then) to the first time the sender's HighestRxAck trace reaches
// 1 + bytes (ns-3 sockets start at sequence 0 and the SYN takes it, so data byte k is
// sequence 1 + k; the ack of the last byte is >= 1 + bytes, and 2 + bytes when it also acks
// the FIN that rides on the last segment). That is tcplab's definition: arrival to the
// acknowledgement of the last byte at the sender.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tcplab_fct
{

// Diagnostic only (bench/ns3_fct.py's `--ns3 floor` run, reported beside the comparison,
// never as it): ns-3.44's TcpDctcp with a floor of two segments under the ECN reduction,
// as Linux's dctcp_ssthresh has it (max(cwnd - cwnd * alpha / 2, 2 segments)) and tcplab's
// DCTCP (cc/dctcp.rs). ns-3.44's TcpDctcp::GetSsThresh returns (1 - alpha / 2) * cwnd
// without one, so repeated reductions take a window below one segment. Written from that
// description; everything else is TcpDctcp's.
class TcpDctcpFloor : public ns3::TcpDctcp
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("ns3::TcpDctcpFloor")
                                     .SetParent<ns3::TcpDctcp>()
                                     .SetGroupName("Internet")
                                     .AddConstructor<TcpDctcpFloor>();
        return tid;
    }

    std::string GetName() const override
    {
        return "TcpDctcpFloor";
    }

    uint32_t GetSsThresh(ns3::Ptr<const ns3::TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(ns3::TcpDctcp::GetSsThresh(tcb, bytesInFlight), 2 * tcb->m_segmentSize);
    }

    ns3::Ptr<ns3::TcpCongestionOps> Fork() override
    {
        return ns3::CopyObject<TcpDctcpFloor>(this);
    }
};

// Diagnostic only, on top of TcpDctcpFloor: the receiver's immediate ack at a change of CE
// state (RFC 8257 §3.2: acknowledge the packets received so far, with the old state's ECE,
// before the new state applies) acknowledging every byte received before the arriving
// segment. ns-3.44's TcpSocketBase::ForwardUp raises CA_EVENT_ECN_IS_CE / _NO_CE before the
// segment's data reach the receive buffer, and TcpDctcp::CeState0to1 / 1to0 keep as
// m_priorRcvNxt the next expected sequence taken at the previous such event, i.e. before the
// previous segment's data: the immediate ack leaves out the segment held for the delayed ack
// (a duplicate of the last ack), and as SendEmptyPacket resets the delayed-ack count and
// timer, that segment waits for the next one or for the 200-ms timer. Here the ack carries
// NextRxSequence as it is at the event, which covers the held segment. Written from the
// RFC's text; the sender side is TcpDctcp's.
class TcpDctcpFloorAck : public TcpDctcpFloor
{
  public:
    static ns3::TypeId GetTypeId()
    {
        static ns3::TypeId tid = ns3::TypeId("ns3::TcpDctcpFloorAck")
                                     .SetParent<TcpDctcpFloor>()
                                     .SetGroupName("Internet")
                                     .AddConstructor<TcpDctcpFloorAck>();
        return tid;
    }

    std::string GetName() const override
    {
        return "TcpDctcpFloorAck";
    }

    void CwndEvent(ns3::Ptr<ns3::TcpSocketState> tcb,
                   const ns3::TcpSocketState::TcpCAEvent_t event) override
    {
        using S = ns3::TcpSocketState;
        switch (event)
        {
        case S::CA_EVENT_ECN_IS_CE:
        case S::CA_EVENT_ECN_NO_CE: {
            bool ce = event == S::CA_EVENT_ECN_IS_CE;
            if (ce != m_ce && m_held)
            {
                tcb->m_sendEmptyPacketCallback(m_ce ? (ns3::TcpHeader::ACK | ns3::TcpHeader::ECE)
                                                    : ns3::TcpHeader::ACK);
                m_held = false;
            }
            m_ce = ce;
            if (ce)
            {
                tcb->m_ecnState = S::ECN_CE_RCVD;
            }
            else if (tcb->m_ecnState.Get() == S::ECN_CE_RCVD ||
                     tcb->m_ecnState.Get() == S::ECN_SENDING_ECE)
            {
                tcb->m_ecnState = S::ECN_IDLE;
            }
            break;
        }
        case S::CA_EVENT_DELAYED_ACK:
            m_held = true;
            break;
        case S::CA_EVENT_NON_DELAYED_ACK:
            m_held = false;
            break;
        default:
            break;
        }
    }

    ns3::Ptr<ns3::TcpCongestionOps> Fork() override
    {
        return ns3::CopyObject<TcpDctcpFloorAck>(this);
    }

  private:
    bool m_ce = false;   // the last data segment was CE-marked
    bool m_held = false; // a segment waits for the delayed ack
};

struct Result
{
    double wall_seconds = 0;  // Simulator::Run() only
    double setup_seconds = 0; // building topology and applications
    uint64_t events = 0;
    // Per flow, in the order given: completion time (s since the simulation's start, NaN if
    // the last byte was never acked), retransmitted segments (the socket's Retransmission
    // trace), entries into CA_LOSS (retransmission timeouts) and into CA_CWR (ECN-Echo
    // reductions), entries into CA_RECOVERY (fast retransmits).
    std::vector<double> end_s;
    std::vector<uint32_t> retransmits;
    std::vector<uint32_t> timeouts;
    std::vector<uint32_t> cwr;
    std::vector<uint32_t> recoveries;
    // The bottleneck sw -> d: packets and bytes sent (PhyTxEnd), the queue disc's CE marks
    // and drops, traffic-control drops at sw (a full device queue), the most packets
    // waiting in the queue disc.
    uint64_t bottleneck_packets = 0;
    uint64_t bottleneck_bytes = 0;
    uint64_t bottleneck_marks = 0;
    uint64_t bottleneck_drops = 0;
    uint64_t other_drops = 0; // every other device queue and traffic-control layer
    uint32_t bottleneck_max_qdisc = 0;
    // With trace_flow >= 0: that flow's timeline, (time s, kind, a, b) flattened. Kinds:
    // 1 cwnd (a bytes), 2 ssthresh (a bytes), 3 congestion state (a: TcpCongState_t),
    // 4 segment sent (a seq, b payload bytes), 5 ack received (a ack no, b 1 with ECE),
    // 6 ECN state (a: EcnState_t).
    std::vector<double> trace;
};

static std::vector<double> g_end;
static std::vector<uint32_t> g_target; // 1 + bytes per flow
static std::vector<uint32_t> g_retx;
static std::vector<uint32_t> g_to;
static std::vector<uint32_t> g_cwr;
static std::vector<uint32_t> g_rec;
static std::vector<ns3::Ptr<ns3::BulkSendApplication>> g_apps;
static uint64_t g_bn_pkts = 0;
static uint64_t g_bn_bytes = 0;
static uint64_t g_other_drops = 0;
static uint32_t g_max_q = 0;
static int64_t g_trace_flow = -1;
static std::vector<double> g_trace;

static void
Rec(double kind, double a, double b)
{
    g_trace.push_back(ns3::Simulator::Now().GetSeconds());
    g_trace.push_back(kind);
    g_trace.push_back(a);
    g_trace.push_back(b);
}

static void
TrCwnd(uint32_t, uint32_t now)
{
    Rec(1, now, 0);
}

static void
TrSsth(uint32_t, uint32_t now)
{
    Rec(2, now, 0);
}

static void
TrState(ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t now)
{
    Rec(3, now, 0);
}

static void
TrEcn(ns3::TcpSocketState::EcnState_t, ns3::TcpSocketState::EcnState_t now)
{
    Rec(6, now, 0);
}

static void
TrTx(ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h, ns3::Ptr<const ns3::TcpSocketBase>)
{
    Rec(4, h.GetSequenceNumber().GetValue(), p->GetSize());
}

static void
TrRx(ns3::Ptr<const ns3::Packet>, const ns3::TcpHeader& h, ns3::Ptr<const ns3::TcpSocketBase>)
{
    Rec(5, h.GetAckNumber().GetValue(), (h.GetFlags() & ns3::TcpHeader::ECE) ? 1 : 0);
}

static void
Must(bool ok, const char* what)
{
    NS_ABORT_MSG_UNLESS(ok, "could not connect trace source " << what);
}

static void
BnTx(ns3::Ptr<const ns3::Packet> p)
{
    g_bn_pkts++;
    g_bn_bytes += p->GetSize();
}

static void
QdiscLen(uint32_t, uint32_t n)
{
    g_max_q = std::max(g_max_q, n);
}

static void
CountDrop(ns3::Ptr<const ns3::Packet>)
{
    g_other_drops++;
}

static void
RxAck(size_t i, ns3::SequenceNumber32, ns3::SequenceNumber32 now)
{
    if (std::isnan(g_end[i]) && now.GetValue() >= g_target[i])
    {
        g_end[i] = ns3::Simulator::Now().GetSeconds();
    }
}

static void
Retx(size_t i,
     ns3::Ptr<const ns3::Packet>,
     const ns3::TcpHeader&,
     const ns3::Address&,
     const ns3::Address&,
     ns3::Ptr<const ns3::TcpSocketBase>)
{
    g_retx[i]++;
}

static void
Cong(size_t i, ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t now)
{
    if (now == ns3::TcpSocketState::CA_LOSS)
    {
        g_to[i]++;
    }
    else if (now == ns3::TcpSocketState::CA_CWR)
    {
        g_cwr[i]++;
    }
    else if (now == ns3::TcpSocketState::CA_RECOVERY)
    {
        g_rec[i]++;
    }
}

// Scheduled 1 ns after flow i's application started: its socket exists (and its SYN has
// left); no ack can be back yet.
static void
Watch(size_t i)
{
    ns3::Ptr<ns3::Socket> s = g_apps[i]->GetSocket();
    Must(s && s->TraceConnectWithoutContext("HighestRxAck", ns3::MakeBoundCallback(&RxAck, i)),
         "HighestRxAck");
    Must(s->TraceConnectWithoutContext("Retransmission", ns3::MakeBoundCallback(&Retx, i)),
         "Retransmission");
    Must(s->TraceConnectWithoutContext("CongState", ns3::MakeBoundCallback(&Cong, i)),
         "CongState");
    if ((int64_t)i == g_trace_flow)
    {
        Must(s->TraceConnectWithoutContext("CongestionWindow", ns3::MakeCallback(&TrCwnd)) &&
                 s->TraceConnectWithoutContext("SlowStartThreshold", ns3::MakeCallback(&TrSsth)) &&
                 s->TraceConnectWithoutContext("CongState", ns3::MakeCallback(&TrState)) &&
                 s->TraceConnectWithoutContext("EcnState", ns3::MakeCallback(&TrEcn)) &&
                 s->TraceConnectWithoutContext("Tx", ns3::MakeCallback(&TrTx)) &&
                 s->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&TrRx)),
             "trace_flow's traces");
    }
}

// Config::SetDefault pairs "ns3::Type::Attr=value;...".
static void
ApplyDefaults(const std::string& defaults)
{
    for (size_t a = 0; a < defaults.size();)
    {
        size_t b = defaults.find(';', a);
        if (b == std::string::npos)
        {
            b = defaults.size();
        }
        std::string kv = defaults.substr(a, b - a);
        a = b + 1;
        if (kv.empty())
        {
            continue;
        }
        size_t eq = kv.find('=');
        NS_ABORT_MSG_UNLESS(eq != std::string::npos, "defaults: no '=' in " << kv);
        ns3::Config::SetDefault(kv.substr(0, eq), ns3::StringValue(kv.substr(eq + 1)));
    }
}

// senders: N; rate_bps: every link's rate; access_delay_ns / bn_delay_ns: one-way delays of
// s_i - sw and sw - d; buffer, k: the bottleneck queue disc's size and marking threshold
// (packets); host_queue: every other device queue (packets); mss: BulkSend's SendSize (one
// segment per write); src, bytes, start_ns: the flows;
// seconds: when the simulation stops; defaults: Config::SetDefault pairs; trace_flow: the
// flow whose timeline Result::trace records (-1: none).
Result
Run(uint32_t senders,
    uint64_t rate_bps,
    uint64_t access_delay_ns,
    uint64_t bn_delay_ns,
    uint32_t buffer,
    uint32_t k,
    uint32_t host_queue,
    uint32_t mss,
    std::vector<uint32_t> src,
    std::vector<uint64_t> bytes,
    std::vector<uint64_t> start_ns,
    double seconds,
    std::string defaults,
    int64_t trace_flow = -1)
{
    using namespace ns3;
    auto t_setup = std::chrono::steady_clock::now();
    size_t n = src.size();
    g_end.assign(n, std::nan(""));
    g_target.resize(n);
    g_retx.assign(n, 0);
    g_to.assign(n, 0);
    g_cwr.assign(n, 0);
    g_rec.assign(n, 0);
    g_apps.clear();
    g_bn_pkts = g_bn_bytes = g_other_drops = 0;
    g_max_q = 0;
    g_trace_flow = trace_flow;
    g_trace.clear();

    ApplyDefaults(defaults);

    Ptr<Node> sw = CreateObject<Node>();
    Ptr<Node> d = CreateObject<Node>();
    NodeContainer hosts;
    hosts.Create(senders);
    InternetStackHelper stack;
    stack.Install(sw);
    stack.Install(d);
    stack.Install(hosts);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate_bps)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(std::to_string(host_queue) + "p")));
    Ipv4AddressHelper addr;
    TrafficControlHelper none;
    uint32_t net = 0;
    auto assign = [&](NetDeviceContainer& dev) {
        addr.SetBase(Ipv4Address((10u << 24) + 4 * net++), Ipv4Mask("255.255.255.252"));
        Ipv4InterfaceContainer ifs = addr.Assign(dev);
        none.Uninstall(dev);
        return ifs;
    };
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(bn_delay_ns)));
    NetDeviceContainer bn = p2p.Install(sw, d);
    Ipv4InterfaceContainer bn_if = assign(bn);
    Ipv4Address dst = bn_if.GetAddress(1);
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(access_delay_ns)));
    std::vector<Ptr<PointToPointNetDevice>> others;
    for (uint32_t i = 0; i < senders; i++)
    {
        NetDeviceContainer a = p2p.Install(hosts.Get(i), sw);
        assign(a);
        others.push_back(a.Get(0)->GetObject<PointToPointNetDevice>());
        others.push_back(a.Get(1)->GetObject<PointToPointNetDevice>());
    }
    others.push_back(bn.Get(1)->GetObject<PointToPointNetDevice>());
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    // The queue under test on sw -> d: RED as a step marker, its device queue 1 packet.
    Ptr<PointToPointNetDevice> bdev = bn.Get(0)->GetObject<PointToPointNetDevice>();
    bdev->GetQueue()->SetMaxSize(QueueSize("1p"));
    TrafficControlHelper red;
    red.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", QueueSizeValue(QueueSize(std::to_string(buffer) + "p")),
                         "MinTh", DoubleValue(k),
                         "MaxTh", DoubleValue(k),
                         "QW", DoubleValue(1.0),
                         "UseEcn", BooleanValue(true),
                         "UseHardDrop", BooleanValue(false),
                         "Gentle", BooleanValue(false),
                         "MeanPktSize", UintegerValue(1500));
    Ptr<QueueDisc> qd = red.Install(bn.Get(0)).Get(0);
    Must(bdev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&BnTx)), "PhyTxEnd");
    Must(qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QdiscLen)),
         "PacketsInQueue");
    for (auto& dev : others)
    {
        Must(dev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&CountDrop)),
             "Drop");
    }
    for (Ptr<Node> node : {sw, d})
    {
        Must(node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                 "TcDrop", MakeCallback(&CountDrop)),
             "TcDrop");
    }
    for (uint32_t i = 0; i < senders; i++)
    {
        Must(hosts.Get(i)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                 "TcDrop", MakeCallback(&CountDrop)),
             "TcDrop");
    }

    uint16_t port = 5000;
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(d).Start(Seconds(0));
    for (size_t i = 0; i < n; i++)
    {
        NS_ABORT_MSG_UNLESS(src[i] < senders, "flow " << i << ": no sender " << src[i]);
        NS_ABORT_MSG_UNLESS(bytes[i] > 0 && bytes[i] < 0xFFFFFFF0u, "flow " << i << ": bytes");
        g_target[i] = 1 + (uint32_t)bytes[i];
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dst, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(bytes[i]));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer app = bulk.Install(hosts.Get(src[i]));
        app.Start(NanoSeconds(start_ns[i]));
        g_apps.push_back(DynamicCast<BulkSendApplication>(app.Get(0)));
        Simulator::Schedule(NanoSeconds(start_ns[i] + 1), &Watch, i);
    }
    Simulator::Stop(Seconds(seconds));

    Result r;
    r.setup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count();
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.events = Simulator::GetEventCount();
    r.end_s = g_end;
    r.retransmits = g_retx;
    r.timeouts = g_to;
    r.cwr = g_cwr;
    r.recoveries = g_rec;
    r.bottleneck_packets = g_bn_pkts;
    r.bottleneck_bytes = g_bn_bytes;
    const QueueDisc::Stats& st = qd->GetStats();
    r.bottleneck_marks = st.nTotalMarkedPackets;
    r.bottleneck_drops = st.nTotalDroppedPackets;
    r.other_drops = g_other_drops;
    r.bottleneck_max_qdisc = g_max_q;
    r.trace = g_trace;
    g_apps.clear();
    Simulator::Destroy();
    return r;
}

} // namespace tcplab_fct
