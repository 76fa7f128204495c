/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_hsplit: ethdev ops, probe/remove, and the vdev driver's IOMMU model
 * (dma_map/dma_unmap record the windows a port may DMA into).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <bus_vdev_driver.h>

#include "hsplit_caps.h"
#include "hsplit_iface.h"
#include "hsplit_private.h"
#include "rte_pmd_hsplit.h"

RTE_LOG_REGISTER(hsplit_logtype, pmd.net.hsplit, INFO);

#define HSPLIT_TX_OFFLOADS (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | \
	RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM | \
	RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
#define HSPLIT_DEFAULT_SPEED RTE_ETH_SPEED_NUM_100G

static const struct eth_dev_ops hsplit_ops;
static const struct eth_dev_ops hsplit_ops_noproto;

/* What the parser reports in mbuf packet_type. */
static const uint32_t hsplit_ptypes[] = {
	RTE_PTYPE_L2_ETHER, RTE_PTYPE_L2_ETHER_VLAN, RTE_PTYPE_L2_ETHER_QINQ,
	RTE_PTYPE_L2_ETHER_ARP,
	RTE_PTYPE_L3_IPV4, RTE_PTYPE_L3_IPV4_EXT, RTE_PTYPE_L3_IPV6,
	RTE_PTYPE_L3_IPV6_EXT,
	RTE_PTYPE_L4_TCP, RTE_PTYPE_L4_UDP, RTE_PTYPE_L4_ICMP,
	RTE_PTYPE_L4_FRAG, RTE_PTYPE_L4_NONFRAG,
	RTE_PTYPE_UNKNOWN
};

struct hsplit_flow_table *
hsplit_dev_flow_table(struct rte_eth_dev *dev)
{
	return &hsplit_port_of(dev)->flow;
}

/* Not in the ops of a profile without protocol split (mlx5): see hsplit_dev_ops. */
static const uint32_t *
hsplit_split_ptypes_get(struct rte_eth_dev *dev)
{
	return hsplit_caps_get(hsplit_port_of(dev)->da.caps)->split_ptypes;
}

static const uint32_t *
hsplit_ptypes_get(struct rte_eth_dev *dev)
{
	return hsplit_ptypes;
}

static int
hsplit_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	const struct hsplit_caps *caps = hsplit_caps_get(p->da.caps);

	info->max_mac_addrs = 1;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	/* On a Linux interface, what the interface carries (its MTU, now). */
	info->max_mtu = p->iface != NULL ? (uint16_t)RTE_MIN(hsplit_iface_mtu(p),
		(uint32_t)HSPLIT_MAX_MTU) : HSPLIT_MAX_MTU;
	if (info->max_mtu < RTE_ETHER_MIN_MTU)
		info->max_mtu = RTE_ETHER_MIN_MTU;
	info->max_rx_pktlen = info->max_mtu + RTE_ETHER_HDR_LEN + 8;
	info->min_rx_bufsize = RTE_ETHER_MIN_LEN;
	info->max_rx_queues = HSPLIT_MAX_QUEUES;
	info->max_tx_queues = HSPLIT_MAX_QUEUES;
	info->rx_offload_capa = caps->rx_offload_capa;
	/*
	 * The kernel hands an interface's coalesced TCP frames (GSO/GRO, up
	 * to 64 KiB) over whole, as a NIC's LRO / HW-GRO would.
	 */
	if (p->iface != NULL) {
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_TCP_LRO;
		info->max_lro_pkt_size = HSPLIT_LRO_MAX_FRAME;
	}
	info->rx_queue_offload_capa = caps->rx_queue_offload_capa;
	info->tx_offload_capa = caps->tx_linear ? 0 : HSPLIT_TX_OFFLOADS;
	/*
	 * TSO: on the loopback wire the NIC model segments (hsplit_tso.c);
	 * on an interface the kernel gets the frame whole, as GSO, where it
	 * takes that (hsplit_iface_gso.c).
	 */
	if (caps->tso && (p->iface == NULL || hsplit_iface_gso(p)))
		info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_TCP_TSO;
	info->tx_queue_offload_capa = info->tx_offload_capa;
	info->reta_size = HSPLIT_RETA_SIZE;
	info->hash_key_size = HSPLIT_RSS_KEY_LEN;
	info->flow_type_rss_offloads = HSPLIT_RSS_OFFLOAD_ALL;
	info->rx_seg_capa.max_nseg = caps->max_nseg;
	info->rx_seg_capa.multi_pools = caps->multi_pools;
	info->rx_seg_capa.offset_allowed = caps->offset_allowed;
	info->rx_seg_capa.offset_align_log2 = caps->offset_align_log2;
	info->rx_desc_lim.nb_max = 4096;
	info->rx_desc_lim.nb_min = 2 * HSPLIT_BURST;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->tx_desc_lim.nb_seg_max = caps->tx_nb_seg_max;
	info->tx_desc_lim.nb_mtu_seg_max = caps->tx_nb_mtu_seg_max;
	info->default_rxportconf.burst_size = HSPLIT_BURST;
	info->default_rxportconf.ring_size = 1024;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf = info->default_rxportconf;
	info->speed_capa = RTE_ETH_LINK_SPEED_100G;
	return 0;
}

