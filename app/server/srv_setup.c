/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Start-up and teardown of what the configuration file asks for: ports by
 * name, the gpudev device, host pools, the device-memory payload region,
 * ports started with buffer split (dt_dp_port_start runs a NIC without
 * buffer split in copy mode, and what it decided is printed; a refusal's
 * message is shown as is) and rte_flow steering rules.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_gpudev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "dt_devmem.h"
#include "dt_dp_port.h"
#include "rte_pmd_hsplit.h"
#include "srv.h"

#define SRV_HDR_ROOM 256

static int
resolve_port(const struct srv_config *cfg, uint16_t idx, uint16_t *port_id)
{
	const char *name = cfg->port[idx].name;
	char names[256] = "";
	uint16_t pid;

	if (name[0] == '\0') {
		if (rte_eth_dev_is_valid_port(idx)) {
			*port_id = idx;
			return 0;
		}
	} else if (rte_eth_dev_get_port_by_name(name, port_id) == 0) {
		return 0;
	}
	RTE_ETH_FOREACH_DEV(pid) {
		char n[RTE_ETH_NAME_MAX_LEN];

		if (rte_eth_dev_get_name_by_port(pid, n) == 0)
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				"%s%u=%s", names[0] ? ", " : "", pid, n);
	}
	fprintf(stderr, "%s: [port.%u]%s%s: no such port (ports: %s; add one "
		"with --vdev=net_hsplit0,wire=lo; a --vdev whose probe failed, "
		"see the errors above, is no port)\n", cfg->path, idx,
		name[0] ? " name " : "", name, names[0] ? names : "none");
	return -ENODEV;
}

static int
resolve_gpu(struct srv_ctx *ctx)
{
	const char *g = ctx->cfg.gpu;
	struct rte_gpu_info info;
	int16_t id;

	if (strcmp(g, "host") == 0) {
		ctx->gpu_id = RTE_GPU_ID_NONE;
		return 0;
	}
	if (isdigit((unsigned char)g[0])) {
		id = atoi(g);
		if (rte_gpu_is_valid(id)) {
			ctx->gpu_id = id;
			return 0;
		}
	} else {
		RTE_GPU_FOREACH(id) {
			if (rte_gpu_info_get(id, &info) == 0 &&
					strcmp(info.name, g) == 0) {
				ctx->gpu_id = id;
				return 0;
			}
		}
	}
	fprintf(stderr, "%s: [devmem] gpu: no gpudev device '%s' (%u found; add "
		"--vdev=gpu_sim0,size=256M, or gpu = host)\n", ctx->cfg.path, g,
		rte_gpu_count_avail());
	return -ENODEV;
}

