// The tcplab benchmark dumbbell (scenarios a-e of crates/tcplab-core/src/bin/bench.rs) built in
// ns-3. Loaded by bench/ns3_compare.py with cppyy (the PyPI `ns3` package), so the whole setup
// and the per-packet trace sinks are C++: Python does nothing while the simulation runs.
//
// Shape: s_i -> r1 -> r2 -> d_i, access links 10x the bottleneck with 1 ms delay, the
// bottleneck delay makes up the RTT. DropTail device queues and no queue discs (traffic control
// is uninstalled), so the queue is the device's FIFO like tcplab's link queue.
//
// TCP is configured to match tcplab (see docs/performance.md for what still differs):
// TcpNewReno (or TcpVegas with the given Alpha, Beta, Gamma) with TcpClassicRecovery, no SACK, no timestamps, no limited transmit, every
// segment acked (DelAckCount 1), the given initial cwnd (10 in the speed suite), the same initial ssthresh (unlimited unless given), RTO min 200 ms,
// initial RTO 1 s, 1 ns clock granularity, 1 GiB receive buffer (tcplab's default receiver
// window); the send buffer is explained below.

#include <chrono>
#include <cstdio>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tcplab_ns3
{

// Options beyond the NewReno/Vegas cross-check (bench/ns3_compare.py's --algo runs). The
// defaults reproduce the original harness exactly.
struct Extra
{
    bool sack = false;
    std::string recovery = "ns3::TcpClassicRecovery"; // TcpL4Protocol::RecoveryType
    // Further Config::SetDefault pairs "ns3::Type::Attr=value;..." applied after the
    // harness's own (algorithm and queue-disc attributes, DelAckCount, ...).
    std::string defaults;
    // A queue disc (TypeId name) on the bottleneck device r1 -> r2, "" = none (the device
    // FIFO is the queue). With one, the device queue below it holds device_queue.
    std::string qdisc;
    std::string device_queue = "1p";
    double trace_s = 0; // every flow's cwnd and ssthresh every trace_s from 0 (0 = off)
    // Connect the per-socket traces (cwnd, ssthresh, state, Tx) even without sampling or a
    // trace; off for the speed runs, where a callback per segment would cost time.
    bool watch = false;
};

struct Result
{
    double wall_seconds = 0;    // Simulator::Run() only
    double setup_seconds = 0;   // building the topology
    uint64_t events = 0;        // Simulator::GetEventCount()
    uint64_t bottleneck_packets = 0;
    uint64_t bottleneck_bytes = 0;
    uint64_t bottleneck_bytes_window = 0; // from warmup to the end
    uint64_t bottleneck_drops = 0;
    uint64_t access_drops = 0;
    uint32_t bottleneck_max_queue = 0;     // packets waiting (not counting the one on the wire)
    std::vector<double> rx_window_bytes;  // per flow, from warmup to the end
    std::vector<double> rx_total_bytes;
    // With sample_s > 0: packets waiting in the bottleneck device queue (not the one on the
    // wire) every sample_s from warmup on, and each flow's mean cwnd in segments over them.
    std::vector<uint32_t> queue_samples;
    std::vector<double> cwnd_mean_segments;
    // Extra: queue-disc marks and drops (whole run, and from warmup on), per-flow counts of
    // entries into CA_RECOVERY and CA_LOSS (fast retransmits, timeouts) and of
    // retransmitted segments; the trace, flattened sample-major (flows values per sample).
    uint64_t bottleneck_marks = 0;
    uint64_t bottleneck_drops_window = 0;
    uint64_t bottleneck_marks_window = 0;
    std::vector<uint32_t> recoveries;
    std::vector<uint32_t> losses;
    std::vector<uint32_t> cwr; // entries into CA_CWR (ECN-Echo reductions)
    std::vector<uint32_t> retransmits;
    std::vector<uint32_t> trace_cwnd;
    std::vector<uint32_t> trace_ssthresh;
    // Entries into recovery with the cumulative ack at the previous m_recover (see
    // CongStateChange), per flow; and every entry/timeout as (time s, flow, kind).
    std::vector<uint32_t> recoveries_at_recover;
    std::vector<double> cong_events;
    // The queue disc's drops and marks per reason from warmup on ("d:" + drop reason,
    // "m:" + mark reason, as QueueDisc::Stats names them), one count each.
    std::vector<std::string> reasons;
    std::vector<uint64_t> reason_counts;
};

static uint64_t g_bott_pkts = 0;
static uint64_t g_bott_bytes = 0;
static uint64_t g_bott_bytes0 = 0;
static uint32_t g_bott_maxq = 0;
static std::vector<ns3::Ptr<ns3::PacketSink>> g_sinks;
static std::vector<double> g_rx0;
static std::vector<ns3::Ptr<ns3::BulkSendApplication>> g_apps;
static std::vector<uint32_t> g_cwnd; // bytes, per flow, from the CongestionWindow trace
static std::vector<double> g_cwnd_sum;
static std::vector<uint32_t> g_qsamples;
static ns3::Ptr<ns3::Queue<ns3::Packet>> g_bott_queue;
static ns3::Ptr<ns3::QueueDisc> g_qdisc; // the bottleneck's queue disc, if any
static uint64_t g_drops0 = 0;
static uint64_t g_tc_drops = 0; // traffic-control drops at r1 (full device queue, no qdisc)
static uint64_t g_marks0 = 0;
static std::map<std::string, uint64_t> g_reasons0; // per-reason counts at warmup
static std::vector<uint32_t> g_ssthresh;
static std::vector<uint32_t> g_recoveries;
static std::vector<uint32_t> g_losses;
static std::vector<uint32_t> g_cwr;
static std::vector<uint32_t> g_retx;
static std::vector<uint64_t> g_high; // per flow, highest sequence end sent
static std::vector<uint32_t> g_high_rx_ack;
static std::vector<uint32_t> g_high_tx;
static std::vector<uint32_t> g_prev_recover;
static std::vector<bool> g_has_recover;
static std::vector<uint32_t> g_at_recover;
static std::vector<double> g_events; // (time s, flow, kind 1 recovery / 2 timeout / 3 at recover)
static std::vector<uint32_t> g_trace_cwnd;
static std::vector<uint32_t> g_trace_ssthresh;
// Diagnostics (not used by ns3_compare.py): called just before Simulator::Run(), e.g. to
// connect extra trace sinks by Config path (node 2 + i is sender i).
static std::function<void()> g_before_run;

static void
BottTx(ns3::Ptr<const ns3::Packet> p)
{
    g_bott_pkts++;
    g_bott_bytes += p->GetSize();
}

static void
CountDrop(uint64_t* counter, ns3::Ptr<const ns3::Packet>)
{
    (*counter)++;
}

static void
Must(bool ok, const char* what)
{
    NS_ABORT_MSG_UNLESS(ok, "could not connect trace source " << what);
}

static void
BottQueue(uint32_t, uint32_t n)
{
    if (n > g_bott_maxq)
    {
        g_bott_maxq = n;
    }
}

static void
CwndChange(size_t i, uint32_t, uint32_t now)
{
    g_cwnd[i] = now;
}

static void
SsthreshChange(size_t i, uint32_t, uint32_t now)
{
    g_ssthresh[i] = now;
}

static void
HighRxAck(size_t i, ns3::SequenceNumber32, ns3::SequenceNumber32 now)
{
    g_high_rx_ack[i] = now.GetValue();
}

static void
HighTx(size_t i, ns3::SequenceNumber32, ns3::SequenceNumber32 now)
{
    g_high_tx[i] = now.GetValue();
}

// Entries into fast recovery and timeouts. At an entry into CA_RECOVERY, TcpSocketBase has
// just set m_recover to m_highTxMark; the previous m_recover is the highest sequence sent at
// the previous entry (recovery or timeout). An entry whose cumulative ack (HighestRxAck)
// equals that previous m_recover is one RFC 6582 section 3.2 step 1 forbids ("more than").
static void
CongStateChange(size_t i,
                ns3::TcpSocketState::TcpCongState_t,
                ns3::TcpSocketState::TcpCongState_t now)
{
    if (now == ns3::TcpSocketState::CA_RECOVERY)
    {
        g_recoveries[i]++;
        bool at = g_has_recover[i] && g_high_rx_ack[i] == g_prev_recover[i];
        g_at_recover[i] += at ? 1 : 0;
        g_events.push_back(ns3::Simulator::Now().GetSeconds());
        g_events.push_back((double)i);
        g_events.push_back(at ? 3 : 1);
    }
    else if (now == ns3::TcpSocketState::CA_CWR)
    {
        g_cwr[i]++; // ECN-Echo reductions (TcpSocketBase::EnterCwr)
        return;
    }
    else if (now == ns3::TcpSocketState::CA_LOSS)
    {
        g_losses[i]++;
        g_events.push_back(ns3::Simulator::Now().GetSeconds());
        g_events.push_back((double)i);
        g_events.push_back(2);
    }
    else
    {
        return;
    }
    g_prev_recover[i] = g_high_tx[i];
    g_has_recover[i] = true;
}

static void
TxSegment(size_t i,
          ns3::Ptr<const ns3::Packet> p,
          const ns3::TcpHeader& h,
          ns3::Ptr<const ns3::TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    uint64_t start = h.GetSequenceNumber().GetValue();
    uint64_t end = start + p->GetSize();
    // 32-bit sequence numbers: these runs send less than 4 GB per flow.
    if (end <= g_high[i])
    {
        g_retx[i]++;
    }
    else
    {
        g_high[i] = end;
    }
}

// Called just after flow i's application has started (its socket exists from then on).
static void
WatchCwnd(size_t i)
{
    ns3::Ptr<ns3::Socket> sock = g_apps[i]->GetSocket();
    Must(sock && sock->TraceConnectWithoutContext("CongestionWindow",
                                                  ns3::MakeBoundCallback(&CwndChange, i)),
         "CongestionWindow");
    Must(sock->TraceConnectWithoutContext("SlowStartThreshold",
                                          ns3::MakeBoundCallback(&SsthreshChange, i)),
         "SlowStartThreshold");
    Must(sock->TraceConnectWithoutContext("CongState",
                                          ns3::MakeBoundCallback(&CongStateChange, i)),
         "CongState");
    Must(sock->TraceConnectWithoutContext("Tx", ns3::MakeBoundCallback(&TxSegment, i)), "Tx");
    Must(sock->TraceConnectWithoutContext("HighestRxAck", ns3::MakeBoundCallback(&HighRxAck, i)),
         "HighestRxAck");
    Must(sock->TraceConnectWithoutContext("HighestSequence", ns3::MakeBoundCallback(&HighTx, i)),
         "HighestSequence");
}

static void
Trace(ns3::Time period)
{
    for (size_t i = 0; i < g_cwnd.size(); i++)
    {
        g_trace_cwnd.push_back(g_cwnd[i]);
        g_trace_ssthresh.push_back(g_ssthresh[i]);
    }
    ns3::Simulator::Schedule(period, &Trace, period);
}

// Packets waiting at the bottleneck: in its queue disc (if any) and in the device queue
// (not the packet on the wire).
static uint32_t
BottWaiting()
{
    return g_bott_queue->GetNPackets() + (g_qdisc ? g_qdisc->GetNPackets() : 0);
}

static void
Sample(ns3::Time period, uint32_t mss)
{
    g_qsamples.push_back(BottWaiting());
    for (size_t i = 0; i < g_cwnd.size(); i++)
    {
        g_cwnd_sum[i] += (double)g_cwnd[i] / mss;
    }
    ns3::Simulator::Schedule(period, &Sample, period, mss);
}

// The queue disc's drop and mark counts per reason ("d:"/"m:" + reason).
static std::map<std::string, uint64_t>
Reasons(const ns3::QueueDisc::Stats& st)
{
    std::map<std::string, uint64_t> r;
    for (const auto& [k, v] : st.nDroppedPacketsBeforeEnqueue)
    {
        r["d:" + k] += v;
    }
    for (const auto& [k, v] : st.nDroppedPacketsAfterDequeue)
    {
        r["d:" + k] += v;
    }
    for (const auto& [k, v] : st.nMarkedPackets)
    {
        r["m:" + k] += v;
    }
    return r;
}

static void
Snapshot()
{
    g_bott_bytes0 = g_bott_bytes;
    g_reasons0.clear();
    if (g_qdisc)
    {
        const ns3::QueueDisc::Stats& st = g_qdisc->GetStats();
        g_drops0 = st.nTotalDroppedPackets;
        g_marks0 = st.nTotalMarkedPackets;
        g_reasons0 = Reasons(st);
    }
    g_drops0 += g_tc_drops;
    for (size_t i = 0; i < g_sinks.size(); i++)
    {
        g_rx0[i] = (double)g_sinks[i]->GetTotalRx();
    }
}

// rate_bps: bottleneck rate; bdelay_us: bottleneck one-way delay; buffer: bottleneck queue size
// as an ns-3 QueueSize string ("333p" or "4000000B"); cc: "newreno" or "vegas" (alpha, beta,
// gamma: TcpVegas's attributes, packets); sample_s: queue/cwnd sampling period, 0 = off.
Result
Run(int flows,
    uint64_t rate_bps,
    uint64_t bdelay_us,
    uint32_t mss,
    std::string buffer,
    uint32_t access_limit,
    uint32_t snd_buf,
    uint32_t init_ssthresh,
    double seconds,
    double warmup,
    std::string cc,
    uint32_t init_cwnd,
    uint32_t alpha,
    uint32_t beta,
    uint32_t gamma,
    double sample_s,
    Extra extra = Extra())
{
    using namespace ns3;
    auto t_setup = std::chrono::steady_clock::now();
    g_bott_pkts = g_bott_bytes = g_bott_bytes0 = 0;
    g_bott_maxq = 0;
    g_sinks.clear();
    g_rx0.assign(flows, 0.0);
    g_apps.clear();
    g_cwnd.assign(flows, init_cwnd * mss);
    g_cwnd_sum.assign(flows, 0.0);
    g_qsamples.clear();
    g_qdisc = nullptr;
    g_drops0 = g_marks0 = 0;
    g_ssthresh.assign(flows, init_ssthresh);
    g_recoveries.assign(flows, 0);
    g_losses.assign(flows, 0);
    g_cwr.assign(flows, 0);
    g_retx.assign(flows, 0);
    g_high.assign(flows, 0);
    g_trace_cwnd.clear();
    g_high_rx_ack.assign(flows, 0);
    g_high_tx.assign(flows, 0);
    g_prev_recover.assign(flows, 0);
    g_has_recover.assign(flows, false);
    g_at_recover.assign(flows, 0);
    g_events.clear();
    g_trace_ssthresh.clear();

    if (cc == "cubic")
    {
        // ns-3's defaults: C 0.4, Beta 0.7, FastConvergence, TcpFriendliness, HyStart (the
        // older ack-train/delay HyStart, not RFC 9406's HyStart++ that tcplab runs).
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpCubic::GetTypeId()));
    }
    else if (cc == "bbr")
    {
        // ns-3's TcpBbr (BBR v1 after Linux) paced by the socket (TcpSocketState pacing),
        // with SACK and PRR below, as tcplab's a-bbr .. e-bbr run it.
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpBbr::GetTypeId()));
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }
    else if (cc == "vegas")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpVegas::GetTypeId()));
        Config::SetDefault("ns3::TcpVegas::Alpha", UintegerValue(alpha));
        Config::SetDefault("ns3::TcpVegas::Beta", UintegerValue(beta));
        Config::SetDefault("ns3::TcpVegas::Gamma", UintegerValue(gamma));
    }
    else if (cc == "dctcp" || cc == "westwoodplus" || cc == "scalable" || cc == "highspeed")
    {
        // Their attributes (and ECN for DCTCP) come with extra.defaults.
        std::string tid = cc == "dctcp"          ? "ns3::TcpDctcp"
                          : cc == "westwoodplus" ? "ns3::TcpWestwoodPlus"
                          : cc == "scalable"     ? "ns3::TcpScalable"
                                                 : "ns3::TcpHighSpeed";
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TypeId::LookupByName(tid)));
    }
    else
    {
        NS_ABORT_MSG_UNLESS(cc == "newreno", "cc must be newreno, vegas, cubic, bbr, dctcp, westwoodplus, scalable or highspeed, got " << cc);
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpNewReno::GetTypeId()));
    }
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName(extra.recovery)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(extra.sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(init_cwnd));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(init_ssthresh));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    // tcplab has no send buffer (the application offers data as the window opens). In ns-3,
    // BulkSend keeps the socket's send buffer full, and every buffered segment is a Packet
    // object: a 1 GiB buffer is ~700 k objects per flow (12 GB of RAM for scenario d). The
    // send buffer is given by the caller (bench/ns3_compare.py: 8x the fair share of BDP +
    // bottleneck buffer, at least 4 MB): it bounds the window only in long recoveries, where
    // tcplab's inflated window can grow further.
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(snd_buf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1u << 30));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    for (size_t a = 0; a < extra.defaults.size();)
    {
        size_t b = extra.defaults.find(';', a);
        if (b == std::string::npos)
        {
            b = extra.defaults.size();
        }
        std::string kv = extra.defaults.substr(a, b - a);
        a = b + 1;
        if (kv.empty())
        {
            continue;
        }
        size_t eq = kv.find('=');
        NS_ABORT_MSG_UNLESS(eq != std::string::npos, "defaults: no '=' in " << kv);
        Config::SetDefault(kv.substr(0, eq), StringValue(kv.substr(eq + 1)));
    }

    NodeContainer routers;
    routers.Create(2);
    NodeContainer senders;
    senders.Create(flows);
    NodeContainer receivers;
    receivers.Create(flows);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(senders);
    stack.Install(receivers);

    PointToPointHelper bott;
    bott.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate_bps)));
    bott.SetChannelAttribute("Delay", TimeValue(MicroSeconds(bdelay_us)));
    bott.SetQueue("ns3::DropTailQueue<Packet>",
                  "MaxSize",
                  QueueSizeValue(QueueSize(extra.qdisc.empty() ? buffer : extra.device_queue)));
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rate_bps * 10)));
    access.SetChannelAttribute("Delay", TimeValue(MilliSeconds(1)));
    access.SetQueue("ns3::DropTailQueue<Packet>",
                    "MaxSize",
                    QueueSizeValue(QueueSize(std::to_string(access_limit) + "p")));

    Ipv4AddressHelper addr;
    TrafficControlHelper tch;
    uint32_t net = 0;
    auto assign = [&](NetDeviceContainer& d) {
        uint32_t base = (10u << 24) + 4 * net++;
        addr.SetBase(Ipv4Address(base), Ipv4Mask("255.255.255.252"));
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        tch.Uninstall(d); // no queue disc: the device FIFO is the queue, as in tcplab
        return ifs;
    };
    NetDeviceContainer bd = bott.Install(routers.Get(0), routers.Get(1));
    assign(bd);
    if (!extra.qdisc.empty())
    {
        // The queue disc on r1 -> r2 only; the ack direction keeps the buffer-sized FIFO.
        bd.Get(1)->GetObject<PointToPointNetDevice>()->GetQueue()->SetMaxSize(QueueSize(buffer));
        TrafficControlHelper tq;
        tq.SetRootQueueDisc(extra.qdisc);
        QueueDiscContainer qc = tq.Install(bd.Get(0));
        g_qdisc = qc.Get(0);
    }
    std::vector<Ipv4Address> dst(flows);
    std::vector<Ptr<Queue<Packet>>> access_queues;
    g_tc_drops = 0;            // at r1: the bottleneck (its acks toward senders never drop)
    uint64_t access_drops = 0; // at the senders' and receivers' host queues
    Must(routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
             "TcDrop",
             MakeBoundCallback(&CountDrop, &g_tc_drops)),
         "TcDrop");
    for (int i = 0; i < flows; i++)
    {
        for (Ptr<Node> n : {senders.Get(i), receivers.Get(i)})
        {
            Must(n->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                     "TcDrop",
                     MakeBoundCallback(&CountDrop, &access_drops)),
                 "TcDrop");
        }
    }
    for (int i = 0; i < flows; i++)
    {
        NetDeviceContainer sd = access.Install(senders.Get(i), routers.Get(0));
        assign(sd);
        NetDeviceContainer dd = access.Install(routers.Get(1), receivers.Get(i));
        Ipv4InterfaceContainer di = assign(dd);
        dst[i] = di.GetAddress(1);
        access_queues.push_back(sd.Get(0)->GetObject<PointToPointNetDevice>()->GetQueue());
        access_queues.push_back(dd.Get(1)->GetObject<PointToPointNetDevice>()->GetQueue());
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<PointToPointNetDevice> bdev = bd.Get(0)->GetObject<PointToPointNetDevice>();
    Must(bdev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&BottTx)), "PhyTxEnd");
    Must(bdev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&BottQueue)),
         "PacketsInQueue");

    for (int i = 0; i < flows; i++)
    {
        uint16_t port = 5000;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sink.Install(receivers.Get(i));
        sa.Start(Seconds(0));
        g_sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(dst[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer ba = bulk.Install(senders.Get(i));
        ba.Start(MilliSeconds(i * 7 % 100)); // same start times as tcplab's bench
        g_apps.push_back(DynamicCast<BulkSendApplication>(ba.Get(0)));
        if (sample_s > 0 || extra.trace_s > 0 || extra.watch)
        {
            Simulator::Schedule(MilliSeconds(i * 7 % 100) + NanoSeconds(1), &WatchCwnd, (size_t)i);
        }
    }
    Simulator::Schedule(Seconds(warmup), &Snapshot);
    g_bott_queue = bdev->GetQueue();
    if (sample_s > 0)
    {
        Simulator::Schedule(Seconds(warmup), &Sample, Seconds(sample_s), mss);
    }
    if (extra.trace_s > 0)
    {
        Simulator::Schedule(Seconds(0), &Trace, Seconds(extra.trace_s));
    }
    Simulator::Stop(Seconds(seconds));

    Result r;
    r.setup_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_setup).count();
    if (g_before_run)
    {
        g_before_run();
    }
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.events = Simulator::GetEventCount();
    r.bottleneck_packets = g_bott_pkts;
    r.bottleneck_bytes = g_bott_bytes;
    r.bottleneck_bytes_window = g_bott_bytes - g_bott_bytes0;
    // Without a queue disc, a full device queue stops the device's transmit queue and the
    // traffic-control layer drops the packet ("TcDrop" trace); the device queue itself only
    // drops if a packet slips past the stopped-queue check.
    r.bottleneck_drops = g_tc_drops + bdev->GetQueue()->GetTotalDroppedPackets();
    r.bottleneck_drops_window = g_tc_drops - g_drops0;
    if (g_qdisc)
    {
        const QueueDisc::Stats& st = g_qdisc->GetStats();
        r.bottleneck_drops += st.nTotalDroppedPackets;
        r.bottleneck_marks = st.nTotalMarkedPackets;
        r.bottleneck_drops_window = g_tc_drops + st.nTotalDroppedPackets - g_drops0;
        r.bottleneck_marks_window = st.nTotalMarkedPackets - g_marks0;
        for (const auto& [k, v] : Reasons(st))
        {
            r.reasons.push_back(k);
            r.reason_counts.push_back(v - g_reasons0[k]);
        }
    }
    r.recoveries = g_recoveries;
    r.losses = g_losses;
    r.cwr = g_cwr;
    r.retransmits = g_retx;
    r.trace_cwnd = g_trace_cwnd;
    r.recoveries_at_recover = g_at_recover;
    r.cong_events = g_events;
    r.trace_ssthresh = g_trace_ssthresh;
    r.access_drops = access_drops;
    for (auto& q : access_queues)
    {
        r.access_drops += q->GetTotalDroppedPackets();
    }
    r.bottleneck_max_queue = g_bott_maxq;
    for (int i = 0; i < flows; i++)
    {
        double tot = (double)g_sinks[i]->GetTotalRx();
        r.rx_total_bytes.push_back(tot);
        r.rx_window_bytes.push_back(tot - g_rx0[i]);
    }
    r.queue_samples = g_qsamples;
    for (int i = 0; i < flows; i++)
    {
        r.cwnd_mean_segments.push_back(g_qsamples.empty() ? 0.0
                                                          : g_cwnd_sum[i] / g_qsamples.size());
    }
    g_sinks.clear();
    g_apps.clear();
    g_bott_queue = nullptr;
    g_qdisc = nullptr;
    Simulator::Destroy();
    return r;
}

} // namespace tcplab_ns3
