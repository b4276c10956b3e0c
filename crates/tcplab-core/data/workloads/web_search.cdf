# Web search: flow sizes of the production web-search cluster measured in
# M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010 (Figure 4, "query
# traffic" plus "background flows"), as the DCTCP, pFabric (SIGCOMM 2013) and HPCC
# (SIGCOMM 2019) simulations use it. Points as in HPCC's traffic generator
# (github.com/alibaba-edu/High-Precision-Congestion-Control,
# traffic_gen/WebSearch_distribution.txt), written with the probability as a fraction.
# Between points the CDF is linear (the generators' convention). Mean 1 711 250 bytes.
# bytes  cumulative-probability
0        0
10000    0.15
20000    0.20
30000    0.30
50000    0.40
80000    0.53
200000   0.60
1000000  0.70
2000000  0.80
5000000  0.90
10000000 0.97
30000000 1
