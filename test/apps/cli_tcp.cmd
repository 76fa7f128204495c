# devtcp-cli TCP script of test/apps/check_cli_tcp.py: two net_hsplit ports
# on one wire, port 1 splitting payload into gpu_sim memory; every command
# here must succeed (the error cases are -e commands of the checker).
set rxhdrs 1 ipv4-tcp
port start 0
port start 1
set ip 0 10.0.0.1/24
set ip 1 10.0.0.2/24
set tcp verify on
tcp listen 5001 port 1
tcp connect 10.0.0.2 5001
wait
show tcp conns
tcp send 1 3M
tcp send 1 2M device
wait
show tcp conns
show tcp stats
tcp close 1
wait
show tcp conns all
bench start 2 8M
wait
bench show
show devmem
help tcp
