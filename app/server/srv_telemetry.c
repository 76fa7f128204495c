/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry commands under /devtcp/, read with dpdk-telemetry.py:
 *   /devtcp/stats   stack and consumer counters, summed over the stacks
 *   /devtcp/conns   open connections (state, bytes, windows), keyed
 *                   "STACK/HANDLE" (handles are unique per stack only)
 *   /devtcp/devmem  the payload region and its buffers
 *   /devtcp/ports   what lib/dp decided per port (split, copy, checksums, TX)
 *   /devtcp/ingest  ingest clients: quota, streams, held chunks (mode = ingest)
 * The callbacks run on EAL's telemetry thread: they read the snapshots that
 * each stack's lcore refreshes, never the stacks themselves. rte_telemetry
 * callbacks take no argument, hence the one file-scope pointer below.
 */
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_gpudev.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "dt_devmem.h"
#include "srv.h"
#include "srv_ingest.h"

/* The process's context, for the callbacks (set once, before registering). */
static struct srv_ctx *srv_tel_ctx;

#define ADD(f) rte_tel_data_add_dict_u64(d, #f, st.f)

static void
add_dp_stats(struct rte_tel_data *d, const struct dt_dp_stats *s)
{
	const struct dt_dp_stats st = *s;

	ADD(rx_frames); ADD(tx_frames); ADD(rx_tcp); ADD(rx_arp); ADD(rx_icmp);
	ADD(tx_arp); ADD(tx_icmp); ADD(tx_rst); ADD(conns_open);
	ADD(conns_accepted); ADD(conns_connected); ADD(conns_closed);
	ADD(drop_not_ipv4); ADD(drop_bad_ip); ADD(drop_ip_fragment);
	ADD(drop_not_for_us); ADD(drop_bad_tcp); ADD(drop_l4_cksum);
	ADD(drop_no_conn); ADD(drop_conn_table_full); ADD(drop_hdr_in_device);
	ADD(drop_unsupported_proto); ADD(drop_tx_no_mbuf); ADD(drop_tx_ring_full);
	ADD(drop_no_neighbour); ADD(arp_requests); ADD(arp_timeouts);
	ADD(host_chunks); ADD(device_chunks); ADD(events_overflow);
	/* SYN queue and SYN cookies (the SYN flood defence). */
	ADD(drop_synq_full); ADD(synq_overflows); ADD(synq_evicted);
	ADD(synq_expired); ADD(synq_rst_freed); ADD(synq_challenge_acks);
	ADD(synacks_sent); ADD(synacks_rtx); ADD(syncookies_sent);
	ADD(syncookies_ok); ADD(syncookies_bad);
	/* The stack's own processing: RX bursts with frames, TSC cycles. */
	ADD(rx_bursts); ADD(rx_cycles); ADD(rx_throttled);
	ADD(neigh_held); ADD(drop_neigh_hold_full); ADD(neigh_shared);
	/* Connection memory: out-of-order stores lent on demand. */
	ADD(mem_bytes); ADD(ooo_stores); ADD(ooo_stores_used);
	ADD(ooo_stores_lent); ADD(drop_ooo_no_store);
	/* Receive coalescing within a burst. */
	ADD(rx_coalesced); ADD(rx_gro_runs); ADD(rx_gro_frames);
	ADD(tx_tso_bursts); ADD(tx_tso_segs); ADD(tx_cycles); ADD(tx_burst_cycles);
	ADD(drop_tx_linear);
	ADD(rx_copy_bytes); ADD(rx_copy_chunks); ADD(drop_copy_no_buf);
	ADD(rx_copy_errors); ADD(tx_device_refused);
	ADD(tx_copy_bytes); ADD(tx_copy_errors); ADD(tx_held_switch);
	ADD(tx_tso_refused); ADD(tx_refused_dropped);
}

static void
add_consumer_stats(struct rte_tel_data *d, const struct srv_consumer_stats *s)
{
	const struct srv_consumer_stats st = *s;

	ADD(chunks); ADD(bytes); ADD(device_bytes); ADD(host_bytes);
	ADD(verified_bytes); ADD(bad_bytes); ADD(streams_ok); ADD(streams_bad);
	ADD(ring_full); ADD(ring_done);
}

