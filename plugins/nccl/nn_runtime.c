/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The process context of the plugin: EAL initialised once from the
 * configuration, the port, the host pools, the payload region in device
 * memory, one stack per lcore, and the lcores launched.
 *
 * A NCCL plugin is loaded once per process and NCCL may call init several
 * times (once per communicator, from different threads): the context is a
 * process-wide singleton set up under a mutex on the first call. EAL cannot
 * be initialised twice in a process, so the context lives until exit (or
 * nn_rt_shutdown() from a test).
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "dt_dp_port.h"
#include "nn_report.h"
#include "nn_rt.h"
#include "rte_pmd_hsplit.h"
#ifdef NN_HAVE_CUDA
#include "rte_pmd_gpu_cuda.h"
#endif

#define NN_HDR_ROOM 256
#define NN_ARGV_MAX 64

static pthread_mutex_t nn_rt_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct nn_rt *nn_rt_ctx;      /* the process context (see above) */
static int nn_rt_status = 1;         /* 1: not tried; 0 ok; < 0 failed */
static nn_logger_t nn_logger;        /* NCCL's, from the first init */

void
nn_log(int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (nn_logger != NULL)
		nn_logger(level, NN_LOG_SUB_NET | NN_LOG_SUB_INIT, __FILE__,
			__LINE__, "NET/devtcp : %s", line);
	else if (level <= NN_LOG_WARN || getenv("DEVTCP_NCCL_DEBUG") != NULL)
		fprintf(stderr, "NET/devtcp : %s\n", line);
}

struct nn_rt *
nn_rt_get(void)
{
	return __atomic_load_n(&nn_rt_ctx, __ATOMIC_ACQUIRE);
}

/* Split the EAL line on blanks (no quoting: EAL arguments hold none). */
static int
split_args(char *line, char **argv, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	argv[n++] = (char *)"devtcp-nccl";
	for (tok = strtok_r(line, " \t", &save); tok != NULL && n < max - 1;
			tok = strtok_r(NULL, " \t", &save))
		argv[n++] = tok;
	argv[n] = NULL;
	return n;
}

/*
 * [devmem] gpu = auto and no gpudev in the EAL line: the region goes on
 * the CUDA device of the calling thread (NCCL has set it), else on a
 * simulated GPU.
 */
static void
add_gpu_vdev(struct nn_rt *rt, char *eal, size_t len)
{
	char pci[32];
	int ord;

	if (strcmp(rt->cfg.gpu, "auto") != 0 || strstr(eal, "gpu_") != NULL)
		return;
	if (nn_cuda_current_pci(pci, sizeof(pci), &ord) == 0) {
		/*
		 * cuda_batch = no: the region's engine never makes the batch
		 * call either; the NIC's small uploads (a frame's payload, up
		 * to 16 KiB) go through one scatter kernel per submit instead
		 * of a call each (fewer CUDA operations per frame: the H200
		 * figures of docs/nccl.md).
		 */
		snprintf(eal + strlen(eal), len - strlen(eal),
			" --vdev=gpu_cuda0,pci=%s%s", pci, rt->cfg.cuda_batch ? "" :
			",copy_mode=staged_per_copy,stage_max=16384");
		rt->cuda_ordinal = ord;
	} else {
		snprintf(eal + strlen(eal), len - strlen(eal),
			" --vdev=gpu_sim0,size=1G");
	}
}

static int
eal_init(struct nn_rt *rt)
{
	char line[NN_EAL_MAX + 128], *argv[NN_ARGV_MAX];
	const char *env = getenv("DEVTCP_NCCL_EAL");
	cpu_set_t saved;
	int argc, rc;

	snprintf(line, sizeof(line), "%s", env != NULL ? env : rt->cfg.eal);
	add_gpu_vdev(rt, line, sizeof(line));
	NN_INFO("EAL: %s", line);
	argc = split_args(line, argv, NN_ARGV_MAX);
	/* EAL pins the calling thread to the main lcore: NCCL's thread keeps its own. */
	pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved);
	rc = rte_eal_init(argc, argv);
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (rc < 0) {
		NN_WARN("rte_eal_init failed: %s (EAL line from %s)",
			rte_strerror(rte_errno), env != NULL ? "DEVTCP_NCCL_EAL" :
			"[eal] args");
		return -rte_errno;
	}
	return 0;
}

