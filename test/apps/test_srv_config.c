/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of devtcp-server's configuration file (no EAL): the shipped
 * samples load, and each kind of bad file is refused with its exact message.
 *
 * usage: test_srv_config CONFIG_DIR (the repository's config/)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_app_sha256.h"
#include "dt_app_value.h"
#include "dt_test.h"
#include "srv_config.h"

static const char *config_dir;
static char tmp_dir[] = "/tmp/test_srv_config.XXXXXX";

/* Write @p text to a file of the temp dir; its path into @p path. */
static void
write_file(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", tmp_dir, name);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* Load @p text; expect failure with "<path>:<msg>" exactly. */
static void
expect_error(const char *text, const char *msg)
{
	static struct srv_config cfg;
	char path[256], err[512], want[512];
	int rc;

	write_file("bad.ini", text, path, sizeof(path));
	err[0] = '\0';
	rc = srv_config_load(path, &cfg, err, sizeof(err));
	snprintf(want, sizeof(want), "%s%s", path, msg);
	DT_CHECK(rc < 0);
	if (strcmp(err, want) != 0) {
		fprintf(stderr, "  got:  %s\n  want: %s\n", err, want);
		DT_CHECK(strcmp(err, want) == 0);
	}
}

#define MIN_STACK "[stack]\nipv4 = 10.0.0.1\nlisten = 5001\n"

static void
test_sample_server(void)
{
	static struct srv_config c;
	char path[512], err[512] = "";
	int rc;

	snprintf(path, sizeof(path), "%s/server.ini", config_dir);
	rc = srv_config_load(path, &c, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "  %s\n", err);
	DT_REQUIRE(rc == 0);
	DT_CHECK(strcmp(c.port[0].name, "net_hsplit0") == 0);
	DT_CHECK(c.port[0].split == SRV_SPLIT_PROTO);
	DT_CHECK(c.port[1].split == SRV_SPLIT_NONE);
	DT_CHECK_EQ(c.port[1].mtu, 1500);
	DT_CHECK_EQ(c.nb_stacks, 1);
	DT_CHECK(c.stacks_counted);
	DT_CHECK(c.warning[0] == '\0');
	DT_CHECK_EQ(c.stack.ipv4, htonl(0x0a000001));
	DT_CHECK_EQ(c.stack.netmask, htonl(0xffffff00));
	DT_CHECK_EQ(c.stack.nb_listen, 1);
	DT_CHECK_EQ(c.stack.listen[0], 5001);
	DT_CHECK_EQ(c.buffers, 16384);
	DT_CHECK_EQ(c.buffer_size, 2048);
	DT_CHECK_EQ(c.window, 1 << 20);
	DT_CHECK(c.consumer == SRV_CONSUMER_VERIFY);
	DT_CHECK(c.verify_pattern && c.verify_sha256);
	DT_CHECK(!c.steer_flow);
	DT_CHECK(!c.has_client);
}

static void
test_sample_jumbo_and_send(void)
{
	static struct srv_config c;
	char path[512], err[512] = "";

	snprintf(path, sizeof(path), "%s/server-jumbo.ini", config_dir);
	DT_REQUIRE(srv_config_load(path, &c, err, sizeof(err)) == 0);
	DT_CHECK_EQ(c.port[0].mtu, 9000);
	DT_CHECK_EQ(c.buffer_size, 4096);
	DT_CHECK_EQ(c.window, 4 << 20);
	DT_CHECK(c.consumer == SRV_CONSUMER_DISCARD);

	snprintf(path, sizeof(path), "%s/send.ini", config_dir);
	DT_REQUIRE(srv_config_load(path, &c, err, sizeof(err)) == 0);
	DT_CHECK(c.has_client);
	DT_CHECK_EQ(c.client.port, 0);
	DT_CHECK_EQ(c.client_raddr, htonl(0x0a4d0002));
	DT_CHECK_EQ(c.client_rport, 5001);
	DT_CHECK_EQ(c.client_bytes, 64 << 20);
	DT_CHECK_EQ(c.client_chunk, 64 << 10);
}

/* The real-NIC samples: PCI port names, mlx5 length split, ice protocol split. */
static void
test_sample_nics(void)
{
	static struct srv_config c;
	char path[512], err[512] = "";

	snprintf(path, sizeof(path), "%s/server-mlx5.ini", config_dir);
	if (srv_config_load(path, &c, err, sizeof(err)) != 0)
		fprintf(stderr, "  %s\n", err);
	DT_REQUIRE(err[0] == '\0');
	DT_CHECK(strcmp(c.port[0].name, "0000:3b:00.0") == 0);
	DT_CHECK(c.port[0].split == SRV_SPLIT_LEN);
	DT_CHECK_EQ(c.port[0].split_len, 66);
	DT_CHECK_EQ(c.nb_stacks, 2);
	DT_CHECK(c.stacks_counted);

	snprintf(path, sizeof(path), "%s/server-ice.ini", config_dir);
	if (srv_config_load(path, &c, err, sizeof(err)) != 0)
		fprintf(stderr, "  %s\n", err);
	DT_REQUIRE(err[0] == '\0');
	DT_CHECK(strcmp(c.port[0].name, "0000:af:00.0") == 0);
	DT_CHECK(c.port[0].split == SRV_SPLIT_PROTO);
}

static void
test_port_defaults_and_overrides(void)
{
	static struct srv_config c;
	char path[256], err[512] = "";

	/* [port] after [port.2]: the override still wins, other keys inherit. */
	write_file("ports.ini", "[port.2]\nmtu = 9000\n[port]\nmtu = 4000\n"
		"split = len\nsplit_len = 128\n" MIN_STACK
		"[steering]\nmode = flow\nrules = 5001:0, 5002:0\n", path,
		sizeof(path));
	DT_REQUIRE(srv_config_load(path, &c, err, sizeof(err)) == 0);
	DT_CHECK_EQ(c.port[2].mtu, 9000);
	DT_CHECK(c.port[2].split == SRV_SPLIT_LEN);
	DT_CHECK_EQ(c.port[2].split_len, 128);
	DT_CHECK_EQ(c.port[0].mtu, 4000);
	DT_CHECK(c.port[2].defined && !c.port[0].defined);
	DT_CHECK(c.steer_flow);
	DT_CHECK_EQ(c.nb_rules, 2);
	DT_CHECK_EQ(c.rules[1].tcp_port, 5002);
}

static void
test_syntax_errors(void)
{
	expect_error("[devmem\nbuffers = 1\n",
		":1: malformed section header '[devmem' (expected [name])");
	expect_error("[devmem]\nbuffers\n",
		":2: expected 'key = value' or '[section]', got 'buffers'");
	expect_error("buffers = 3\n", ":1: key 'buffers' outside of any section");
	expect_error("[devmem]\n= 3\n", ":2: missing key before '='");
}

static void
test_unknown_names(void)
{
	expect_error(MIN_STACK "[gpu]\n", ":4: unknown section [gpu] (known: "
		"port, port.N, lcores, stack, devmem, steering, limits, consumer, client, ingest)");
	expect_error(MIN_STACK "[devmem]\nbufers = 10\n",
		":5: [devmem] unknown key 'bufers'");
	expect_error("[port.9]\n", ":1: [port.9]: port number must be in [0, 7]");
	expect_error("[port.x]\n", ":1: [port.x]: port number must be in [0, 7]");
}

static void
test_bad_values(void)
{
	/* The example of the issue, word for word. */
	expect_error("# comment\n" MIN_STACK "[devmem]\n\n\n\n\n\nbuffers = lots\n",
		":11: [devmem] buffers: expected a positive integer, got 'lots'");
	expect_error(MIN_STACK "[port]\nmtu = 99999\n",
		":5: [port] mtu: expected an integer in [68, 9000], got '99999'");
	expect_error(MIN_STACK "[port.0]\nsplit = header\n",
		":5: [port.0] split: expected one of proto, len or none, got 'header'");
	expect_error(MIN_STACK "[port]\ntx_cksum = maybe\n",
		":5: [port] tx_cksum: expected yes or no, got 'maybe'");
	expect_error("[stack]\nipv4 = 10.0.0.256\n",
		":2: [stack] ipv4: expected an IPv4 address (a.b.c.d), got '10.0.0.256'");
	expect_error("[stack]\nipv4 = 10.0.0.1\nlisten = 5001,0\n",
		":3: [stack] listen: expected a list of at most 16 integers in "
		"[1, 65535] (e.g. 1,3-5), got '5001,0'");
	expect_error(MIN_STACK "[limits]\nwindow = 1T\n",
		":5: [limits] window: expected a byte count in [1024, 1073741824] "
		"(K, M, G suffixes allowed), got '1T'");
	expect_error(MIN_STACK "[consumer]\nmode = print\n",
		":5: [consumer] mode: expected one of discard, verify, ring, iperf3 or ingest, got 'print'");
	expect_error(MIN_STACK "[devmem]\nbuffers = 8\nbuffers = 9\n",
		":6: [devmem] buffers: duplicate key (first set at line 5)");
	expect_error(MIN_STACK "[steering]\nmode = flow\nrules = 5001-0\n",
		":6: [steering] rules: expected a list of TCPPORT:QUEUE (e.g. 5001:0, "
		"5002:1), got '5001-0'");
	expect_error(MIN_STACK "[devmem]\nbuffer_size = 100\n",
		":5: [devmem] buffer_size: expected a byte count in [256, 65535] "
		"(K, M, G suffixes allowed), got '100'");
}

/* [ingest]: the sample loads; each bad value names its key. */
static void
test_ingest(void)
{
	static struct srv_config cfg;
	char path[512], err[512];

	snprintf(path, sizeof(path), "%s/ingest.ini", config_dir);
	DT_CHECK(srv_config_load(path, &cfg, err, sizeof(err)) == 0);
	DT_CHECK(cfg.consumer == SRV_CONSUMER_INGEST);
	DT_CHECK(cfg.ingest_mode == 0660 && cfg.ingest_quota == 4096);
	DT_CHECK(cfg.ingest_on_exit == SRV_INGEST_EXIT_RESET &&
		!cfg.ingest_no_client_reset);
	expect_error(MIN_STACK "[consumer]\nmode = ingest\n[ingest]\nquota = 100\n",
		":7: [ingest] quota: expected a power of two, got 100");
	expect_error(MIN_STACK "[consumer]\nmode = ingest\n[ingest]\nsocket_mode = 0999\n",
		":7: [ingest] socket_mode: expected octal permissions such as 0660, got '0999'");
	expect_error(MIN_STACK "[consumer]\nmode = ingest\n[ingest]\nsocket = rel.sock\n",
		":7: [ingest] socket: expected an absolute path, got 'rel.sock'");
	expect_error(MIN_STACK "[consumer]\nmode = discard\n[ingest]\nmax_clients = 2\n",
		":5: [consumer] mode: an [ingest] section needs mode = ingest");
	expect_error(MIN_STACK "[consumer]\nmode = ingest\n[ingest]\non_client_exit = drop\n",
		":7: [ingest] on_client_exit: expected one of reset or reoffer, got 'drop'");
}

static void
test_cross_checks(void)
{
	expect_error("[port]\nmtu = 1500\n", ": no [stack] section (the server's "
		"address and listen ports) nor [client] section (a sender's)");
	expect_error("[stack]\nlisten = 5001\n",
		":1: [stack] ipv4: missing (the local IPv4 address of the stack)");
	expect_error("[stack]\nipv4 = 10.0.0.1\n",
		":1: [stack] listen: missing (the TCP ports the server accepts on)");
	expect_error(MIN_STACK "netmask = 255.0.255.0\n",
		":4: [stack] netmask: not a contiguous netmask");
	expect_error(MIN_STACK "gateway = 10.0.1.1\n",
		":4: [stack] gateway: not on the subnet of ipv4 and netmask");
	expect_error(MIN_STACK "[consumer]\nmode = verify\npattern = none\n",
		":5: [consumer] mode: verify needs pattern = stream or sha256 = yes");
	expect_error(MIN_STACK "[consumer]\nmode = ring\nring_size = 1000\n",
		":6: [consumer] ring_size: expected a power of two, got 1000");
	expect_error(MIN_STACK "[steering]\nmode = flow\n",
		":5: [steering] mode: flow needs rules = TCPPORT:QUEUE, ...");
	expect_error(MIN_STACK "[steering]\nrules = 5001:0\n",
		":5: [steering] rules: rules need mode = flow");
	expect_error(MIN_STACK "[lcores]\nstacks = 1\n[steering]\nmode = flow\n"
		"rules = 5001:1\n", ":8: [steering] rules: queue 1 does not exist "
		"(1 stack, queues 0..0)");
	expect_error(MIN_STACK "[client]\nport = 0\nipv4 = 10.0.0.2\n"
		"connect = 10.0.0.1:5001\n", ":5: [client] port: port 0 is the "
		"server's ([stack] port): the client needs its own");
	expect_error("[client]\nport = 1\nipv4 = 10.0.0.2\n",
		":1: [client] connect: missing (IP:PORT of the server to push to)");
}

/* Load @p text; expect success. */
static void
load_ok(const char *text, struct srv_config *c)
{
	char path[256], err[512] = "";

	write_file("bad.ini", text, path, sizeof(path));
	if (srv_config_load(path, c, err, sizeof(err)) != 0)
		fprintf(stderr, "  %s\n", err);
	DT_CHECK(err[0] == '\0');
}

/* [lcores]: stacks is a count, stack_lcores a list; stacks = LIST warns. */
static void
test_lcores(void)
{
	static struct srv_config c;

	load_ok(MIN_STACK "[lcores]\nstacks = 2\n", &c);
	DT_CHECK_EQ(c.nb_stacks, 2);
	DT_CHECK(c.stacks_counted && c.warning[0] == '\0');
	load_ok(MIN_STACK "[lcores]\nstack_lcores = 1,3\n", &c);
	DT_CHECK_EQ(c.nb_stacks, 2);
	DT_CHECK_EQ(c.stack_lcores[1], 3);
	DT_CHECK(!c.stacks_counted && c.warning[0] == '\0');
	load_ok(MIN_STACK "[lcores]\nstack_lcores = 2\n", &c);
	DT_CHECK(!c.stacks_counted && c.stack_lcores[0] == 2);
	load_ok(MIN_STACK "[lcores]\nstacks = 1,2\n", &c);
	DT_CHECK(!c.stacks_counted && c.nb_stacks == 2 && c.stack_lcores[1] == 2);
	DT_CHECK(strstr(c.warning, ":5: [lcores] stacks = 1,2 read as "
		"stack_lcores = 1,2 (lcore ids); stacks is a count: write "
		"stack_lcores = 1,2, or stacks = 2 for the first 2 worker lcores")
		!= NULL);
	expect_error(MIN_STACK "[lcores]\nstacks = 0\n", ":5: [lcores] stacks: "
		"expected how many stacks, in [1, 16] (they run on the first worker "
		"lcores of -l; stack_lcores = LIST names the lcores), got 0");
	expect_error(MIN_STACK "[lcores]\nstacks = 17\n", ":5: [lcores] stacks: "
		"expected how many stacks, in [1, 16] (they run on the first worker "
		"lcores of -l; stack_lcores = LIST names the lcores), got 17");
	expect_error(MIN_STACK "[lcores]\nstacks = 2\nstack_lcores = 1,2\n",
		":5: [lcores] stacks: give stacks (how many) or stack_lcores (which "
		"lcores, line 6), not both");
}

static void
test_missing_file(void)
{
	static struct srv_config c;
	char err[512];

	DT_CHECK_EQ(srv_config_load("/nonexistent/x.ini", &c, err, sizeof(err)),
		-ENOENT);
	DT_CHECK(strcmp(err, "/nonexistent/x.ini: cannot open: No such file or "
		"directory") == 0);
}

static void
test_sha256(void)
{
	static const char *abc_hex =
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
	static const char *long_hex = /* 1,000,000 x 'a' */
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	struct dt_app_sha256 s;
	uint8_t d[DT_APP_SHA256_LEN], a[1000];
	char hex[65];
	int i;

	dt_app_sha256_init(&s);
	dt_app_sha256_update(&s, "abc", 3);
	dt_app_sha256_final(&s, d);
	dt_app_sha256_hex(d, hex);
	DT_CHECK(strcmp(hex, abc_hex) == 0);

	memset(a, 'a', sizeof(a));
	dt_app_sha256_init(&s);
	for (i = 0; i < 1000; i++) /* odd pieces: 7 + 993 */
		dt_app_sha256_update(&s, a, 7), dt_app_sha256_update(&s, a, 993);
	dt_app_sha256_final(&s, d);
	dt_app_sha256_hex(d, hex);
	DT_CHECK(strcmp(hex, long_hex) == 0);
}

static void
cleanup(void)
{
	static const char *const names[] = {"bad.ini", "ports.ini"};
	char path[256];
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmp_dir, names[i]);
		unlink(path);
	}
	rmdir(tmp_dir);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CONFIG_DIR\n", argv[0]);
		return 2;
	}
	config_dir = argv[1];
	if (mkdtemp(tmp_dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	dt_test_run("sample_server", test_sample_server);
	dt_test_run("sample_jumbo_and_send", test_sample_jumbo_and_send);
	dt_test_run("sample_nics", test_sample_nics);
	dt_test_run("port_defaults_and_overrides", test_port_defaults_and_overrides);
	dt_test_run("syntax_errors", test_syntax_errors);
	dt_test_run("unknown_names", test_unknown_names);
	dt_test_run("bad_values", test_bad_values);
	dt_test_run("cross_checks", test_cross_checks);
	dt_test_run("lcores", test_lcores);
	dt_test_run("ingest", test_ingest);
	dt_test_run("missing_file", test_missing_file);
	dt_test_run("sha256", test_sha256);
	cleanup();
	return dt_test_summary();
}