static int
create_pools(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	const struct srv_port_cfg *pc = &c->port[c->stack.port];
	int socket = rte_eth_dev_socket_id(ctx->port_id);
	uint16_t whole = RTE_MBUF_DEFAULT_BUF_SIZE;
	uint16_t room = pc->split == SRV_SPLIT_NONE ? whole :
		SRV_HDR_ROOM + RTE_PKTMBUF_HEADROOM;

	ctx->hdr_pool = rte_pktmbuf_pool_create("srv_hdr", c->header_buffers,
		RTE_MIN(c->cache, RTE_MEMPOOL_CACHE_MAX_SIZE), 0, room, socket);
	ctx->shell_pool = rte_pktmbuf_pool_create("srv_shell", c->header_buffers,
		RTE_MIN(c->cache, RTE_MEMPOOL_CACHE_MAX_SIZE), 0, 0, socket);
	if (ctx->hdr_pool == NULL || ctx->shell_pool == NULL) {
		fprintf(stderr, "cannot create host mbuf pools (2 x %u buffers, "
			"about %u MiB of DPDK memory): %s; reserve more hugepages or "
			"raise EAL's -m, or lower [devmem] header_buffers\n",
			c->header_buffers, (unsigned int)(((uint64_t)c->header_buffers *
			(room + 2 * sizeof(struct rte_mbuf) + 128)) >> 20),
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	if (c->has_client) {
		ctx->client_pool = rte_pktmbuf_pool_create("srv_client", 8192, 256,
			0, whole, rte_eth_dev_socket_id(ctx->client_port_id));
		if (ctx->client_pool == NULL) {
			fprintf(stderr, "cannot create the sender's mbuf pool: %s\n",
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

static int
create_region(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	struct dt_devmem_region_conf rc = {
		.name = "srv_payload",
		.gpu_id = ctx->gpu_id,
		.port_id = ctx->port_id,
		.nb_bufs = c->buffers,
		.buf_size = c->buffer_size,
		.cache_size = RTE_MIN(c->cache, RTE_MEMPOOL_CACHE_MAX_SIZE),
		.socket_id = rte_eth_dev_socket_id(ctx->port_id),
	};
	int rc_;

	rc_ = dt_devmem_region_create(&rc, &ctx->region);
	if (rc_ != 0) {
		fprintf(stderr, "cannot create the payload region (%u x %u bytes in %s "
			"memory): %s\n", c->buffers, c->buffer_size,
			ctx->gpu_id == RTE_GPU_ID_NONE ? "host" : "device",
			rte_strerror(-rc_));
		return rc_;
	}
	if (c->consumer != SRV_CONSUMER_VERIFY)
		return 0;
	ctx->alias = dt_devmem_region_cpu_map(ctx->region);
	if (ctx->alias == NULL) {
		SRV_LOG(WARNING, "verify consumer unavailable (pattern and sha256): "
			"the device cannot map its memory for the CPU (%s); "
			"payload is discarded instead", rte_strerror(rte_errno));
		ctx->cfg.consumer = SRV_CONSUMER_DISCARD;
	}
	return 0;
}

static void
port_conf_of(const struct srv_port_cfg *pc, uint16_t nq, struct dt_dp_port_conf *pcf)
{
	memset(pcf, 0, sizeof(*pcf));
	pcf->nb_rxq = nq;
	pcf->nb_txq = nq;
	pcf->nb_rxd = pc->rxd;
	pcf->nb_txd = pc->txd;
	pcf->mtu = pc->mtu;
	pcf->tx_cksum = pc->tx_cksum;
	pcf->no_tso = !pc->tso;
	pcf->rx_copy = pc->copy;
	pcf->tx_multi_seg = true;
	pcf->split = pc->split == SRV_SPLIT_PROTO ? DT_DP_SPLIT_PROTO :
		pc->split == SRV_SPLIT_LEN ? DT_DP_SPLIT_LEN : DT_DP_SPLIT_NONE;
	pcf->split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	/* split_len belongs to split = len; a proto fallback picks its own. */
	pcf->split_len = pc->split == SRV_SPLIT_LEN ? pc->split_len : 0;
}

/*
 * split = proto on a NIC without protocol split (mlx5): the server falls
 * back to a length split (lib/dp does it and logs why) rather than refuse,
 * so that the default configuration runs on every NIC; this line says what
 * to write to make the choice explicit.
 */
static void
split_fallback_note(uint16_t port, const struct dt_dp_port_conf *pcf)
{
	struct rte_eth_dev_info info;

	if (pcf->split != DT_DP_SPLIT_PROTO ||
			dt_dp_port_split_proto_supported(port, pcf->split_proto) ||
			rte_eth_dev_info_get(port, &info) != 0 ||
			!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_BUFFER_SPLIT))
		return;
	fprintf(stderr, "devtcp: port %u (%s): split = proto, but the NIC has no "
		"protocol split: using a length split at %u bytes; set split = len "
		"and split_len = N in the port's section to choose the length "
		"(docs/nics.md, \"Capability profiles\")\n", port, info.driver_name,
		DT_DP_SPLIT_LEN_FALLBACK);
}

/*
 * The start-up report's line of a port: what lib/dp made of the NIC (split,
 * copy or whole frames; who sums checksums; linear or multi-segment TX).
 */
static void
port_mode_note(uint16_t port, const char *role, struct dt_dp_port_mode *m)
{
	char line[640];

	if (dt_dp_port_mode_get(port, m) != 0)
		return;
	dt_dp_port_mode_str(m, line, sizeof(line));
	printf("devtcp: port %u (%s): %s\n", port, role, line);
}

static int
start_ports(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	struct dt_dp_port_conf pcf;
	char err[256];
	int rc;

	if (c->stack.nb_listen != 0 && !ctx->opts.send_role) {
		port_conf_of(&c->port[c->stack.port], ctx->nb_stacks, &pcf);
		pcf.hdr_pool = ctx->hdr_pool;
		if (pcf.split != DT_DP_SPLIT_NONE)
			pcf.pay_pool = dt_devmem_region_pool(ctx->region);
		split_fallback_note(ctx->port_id, &pcf);
		ctx->port_configured = true;
		rc = dt_dp_port_start(ctx->port_id, &pcf, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "devtcp: %s\n", err);
			return rc;
		}
		ctx->port_started = true;
		port_mode_note(ctx->port_id, "receiver", &ctx->port_mode);
	}
	if (c->has_client) {
		port_conf_of(&c->port[c->client.port], 1, &pcf);
		pcf.split = DT_DP_SPLIT_NONE;  /* a sender receives ACKs only */
		pcf.hdr_pool = ctx->client_pool;
		ctx->client_configured = true;
		rc = dt_dp_port_start(ctx->client_port_id, &pcf, err, sizeof(err));
		if (rc != 0) {
			fprintf(stderr, "devtcp: %s\n", err);
			return rc;
		}
		ctx->client_started = true;
		port_mode_note(ctx->client_port_id, "sender", &ctx->client_mode);
	}
	return 0;
}

/* [steering] mode = flow: TCP destination port -> RX queue. */
static int
create_flows(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_error ferr;
	unsigned int i;

	for (i = 0; c->steer_flow && i < c->nb_rules; i++) {
		struct rte_flow_item_tcp spec = {
			.hdr.dst_port = rte_cpu_to_be_16(c->rules[i].tcp_port) };
		struct rte_flow_item_tcp mask = { .hdr.dst_port = RTE_BE16(0xffff) };
		struct rte_flow_item pat[] = {
			{ .type = RTE_FLOW_ITEM_TYPE_ETH },
			{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
			{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &spec, .mask = &mask },
			{ .type = RTE_FLOW_ITEM_TYPE_END },
		};
		struct rte_flow_action_queue q = { .index = c->rules[i].queue };
		struct rte_flow_action act[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		ctx->flows[i] = rte_flow_create(ctx->port_id, &attr, pat, act, &ferr);
		if (ctx->flows[i] == NULL) {
			fprintf(stderr, "%s: [steering] rules: TCP port %u -> queue %u "
				"refused by port %u: %s\n", c->path, c->rules[i].tcp_port,
				c->rules[i].queue, ctx->port_id,
				ferr.message ? ferr.message : rte_strerror(rte_errno));
			return -ENOTSUP;
		}
	}
	return 0;
}

/* A mempool's memory chunks, rounded out to their pages, into ctx->gpu_regs. */
static void
reg_chunk(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *h,
	unsigned int idx)
{
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(h->addr);
	size_t pg = msl != NULL ? msl->page_sz : (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = RTE_ALIGN_FLOOR((uintptr_t)h->addr, pg);
	uintptr_t hi = RTE_ALIGN_CEIL((uintptr_t)h->addr + h->len, pg);
	struct srv_ctx *ctx = opaque;

	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	if (ctx->nb_gpu_regs == SRV_GPU_REGS) {
		ctx->gpu_reg_failed++;
		return;
	}
	ctx->gpu_regs[ctx->nb_gpu_regs++] = (struct srv_gpu_reg){
		.addr = (void *)lo, .len = hi - lo };
}

static int
reg_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct srv_gpu_reg *)a)->addr;
	uintptr_t y = (uintptr_t)((const struct srv_gpu_reg *)b)->addr;

	return x < y ? -1 : x > y;
}

/*
 * Pools share hugepages, and a byte is registered at most once (as with
 * cuMemHostRegister): sort the page ranges and merge those that overlap or
 * touch.
 */
static void
reg_merge(struct srv_ctx *ctx)
{
	struct srv_gpu_reg *r = ctx->gpu_regs;
	unsigned int i, n = 0;

	qsort(r, ctx->nb_gpu_regs, sizeof(r[0]), reg_cmp);
	for (i = 0; i < ctx->nb_gpu_regs; i++) {
		uintptr_t end = (uintptr_t)r[i].addr + r[i].len;

		if (n > 0 && (uintptr_t)r[i].addr <=
				(uintptr_t)r[n - 1].addr + r[n - 1].len) {
			uintptr_t prev = (uintptr_t)r[n - 1].addr + r[n - 1].len;

			if (end > prev)
				r[n - 1].len = end - (uintptr_t)r[n - 1].addr;
			continue;
		}
		r[n++] = r[i];
	}
	ctx->nb_gpu_regs = n;
}

/*
 * The software NIC's wire pools (and the interface backend's pool of
 * coalesced frames) are what its copy engine reads (payload of received
 * frames) and writes (device payload sent): registered with the
 * GPU, copies from them are asynchronous; unregistered, CUDA copies them
 * synchronously through a bounce buffer (gpu_cuda says so once per
 * channel). A refusal is not fatal: the figures are then those of the slow
 * path, and the placement report says so.
 */
static void
srv_gpu_register(struct srv_ctx *ctx)
{
	unsigned int i, n = 0;
	uint16_t pid;
	int rc;

	RTE_ETH_FOREACH_DEV(pid) {
		struct rte_mempool *mp = rte_pmd_hsplit_wire_pool(pid);

		if (mp != NULL)
			rte_mempool_mem_iter(mp, reg_chunk, ctx);
		/* Coalesced frames (LRO): their own pool, made at port start. */
		mp = rte_pmd_hsplit_lro_pool(pid);
		if (mp != NULL)
			rte_mempool_mem_iter(mp, reg_chunk, ctx);
	}
	reg_merge(ctx);
	for (i = 0; i < ctx->nb_gpu_regs; i++) {
		struct srv_gpu_reg *r = &ctx->gpu_regs[i];

		rc = rte_gpu_mem_register(ctx->gpu_id, r->len, r->addr);
		if (rc != 0) {
			SRV_LOG(WARNING, "cannot register host memory %p (+%zu) with gpu %d: %s; the copy engine copies it the slow way",
				r->addr, r->len, ctx->gpu_id, rte_strerror(rte_errno));
			ctx->gpu_reg_failed++;
			continue;
		}
		ctx->gpu_reg_bytes += r->len;
		ctx->gpu_regs[n++] = *r;
	}
	ctx->nb_gpu_regs = n;
}

static void
srv_gpu_unregister(struct srv_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ctx->nb_gpu_regs; i++)
		if (rte_gpu_mem_unregister(ctx->gpu_id, ctx->gpu_regs[i].addr) != 0)
			SRV_LOG(ERR, "cannot unregister host memory %p from gpu %d: %s",
				ctx->gpu_regs[i].addr, ctx->gpu_id,
				rte_strerror(rte_errno));
	ctx->nb_gpu_regs = 0;
}

int
srv_setup(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	bool server = c->stack.nb_listen != 0 && !ctx->opts.send_role;
	int rc;

	ctx->nb_stacks = c->nb_stacks ? c->nb_stacks : 1;
	if (server && resolve_port(c, c->stack.port, &ctx->port_id) != 0)
		return -ENODEV;
	if (c->has_client &&
			resolve_port(c, c->client.port, &ctx->client_port_id) != 0)
		return -ENODEV;
	if (!server)
		ctx->port_id = ctx->client_port_id;
	ctx->gpu_id = RTE_GPU_ID_NONE;
	rc = server || ctx->opts.send_device ? resolve_gpu(ctx) : 0;
	if (rc == 0)
		rc = create_pools(ctx);
	if (rc == 0 && server)
		rc = create_region(ctx);
	if (rc == 0)
		rc = start_ports(ctx);
	/* After the start: the LRO pool is made then. */
	if (rc == 0 && ctx->gpu_id != RTE_GPU_ID_NONE)
		srv_gpu_register(ctx);
	if (rc == 0 && server)
		rc = create_flows(ctx);
	return rc;
}

void
srv_teardown(struct srv_ctx *ctx)
{
	struct rte_flow_error ferr;
	unsigned int i;
	int rc;

	for (i = 0; i < SRV_MAX_RULES; i++)
		if (ctx->flows[i] != NULL)
			rte_flow_destroy(ctx->port_id, ctx->flows[i], &ferr);
	if (ctx->port_started)
		dt_dp_port_stop(ctx->port_id);
	if (ctx->client_started)
		dt_dp_port_stop(ctx->client_port_id);
	if (ctx->send_region != NULL) {
		/* The sender's device buffer: no mbuf references it any more. */
		dt_devmem_region_cpu_unmap(ctx->send_region);
		rc = dt_devmem_region_destroy(ctx->send_region);
		if (rc != 0)
			SRV_LOG(ERR, "send region not freed: %s", rte_strerror(-rc));
	}
	/* Stopped ports hold no payload buffer; the DMA map goes before close. */
	if (ctx->alias != NULL)
		dt_devmem_region_cpu_unmap(ctx->region);
	if (ctx->region != NULL) {
		rc = dt_devmem_region_destroy(ctx->region);
		if (rc != 0)
			SRV_LOG(ERR, "payload region not freed: %s", rte_strerror(-rc));
		else
			SRV_LOG(INFO, "device memory freed");
	}
	/* The wire pools go with the ports; the GPU goes at EAL cleanup. */
	if (ctx->gpu_id != RTE_GPU_ID_NONE)
		srv_gpu_unregister(ctx);
	/*
	 * Every port that was given the pools closes before they go, started
	 * or not: left to EAL's cleanup, a port whose start failed would
	 * release its queues into freed pools.
	 */
	if (ctx->port_configured)
		rte_eth_dev_close(ctx->port_id);
	if (ctx->client_configured &&
			!(ctx->port_configured && ctx->client_port_id == ctx->port_id))
		rte_eth_dev_close(ctx->client_port_id);
	rte_mempool_free(ctx->client_pool);
	rte_mempool_free(ctx->shell_pool);
	rte_mempool_free(ctx->hdr_pool);
}

/*
 * The lcore of stack @p i: [lcores] stack_lcores[i]; with stacks = N the
 * i-th worker lcore (a single stack may run on the main lcore when -l
 * gives no worker, as without [lcores]).
 */
static int
stack_lcore(const struct srv_config *c, unsigned int i, unsigned int first,
	unsigned int *lc)
{
	unsigned int k;

	if (c->nb_stacks == 0 || (c->stacks_counted && c->nb_stacks == 1)) {
		*lc = first;
		return 0;
	}
	if (!c->stacks_counted) {
		*lc = c->stack_lcores[i];
		if (*lc < RTE_MAX_LCORE && rte_lcore_is_enabled(*lc))
			return 0;
		fprintf(stderr, "%s: [lcores] stack_lcores: lcore %u is not enabled "
			"(give it to EAL with -l, e.g. -l 0-%u)\n", c->path, *lc, *lc);
		return -EINVAL;
	}
	*lc = rte_get_next_lcore(-1, 1, 0);
	for (k = 0; k < i && *lc < RTE_MAX_LCORE; k++)
		*lc = rte_get_next_lcore(*lc, 1, 0);
	if (*lc < RTE_MAX_LCORE)
		return 0;
	fprintf(stderr, "%s: [lcores] stacks = %u needs %u worker lcores, EAL has "
		"%u (-l gives the main lcore and the workers: e.g. -l 0-%u)\n",
		c->path, c->nb_stacks, c->nb_stacks, rte_lcore_count() - 1,
		c->nb_stacks);
	return -EINVAL;
}

/* Stack i on its lcore (stack_lcore()); the client beside the first stack. */
int
srv_assign_lcores(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	bool server = c->stack.nb_listen != 0 && !ctx->opts.send_role;
	unsigned int i, lc, first;

	first = rte_get_next_lcore(-1, 1, 0);
	if (first >= RTE_MAX_LCORE)
		first = rte_get_main_lcore();
	if (!server)
		ctx->nb_stacks = 0;
	for (i = 0; i < ctx->nb_stacks; i++) {
		struct srv_stack *s = &ctx->stacks[i];

		if (stack_lcore(c, i, first, &lc) != 0)
			return -EINVAL;
		s->app = ctx;
		s->lcore = lc;
		s->port_id = ctx->port_id;
		s->queue = i;
		rte_spinlock_init(&s->snap_lock);
	}
	if (c->has_client) {
		struct srv_stack *s = &ctx->stacks[ctx->nb_stacks];

		s->app = ctx;
		s->lcore = ctx->nb_stacks ? ctx->stacks[0].lcore : first;
		s->port_id = ctx->client_port_id;
		s->queue = 0;
		s->client = true;
		rte_spinlock_init(&s->snap_lock);
	}
	return 0;
}

/*
 * --check with the run's EAL arguments: the ports, the GPU and the lcores
 * the file names must exist, as they will be looked up at start.
 */
int
srv_check_devices(struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	bool server = c->stack.nb_listen != 0 && !ctx->opts.send_role;
	int rc = 0;

	ctx->nb_stacks = c->nb_stacks ? c->nb_stacks : 1;
	if (server && resolve_port(c, c->stack.port, &ctx->port_id) != 0)
		rc = -ENODEV;
	if (c->has_client &&
			resolve_port(c, c->client.port, &ctx->client_port_id) != 0)
		rc = -ENODEV;
	ctx->gpu_id = RTE_GPU_ID_NONE;
	if ((server || ctx->opts.send_device) && resolve_gpu(ctx) != 0)
		rc = -ENODEV;
	if (rc == 0)
		rc = srv_assign_lcores(ctx);
	return rc;
}
