/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-receiver: the smallest libdevtcp application. One port with
 * header split, payload into a device-memory region of GPU 0, one stack on
 * the main lcore listening on a TCP port. It counts the bytes of each
 * stream without reading them (they are in device memory), gives every
 * chunk back, and exits after --conns streams or on SIGINT.
 *
 *   devtcp-receiver -l 0 --in-memory --no-pci -d PMDDIR \
 *       --vdev=net_hsplit0,iface=veth0 --vdev=gpu_sim0,size=64M -- \
 *       --ip 10.9.0.1 --listen 5001 --conns 1
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include <devtcp.h>

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int
setup(uint16_t port, uint32_t ipv4, struct dt_devmem_region **regionp,
	struct dt_dp_stack **st)
{
	struct dt_devmem_region_conf rc = { .name = "rx_payload", .gpu_id = 0,
		.port_id = port, .nb_bufs = 8192, .buf_size = 2048,
		.cache_size = 256, .socket_id = SOCKET_ID_ANY };
	struct dt_dp_port_conf pc = { .nb_rxq = 1, .nb_txq = 1, .mtu = 1500,
		.split = DT_DP_SPLIT_PROTO, .split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP,
		.tx_cksum = true, .tx_multi_seg = true };
	struct dt_devmem_region *region;
	struct dt_dp_stack_conf sc;
	char err[256];
	int rc_;

	pc.hdr_pool = rte_pktmbuf_pool_create("rx_hdr", 8192, 256, 0,
		256 + RTE_PKTMBUF_HEADROOM, SOCKET_ID_ANY);
	if (pc.hdr_pool == NULL)
		return -rte_errno;
	rc_ = dt_devmem_region_create(&rc, &region);
	if (rc_ != 0)
		return rc_;
	*regionp = region;
	pc.pay_pool = dt_devmem_region_pool(region);
	rc_ = dt_dp_port_start(port, &pc, err, sizeof(err));
	if (rc_ != 0) {
		fprintf(stderr, "devtcp-receiver: %s\n", err);
		return rc_;
	}
	dt_dp_stack_conf_default(&sc);
	sc.port_id = port;
	sc.hdr_pool = pc.hdr_pool;
	sc.shell_pool = rte_pktmbuf_pool_create("rx_shell", 4096, 256, 0, 0,
		SOCKET_ID_ANY);
	sc.region = region;
	sc.tx_cksum_offload = true;
	sc.ipv4 = ipv4;
	sc.netmask = htonl(0xffffff00);
	*st = dt_dp_stack_create(&sc);
	return *st != NULL ? 0 : -rte_errno;
}

int
main(int argc, char **argv)
{
	unsigned long conns = 1, done = 0, lport = 5001;
	uint64_t bytes = 0, dev = 0, host = 0;
	struct dt_dp_event ev[64];
	struct dt_devmem_region *region = NULL;
	struct dt_dp_stack *st = NULL;
	struct in_addr ip = { .s_addr = htonl(0x0a090001) };
	int n, i, c;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "devtcp-receiver: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	static const struct option opts[] = { { "ip", 1, NULL, 'i' },
		{ "listen", 1, NULL, 'l' }, { "conns", 1, NULL, 'c' }, { 0 } };
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'i' && inet_pton(AF_INET, optarg, &ip) == 1)
			continue;
		if (c == 'l')
			lport = strtoul(optarg, NULL, 0);
		else if (c == 'c')
			conns = strtoul(optarg, NULL, 0);
		else {
			fprintf(stderr, "usage: devtcp-receiver [EAL] -- "
				"[--ip A.B.C.D] [--listen PORT] [--conns N]\n");
			return 2;
		}
	}
	printf("libdevtcp %s (headers %s)\n", devtcp_version(), DEVTCP_VERSION);
	if (setup(0, ip.s_addr, &region, &st) != 0 || dt_dp_listen(st, (uint16_t)lport) != 0) {
		fprintf(stderr, "devtcp-receiver: set-up failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	while (!stop && done < conns) {
		dt_dp_poll(st);
		while ((n = dt_dp_events(st, ev, RTE_DIM(ev))) > 0) {
			for (i = 0; i < n; i++) {
				if (ev[i].type == DT_DP_EV_DATA) {
					bytes += ev[i].chunk.len;
					if (ev[i].chunk.kind == DT_DP_CHUNK_DEVICE)
						dev += ev[i].chunk.len;
					else
						host += ev[i].chunk.len;
					dt_dp_release(st, ev[i].chunk.token);
				} else if (ev[i].type == DT_DP_EV_PEER_CLOSED) {
					dt_dp_close(st, ev[i].conn);
				} else if (ev[i].type == DT_DP_EV_CLOSED) {
					done++;
				}
			}
		}
	}
	printf("received %lu bytes in %lu streams (device %lu, host %lu)\n",
		(unsigned long)bytes, done, (unsigned long)dev, (unsigned long)host);
	dt_dp_stack_destroy(st);
	dt_dp_port_stop(0);
	dt_devmem_region_destroy(region);
	rte_eal_cleanup();
	return done == conns ? 0 : 1;
}
