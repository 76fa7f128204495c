/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the NUMA placement decisions (app/common/dt_app_place.c):
 * topologies built by hand, as a two-socket machine with a NIC and a GPU
 * would give them, no EAL and no libnuma.
 */
#include <stdio.h>
#include <string.h>

#include "dt_app_place.h"
#include "dt_test.h"

/* Port on node 0, GPU on node 0, everything where it belongs. */
static void
test_all_local(void)
{
	struct dt_app_topo t;
	struct dt_app_place_warn w[8];
	int p;

	dt_app_topo_init(&t, true, 2);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", 0, -1, true);
	dt_app_topo_add(&t, DT_APP_PLACE_GPU, "gpu 0", 0, -1, false);
	dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 1", 0, p, true);
	dt_app_topo_add(&t, DT_APP_PLACE_POOL, "pool hdr", 0, p, false);
	DT_CHECK_EQ(dt_app_place_check(&t, w, 8), 0);
}

/* A stack lcore on the other socket than its port (and the GPU). */
static void
test_lcore_remote(void)
{
	struct dt_app_topo t;
	struct dt_app_place_warn w[8];
	char line[256];
	int p, l;

	dt_app_topo_init(&t, true, 2);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", 0, -1, true);
	dt_app_topo_add(&t, DT_APP_PLACE_GPU, "gpu 0", 0, -1, false);
	dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 0", 0, p, true);
	l = dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 9", 1, p, true);
	/* One warning: the GPU sits with the port, saying it twice is noise. */
	DT_REQUIRE(dt_app_place_check(&t, w, 8) == 1);
	DT_CHECK_EQ(w[0].obj, l);
	DT_CHECK_EQ(w[0].ref, p);
	DT_CHECK_EQ(w[0].node, 1);
	DT_CHECK_EQ(w[0].ref_node, 0);
	dt_app_place_warn_str(&t, &w[0], line, sizeof(line));
	DT_CHECK(strcmp(line, "lcore 9 is on node 1, port 0 on node 0: the polling core reaches a remote NIC") == 0);
}

/* A pool on another node than its port. */
static void
test_pool_remote(void)
{
	struct dt_app_topo t;
	struct dt_app_place_warn w[8];
	int p, m;

	dt_app_topo_init(&t, true, 2);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", 1, -1, true);
	m = dt_app_topo_add(&t, DT_APP_PLACE_POOL, "pool wire", 0, p, false);
	DT_REQUIRE(dt_app_place_check(&t, w, 8) == 1);
	DT_CHECK_EQ(w[0].obj, m);
	DT_CHECK_EQ(w[0].ref, p);
}

/*
 * Port and GPU on different sockets: the port is reported against the
 * GPU, a payload lcore next to the port against the GPU, one next to the
 * GPU against the port: each misplaced pair once.
 */
static void
test_port_gpu_apart(void)
{
	struct dt_app_topo t;
	struct dt_app_place_warn w[8];
	int p, g, a, b;

	dt_app_topo_init(&t, true, 2);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", 0, -1, true);
	g = dt_app_topo_add(&t, DT_APP_PLACE_GPU, "gpu 0", 1, -1, false);
	a = dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 1", 0, p, true);
	b = dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 2", 1, p, true);
	DT_REQUIRE(dt_app_place_check(&t, w, 8) == 3);
	DT_CHECK(w[0].obj == (unsigned int)p && w[0].ref == (unsigned int)g);
	DT_CHECK(w[1].obj == (unsigned int)a && w[1].ref == (unsigned int)g);
	DT_CHECK(w[2].obj == (unsigned int)b && w[2].ref == (unsigned int)p);
	DT_CHECK_EQ(w[2].node, 1);
	DT_CHECK_EQ(w[2].ref_node, 0);
}

/* Objects without payload (a sender's lcore) are not held to the GPU. */
static void
test_no_payload_no_gpu_check(void)
{
	struct dt_app_topo t;
	struct dt_app_place_warn w[8];
	int p;

	dt_app_topo_init(&t, true, 2);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 1", 0, -1, false);
	dt_app_topo_add(&t, DT_APP_PLACE_GPU, "gpu 0", 1, -1, false);
	dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 3", 0, p, false);
	DT_CHECK_EQ(dt_app_place_check(&t, w, 8), 0);
}