static void
hsplit_rss_apply(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	const struct rte_eth_conf *c = &dev->data->dev_conf;
	const struct rte_eth_rss_conf *rc = &c->rx_adv_conf.rss_conf;

	p->rss_on = (c->rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG) &&
		dev->data->nb_rx_queues > 1;
	p->rss_hf = rc->rss_hf & HSPLIT_RSS_OFFLOAD_ALL;
	if (rc->rss_key != NULL && rc->rss_key_len == HSPLIT_RSS_KEY_LEN)
		memcpy(p->rss_key, rc->rss_key, HSPLIT_RSS_KEY_LEN);
	else
		memcpy(p->rss_key, hsplit_rss_default_key, HSPLIT_RSS_KEY_LEN);
	hsplit_rss_reta_default(p->reta, dev->data->nb_rx_queues);
}

static int
hsplit_configure(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	const struct rte_eth_rss_conf *rc = &dev->data->dev_conf.rx_adv_conf.rss_conf;

	if (rc->rss_key != NULL && rc->rss_key_len != 0 &&
			rc->rss_key_len != HSPLIT_RSS_KEY_LEN) {
		HSPLIT_LOG(ERR, "port %u: RSS key of %u bytes, need %d",
			p->port_id, rc->rss_key_len, HSPLIT_RSS_KEY_LEN);
		return -EINVAL;
	}
	p->rx_offloads = dev->data->dev_conf.rxmode.offloads;
	p->max_frame = dev->data->mtu + RTE_ETHER_HDR_LEN + 8;
	p->max_lro = dev->data->dev_conf.rxmode.max_lro_pkt_size ?
		RTE_MIN(dev->data->dev_conf.rxmode.max_lro_pkt_size,
			(uint32_t)HSPLIT_LRO_MAX_FRAME) : HSPLIT_LRO_MAX_FRAME;
	hsplit_rss_apply(dev);
	return 0;
}

static int
hsplit_link_update(struct rte_eth_dev *dev, int wait)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	struct rte_eth_link link = {
		.link_speed = p->da.rate_gbps > 0 ?
			(uint32_t)(p->da.rate_gbps * 1000) : HSPLIT_DEFAULT_SPEED,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		/* On an interface, its carrier too (veth: both ends up). */
		.link_status = dev->data->dev_started &&
			(p->iface == NULL || hsplit_iface_link_up(p)) ?
			RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN,
	};

	return rte_eth_linkstatus_set(dev, &link);
}

static int
hsplit_start(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	uint16_t i, j;
	int ret;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		if (dev->data->rx_queues[i] == NULL) {
			HSPLIT_LOG(ERR, "port %u: rx queue %u not set up", p->port_id, i);
			ret = -EINVAL;
			goto fail;
		}
		ret = hsplit_rxq_bind(dev->data->rx_queues[i]);
		if (ret < 0)
			goto fail;
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	}
	if (p->iface != NULL && (ret = hsplit_iface_start(dev)) < 0)
		goto fail;
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	p->rx_offloads = dev->data->dev_conf.rxmode.offloads;
	__atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
	dev->data->dev_link.link_status = RTE_ETH_LINK_UP;
	return hsplit_link_update(dev, 0) < 0 ? -EIO : 0;
