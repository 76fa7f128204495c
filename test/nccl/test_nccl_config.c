/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NCCL plugin's configuration file (nn_config.c, pure C): the shipped
 * example parses to the values it documents; bad keys and values are
 * refused with the file, line and key named.
 *
 * usage: test_nccl_config EXAMPLE_INI
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_test.h"
#include "nn_config.h"

static const char *example;

static void
test_example(void)
{
	struct nn_config c;
	char err[320] = "";

	DT_REQUIRE(nn_config_load(example, &c, err, sizeof(err)) == 0);
	DT_CHECK(strstr(c.eal, "--vdev=net_hsplit0,iface=eth1") != NULL);
	DT_CHECK(strcmp(c.port_name, "net_hsplit0") == 0);
	DT_CHECK_EQ(c.ipv4, inet_addr("10.0.0.1"));
	DT_CHECK_EQ(c.netmask, inet_addr("255.255.255.0"));
	DT_CHECK_EQ(c.flows, 4);
	DT_CHECK_EQ(c.window, 2u << 20);
	DT_CHECK_EQ(c.buffers, 32768);
	DT_CHECK_EQ(c.port_base, 47000);
	DT_CHECK_EQ(c.ptr, NN_PTR_MODE_AUTO);
	DT_CHECK(strcmp(c.gpu, "auto") == 0);
	DT_CHECK(strcmp(c.pci_path, "auto") == 0);
	DT_CHECK_EQ(c.nb_stacks, 0);
}

/* Write @p text to a temporary file and load it; returns the result. */
static int
load_text(const char *text, struct nn_config *c, char *err, size_t len)
{
	char path[] = "/tmp/nn_config_XXXXXX";
	int fd = mkstemp(path), rc;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -999;
	close(fd);
	rc = nn_config_load(path, c, err, len);
	unlink(path);
	return rc;
}

static void
test_errors(void)
{
	struct nn_config c;
	char err[320];

	err[0] = '\0';
	DT_CHECK(load_text("[nccl]\nflows = 4\nsockets = 2\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, ":3: [nccl] sockets: unknown key") != NULL);
	err[0] = '\0';
	DT_CHECK(load_text("[nccl]\nflows = 17\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, ":2: [nccl] flows: expected") != NULL);
	err[0] = '\0';
	DT_CHECK(load_text("[nccl]\nptr = gpu\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, "auto, host or cuda") != NULL);
	err[0] = '\0';
	/* Listen ports go up to port_base + 8191: they must stay 16-bit. */
	DT_CHECK(load_text("[nccl]\nport_base = 60000\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, ":2: [nccl] port_base: expected") != NULL);
	err[0] = '\0';
	DT_CHECK(load_text("[nccl]\nsend_engine = both\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, "shared or per_buffer") != NULL);
	err[0] = '\0';
	DT_CHECK(load_text("[nccl]\ncuda_batch = sometimes\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, "cuda_batch") != NULL);
	DT_CHECK(load_text("[nccl]\ncuda_batch = yes\n", &c, err, sizeof(err)) == 0);
	DT_CHECK(c.cuda_batch);
	DT_CHECK(load_text("[nccl]\nunpack = maybe\n", &c, err, sizeof(err)) != 0);
	DT_CHECK(strstr(err, "no, yes, harness or auto") != NULL);
	DT_CHECK(load_text("[nccl]\nunpack = harness\n", &c, err, sizeof(err)) == 0);
	DT_CHECK_EQ(c.unpack, NN_UNPACK_HARNESS);
	/* Defaults: unpack when NCCL allows it; no rail or plane (v12). */
	DT_CHECK(load_text("[nccl]\n", &c, err, sizeof(err)) == 0);
	DT_CHECK_EQ(c.unpack, NN_UNPACK_AUTO);
	DT_CHECK_EQ(c.rail, NN_CFG_ID_UNSET);
	DT_CHECK(load_text("[nccl]\nrail = 3\nplane = 1\n", &c, err, sizeof(err)) == 0);
	DT_CHECK_EQ(c.rail, 3);
	DT_CHECK_EQ(c.plane, 1);
	DT_CHECK(load_text("[nccl]\nrail = 40000\n", &c, err, sizeof(err)) != 0);
	err[0] = '\0';
	DT_CHECK(load_text("[nccl]\nsend_engine = per_buffer\n", &c, err,
		sizeof(err)) == 0);
	DT_CHECK_EQ(c.send_engine, NN_SEND_ENGINE_PER_BUFFER);
	err[0] = '\0';
	DT_CHECK(load_text("[lcores]\nstacks = 1-3\n[stack]\nipv4 = 10.1.2.3\n",
		&c, err, sizeof(err)) == 0);
	DT_CHECK_EQ(c.nb_stacks, 3);
	DT_CHECK_EQ(c.lcores[2], 3);
	DT_CHECK_EQ(c.ipv4, inet_addr("10.1.2.3"));
	DT_CHECK_EQ(c.flows, 4);      /* default */
	DT_CHECK_EQ(c.send_engine, NN_SEND_ENGINE_SHARED);
	DT_CHECK(!c.cuda_batch);      /* default */
	/* A silently dead peer fails receive-only comms in ~20 s by default. */
	DT_CHECK(c.keepalive);
	DT_CHECK_EQ(c.keepalive_idle_ms, 10000);
	DT_CHECK_EQ(c.keepalive_probes, 5);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s EXAMPLE_INI\n", argv[0]);
		return 2;
	}
	example = argv[1];
	dt_test_run("example", test_example);
	dt_test_run("errors", test_errors);
	return dt_test_summary();
}
