# Data mining: flow sizes of the data-mining cluster measured in A. Greenberg et al.,
# "VL2: A Scalable and Flexible Data Center Network", SIGCOMM 2009 (Figure 2), as the
# pFabric (SIGCOMM 2013) and PIAS (NSDI 2015) ns-2 simulations use it: pFabric's
# CDF_vl2.tcl (github.com/HKUST-SING/PIAS-NS2, scripts/), whose sizes are in packets of
# 1 460 payload bytes, written here in bytes (x 1460). Between points the CDF is linear
# (the generators' convention); the first 50 % are one-packet flows. Mean 5 116.6 packets,
# 7 470 236 bytes.
# bytes  cumulative-probability
1460       0
1460       0.5
2920       0.6
4380       0.7
10220      0.8
389820     0.9
3076220    0.95
97333820   0.99
973333820  1
