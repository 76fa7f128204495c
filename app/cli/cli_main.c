/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-cli: EAL arguments, then after "--": --cmdfile FILE and -e CMD
 * (repeatable) run commands and exit; otherwise an interactive console on a
 * terminal, or commands read from stdin when it is not one. Scripts
 * exit with status 1 when a command failed or did not parse; an interactive
 * session exits 0 (a typo is no failure of the session). SIGINT/SIGTERM
 * end either cleanly: the terminal is restored, stacks destroyed, ports
 * stopped, device memory freed.
 *
 * The TCP stacks are polled by this thread (the main lcore): interactively
 * between input characters (cmdline_poll does not block), in scripts
 * between commands and inside "sleep" and "wait".
 */
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse_string.h>
#include <cmdline_rdline.h>
#include <cmdline_socket.h>
#include <rte_cycles.h>
#include <rte_eal.h>

#include "dt_app_eal.h"
#include "cli.h"

RTE_LOG_REGISTER(cli_logtype, devtcp.cli, INFO);

#define CLI_MAX_E 32
#define CLI_PROMPT "devtcp> "
/* Scripts: after each command, poll until the wire is quiet this long. */
#define CLI_SETTLE_US 2000
#define CLI_SETTLE_MAX_US 50000

/* Set by SIGINT/SIGTERM: the only state the handler touches. */
static volatile sig_atomic_t cli_signal;

static void
on_signal(int sig)
{
	cli_signal = sig;
}

/*
 * Without SA_RESTART (signal() sets it): a read of a pipe ("sleep 100 |
 * devtcp-cli") must return EINTR at SIGINT/SIGTERM, or the console would
 * wait in fgets() for input that never comes.
 */
static void
on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool
cli_interrupted(void)
{
	return cli_signal != 0;
}

void
cli_fail(struct cmdline *cl, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cmdline_printf(cl, "error: %s\n", buf);
	cli_ctx_get()->errors++;
}

bool
cli_port_ok(struct cmdline *cl, uint16_t port)
{
	if (port < CLI_MAX_PORTS && rte_eth_dev_is_valid_port(port))
		return true;
	cli_fail(cl, "no port %u (%u port%s; add --vdev=net_hsplit0,wire=w)", port,
		rte_eth_dev_count_avail(), rte_eth_dev_count_avail() == 1 ? "" : "s");
	return false;
}

/* --- help [command], quit --- */
struct help_res {
	cmdline_fixed_string_t help;
	cmdline_multi_string_t topic;
};

static void
help_cb(void *res, struct cmdline *cl, void *data)
{
	struct help_res *r = res;
	unsigned int i, n = 0;

	for (i = 0; cli_main_ctx[i] != NULL; i++) {
		const char *h = cli_main_ctx[i]->help_str;

		if (r->topic[0] != '\0' && strstr(h, r->topic) != h)
			continue;
		cmdline_printf(cl, "  %s\n", h);
		n++;
	}
	if (n == 0)
		cli_fail(cl, "help: no command starts with '%s'", r->topic);
	else if (r->topic[0] == '\0')
		cmdline_printf(cl, "TAB completes, '?' or TAB on an empty word lists "
			"what may come next.\n");
}

static cmdline_parse_token_string_t h_help =
	TOKEN_STRING_INITIALIZER(struct help_res, help, "help");
static cmdline_parse_token_string_t h_topic =
	TOKEN_STRING_INITIALIZER(struct help_res, topic, TOKEN_STRING_MULTI);

static cmdline_parse_inst_t cli_cmd_help = {
	.f = help_cb,
	.help_str = "help [command words]: every command, or those starting so",
	.tokens = { (void *)&h_help, (void *)&h_topic, NULL },
};

/* Bare "help": a multi-string token needs at least one word. */
static void
help_all_cb(void *res, struct cmdline *cl, void *data)
{
	struct help_res all = { .topic = "" };

	RTE_SET_USED(res);
	help_cb(&all, cl, data);
}

