/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-server (built with SRV_ROLE_SERVER) and devtcp-send (SRV_ROLE_SEND):
 * read the configuration, start EAL, set up ports and device memory, report
 * placement, register telemetry and packet capture, run the stacks until a
 * signal (or --duration), then close connections, free device memory and
 * exit 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pdump.h>

#include "dt_app_value.h"
#include "dt_app_eal.h"
#include "srv.h"
#include "srv_ingest.h"

#ifdef SRV_ROLE_SEND
#define SRV_PROG "devtcp-send"
RTE_LOG_REGISTER(srv_logtype, devtcp.send, INFO);
#else
#define SRV_PROG "devtcp-server"
RTE_LOG_REGISTER(srv_logtype, devtcp.server, INFO);
#endif

/* Set by SIGINT/SIGTERM: the only state a signal handler may touch. */
static volatile sig_atomic_t srv_quit;

static void
on_signal(int sig)
{
	(void)sig;
	srv_quit = 1;
}

static void
print_summary(const struct srv_ctx *ctx)
{
	const struct srv_config *c = &ctx->cfg;
	char a[32], m[32];

	printf("%s: configuration %s is valid\n", SRV_PROG, c->path);
	if (c->stack.nb_listen != 0 && !ctx->opts.send_role)
		printf("  server: port %u, %s/%s, %u listen port(s) from %u, %u stack(s), "
			"consumer %s\n", c->stack.port,
			dt_app_ipv4_str(c->stack.ipv4, a, sizeof(a)),
			dt_app_ipv4_str(c->stack.netmask, m, sizeof(m)),
			c->stack.nb_listen, c->stack.listen[0],
			c->nb_stacks ? c->nb_stacks : 1, srv_consumer_name(c->consumer));
	if (c->has_client)
		printf("  sender: port %u, %s, %u connection(s) to %s:%u\n",
			c->client.port, dt_app_ipv4_str(c->client.ipv4, a, sizeof(a)),
			c->client_conns, dt_app_ipv4_str(c->client_raddr, m, sizeof(m)),
			c->client_rport);
	printf("  payload: %u x %u bytes on gpu '%s', split %s\n", c->buffers,
		c->buffer_size, c->gpu, srv_split_name(c->port[c->stack.port].split));
}

/*
 * --check: the file alone, and with the run's EAL arguments also the
 * devices and lcores it names (EAL starts, nothing else does).
 */
static int
check_only(struct srv_ctx *ctx, int eal_argc, char **argv)
{
	int rc;

	if (eal_argc <= 1) {
		print_summary(ctx);
		printf("  (ports, GPU and lcores not checked: give --check the EAL "
			"arguments of the run to check them too)\n");
		return 0;
	}
	if (dt_app_eal_init(eal_argc, argv, SRV_PROG) < 0)
		return 1;
	rc = srv_check_devices(ctx);
	if (rc == 0) {
		unsigned int i;

		print_summary(ctx);
		printf("  ports, GPU and lcores found; stacks on lcore(s)");
		for (i = 0; i < ctx->nb_stacks; i++)
			printf("%s%u", i ? "," : " ", ctx->stacks[i].lcore);
		printf("\n");
	}
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}

/* Read own options and the configuration, before EAL. */
static int
prepare(int argc, char **argv, struct srv_ctx *ctx, int *eal_argc)
{
	char err[512];
	int dash, rc;

	dash = srv_args_split(argc, argv, eal_argc);
	if (dash == argc) {
		char *only[] = { argv[0], NULL };

		rc = srv_args_parse(1, only, &ctx->opts);
	} else {
		char *dd = argv[dash];

		argv[dash] = argv[0];
		rc = srv_args_parse(argc - dash, argv + dash, &ctx->opts);
		argv[dash] = dd;
	}
	if (rc != 0)
		return rc;
	rc = srv_config_load(ctx->opts.config, &ctx->cfg, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", SRV_PROG, err);
		return rc;
	}
	if (ctx->cfg.warning[0] != '\0')
		fprintf(stderr, "%s: warning: %s\n", SRV_PROG, ctx->cfg.warning);
	if (ctx->opts.send_role && !ctx->cfg.has_client) {
		fprintf(stderr, "%s: %s: no [client] section: what should be sent where "
			"(see config/send.ini)\n", SRV_PROG, ctx->cfg.path);
		return -EINVAL;
	}
	return 0;
}

static int
run(struct srv_ctx *ctx)
{
	int rc;

	rc = srv_setup(ctx);
	if (rc == 0)
		rc = srv_assign_lcores(ctx);
	if (rc != 0)
		return rc;
	srv_placement_report(ctx);
	ctx->telemetry_ok = srv_telemetry_register(ctx) == 0;
	rc = rte_pdump_init();
	ctx->pdump_ok = rc == 0;
	if (rc != 0)
		SRV_LOG(WARNING, "packet capture unavailable (rte_pdump_init: %s)",
			rte_strerror(rte_errno));
	if (ctx->opts.capture != NULL) {
		rc = srv_capture_start(ctx, ctx->opts.capture);
		if (rc != 0)
			return rc;
	}
	rc = srv_stacks_create(ctx);
	if (rc == 0)
		rc = srv_ingest_init(ctx);
	if (rc == 0) {
		printf("%s: running (SIGINT or SIGTERM stops)\n", SRV_PROG);
		fflush(stdout);
		rc = srv_stacks_run(ctx);
	}
	if (rc == 0 && ctx->opts.send_role) {
		const struct srv_stack *cl = &ctx->stacks[ctx->nb_stacks];

		if (cl->cs.streams_bad != 0 || !srv_client_done(cl)) {
			fprintf(stderr, "%s: %" PRIu64 " of %u stream(s) sent completely\n",
				SRV_PROG, cl->cs.streams_ok, ctx->cfg.client_conns);
			rc = -EIO;
		}
	}
	srv_ingest_fini(ctx);
	srv_stacks_destroy(ctx);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct srv_ctx ctx;
	int eal_argc, rc;
	bool in_memory;

	ctx.opts.drain = 2;
#ifdef SRV_ROLE_SEND
	ctx.opts.send_role = true;
#endif
	ctx.quit = &srv_quit;
	dt_app_eal_help(argc, argv, srv_usage_hook);
	if (prepare(argc, argv, &ctx, &eal_argc) != 0)
		return 1;
	if (ctx.opts.check_only)
		return check_only(&ctx, eal_argc, argv);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	in_memory = dt_app_eal_flag(eal_argc, argv, "--in-memory");
	if (dt_app_eal_init(eal_argc, argv, SRV_PROG) < 0)
		return 1;
	dt_app_eal_print_hints(SRV_PROG, in_memory);
	ctx.start_tsc = rte_rdtsc();
	rc = run(&ctx);
	srv_capture_stop(&ctx);
	srv_teardown(&ctx);
	if (ctx.pdump_ok)
		rte_pdump_uninit();
	rte_eal_cleanup();
	if (rc == 0)
		printf("%s: stopped cleanly\n", SRV_PROG);
	return rc == 0 ? 0 : 1;
}