fail:
	for (j = 0; j < i; j++)
		hsplit_rxq_unbind(dev->data->rx_queues[j]);
	return ret;
}

static int
hsplit_stop(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	uint16_t i;

	__atomic_store_n(&p->started, 0, __ATOMIC_RELEASE);
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	hsplit_iface_stop(p);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		if (dev->data->rx_queues[i] != NULL)
			hsplit_rxq_unbind(dev->data->rx_queues[i]);
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		if (dev->data->tx_queues[i] != NULL)
			hsplit_txq_unbind(dev->data->tx_queues[i]);
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	return 0;
}

static int
hsplit_close(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	uint16_t i;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (p->started)
		hsplit_stop(dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		hsplit_rxq_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		hsplit_txq_release(dev, i);
	/*
	 * The peer's RX rings may still hold our wire buffers while it runs:
	 * then the pool must outlive this port (leaked, with a warning).
	 */
	if (p->peer != NULL && p->peer->started)
		HSPLIT_LOG(WARNING, "port %u closed while its peer port %u runs: wire buffers leaked",
			p->port_id, p->peer->port_id);
	else
		rte_mempool_free(p->wire_pool);
	p->wire_pool = NULL;
	hsplit_wire_detach(p);
	hsplit_iface_close(p);
	hsplit_flow_table_fini(&p->flow);
	return 0;
}

static int
hsplit_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct hsplit_port *p = hsplit_port_of(dev);

	if (mtu > HSPLIT_MAX_MTU)
		return -EINVAL;
	/* An interface's ring slots were sized at start. */
	if (p->iface != NULL && p->started && mtu > dev->data->mtu) {
		HSPLIT_LOG(ERR, "port %u: stop the port to raise its MTU (interface rings are sized at start)",
			p->port_id);
		return -EBUSY;
	}
	p->max_frame = (uint32_t)mtu + RTE_ETHER_HDR_LEN + 8;
	return 0;
}

static int
hsplit_noop(struct rte_eth_dev *dev)
{
	return 0;
}

static int
hsplit_promisc_enable(struct rte_eth_dev *dev)
{
	return hsplit_iface_promisc(hsplit_port_of(dev), 1);
}

static int
hsplit_promisc_disable(struct rte_eth_dev *dev)
{
	return hsplit_iface_promisc(hsplit_port_of(dev), 0);
}

static int
hsplit_mac_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	rte_ether_addr_copy(addr, &dev->data->mac_addrs[0]);
	return 0;
}

static int
hsplit_reta_update(struct rte_eth_dev *dev,
	struct rte_eth_rss_reta_entry64 *conf, uint16_t size)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	uint16_t i, g, b;

	if (size != HSPLIT_RETA_SIZE) {
		HSPLIT_LOG(ERR, "port %u: RETA size %u, the NIC has %d",
			p->port_id, size, HSPLIT_RETA_SIZE);
		return -EINVAL;
	}
	for (i = 0; i < size; i++) {
		g = i / RTE_ETH_RETA_GROUP_SIZE;
		b = i % RTE_ETH_RETA_GROUP_SIZE;
		if ((conf[g].mask >> b) & 1 &&
				conf[g].reta[b] >= dev->data->nb_rx_queues) {
			HSPLIT_LOG(ERR, "port %u: RETA entry %u -> queue %u, only %u queues",
				p->port_id, i, conf[g].reta[b], dev->data->nb_rx_queues);
			return -EINVAL;
		}
	}
	for (i = 0; i < size; i++) {
		g = i / RTE_ETH_RETA_GROUP_SIZE;
		b = i % RTE_ETH_RETA_GROUP_SIZE;
		if ((conf[g].mask >> b) & 1)
			p->reta[i] = conf[g].reta[b];
	}
	return 0;
}

static int
hsplit_reta_query(struct rte_eth_dev *dev,
	struct rte_eth_rss_reta_entry64 *conf, uint16_t size)
{
	struct hsplit_port *p = hsplit_port_of(dev);
	uint16_t i, g, b;