static int
resolve_gpu(struct nn_rt *rt)
{
	const char *g = rt->cfg.gpu;
	struct rte_gpu_info info;
	int16_t id, pick = RTE_GPU_ID_NONE;

	rt->gpu_id = RTE_GPU_ID_NONE;
	if (strcmp(g, "host") == 0)
		return 0;
	RTE_GPU_FOREACH(id) {
		if (rte_gpu_info_get(id, &info) != 0)
			continue;
		if (strcmp(g, "auto") == 0 ? pick == RTE_GPU_ID_NONE :
				isdigit((unsigned char)g[0]) ? id == atoi(g) :
				strcmp(info.name, g) == 0)
			pick = id;
	}
	if (pick == RTE_GPU_ID_NONE) {
		NN_WARN("%s: [devmem] gpu: no gpudev device '%s' (%u found)",
			rt->cfg.path, g, rte_gpu_count_avail());
		return -ENODEV;
	}
	rt->gpu_id = pick;
	rte_gpu_info_get(pick, &info);
	rt->gpu_cuda = strncmp(info.name, "gpu_cuda", 8) == 0;
	if (rt->gpu_cuda && rt->cuda_ordinal < 0)
		rt->cuda_ordinal = 0;
	return 0;
}

static int
setup_memory(struct nn_rt *rt)
{
	const struct nn_config *c = &rt->cfg;
	int socket = rte_eth_dev_socket_id(rt->port_id);
	struct dt_devmem_region_conf rc = {
		.name = "nn_payload",
		.gpu_id = rt->gpu_id,
		.port_id = rt->port_id,
		.nb_bufs = c->buffers,
		.buf_size = c->buffer_size,
		.cache_size = 256,
		.socket_id = socket,
	};
	int r;

	rt->hdr_pool = rte_pktmbuf_pool_create("nn_hdr", c->header_buffers, 256,
		0, NN_HDR_ROOM + RTE_PKTMBUF_HEADROOM, socket);
	rt->shell_pool = rte_pktmbuf_pool_create("nn_shell", c->header_buffers,
		256, 0, 0, socket);
	if (rt->hdr_pool == NULL || rt->shell_pool == NULL) {
		NN_WARN("cannot create host mbuf pools (%u buffers): %s",
			c->header_buffers, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	r = dt_devmem_region_create(&rc, &rt->region);
	if (r != 0) {
		NN_WARN("cannot create the payload region (%u x %u bytes in %s memory): %s",
			c->buffers, c->buffer_size,
			rt->gpu_id == RTE_GPU_ID_NONE ? "host" : "device",
			rte_strerror(-r));
		return r;
	}
	return 0;
}

static int
pool_part(char *buf, size_t len, const char *what, const struct rte_mempool *mp)
{
	if (mp == NULL)
		return 0;
	return snprintf(buf, len, " %s %u/%u", what, rte_mempool_avail_count(mp),
		mp->size);
}

int
nn_pools_line(const struct nn_rt *rt, char *buf, size_t len)
{
	const struct rte_mempool *mp[4] = {
		rte_pmd_hsplit_wire_pool(rt->port_id),
		rte_pmd_hsplit_lro_pool(rt->port_id), rt->hdr_pool,
		rt->region != NULL ? dt_devmem_region_pool(rt->region) : NULL,
	};
	static const char *const what[4] = { "wire", "lro", "headers", "payload" };
	int n = snprintf(buf, len, "free/total buffers:"), i;

	for (i = 0; i < 4 && n >= 0 && (size_t)n < len; i++)
		n += pool_part(buf + n, len - n, what[i], mp[i]);
	return n;
}

void
nn_wire_pool_count(const struct nn_rt *rt, uint64_t *avail, uint64_t *size)
{
	const struct rte_mempool *mp = rte_pmd_hsplit_wire_pool(rt->port_id);

	*avail = mp != NULL ? rte_mempool_avail_count(mp) : 0;
	*size = mp != NULL ? mp->size : 0;
}

/*
 * The software NIC's wire pool is what the CUDA engines read (received
 * payload, into the region) and write (send payload read from NCCL's CUDA
 * buffers): registered with the GPU, those copies are asynchronous DMA;
 * unregistered, CUDA bounces each one synchronously (tens of microseconds
 * per frame on the send path). A real NIC has no wire pool: nothing to do.
 */
static void
register_wire(struct nn_rt *rt)
{
#ifdef NN_HAVE_CUDA
	struct rte_mempool *mp = rte_pmd_hsplit_wire_pool(rt->port_id);
	int r;

	if (!rt->gpu_cuda || mp == NULL)
		return;
	r = rte_pmd_gpu_cuda_mempool_register(rt->gpu_id, mp);
	if (r != 0) {
		NN_WARN("cannot register the software NIC's wire pool %s with gpu %d "
			"(%s): CUDA copies to and from it are synchronous and slow",
			mp->name, rt->gpu_id, rte_strerror(-r));
		return;
	}
	rt->wire_registered = mp;
	NN_INFO("software NIC wire pool %s (%u buffers) registered with gpu %d",
		mp->name, mp->size, rt->gpu_id);
	/* Coalesced frames (lro = yes) have a pool of their own. */
	mp = rte_pmd_hsplit_lro_pool(rt->port_id);
	if (mp != NULL && rte_pmd_gpu_cuda_mempool_register(rt->gpu_id, mp) == 0)
		rt->lro_registered = mp;
	/*
	 * TSO frames sent whole (GSO) have one too: registered, the NIC's
	 * transmit gather writes them in the burst's one launch.
	 */
	mp = rte_pmd_hsplit_gso_pool(rt->port_id);
	if (mp != NULL && rte_pmd_gpu_cuda_mempool_register(rt->gpu_id, mp) == 0)
		rt->gso_registered = mp;
#else
	RTE_SET_USED(rt);
#endif
}

/*
 * A port lib/dp could not steer (no rte_flow) is steered by RSS alone: a
 * SYN reaches whichever stack RSS picks, but each stack listens on its own
 * port (nn_listener_port), so connections to another stack's port are
 * reset. Said at start rather than found by a failing job.
 */
static void
steer_note(const struct nn_rt *rt)
{
	struct dt_dp_port_mode m;
	char line[640];

	if (dt_dp_port_mode_get(rt->port_id, &m) != 0 || m.steer_why[0] == '\0')
		return;
	dt_dp_port_mode_str(&m, line, sizeof(line));
	NN_WARN("port %s: %s", rt->cfg.port_name, line);
	NN_WARN("port %s: each stack listens on its own port: with RSS alone connections reach the wrong stack; use one stack on this NIC",
		rt->cfg.port_name);
}

static int
start_port(struct nn_rt *rt)
{
	const struct nn_config *c = &rt->cfg;
	struct dt_dp_port_conf pcf;
	char err[256];
	int rc;

	memset(&pcf, 0, sizeof(pcf));
	pcf.nb_rxq = rt->nb_stacks;
	pcf.nb_txq = rt->nb_stacks;
	if (rt->nb_stacks > 1) {
		/*
		 * Several stacks: steered mode (lib/dp): queue 0 takes whole
		 * frames in host memory (ARP, ICMP, what no rule steers) and is
		 * polled by stack 0; stack i receives on queue i + 1 the flows
		 * its listen and connect rules steer there.
		 */
		rt->host_pool = rte_pktmbuf_pool_create("nn_host", 8192, 256, 0,
			RTE_PKTMBUF_HEADROOM + c->mtu + 64,
			rte_eth_dev_socket_id(rt->port_id));
		if (rt->host_pool == NULL) {
			NN_WARN("cannot create the host-queue pool: %s",
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
		pcf.nb_rxq = rt->nb_stacks + 1;
		pcf.host_queue = true;
		pcf.host_pool = rt->host_pool;
	}
	pcf.nb_rxd = c->rxd;
	pcf.nb_txd = c->txd;
	pcf.mtu = c->mtu;
	pcf.tx_cksum = c->tx_cksum;
	pcf.tx_multi_seg = true;
	/*
	 * No LRO unless asked: on net_hsplit's interface backend it caps the
	 * AF_PACKET ring at 1024 frames, and a receive comm's flows have
	 * more than that in flight (4 x 2 MiB windows: ~5800 frames); the
	 * kernel drops the rest, which then waits for retransmission.
	 */
	pcf.no_lro = !c->lro;
	pcf.split = DT_DP_SPLIT_PROTO;
	pcf.split_proto = DT_DP_SPLIT_PROTO_IPV4_TCP;
	pcf.hdr_pool = rt->hdr_pool;
	pcf.pay_pool = dt_devmem_region_pool(rt->region);
	rc = dt_dp_port_start(rt->port_id, &pcf, err, sizeof(err));
	if (rc != 0) {
		NN_WARN("port %s: %s", c->port_name, err);
		return rc;
	}
	rt->port_started = true;
	steer_note(rt);
	register_wire(rt);
	return 0;
}

static int
create_stack(struct nn_rt *rt, uint16_t i)
{
	const struct nn_config *c = &rt->cfg;
	struct dt_dp_stack_conf conf;
	struct nn_stack *s;
	char name[RTE_RING_NAMESIZE];

	s = rte_zmalloc("nn_stack", sizeof(*s), RTE_CACHE_LINE_SIZE);
	if (s == NULL)
		return -ENOMEM;
	rt->stacks[i] = s;
	s->rt = rt;
	s->idx = i;
	snprintf(name, sizeof(name), "nn_cmd%u", i);
	s->cmd = rte_ring_create_elem(name, sizeof(struct nn_msg), 8192,
		rte_eth_dev_socket_id(rt->port_id), RING_F_SC_DEQ);
	if (s->cmd == NULL)
		return -rte_errno;
	dt_dp_stack_conf_default(&conf);
	conf.port_id = rt->port_id;
	conf.rxq = rt->nb_stacks > 1 ? i + 1 : i;
	conf.txq = i;
	conf.host_queue = rt->nb_stacks > 1 && i == 0;
	conf.ipv4 = c->ipv4;
	conf.netmask = c->netmask;
	conf.gateway = c->gateway;
	conf.max_conns = c->max_conns;
	conf.window = c->window;
	conf.txq_cap = c->txq_cap;
	conf.hdr_pool = rt->hdr_pool;
	conf.shell_pool = rt->shell_pool;
	conf.region = rt->region;
	conf.tx_cksum_offload = c->tx_cksum;
	/*
	 * NCCL reuses a send buffer once test() says done, which here is when
	 * its bytes are acknowledged: the receiver acks at once (one ACK per
	 * receive burst) rather than after a delayed-ACK timer.
	 */
	conf.tcp.delack = false;
	conf.tcp.ack_defer = true;
	/*
	 * No Nagle (NCCL's Socket transport sets TCP_NODELAY too): a send is
	 * done when acknowledged, and every message ends in a small segment
	 * (its slice's tail, or a 16-byte header alone); Nagle would hold it
	 * until the data in flight is acked, a round trip added per request
	 * (the harness's pattern case counts nagle_holds).
	 */
	conf.tcp.nagle = false;
	conf.tcp.max_retries = c->retries;
	conf.tcp.rto_max_us = (uint64_t)c->rto_max_ms * 1000;
	if (conf.tcp.rto_min_us > conf.tcp.rto_max_us)
		conf.tcp.rto_min_us = conf.tcp.rto_max_us;
	if (conf.tcp.rto_init_us > conf.tcp.rto_max_us)
		conf.tcp.rto_init_us = conf.tcp.rto_max_us;
	conf.tcp.keepalive = c->keepalive;
	if (c->keepalive_idle_ms != 0)
		conf.tcp.keepalive_idle_us = (uint64_t)c->keepalive_idle_ms * 1000;
	if (c->keepalive_intvl_ms != 0)
		conf.tcp.keepalive_intvl_us = (uint64_t)c->keepalive_intvl_ms * 1000;
	if (c->keepalive_probes != 0)
		conf.tcp.keepalive_probes = (uint8_t)c->keepalive_probes;
	s->wire_area = rte_zmalloc("nn_wire", NN_WIRE_SLOTS * NN_WIRE_LEN, 4096);
	if (s->wire_area == NULL)
		return -ENOMEM;
	memset(s->wire_free, 0xff, sizeof(s->wire_free));
	if (rt->gpu_cuda && rte_gpu_mem_register(rt->gpu_id,
			NN_WIRE_SLOTS * NN_WIRE_LEN, s->wire_area) != 0)
		NN_WARN("stack %u: cannot register its header area with the GPU (%s): "
			"header copies will be synchronous", i, rte_strerror(rte_errno));
	s->st = dt_dp_stack_create(&conf);
	if (s->st == NULL) {
		NN_WARN("cannot create the TCP stack on queue %u: %s", i,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static int
assign_lcores(struct nn_rt *rt)
{
	const struct nn_config *c = &rt->cfg;
	unsigned int i, lc;

	lc = rte_get_next_lcore(-1, 1, 0);
	for (i = 0; i < rt->nb_stacks; i++) {
		if (c->nb_stacks != 0)
			lc = c->lcores[i];
		if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) ||
				lc == rte_get_main_lcore()) {
			NN_WARN("%s: stack %u needs a worker lcore (lcore %u is not one: "
				"give EAL one more with -l, e.g. -l 0-%u)", rt->cfg.path,
				i, lc, rt->nb_stacks);
			return -EINVAL;
		}
		rt->stacks[i]->lcore = lc;
	}
	return 0;
}

static void
describe_port(struct nn_rt *rt)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	const char *dname = NULL, *ifc;
	char pci[32], path[160];

	snprintf(rt->name, sizeof(rt->name), "devtcp_%s", rt->cfg.port_name);
	if (rte_eth_dev_info_get(rt->port_id, &info) == 0 && info.device != NULL)
		dname = rte_dev_name(info.device);
	rt->pci_path[0] = '\0';
	if (dname != NULL && strchr(dname, ':') != NULL) {
		/* A PCI NIC: NCCL's topology finds it under /sys. */
		snprintf(rt->pci_path, sizeof(rt->pci_path),
			"/sys/bus/pci/devices/%s", dname);
	} else if ((ifc = strstr(rt->cfg.eal, "iface=")) != NULL ||
			(getenv("DEVTCP_NCCL_EAL") != NULL &&
			 (ifc = strstr(getenv("DEVTCP_NCCL_EAL"), "iface=")) != NULL)) {
		/* net_hsplit on a Linux interface: the NIC behind it, if any. */
		snprintf(path, sizeof(path), "/sys/class/net/%.*s/device",
			(int)strcspn(ifc + 6, ", "), ifc + 6);
		if (realpath(path, rt->pci_path) == NULL)
			rt->pci_path[0] = '\0';
	}
	if (rt->pci_path[0] == '\0' && rt->gpu_cuda &&
			nn_cuda_current_pci(pci, sizeof(pci), NULL) == 0) {
		/* A vdev: place it by the GPU it lands payload in. */
		for (char *p = pci; *p; p++)
			*p = tolower((unsigned char)*p);
		snprintf(rt->pci_path, sizeof(rt->pci_path),
			"/sys/bus/pci/devices/%s", pci);
	}
	if (strcmp(rt->cfg.pci_path, "none") == 0)
		rt->pci_path[0] = '\0';
	else if (strcmp(rt->cfg.pci_path, "auto") != 0)
		snprintf(rt->pci_path, sizeof(rt->pci_path), "%s", rt->cfg.pci_path);
	rt->speed = rt->cfg.speed;
	if (rt->speed == 0 && rte_eth_link_get_nowait(rt->port_id, &link) == 0 &&
			link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
			link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		rt->speed = link.link_speed;
	if (rt->speed == 0)
		rt->speed = 10000;
	rt->ptr_support = NN_PTR_HOST;
	if (rt->cfg.ptr == NN_PTR_MODE_CUDA ||
			(rt->cfg.ptr == NN_PTR_MODE_AUTO && rt->gpu_cuda))
		rt->ptr_support |= NN_PTR_CUDA;
	rt->unpack = nn_unpack_choose(rt);
	/* CUDA frees of a comm an lcore dropped: NCCL's threads do them. */
	if (rt->unpack && rt->unpack_gc == NULL)
		rt->unpack_gc = rte_ring_create("nn_unpack_gc", 1024,
			SOCKET_ID_ANY, RING_F_SC_DEQ);
}

static int
launch(struct nn_rt *rt)
{
	uint16_t i;
	int rc;

	for (i = 0; i < rt->nb_stacks; i++) {
		rt->stacks[i]->running = true;
		rc = rte_eal_remote_launch(nn_lcore_main, rt->stacks[i],
			rt->stacks[i]->lcore);
		if (rc != 0) {
			rt->stacks[i]->running = false;
			NN_WARN("cannot launch stack %u on lcore %u: %s", i,
				rt->stacks[i]->lcore, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static int
rt_setup(struct nn_rt *rt)
{
	const char *path = getenv("DEVTCP_NCCL_CONFIG");
	char err[320];
	uint16_t i;
	int rc;

	if (path == NULL) {
		NN_WARN("DEVTCP_NCCL_CONFIG is not set: it names the plugin's "
			"configuration file (docs/nccl.md)");
		return -EINVAL;
	}
	rc = nn_config_load(path, &rt->cfg, err, sizeof(err));
	if (rc != 0) {
		NN_WARN("%s", err);
		return rc;
	}
	if (rt->cfg.ipv4 == 0) {
		NN_WARN("%s: [stack] ipv4 is required", path);
		return -EINVAL;
	}
	rt->cuda_ordinal = -1;
	rc = eal_init(rt);
	if (rc != 0)
		return rc;
	if (rte_eth_dev_get_port_by_name(rt->cfg.port_name, &rt->port_id) != 0) {
		NN_WARN("%s: [port] name: no port '%s' (add it to the EAL line, e.g. "
			"--vdev=net_hsplit0,iface=eth1)", path, rt->cfg.port_name);
		return -ENODEV;
	}
	rt->nb_stacks = rt->cfg.nb_stacks ? rt->cfg.nb_stacks : 1;
	rt->id_salt = rte_rand();
	rc = resolve_gpu(rt);
	if (rc == 0)
		rc = setup_memory(rt);
	if (rc == 0)
		rc = start_port(rt);
	for (i = 0; rc == 0 && i < rt->nb_stacks; i++)
		rc = create_stack(rt, i);
	if (rc == 0)
		rc = assign_lcores(rt);
	if (rc != 0)
		return rc;
	describe_port(rt);
	rc = launch(rt);
	if (rc == 0)
		nn_watchdog_start(rt);
	if (rc == 0)
		NN_INFO("%s: %u stack(s), %u flows per comm, payload region %s (%s), "
			"ptrSupport 0x%x, speed %d Mb/s, pciPath %s", rt->name,
			rt->nb_stacks, rt->cfg.flows,
			dt_devmem_region_name(rt->region),
			rt->gpu_id == RTE_GPU_ID_NONE ? "host" :
			rt->gpu_cuda ? "gpu_cuda" : "gpudev",
			rt->ptr_support, rt->speed,
			rt->pci_path[0] ? rt->pci_path : "(none)");
	return rc;
}

int
nn_rt_init(nn_logger_t log)
{
	struct nn_rt *rt;
	int rc;

	pthread_mutex_lock(&nn_rt_mutex);
	if (nn_logger == NULL)
		nn_logger = log;
	if (nn_rt_status <= 0) {
		rc = nn_rt_status;
		pthread_mutex_unlock(&nn_rt_mutex);
		return rc;
	}
	rt = calloc(1, sizeof(*rt));
	rc = rt == NULL ? -ENOMEM : rt_setup(rt);
	nn_rt_status = rc;
	if (rc == 0)
		__atomic_store_n(&nn_rt_ctx, rt, __ATOMIC_RELEASE);
	/* On failure the context stays allocated: EAL may hold parts of it. */
	pthread_mutex_unlock(&nn_rt_mutex);
	return rc;
}

/*
 * NCCL's users of the context (v11: one per communicator, init to
 * finalize). When the last one finalizes NCCL unloads the plugin: the
 * lcores stop polling first (the object itself stays mapped, -z nodelete,
 * since EAL's threads and lcores cannot be unwound), so that nothing polls
 * a CUDA stream or the port while the process tears CUDA down; the next
 * init launches them again.
 */
int
nn_rt_use(void)
{
	struct nn_rt *rt = nn_rt_get();
	int rc = 0;

	if (rt == NULL)
		return -ENODEV;
	pthread_mutex_lock(&nn_rt_mutex);
	if (rt->users++ == 0 && rt->paused) {
		rc = launch(rt);
		if (rc == 0) {
			rt->paused = false;
			NN_INFO("stacks polling again");
		} else {
			rt->users--;
		}
	}
	pthread_mutex_unlock(&nn_rt_mutex);
	return rc;
}

void
nn_rt_unuse(void)
{
	struct nn_rt *rt = nn_rt_get();
	uint16_t i;

	if (rt == NULL)
		return;
	pthread_mutex_lock(&nn_rt_mutex);
	if (rt->users > 0 && --rt->users == 0 && !rt->paused) {
		for (i = 0; i < rt->nb_stacks; i++)
			rt->stacks[i]->running = false;
		for (i = 0; i < rt->nb_stacks; i++)
			rte_eal_wait_lcore(rt->stacks[i]->lcore);
		rt->paused = true;
		nn_stats_log(rt);
		NN_INFO("last user finalized: stacks stopped polling");
	}
	pthread_mutex_unlock(&nn_rt_mutex);
}

void
nn_rt_shutdown(void)
{
	struct nn_rt *rt = nn_rt_get();
	uint16_t i;

	if (rt == NULL)
		return;
	for (i = 0; i < rt->nb_stacks; i++)
		rt->stacks[i]->running = false;
	rte_eal_mp_wait_lcore();
	nn_unpack_gc(rt);
	for (i = 0; i < rt->nb_stacks; i++)
		dt_dp_stack_destroy(rt->stacks[i]->st);
	/*
	 * Stop first: the NIC's copy channels drain (a transmit gather's
	 * kernel may still write the wire buffers) and close, then the
	 * pools may be unpinned.
	 */
	if (rt->port_started)
		dt_dp_port_stop(rt->port_id);
#ifdef NN_HAVE_CUDA
	if (rt->wire_registered != NULL)
		rte_pmd_gpu_cuda_mempool_unregister(rt->gpu_id, rt->wire_registered);
	if (rt->lro_registered != NULL)
		rte_pmd_gpu_cuda_mempool_unregister(rt->gpu_id, rt->lro_registered);
	if (rt->gso_registered != NULL)
		rte_pmd_gpu_cuda_mempool_unregister(rt->gpu_id, rt->gso_registered);
	rt->wire_registered = rt->lro_registered = rt->gso_registered = NULL;
#endif
	rte_eth_dev_close(rt->port_id);
}
