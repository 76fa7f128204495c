/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Set-up shared by lib/dp's component tests (test_dp_stack, test_dp_steer,
 * test_dp_conns): the two net_hsplit ports of one loopback wire (client
 * port first, server port second), the gpu_sim payload region behind the
 * server port, the client's and the server's mbuf pools and a send
 * pattern in hugepage memory. Starting the ports and creating the stacks
 * stay with each test: that is where they differ.
 */
#ifndef DP_FIXTURE_H
#define DP_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "dt_devmem.h"

/* What one test asks of the fixture. */
struct dp_fixture_conf {
	const char *prefix;        /* names: <prefix>_payload, _cli, _cshell, ... */
	uint32_t region_bufs;      /* payload region: buffers of 2048 bytes */
	bool cpu_map;              /* map the region for the CPU (verification) */
	unsigned int cli_mbufs;    /* client's mbufs (default data room) */
	unsigned int cli_shells;   /* client's mbufs without data room */
	unsigned int srv_hdrs;     /* server's header mbufs (256-byte data room) */
	unsigned int srv_hosts;    /* server's host-queue mbufs (default room), 0: none */
	unsigned int srv_shells;   /* server's mbufs without data room */
	uint32_t pattern_len;      /* bytes of the send pattern */
	uint8_t (*pattern_byte)(uint32_t i); /* byte i of it; NULL: dt_pattern_byte */
};

/* What the fixture made. */
struct dp_fixture {
	uint16_t cport, sport;     /* client and server port */
	struct dt_devmem_region *region; /* behind the server port */
	const uint8_t *alias;      /* the region's CPU map (cpu_map), else NULL */
	struct rte_mempool *c_pool, *c_shell, *s_hdr, *s_host, *s_shell;
	uint8_t *pattern;
	uint64_t pattern_iova;
};

/*
 * Find the ports and the GPU, create the region, the pools and the
 * pattern. Returns 0, -ENODEV (not two ports or no GPU: the test skips),
 * the region's error, or -ENOMEM.
 */
int dp_fixture_setup(struct dp_fixture *f, const struct dp_fixture_conf *c);

/*
 * After the test destroyed its stacks: stop both ports, unmap and destroy
 * the region, close both ports. Returns dt_devmem_region_destroy()'s result.
 */
int dp_fixture_teardown(struct dp_fixture *f);

#endif /* DP_FIXTURE_H */