	if (size != HSPLIT_RETA_SIZE)
		return -EINVAL;
	for (i = 0; i < size; i++) {
		g = i / RTE_ETH_RETA_GROUP_SIZE;
		b = i % RTE_ETH_RETA_GROUP_SIZE;
		if ((conf[g].mask >> b) & 1)
			conf[g].reta[b] = p->reta[i];
	}
	return 0;
}

static int
hsplit_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *rc)
{
	struct hsplit_port *p = hsplit_port_of(dev);

	if (rc->rss_hf & ~HSPLIT_RSS_OFFLOAD_ALL) {
		HSPLIT_LOG(ERR, "port %u: RSS types 0x%" PRIx64 " not supported",
			p->port_id, rc->rss_hf & ~HSPLIT_RSS_OFFLOAD_ALL);
		return -EINVAL;
	}
	if (rc->rss_key != NULL && rc->rss_key_len != 0) {
		if (rc->rss_key_len != HSPLIT_RSS_KEY_LEN) {
			HSPLIT_LOG(ERR, "port %u: RSS key of %u bytes, need %d",
				p->port_id, rc->rss_key_len, HSPLIT_RSS_KEY_LEN);
			return -EINVAL;
		}
		memcpy(p->rss_key, rc->rss_key, HSPLIT_RSS_KEY_LEN);
	}
	p->rss_hf = rc->rss_hf;
	dev->data->dev_conf.rx_adv_conf.rss_conf.rss_hf = rc->rss_hf;
	return 0;
}

static int
hsplit_rss_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *rc)
{
	struct hsplit_port *p = hsplit_port_of(dev);

	if (rc->rss_key != NULL) {
		if (rc->rss_key_len < HSPLIT_RSS_KEY_LEN)
			return -EINVAL;
		memcpy(rc->rss_key, p->rss_key, HSPLIT_RSS_KEY_LEN);
	}
	rc->rss_key_len = HSPLIT_RSS_KEY_LEN;
	rc->rss_hf = p->rss_hf;
	return 0;
}

static int
hsplit_flow_ops(struct rte_eth_dev *dev, const struct rte_flow_ops **ops)
{
	const struct hsplit_devargs *da = &hsplit_port_of(dev)->da;

	/* No ops and no error: ethdev's "flow API not supported" (ENOSYS). */
	if (hsplit_caps_get(da->caps)->no_flow || da->flow_off) {
		*ops = NULL;
		return 0;
	}
#ifdef HSPLIT_HAVE_FLOW
	return hsplit_flow_ops_get(dev, ops);
#else
	*ops = NULL;
	return -ENOTSUP;
#endif
}

/* Ops every profile shares. */
#define HSPLIT_OPS_COMMON \
	.dev_configure = hsplit_configure, \
	.dev_start = hsplit_start, \
	.dev_stop = hsplit_stop, \
	.dev_close = hsplit_close, \
	.dev_infos_get = hsplit_infos_get, \
	.dev_supported_ptypes_get = hsplit_ptypes_get, \
	.link_update = hsplit_link_update, \
	.promiscuous_enable = hsplit_promisc_enable, \
	.promiscuous_disable = hsplit_promisc_disable, \
	.allmulticast_enable = hsplit_noop, \
	.allmulticast_disable = hsplit_noop, \
	.mac_addr_set = hsplit_mac_set, \
	.mtu_set = hsplit_mtu_set, \
	.rx_queue_setup = hsplit_rxq_setup, \
	.rx_queue_release = hsplit_rxq_release, \
	.tx_queue_setup = hsplit_txq_setup, \
	.tx_queue_release = hsplit_txq_release, \
	.stats_get = hsplit_stats_get, \
	.stats_reset = hsplit_stats_reset, \
	.xstats_get = hsplit_xstats_get, \
	.xstats_get_names = hsplit_xstats_get_names, \
	.xstats_reset = hsplit_xstats_reset, \
	.reta_update = hsplit_reta_update, \
	.reta_query = hsplit_reta_query, \
	.rss_hash_update = hsplit_rss_hash_update, \
	.rss_hash_conf_get = hsplit_rss_conf_get, \
	.flow_ops_get = hsplit_flow_ops,