cmdline_parse_inst_t cli_cmd_help_all = {
	.f = help_all_cb,
	.help_str = "help: list every command",
	.tokens = { (void *)&h_help, NULL },
};

struct quit_res {
	cmdline_fixed_string_t quit;
};

static void
quit_cb(void *res, struct cmdline *cl, void *data)
{
	cli_ctx_get()->quit = true;
	cmdline_quit(cl);
}

static cmdline_parse_token_string_t q_quit =
	TOKEN_STRING_INITIALIZER(struct quit_res, quit, "quit");

static cmdline_parse_inst_t cli_cmd_quit = {
	.f = quit_cb,
	.help_str = "quit: leave (ports stopped, device memory freed)",
	.tokens = { (void *)&q_quit, NULL },
};

cmdline_parse_ctx_t cli_main_ctx[] = {
	&cli_cmd_help,
	&cli_cmd_help_all,
	&cli_cmd_show_port,
	&cli_cmd_show_port_all,
	&cli_cmd_clear_stats,
	&cli_cmd_clear_stats_all,
	&cli_cmd_port_start_stop,
	&cli_cmd_port_start_stop_all,
	&cli_cmd_set_rxhdrs,
	&cli_cmd_set_rxpkts,
	&cli_cmd_set_rxhdrs_all,
	&cli_cmd_set_rxpkts_all,
	&cli_cmd_show_config,
	&cli_cmd_show_config_rxtx,
	&cli_cmd_show_port_summary,
	&cli_cmd_set_promisc,
	&cli_cmd_set_promisc_all,
	&cli_cmd_start,
	&cli_cmd_stop,
	&cli_cmd_flow_create,
	&cli_cmd_flow_list,
	&cli_cmd_flow_destroy,
	&cli_cmd_flow_flush,
	&cli_cmd_show_devmem,
	&cli_cmd_show_gpu,
	&cli_cmd_set_ip,
	&cli_cmd_set_stacks,
	&cli_cmd_set_tcp_verify,
	&cli_cmd_tcp_listen,
	&cli_cmd_tcp_listen_port,
	&cli_cmd_tcp_connect,
	&cli_cmd_tcp_connect_port,
	&cli_cmd_tcp_send,
	&cli_cmd_tcp_send_kind,
	&cli_cmd_tcp_close,
	&cli_cmd_show_tcp,
	&cli_cmd_show_tcp_all,
	&cli_cmd_bench_start,
	&cli_cmd_bench_start_ports,
	&cli_cmd_bench_stop_show,
	&cli_cmd_sleep,
	&cli_cmd_wait,
	&cli_cmd_wait_ms,
	&cli_cmd_quit,
	NULL,
};

struct cli_opts {
	const char *cmdfile;
	const char *cmds[CLI_MAX_E];
	unsigned int nb_cmds;
};

static void
usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [--cmdfile FILE] [-e COMMAND]...\n\n"
		"devtcp-cli: a testpmd-style console for devtcp's ports, flow rules,\n"
		"buffer split into device memory, GPUs, TCP stacks (set ip, tcp ...)\n"
		"and an in-console TCP bench. Without --cmdfile or -e it is\n"
		"interactive on a terminal (TAB completes, 'help' lists commands),\n"
		"and reads commands from stdin otherwise. Scripts let traffic flow\n"
		"with 'sleep <ms>' and 'wait'.\n\n"
		"  --cmdfile FILE  run the commands of FILE (one per line, '#' comments)\n"
		"  -e COMMAND      run COMMAND (repeatable; after --cmdfile)\n"
		"  --help          this text\n\n"
		"example:\n"
		"  %s -l 0 --in-memory --no-pci --vdev=net_hsplit0,wire=w \\\n"
		"     --vdev=net_hsplit1,wire=w --vdev=gpu_sim0,size=64M -- \\\n"
		"     -e 'set rxhdrs 1 ipv4-tcp' -e 'port start 1' -e 'show devmem'\n",
		prog, prog);
}

