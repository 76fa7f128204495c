/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp's own inspection commands:
 *   show devmem   payload regions the console created (device, size,
 *                 buffers free and held by the NIC or the stack, the
 *                 provider of the memory and which path the NIC can DMA
 *                 through), and the device-memory send buffers of
 *                 "tcp send ... device"
 *   show gpu      every gpudev device (rte_gpu_info_get)
 */
#include <stdio.h>

#include <cmdline_parse_string.h>
#include <rte_gpudev.h>
#include <rte_mempool.h>

#include "cli.h"
#include "dt_devmem.h"

struct show_res {
	cmdline_fixed_string_t show, what;
};

static void
show_devmem(struct cmdline *cl)
{
	struct cli_ctx *ctx = cli_ctx_get();
	struct rte_gpu_info info;
	unsigned int i, p, n = 0;

	for (i = 0; i < 2 * CLI_MAX_PORTS; i++) {
		const struct dt_verbs_report *rep;
		struct dt_devmem_region *r;
		struct rte_mempool *mp;
		int16_t g;

		/* Receive regions first, then send buffers. */
		p = i % CLI_MAX_PORTS;
		r = i < CLI_MAX_PORTS ? ctx->port[p].region : ctx->port[p].tx_region;
		if (r == NULL)
			continue;
		mp = dt_devmem_region_pool(r);
		g = dt_devmem_region_gpu_id(r);
		cmdline_printf(cl, "region %s: %s, %zu bytes at %p, port %u\n"
			"  pool %s: %u buffers of %u bytes, %u free, %u held\n",
			dt_devmem_region_name(r),
			g == RTE_GPU_ID_NONE || rte_gpu_info_get(g, &info) != 0 ?
			"host memory" : info.name, dt_devmem_region_len(r),
			dt_devmem_region_base(r), dt_devmem_region_port_id(r), mp->name,
			mp->size, rte_pktmbuf_data_room_size(mp),
			rte_mempool_avail_count(mp), rte_mempool_in_use_count(mp));
		rep = dt_devmem_region_nic_check(r);
		cmdline_printf(cl, "  memory from %s; NIC path: %s\n",
			dt_devmem_region_provider(r), rep != NULL ? rep->line :
			"not checked (host memory or no port)");
		n++;
	}
	if (n == 0)
		cmdline_printf(cl, "no payload region (port start with set rxhdrs or "
			"set rxpkts creates one)\n");
}

static void
show_gpu(struct cmdline *cl)
{
	struct rte_gpu_info info;
	int16_t id;

	if (rte_gpu_count_avail() == 0) {
		cmdline_printf(cl, "no gpudev device (add --vdev=gpu_sim0,size=256M)\n");
		return;
	}
	RTE_GPU_FOREACH(id) {
		if (rte_gpu_info_get(id, &info) != 0) {
			cli_fail(cl, "gpu %d: no info", id);
			continue;
		}
		cmdline_printf(cl, "gpu %d: %s, NUMA node %d, %zu MiB, %u processors, "
			"context %" PRIu64 ", parent %d\n", id, info.name,
			info.numa_node, (size_t)(info.total_memory >> 20),
			info.processor_count, info.context, info.parent);
	}
}

static void
show_cb(void *res, struct cmdline *cl, void *data)
{
	struct show_res *r = res;

	if (r->what[0] == 'd')
		show_devmem(cl);
	else
		show_gpu(cl);
}

static cmdline_parse_token_string_t sh_show =
	TOKEN_STRING_INITIALIZER(struct show_res, show, "show");
static cmdline_parse_token_string_t sh_devmem =
	TOKEN_STRING_INITIALIZER(struct show_res, what, "devmem");
static cmdline_parse_token_string_t sh_gpu =
	TOKEN_STRING_INITIALIZER(struct show_res, what, "gpu");

cmdline_parse_inst_t cli_cmd_show_devmem = {
	.f = show_cb,
	.help_str = "show devmem: payload regions, their buffers free and held",
	.tokens = { (void *)&sh_show, (void *)&sh_devmem, NULL },
};

cmdline_parse_inst_t cli_cmd_show_gpu = {
	.f = show_cb,
	.help_str = "show gpu: every gpudev device (name, NUMA node, memory)",
	.tokens = { (void *)&sh_show, (void *)&sh_gpu, NULL },
};