/*
 * Sum every stack's snapshot. The sender's stack ([client]) counts its own
 * streams and acknowledged bytes in its srv_consumer_stats: they go to
 * @p snd, not into the consumer's counters.
 */
static void
sum_snapshots(struct dt_dp_stats *dp, struct srv_consumer_stats *cs,
	struct srv_consumer_stats *snd)
{
	unsigned int i, j;

	memset(dp, 0, sizeof(*dp));
	memset(cs, 0, sizeof(*cs));
	memset(snd, 0, sizeof(*snd));
	for (i = 0; i < srv_tel_ctx->nb_stacks + 1; i++) {
		struct srv_stack *s = &srv_tel_ctx->stacks[i];
		uint64_t *a = (uint64_t *)dp, *b = (uint64_t *)&s->snap_stats;
		uint64_t *c = (uint64_t *)(s->client ? snd : cs);
		uint64_t *e = (uint64_t *)&s->snap_cs;

		if (s->app == NULL)
			continue;
		rte_spinlock_lock(&s->snap_lock);
		for (j = 0; j < sizeof(*dp) / sizeof(uint64_t); j++)
			a[j] += b[j];
		for (j = 0; j < sizeof(*cs) / sizeof(uint64_t); j++)
			c[j] += e[j];
		rte_spinlock_unlock(&s->snap_lock);
	}
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dt_dp_stats dp;
	struct srv_consumer_stats cs, snd;

	sum_snapshots(&dp, &cs, &snd);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "uptime_ms", (rte_rdtsc() -
		srv_tel_ctx->start_tsc) * 1000 / rte_get_tsc_hz());
	rte_tel_data_add_dict_u64(d, "stacks", srv_tel_ctx->nb_stacks);
	rte_tel_data_add_dict_string(d, "consumer",
		srv_consumer_name(srv_tel_ctx->cfg.consumer));
	add_dp_stats(d, &dp);
	add_consumer_stats(d, &cs);
	if (srv_tel_ctx->cfg.has_client) {
		rte_tel_data_add_dict_u64(d, "sender_bytes_acked", snd.bytes);
		rte_tel_data_add_dict_u64(d, "sender_streams_ok", snd.streams_ok);
		rte_tel_data_add_dict_u64(d, "sender_streams_bad", snd.streams_bad);
	}
	return 0;
}

static const char *const state_names[] = {
	"CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED", "FIN_WAIT_1",
	"FIN_WAIT_2", "CLOSE_WAIT", "CLOSING", "LAST_ACK", "TIME_WAIT",
};

static void
add_conn(struct rte_tel_data *d, unsigned int stack,
	const struct srv_conn_snap *c)
{
	struct rte_tel_data *o = rte_tel_data_alloc();
	char key[32], addr[48];
	const struct dt_dp_conn_stats *s = &c->st;
	const uint8_t *la = (const uint8_t *)&s->tuple.laddr;
	const uint8_t *ra = (const uint8_t *)&s->tuple.raddr;

	if (o == NULL)
		return;
	rte_tel_data_start_dict(o);
	rte_tel_data_add_dict_string(o, "state", s->state <
		RTE_DIM(state_names) ? state_names[s->state] : "?");
	snprintf(addr, sizeof(addr), "%u.%u.%u.%u:%u", la[0], la[1], la[2], la[3],
		s->tuple.lport);
	rte_tel_data_add_dict_string(o, "local", addr);
	snprintf(addr, sizeof(addr), "%u.%u.%u.%u:%u", ra[0], ra[1], ra[2], ra[3],
		s->tuple.rport);
	rte_tel_data_add_dict_string(o, "remote", addr);
	rte_tel_data_add_dict_u64(o, "rx_bytes", s->rx_bytes);
	rte_tel_data_add_dict_u64(o, "tx_bytes", s->tx_bytes);
	rte_tel_data_add_dict_u64(o, "rx_device_bytes", s->rx_device_bytes);
	rte_tel_data_add_dict_u64(o, "rx_host_bytes", s->rx_host_bytes);
	rte_tel_data_add_dict_u64(o, "retransmits", s->retransmits);
	rte_tel_data_add_dict_u64(o, "held_bytes", s->held_bytes);
	rte_tel_data_add_dict_u64(o, "rcv_wnd", s->rcv_wnd);
	rte_tel_data_add_dict_u64(o, "snd_wnd", s->snd_wnd);
	rte_tel_data_add_dict_u64(o, "cwnd", s->cwnd);
	rte_tel_data_add_dict_u64(o, "srtt_us", s->srtt_us);
	/* Handles are per stack: the stack's index keeps the keys unique. */
	snprintf(key, sizeof(key), "%u/%" PRIx64, stack, c->conn);
	rte_tel_data_add_dict_container(d, key, o, 0);
}

