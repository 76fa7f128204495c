/* SPDX-License-Identifier: BSD-3-Clause */
/* The set-up lib/dp's component tests share (dp_fixture.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "dp_fixture.h"
#include "dt_dp_port.h"
#include "dt_pattern.h"

static struct rte_mempool *
pool(const struct dp_fixture_conf *c, const char *what, unsigned int n,
	uint16_t room)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "%s_%s", c->prefix, what);
	return rte_pktmbuf_pool_create(name, n, 256, 0, room, SOCKET_ID_ANY);
}

int
dp_fixture_setup(struct dp_fixture *f, const struct dp_fixture_conf *c)
{
	struct dt_devmem_region_conf rc;
	char name[64];
	uint32_t i;
	int16_t gpu;
	int r;

	memset(f, 0, sizeof(*f));
	if (rte_eth_dev_count_avail() != 2)
		return -ENODEV;
	f->cport = rte_eth_find_next(0);
	f->sport = rte_eth_find_next(f->cport + 1);
	gpu = rte_gpu_find_next(0, RTE_GPU_ID_ANY);
	if (gpu < 0)
		return -ENODEV;
	snprintf(name, sizeof(name), "%s_payload", c->prefix);
	memset(&rc, 0, sizeof(rc));
	rc.name = name;
	rc.gpu_id = gpu;
	rc.port_id = f->sport;
	rc.nb_bufs = c->region_bufs;
	rc.buf_size = 2048;
	rc.cache_size = 0;
	rc.socket_id = SOCKET_ID_ANY;
	r = dt_devmem_region_create(&rc, &f->region);
	if (r != 0)
		return r;
	if (c->cpu_map) {
		f->alias = dt_devmem_region_cpu_map(f->region);
		if (f->alias == NULL)
			return -ENOMEM;
	}
	f->c_pool = pool(c, "cli", c->cli_mbufs, RTE_MBUF_DEFAULT_BUF_SIZE);
	f->c_shell = pool(c, "cshell", c->cli_shells, 0);
	f->s_hdr = pool(c, "shdr", c->srv_hdrs, RTE_PKTMBUF_HEADROOM + 256);
	if (c->srv_hosts > 0)
		f->s_host = pool(c, "shost", c->srv_hosts,
			RTE_MBUF_DEFAULT_BUF_SIZE);
	f->s_shell = pool(c, "sshell", c->srv_shells, 0);
	snprintf(name, sizeof(name), "%s_pattern", c->prefix);
	f->pattern = rte_malloc(name, c->pattern_len, 64);
	if (f->c_pool == NULL || f->c_shell == NULL || f->s_hdr == NULL ||
			(c->srv_hosts > 0 && f->s_host == NULL) ||
			f->s_shell == NULL || f->pattern == NULL)
		return -ENOMEM;
	for (i = 0; i < c->pattern_len; i++)
		f->pattern[i] = c->pattern_byte != NULL ? c->pattern_byte(i) :
			dt_pattern_byte(i);
	f->pattern_iova = rte_malloc_virt2iova(f->pattern);
	return 0;
}

int
dp_fixture_teardown(struct dp_fixture *f)
{
	int r;

	dt_dp_port_stop(f->cport);
	dt_dp_port_stop(f->sport);
	if (f->alias != NULL)
		dt_devmem_region_cpu_unmap(f->region);
	r = dt_devmem_region_destroy(f->region);
	rte_eth_dev_close(f->cport);
	rte_eth_dev_close(f->sport);
	return r;
}
