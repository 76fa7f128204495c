#!/usr/bin/env bash
# On-CPU estimate of the server stack's RX-path cost per frame (perf, cpu-clock every
# 50 us, server thread = main lcore): samples in the receive-path symbols x 50 us / rx_frames.
# est.sh BIN TAG  (files under $OUT, default .)
b=$1; tag=$2
syms='dt_dp_rx_frame|hdr_gather|hdr_need|tcp_demux|tcp_extents|tcp_input|gro_input|conn_input|dt_dp_gro_flush|dt_dp_gro_match|dt_dp_gro_append|dt_dp_gro_start|dt_dp_gro_seg|dt_dp_gro_candidate|dt_net_eth_parse|dt_net_ipv4_parse|dt_net_tcp_parse|dt_net_tcp_opts_parse|dt_dp_conn_lookup|dt_tcp_input|tcp_rx_payload|tcp_ack_process|tcp_sack_input|tcp_rack_detect|tcp_rack_ack|tcp_sack_ack|tcp_sb_trim|out_once|dt_dp_ev_push|dt_dp_conn_rearm|dt_tcp_next_deadline|tcp_call_end|tcp_call_begin|tcp_timers_update|tcp_timer_diff|tcp_lr_timer_update|dt_dp_tw_arm|ev_data|out_event|dt_dp_out_apply|tcp_deliver|tcp_event|tcp_space_consume|tcp_ooo_drain|dt_dp_ooo_store_take'
out=$(perf record -q -e cpu-clock -c 50000 -o ${OUT:-.}/est-$tag.data $b -l 0-1 --in-memory --no-pci -m 512 --vdev=net_hsplit0,wire=Wgroe --vdev=net_hsplit1,wire=Wgroe --vdev=gpu_sim0,size=256M --log-level=lib.eal:warning -- --mode split --duration 5 --quiet --json ${OUT:-.}/est-$tag.json 2>&1 | grep '^split')
frames=$(python3 -c "import json;print(json.load(open('${OUT:-.}/est-$tag.json'))['runs'][0]['rx_frames'])")
main=$(perf report -i ${OUT:-.}/est-$tag.data --no-children --sort comm --stdio 2>/dev/null | grep -v '^#' | awk '$2 ~ /^devtcp-bench/ {print $2; exit}')
perf report -i ${OUT:-.}/est-$tag.data --no-children --comms $main --sort symbol --stdio -F sample,symbol 2>/dev/null | grep -v '^#' | grep -v '^$' | sort -rn > ${OUT:-.}/est-$tag.syms
s=$(awk -v re="^($syms)\$" '$3 ~ re {s+=$1} END{print s+0}' ${OUT:-.}/est-$tag.syms)
awk -v t=$tag -v s=$s -v f=$frames -v o="$out" 'BEGIN{ns=s*50000.0/f; printf "%s: rx-path samples %d frames %d -> %.1f ns/frame (%.0f cyc at 2.0 GHz) | %s\n", t, s, f, ns, ns*2.0, o}'