static const struct eth_dev_ops hsplit_ops = {
	HSPLIT_OPS_COMMON
	.buffer_split_supported_hdr_ptypes_get = hsplit_split_ptypes_get,
};

/*
 * A profile without protocol split (mlx5) has no ptypes op at all, so
 * that ethdev itself refuses proto_hdr (-ENOTSUP), as it does for mlx5.
 */
static const struct eth_dev_ops hsplit_ops_noproto = {
	HSPLIT_OPS_COMMON
};

static const struct eth_dev_ops *
hsplit_dev_ops(const struct hsplit_devargs *da)
{
	return hsplit_caps_get(da->caps)->split_ptypes != NULL ? &hsplit_ops :
		&hsplit_ops_noproto;
}

struct hsplit_port *
hsplit_port_checked(uint16_t port_id, int *err)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id)) {
		*err = -ENODEV;
		return NULL;
	}
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &hsplit_ops && dev->dev_ops != &hsplit_ops_noproto) {
		*err = -ENOTSUP;
		return NULL;
	}
	return hsplit_port_of(dev);
}

static int
hsplit_create_wire_pool(struct hsplit_port *p, int socket)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int cache = RTE_MIN(256u, p->da.wire_bufs / 4);

	snprintf(name, sizeof(name), "hsplit_wire_%u", p->port_id);
	p->wire_pool = rte_mempool_create(name, p->da.wire_bufs,
		HSPLIT_WIRE_SIZE, cache, 0, NULL, NULL, NULL, NULL,
		socket, 0);
	if (p->wire_pool == NULL) {
		HSPLIT_LOG(ERR, "port %u: cannot create wire buffer pool %s (%u x %zu "
			"bytes = %zu MiB of DPDK memory on socket %d): %s; reserve more "
			"hugepages (/proc/sys/vm/nr_hugepages) or raise EAL's -m "
			"(--no-huge gives 64 MiB by default), or lower the wire_bufs= "
			"devarg", p->port_id, name, p->da.wire_bufs,
			HSPLIT_WIRE_SIZE,
			((size_t)p->da.wire_bufs * HSPLIT_WIRE_SIZE) >> 20,
			socket, rte_strerror(rte_errno));
		return -rte_errno;
	}
	return 0;
}

static void
hsplit_set_burst(struct rte_eth_dev *dev)
{
	struct hsplit_port *p = hsplit_port_of(dev);

	if (p->iface == NULL) {
		dev->rx_pkt_burst = hsplit_rx_burst;
		dev->tx_pkt_burst = hsplit_tx_burst;
	} else if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		dev->rx_pkt_burst = hsplit_iface_rx_burst;
		dev->tx_pkt_burst = hsplit_iface_tx_burst;
	} else {
		/* The sockets and rings are the primary process's alone. */
		HSPLIT_LOG(WARNING, "port %u: interface %s: no traffic in a secondary process",
			p->port_id, p->da.iface);
		dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
		dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	}
}

static int
hsplit_probe_secondary(struct rte_vdev_device *vdev, const char *name)
{
	struct rte_eth_dev *dev = rte_eth_dev_attach_secondary(name);

	if (dev == NULL) {
		HSPLIT_LOG(ERR, "%s: cannot attach in the secondary process", name);
		return -ENODEV;
	}
	/*
	 * Shared: port data and queues (hugepage memory). Not shared: copy
	 * engine channels, whose ops are per-process pointers; a secondary
	 * only gets host-memory traffic right.
	 */
	dev->dev_ops = hsplit_dev_ops(&hsplit_port_of(dev)->da);
	dev->device = &vdev->device;
	hsplit_set_burst(dev);
	rte_eth_dev_probing_finish(dev);
	return 0;
}

