/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Command line of devtcp-server and devtcp-send: EAL arguments first, the
 * program's own after "--". The own options are read before EAL starts, so
 * that --help and --check need no hugepages.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

static void
usage(const char *prog, bool send)
{
	if (send)
		printf("usage: %s [EAL options] -- --config FILE [options]\n\n"
			"devtcp-send: connects over devtcp (TCP/IPv4 in userspace on DPDK)\n"
			"and pushes a generated pattern stream, or a file, to a server.\n"
			"The [client] section of FILE says from which port and address,\n"
			"to which IP:PORT, how many connections and bytes (config/send.ini).\n\n",
			prog);
	else
		printf("usage: %s [EAL options] -- --config FILE [options]\n\n"
			"devtcp-server: a TCP server whose received payload lands in GPU\n"
			"memory (header split: headers in hugepages, payload on the device).\n"
			"FILE says which port, addresses, listen ports, device memory and\n"
			"what to do with the payload (config/server.ini documents each key).\n"
			"A [client] section also runs a sender in the same process, e.g.\n"
			"over the software NIC's loopback wire.\n\n", prog);
	printf("options:\n"
		"  --config FILE   configuration file (required)\n"
		"  --check         validate FILE, print what it sets up, and exit\n"
		"  --duration SEC  stop after SEC seconds (default: run until SIGINT/SIGTERM)\n"
		"  --drain SEC     at exit, wait at most SEC for connections to close (default 2;\n"
		"                  TIME_WAIT is not waited for)\n"
		"  --send-device   (sender) send from device memory ([devmem] gpu): the file\n"
		"                  or pattern is written through the region's CPU alias, then\n"
		"                  sent by reference; the NIC reads it with its copy engine\n"
		"  --capture FILE  write the port's frames, headers only, to FILE (pcapng,\n"
		"                  tshark/wireshark read it): the header segment of each\n"
		"                  frame is copied, payload in device memory never read\n"
		"  --help          this text\n\n"
		"Telemetry (while running): dpdk-telemetry.py [-f FILE_PREFIX] [-i N],\n"
		"  then /devtcp/stats, /devtcp/conns, /devtcp/devmem. -i N: the Nth\n"
		"  process of the prefix (another DPDK process already running takes\n"
		"  the first socket); the start-up log prints the exact command.\n"
		"dpdk-proc-info: a secondary process, it cannot attach to an\n"
		"  --in-memory server: use --file-prefix NAME, then dpdk-proc-info\n"
		"  --file-prefix NAME -d librte_net_hsplit.so -d librte_gpu_sim.so -- --stats\n"
		"  (plugins from build/drivers/net/hsplit and build/drivers/gpu/sim: README).\n"
		"Packet capture: --capture FILE (Debian's dpdk-dumpcap cannot load the\n"
		"  software NIC in its secondary process).\n\n"
		"example (software NIC on a loopback wire, simulated GPU):\n"
		"  %s -l 0-1 --file-prefix devtcp --no-pci \\\n"
		"     --vdev=net_hsplit0,wire=lo --vdev=net_hsplit1,wire=lo \\\n"
		"     --vdev=gpu_sim0,size=256M -- --config config/%s.ini\n",
		prog, send ? "send" : "server");
}

void
srv_usage_hook(const char *prog)
{
#ifdef SRV_ROLE_SEND
	usage(prog, true);
#else
	usage(prog, false);
#endif
}

int
srv_args_split(int argc, char **argv, int *eal_argc)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	*eal_argc = i;
	return i;
}

static int
parse_seconds(const char *opt, const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (*end != '\0' || end == s || *v < 0) {
		fprintf(stderr, "%s: expected seconds (a non-negative number), got '%s'\n",
			opt, s);
		return -EINVAL;
	}
	return 0;
}

int
srv_args_parse(int argc, char **argv, struct srv_opts *o)
{
	static const struct option lo[] = {
		{"config", required_argument, NULL, 'c'},
		{"check", no_argument, NULL, 'k'},
		{"duration", required_argument, NULL, 'd'},
		{"drain", required_argument, NULL, 'r'},
		{"send-device", no_argument, NULL, 'D'},
		{"capture", required_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'k':
			o->check_only = true;
			break;
		case 'd':
			if (parse_seconds("--duration", optarg, &o->duration) != 0)
				return -EINVAL;
			break;
		case 'r':
			if (parse_seconds("--drain", optarg, &o->drain) != 0)
				return -EINVAL;
			break;
		case 'D':
			o->send_device = true;
			break;
		case 'C':
			o->capture = optarg;
			break;
		case 'h':
			usage(argv[0], o->send_role);
			exit(0);
		default:
			fprintf(stderr, "(%s -- --help lists the options)\n", argv[0]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "unexpected argument '%s' (%s -- --help lists the options)\n",
			argv[optind], argv[0]);
		return -EINVAL;
	}
	if (o->config == NULL) {
		fprintf(stderr, "--config FILE is required: the program's options go "
			"after '--' (%s [EAL options] -- --config config/%s.ini; "
			"%s --help lists both)\n", argv[0],
			o->send_role ? "send" : "server", argv[0]);
		return -EINVAL;
	}
	return 0;
}