static int
tel_conns(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i, j;

	rte_tel_data_start_dict(d);
	for (i = 0; i < srv_tel_ctx->nb_stacks + 1; i++) {
		struct srv_stack *s = &srv_tel_ctx->stacks[i];

		if (s->app == NULL)
			continue;
		rte_spinlock_lock(&s->snap_lock);
		for (j = 0; j < s->snap_conns && j < SRV_SNAP_CONNS; j++)
			add_conn(d, i, &s->snap_conn[j]);
		rte_spinlock_unlock(&s->snap_lock);
	}
	return 0;
}

static int
tel_devmem(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct dt_devmem_region *r = srv_tel_ctx->region;
	struct rte_gpu_info info;
	struct rte_mempool *mp;

	rte_tel_data_start_dict(d);
	if (r == NULL) {
		rte_tel_data_add_dict_string(d, "region", "none");
		return 0;
	}
	mp = dt_devmem_region_pool(r);
	rte_tel_data_add_dict_string(d, "region", dt_devmem_region_name(r));
	if (dt_devmem_region_gpu_id(r) == RTE_GPU_ID_NONE ||
			rte_gpu_info_get(dt_devmem_region_gpu_id(r), &info) != 0)
		rte_tel_data_add_dict_string(d, "device", "host");
	else
		rte_tel_data_add_dict_string(d, "device", info.name);
	rte_tel_data_add_dict_u64(d, "bytes", dt_devmem_region_len(r));
	rte_tel_data_add_dict_u64(d, "buffers", mp->size);
	rte_tel_data_add_dict_u64(d, "buffer_size", rte_pktmbuf_data_room_size(mp));
	rte_tel_data_add_dict_u64(d, "free_buffers", rte_mempool_avail_count(mp));
	rte_tel_data_add_dict_u64(d, "held_buffers", rte_mempool_in_use_count(mp));
	rte_tel_data_add_dict_string(d, "cpu_alias",
		srv_tel_ctx->alias != NULL ? "mapped (verify)" : "none");
	return 0;
}

static int
tel_ingest(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	srv_ingest_telemetry(srv_tel_ctx, d);
	return 0;
}

static void
add_port_mode(struct rte_tel_data *d, const char *key,
	const struct dt_dp_port_mode *m)
{
	char line[640];

	dt_dp_port_mode_str(m, line, sizeof(line));
	rte_tel_data_add_dict_string(d, key, line);
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	if (srv_tel_ctx->port_started)
		add_port_mode(d, "receiver", &srv_tel_ctx->port_mode);
	if (srv_tel_ctx->client_started)
		add_port_mode(d, "sender", &srv_tel_ctx->client_mode);
	return 0;
}

int
srv_telemetry_register(struct srv_ctx *ctx)
{
	int rc;

	srv_tel_ctx = ctx;
	rc = rte_telemetry_register_cmd("/devtcp/stats", tel_stats,
		"devtcp stack and consumer counters, summed over the stacks");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/devtcp/conns", tel_conns,
			"devtcp connections (state, addresses, bytes, windows)");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/devtcp/ingest", tel_ingest,
			"devtcp ingest clients: port, quota, streams, held chunks, refusals");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/devtcp/devmem", tel_devmem,
			"devtcp payload region: device, size, free and held buffers");
	if (rc == 0)
		rc = rte_telemetry_register_cmd("/devtcp/ports", tel_ports,
			"devtcp ports: what lib/dp decided (split or copy, checksums, TX)");
	if (rc != 0)
		SRV_LOG(WARNING, "telemetry commands not registered: %s",
			rte_strerror(-rc));
	return rc;
}