static int
hsplit_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct hsplit_devargs da;
	struct rte_eth_dev *dev;
	struct hsplit_port *p;
	char err[256];
	int ret;

	if (rte_eal_process_type() == RTE_PROC_SECONDARY)
		return hsplit_probe_secondary(vdev, name);
	ret = hsplit_devargs_parse(rte_vdev_device_args(vdev), &da, err,
		sizeof(err));
	if (ret < 0) {
		HSPLIT_LOG(ERR, "%s: %s", name, err);
		return ret;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(*p));
	if (dev == NULL) {
		HSPLIT_LOG(ERR, "%s: cannot allocate the ethdev", name);
		return -ENOMEM;
	}
	p = dev->data->dev_private;
	p->port_id = dev->data->port_id;
	p->data = dev->data;
	p->da = da;
	p->loss_thr = hsplit_prob_threshold(da.loss);
	p->dup_thr = hsplit_prob_threshold(da.dup);
	p->reorder_thr = hsplit_prob_threshold(da.reorder);
	p->corrupt_thr = hsplit_prob_threshold(da.corrupt);
	p->rx_loss_thr = hsplit_prob_threshold(da.rx_loss);
	p->rx_dup_thr = hsplit_prob_threshold(da.rx_dup);
	p->rx_reorder_thr = hsplit_prob_threshold(da.rx_reorder);
	p->rx_corrupt_thr = hsplit_prob_threshold(da.rx_corrupt);
	p->max_frame = RTE_ETHER_MTU + RTE_ETHER_HDR_LEN + 8;
	memcpy(p->rss_key, hsplit_rss_default_key, HSPLIT_RSS_KEY_LEN);
	hsplit_flow_table_init(&p->flow);
	dev->data->mac_addrs = rte_zmalloc_socket(name, RTE_ETHER_ADDR_LEN, 0,
		rte_socket_id());
	if (dev->data->mac_addrs == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	/* The interface's MAC address is the port's unless mac= says otherwise. */
	if (da.iface[0] != '\0') {
		ret = hsplit_iface_probe(p, dev->data->mac_addrs[0].addr_bytes);
		if (ret < 0)
			goto fail;
	}
	if (da.mac_set) {
		memcpy(dev->data->mac_addrs[0].addr_bytes, da.mac, 6);
	} else if (da.iface[0] == '\0') {
		/* Locally administered, unique per port. */
		static const uint8_t base[6] = { 0x02, 0x68, 0x73, 0x00, 0x00, 0x00 };

		memcpy(dev->data->mac_addrs[0].addr_bytes, base, 6);
		dev->data->mac_addrs[0].addr_bytes[4] = (uint8_t)(p->port_id >> 8);
		dev->data->mac_addrs[0].addr_bytes[5] = (uint8_t)p->port_id;
	}
	ret = hsplit_create_wire_pool(p, vdev->device.numa_node < 0 ?
		SOCKET_ID_ANY : vdev->device.numa_node);
	if (ret < 0)
		goto fail;
	dev->dev_ops = hsplit_dev_ops(&da);
	dev->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	ret = hsplit_wire_attach(dev, &hsplit_ops, &hsplit_ops_noproto);
	if (ret < 0)
		goto fail;
	hsplit_set_burst(dev);
	rte_eth_dev_probing_finish(dev);
	HSPLIT_LOG(INFO, "%s: port %u, caps=%s, %s %s, rate %.3g Gb/s, loss %g dup %g reorder %g seed %" PRIu64 ", nomatch=%s",
		name, p->port_id, hsplit_caps_get(da.caps)->name, da.iface[0] ? "interface" : "wire",
		da.iface[0] ? da.iface : da.wire[0] ? da.wire : "(none)", da.rate_gbps,
		da.loss, da.dup, da.reorder, da.seed,
		da.nomatch == HSPLIT_NOMATCH_LAST ? "last" : "host");
	if (da.corrupt > 0 || da.rx_loss > 0 || da.rx_dup > 0 ||
			da.rx_reorder > 0 || da.rx_corrupt > 0)
		HSPLIT_LOG(INFO, "%s: corrupt %g; received from the interface: "
			"loss %g dup %g reorder %g corrupt %g", name, da.corrupt,
			da.rx_loss, da.rx_dup, da.rx_reorder, da.rx_corrupt);
	return 0;
fail:
	hsplit_iface_close(p);
	rte_mempool_free(p->wire_pool);
	p->wire_pool = NULL;
	rte_eth_dev_release_port(dev);
	return ret;
}