static int
parse_args(int argc, char **argv, struct cli_opts *o)
{
	static const struct option lo[] = {
		{"cmdfile", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "e:", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->cmdfile = optarg;
			break;
		case 'e':
			if (o->nb_cmds == CLI_MAX_E) {
				fprintf(stderr, "at most %d -e commands\n", CLI_MAX_E);
				return -EINVAL;
			}
			o->cmds[o->nb_cmds++] = optarg;
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			fprintf(stderr, "(%s -- --help lists the options)\n", argv[0]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument '%s' (commands go after -e)\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Between script commands: let the frames a command caused flow (ARP, a
 * handshake, ACKs) until the stacks are quiet, briefly. "sleep" and "wait"
 * are how a script waits longer.
 */
static void
settle(struct cli_ctx *ctx)
{
	uint64_t hz = rte_get_tsc_hz(), now = rte_get_tsc_cycles();
	uint64_t quiet = now + hz / 1000000 * CLI_SETTLE_US;
	uint64_t end = now + hz / 1000000 * CLI_SETTLE_MAX_US;

	while (now < quiet && now < end) {
		if (cli_poll(ctx) != 0)
			quiet = now + hz / 1000000 * CLI_SETTLE_US;
		now = rte_get_tsc_cycles();
	}
}

/* Run one command line; a parse failure is an error naming where it was. */
static void
run_line(struct cmdline *cl, struct cli_ctx *ctx, const char *where,
	unsigned int lineno, char *line)
{
	char *s = line + strspn(line, " \t"), buf[1040];
	int rc;

	s[strcspn(s, "\r\n")] = '\0';
	if (*s == '\0' || *s == '#')
		return;
	cmdline_printf(cl, "%s%s\n", CLI_PROMPT, s);
	/* cmdline_parse takes complete lines only: the newline ends one. */
	snprintf(buf, sizeof(buf), "%.1024s\n", s);
	rc = cmdline_parse(cl, buf);
	settle(ctx);
	if (rc >= 0) /* the length parsed */
		return;
	ctx->errors++;
	cmdline_printf(cl, "error: %s%s%u: %s command '%s' (try 'help')\n", where,
		lineno ? ":" : "", lineno,
		rc == CMDLINE_PARSE_AMBIGUOUS ? "ambiguous" :
		rc == CMDLINE_PARSE_BAD_ARGS ? "bad arguments in" : "unknown", s);
	cli_suggest(cl, s);
}

static int
run_file(struct cmdline *cl, struct cli_ctx *ctx, const char *path, FILE *f)
{
	char line[1024];
	unsigned int n = 0;

	while (!ctx->quit && !cli_interrupted() &&
			fgets(line, sizeof(line), f) != NULL)
		run_line(cl, ctx, path, ++n, line);
	return 0;
}

static int
run_scripted(struct cli_ctx *ctx, const struct cli_opts *o)
{
	struct cmdline *cl = cmdline_new(cli_main_ctx, "", -1, STDOUT_FILENO);
	unsigned int i;
	FILE *f;

	if (cl == NULL)
		return -ENOMEM;
	ctx->cl = cl;
	if (o->cmdfile != NULL) {
		f = fopen(o->cmdfile, "r");
		if (f == NULL) {
			int err = errno;

			fprintf(stderr, "--cmdfile %s: %s\n", o->cmdfile, strerror(err));
			cmdline_free(cl);
			return -err;
		}
		run_file(cl, ctx, o->cmdfile, f);
		fclose(f);
	}
	for (i = 0; i < o->nb_cmds && !ctx->quit && !cli_interrupted(); i++) {
		char line[1024];

		snprintf(line, sizeof(line), "%s", o->cmds[i]);
		run_line(cl, ctx, "-e", i + 1, line);
	}
	if (o->cmdfile == NULL && o->nb_cmds == 0 && !cli_interrupted())
		run_file(cl, ctx, "stdin", stdin);
	ctx->cl = NULL;
	cmdline_free(cl);
	return 0;
}

/*
 * One character of input when there is one, as cmdline_poll takes it; but a
 * line about to be entered that will not parse is kept, so that the nearest
 * command follows cmdline's own "Command not found" / "Bad arguments".
 * @return -EPIPE at the end of input or after quit, else 0.
 */
static int
interactive_char(struct cmdline *cl)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char c, line[1040];
	const char *s;
	bool bad = false;

	if (poll(&pfd, 1, 0) <= 0)
		return 0;
	if (read(STDIN_FILENO, &c, 1) <= 0)
		return -EPIPE;
	if (c == '\n' || c == '\r') {
		snprintf(line, sizeof(line), "%.1024s\n",
			rdline_get_buffer(cmdline_get_rdline(cl)));
		s = line + strspn(line, " \t");
		bad = *s != '\n' && *s != '#' && cmdline_parse_check(cl, line) < 0;
	}
	if (cmdline_in(cl, &c, 1) < 0)
		return -EPIPE;
	if (bad)
		cli_suggest(cl, line);
	return 0;
}

/*
 * Interactive: one character at a time (interactive_char), so the stacks
 * are polled between keystrokes; commands run in this same thread. With no
 * stack to poll, wait for input in poll(2) instead of spinning.
 */
static int
run_interactive(struct cli_ctx *ctx)
{
	struct cmdline *cl = cmdline_stdin_new(cli_main_ctx, CLI_PROMPT);
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	bool stacks;
	uint16_t p;

	if (cl == NULL)
		return -ENOMEM;
	ctx->cl = cl;
	while (!ctx->quit && !cli_interrupted()) {
		if (interactive_char(cl) < 0)
			break;
		stacks = false;
		for (p = 0; p < CLI_MAX_PORTS; p++)
			stacks |= ctx->port[p].stack != NULL;
		if (!stacks) {
			poll(&pfd, 1, 100);
			continue;
		}
		/* Notices from here on redraw the prompt. */
		ctx->interactive = true;
		cli_poll(ctx);
		ctx->interactive = false;
	}
	ctx->cl = NULL;
	cmdline_printf(cl, "\n");
	cmdline_stdin_exit(cl);
	return 0;
}

int
main(int argc, char **argv)
{
	static struct cli_ctx ctx;
	struct cli_opts o = { .cmdfile = NULL };
	bool interactive, in_memory;
	int rc, i;

	/* --help needs no EAL (no hugepages): look for it after "--" first. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		;
	for (; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0) {
			usage(argv[0]);
			return 0;
		}
	dt_app_eal_help(argc, argv, usage);
	in_memory = dt_app_eal_flag(argc, argv, "--in-memory");
	rc = dt_app_eal_init(argc, argv, "devtcp-cli");
	if (rc < 0)
		return 1;
	dt_app_eal_print_hints("devtcp-cli", in_memory);
	argv[rc] = argv[0];
	if (parse_args(argc - rc, argv + rc, &o) != 0) {
		rte_eal_cleanup();
		return 1;
	}
	ctx.bench_conn_event = cli_bench_conn_event;
	cli_ctx_set(&ctx);
	on_signals();
	interactive = o.cmdfile == NULL && o.nb_cmds == 0 && isatty(STDIN_FILENO);
	if (interactive)
		rc = run_interactive(&ctx);
	else
		rc = run_scripted(&ctx, &o);
	if (cli_interrupted())
		printf("devtcp-cli: %s: stopping ports\n", strsignal(cli_signal));
	cli_flow_cleanup(&ctx);
	cli_port_cleanup(&ctx);
	rte_eal_cleanup();
	if (rc != 0)
		return 1;
	return !interactive && ctx.errors != 0 ? 1 : 0;
}
