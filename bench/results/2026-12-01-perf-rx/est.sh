#!/usr/bin/env bash
# perf-based (on-CPU time only) estimate of the server stack's RX-path cost per
# frame: cpu-clock samples every 50 us, summed over the receive-path symbols of
# the server thread (main lcore), divided by the run's rx_frames.
v=$1; i=$2
syms='dt_dp_rx_frame|hdr_gather|hdr_need|tcp_demux|tcp_extents|tcp_input|dt_net_eth_parse|dt_net_ipv4_parse|dt_net_tcp_parse|dt_net_tcp_opts_parse|dt_dp_conn_lookup|dt_tcp_input|tcp_rx_payload|tcp_ack_process|tcp_sack_input|tcp_rack_detect|tcp_rack_ack|tcp_sb_trim|out_once|dt_dp_ev_push|dt_dp_conn_rearm|dt_tcp_next_deadline|tcp_call_end|tcp_call_begin|tcp_timers_update|tcp_timer_diff|tcp_lr_timer_update|dt_dp_tw_arm|ev_data|out_event|dt_dp_out_apply'
out=$(perf record -q -e cpu-clock -c 50000 -o est-$v-$i.data ${BIN_DIR:-.}/devtcp-bench.$v -l 0-1 --in-memory --no-pci -m 512 --vdev=net_hsplit0,wire=wperfe$$ --vdev=net_hsplit1,wire=wperfe$$ --vdev=gpu_sim0,size=256M -- --mode split --duration 5 --quiet --json est-$v-$i.json 2>&1 | grep '^split')
frames=$(python3 -c "import json;print(json.load(open('est-$v-$i.json'))['runs'][0]['rx_frames'])")
s=$(perf report -i est-$v-$i.data --no-children --sort comm,symbol --stdio -F sample,comm,symbol 2>/dev/null | grep -v '^#' | awk -v re="^($syms)\$" '$2 ~ /^devtcp-bench/ && $4 ~ re {s+=$1} END{print s+0}')
awk -v v=$v -v i=$i -v s=$s -v f=$frames -v o="$out" 'BEGIN{ns=s*50000.0/f; printf "%s %d: rx-path samples %d frames %d -> %.1f ns/frame (%.0f cyc at 2.0 GHz) | stk cyc column %s\n", v, i, s, f, ns, ns*2.0, o}'