static int
hsplit_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (dev == NULL)
		return 0;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		hsplit_close(dev);
	return rte_eth_dev_release_port(dev);
}

static struct hsplit_port *
vdev_port(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	return dev != NULL ? hsplit_port_of(dev) : NULL;
}

/* IOMMU model: record what the port may DMA into. */
static int
hsplit_dma_map(struct rte_vdev_device *vdev, void *addr, uint64_t iova,
	size_t len)
{
	struct hsplit_port *p = vdev_port(vdev);

	if (p == NULL)
		return -ENODEV;
	if (p->nb_dma_win >= HSPLIT_DMA_WIN_MAX) {
		HSPLIT_LOG(ERR, "port %u: more than %d DMA windows", p->port_id,
			HSPLIT_DMA_WIN_MAX);
		return -ENOSPC;
	}
	p->dma_win[p->nb_dma_win].addr = (uintptr_t)addr;
	p->dma_win[p->nb_dma_win].len = len;
	p->nb_dma_win++;
	HSPLIT_LOG(DEBUG, "port %u: dma_map %p len %zu", p->port_id, addr, len);
	return 0;
}

static int
hsplit_dma_unmap(struct rte_vdev_device *vdev, void *addr, uint64_t iova,
	size_t len)
{
	struct hsplit_port *p = vdev_port(vdev);
	uint32_t i;

	if (p == NULL)
		return -ENODEV;
	for (i = 0; i < p->nb_dma_win; i++) {
		if (p->dma_win[i].addr == (uintptr_t)addr && p->dma_win[i].len == len) {
			p->dma_win[i] = p->dma_win[--p->nb_dma_win];
			return 0;
		}
	}
	HSPLIT_LOG(ERR, "port %u: dma_unmap %p len %zu was not mapped",
		p->port_id, addr, len);
	return -ENOENT;
}

static struct rte_vdev_driver hsplit_vdev_drv = {
	.probe = hsplit_probe,
	.remove = hsplit_remove,
	.dma_map = hsplit_dma_map,
	.dma_unmap = hsplit_dma_unmap,
};

RTE_PMD_REGISTER_VDEV(net_hsplit, hsplit_vdev_drv);
/*
 * nomatch: frames that do not match the queue's buffer-split rule (ARP,
 * ICMP, fragments, UDP when the rule asks for TCP, headers longer than a
 * length split's header segments). Default "host": the whole frame goes in
 * header-pool buffers, so the CPU stack never has to read device memory to
 * handle them; "last" is ethdev's exact-match semantics (the whole frame in
 * the last pool, possibly device memory).
 */
RTE_PMD_REGISTER_PARAM_STRING(net_hsplit,
	HSPLIT_ARG_WIRE "=<name> "
	HSPLIT_ARG_MAC "=<xx:xx:xx:xx:xx:xx> "
	HSPLIT_ARG_RATE "=<Gb/s> "
	HSPLIT_ARG_LOSS "=<0..1> "
	HSPLIT_ARG_DUP "=<0..1> "
	HSPLIT_ARG_REORDER "=<0..1> "
	HSPLIT_ARG_CORRUPT "=<0..1> "
	HSPLIT_ARG_RX_LOSS "=<0..1> "
	HSPLIT_ARG_RX_DUP "=<0..1> "
	HSPLIT_ARG_RX_REORDER "=<0..1> "
	HSPLIT_ARG_RX_CORRUPT "=<0..1> "
	HSPLIT_ARG_SEED "=<uint64> "
	HSPLIT_ARG_NOMATCH "=host|last "
	HSPLIT_ARG_WIRE_BUFS "=<64..1048576> "
	HSPLIT_ARG_IFACE "=<Linux interface> "
	HSPLIT_ARG_IFACE_RING "=<64..65536> "
	HSPLIT_ARG_IFACE_RX_SOCKETS "=<0..16> "
	HSPLIT_ARG_CAPS "=full|mlx5|ice|notso|nosplit|noflow|linear "
	HSPLIT_ARG_TX_GATHER "=on|off "
	HSPLIT_ARG_IFACE_GRO "=on|off "
	HSPLIT_ARG_TX_HOLD "=<0..65536>");
