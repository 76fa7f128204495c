# devtcp-cli script of test/apps/check_cli_bench.py: the first bench right
# after the ports start, before either stack knows its neighbour: the SYNs
# of all 64 connections wait for the ARP answer (none dropped, no RTO).
set rxhdrs 1 ipv4-tcp
port start 0
port start 1
set ip 0 10.0.0.1/24
set ip 1 10.0.0.2/24
set tcp verify on
bench start 64 1M
wait
bench show
show tcp conns
show tcp stats