/* Unknown nodes (virtual devices: SOCKET_ID_ANY) are never reported. */
static void
test_unknown_nodes(void)
{
	struct dt_app_topo t;
	int p;

	dt_app_topo_init(&t, true, 2);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", -1, -1, true);
	dt_app_topo_add(&t, DT_APP_PLACE_GPU, "gpu 0", DT_APP_NODE_ANY, -1, false);
	dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore 0", 1, p, true);
	dt_app_topo_add(&t, DT_APP_PLACE_POOL, "pool", -5, p, true);
	DT_CHECK_EQ(t.obj[3].node, DT_APP_NODE_ANY);
	DT_CHECK_EQ(dt_app_place_check(&t, NULL, 0), 0);
}

/* Without libnuma nothing is checked, however misplaced (no storm). */
static void
test_numa_unavailable(void)
{
	struct dt_app_topo t;
	unsigned int i;
	int p;

	dt_app_topo_init(&t, false, 0);
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", 0, -1, true);
	dt_app_topo_add(&t, DT_APP_PLACE_GPU, "gpu 0", 1, -1, false);
	for (i = 0; i < 32; i++)
		dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore", 1, p, true);
	DT_CHECK_EQ(dt_app_place_check(&t, NULL, 0), 0);
	t.numa_ok = true;
	DT_CHECK_EQ(dt_app_place_check(&t, NULL, 0), 1 + 32);
}

/* The count goes past the room given; only the room is written. */
static void
test_capacity(void)
{
	struct dt_app_topo t;
	struct dt_app_place_warn w[3];
	unsigned int i;
	int p;

	dt_app_topo_init(&t, true, 2);
	memset(w, 0xab, sizeof(w));
	p = dt_app_topo_add(&t, DT_APP_PLACE_PORT, "port 0", 0, -1, true);
	for (i = 0; i < 5; i++)
		dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "lcore", 1, p, false);
	DT_CHECK_EQ(dt_app_place_check(&t, w, 2), 5);
	DT_CHECK_EQ(w[1].obj, 2);
	DT_CHECK_EQ(w[2].obj, 0xabababab);
}

/* A full topology refuses more; a bad port index is no port. */
static void
test_full_and_bad_port(void)
{
	struct dt_app_topo t;
	unsigned int i;

	dt_app_topo_init(&t, true, 2);
	DT_CHECK_EQ(dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "l", 0, 7, false), 0);
	DT_CHECK_EQ(t.obj[0].port, -1);
	for (i = 1; i < DT_APP_PLACE_MAX; i++)
		DT_CHECK_EQ(dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "l", 0, -1, false),
			(int)i);
	DT_CHECK_EQ(dt_app_topo_add(&t, DT_APP_PLACE_LCORE, "l", 0, -1, false), -1);
}

/* Where a pool goes: the port's node, else the GPU's, else the lcore's. */
static void
test_pool_node(void)
{
	DT_CHECK_EQ(dt_app_place_pool_node(1, 0, 0), 1);
	DT_CHECK_EQ(dt_app_place_pool_node(-1, 1, 0), 1);
	DT_CHECK_EQ(dt_app_place_pool_node(-1, -1, 1), 1);
	DT_CHECK_EQ(dt_app_place_pool_node(-1, -1, -1), DT_APP_NODE_ANY);
}

int
main(void)
{
	DT_RUN(test_all_local);
	DT_RUN(test_lcore_remote);
	DT_RUN(test_pool_remote);
	DT_RUN(test_port_gpu_apart);
	DT_RUN(test_no_payload_no_gpu_check);
	DT_RUN(test_unknown_nodes);
	DT_RUN(test_numa_unavailable);
	DT_RUN(test_capacity);
	DT_RUN(test_full_and_bad_port);
	DT_RUN(test_pool_node);
	return dt_test_summary();
}
