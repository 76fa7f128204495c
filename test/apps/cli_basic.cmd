# devtcp-cli script of test/apps/check_cli.py: each line's output is checked there.
help show port
show gpu
show port info 0
set rxhdrs 1 ipv4-tcp
show config rxhdrs
set rxpkts 0 64,2048
show config rxpkts
port start 0
port start 1
show devmem
flow create 1 ingress pattern eth / ipv4 src is 10.0.0.2 dst is 10.0.0.1 / tcp src is 40000 dst is 5001 / end actions queue index 0 / end
flow list 1
flow destroy 1 rule 0
flow list 1
show port stats 1
clear port stats 1
port stop 1
bogus command
show port info 9
set rxhdrs 0 udp
flow create 1 ingress pattern eth / ipv6 / end
