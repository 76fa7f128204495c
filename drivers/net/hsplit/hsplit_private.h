/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Internal state of the software header-split NIC: port, RX queue, TX queue
 * and wire buffer. All of it lives in the port's private data or in
 * per-queue allocations; nothing is global.
 */
#ifndef HSPLIT_PRIVATE_H
#define HSPLIT_PRIVATE_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <ethdev_driver.h>

#include "dt_copy.h"
#include "hsplit_delay.h"
#include "hsplit_devargs.h"
#include "hsplit_flow.h"
#include "hsplit_pkt.h"
#include "hsplit_prng.h"
#include "hsplit_rss.h"
#include "hsplit_split.h"

extern int hsplit_logtype;
#define HSPLIT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hsplit_logtype, "net_hsplit: " fmt "\n", \
		##__VA_ARGS__)

#define HSPLIT_MAX_QUEUES 16
#define HSPLIT_MAX_MTU 9000
/** Largest frame: MTU + Ethernet header + two VLAN tags. */
#define HSPLIT_MAX_FRAME (HSPLIT_MAX_MTU + RTE_ETHER_HDR_LEN + 8)
#define HSPLIT_WIRE_DATA 9216
/** Largest coalesced TCP frame (LRO): an IPv4 packet of 64 KiB, Ethernet, two tags. */
#define HSPLIT_LRO_MAX_FRAME (65535 + RTE_ETHER_HDR_LEN + 8)
/** Data room of a wire buffer for coalesced frames (+4: a VLAN tag put back). */
#define HSPLIT_WIRE_DATA_LRO (HSPLIT_LRO_MAX_FRAME + 4)
#define HSPLIT_BURST 32
/**
 * Frames an RX queue holds between ingest and copy completion: at least
 * this many, else the RX ring size (nb_desc, a power of two) up to
 * HSPLIT_PENDING_MAX, so that an asynchronous copy engine's completion
 * latency never caps the frames in flight below what the ring holds.
 */
#define HSPLIT_PENDING 256
#define HSPLIT_PENDING_MAX 8192
/** Frames one rx_burst takes from the wire at most (beyond what it returns). */
#define HSPLIT_INGEST_MAX 256
/**
 * Copy engines one queue can reach: the payload region and the send
 * buffers an application registers (the NCCL plugin registers one per
 * connection and protocol). At most 8: eng_mask and unsub_mask are 8 bits.
 */
#define HSPLIT_MAX_ENGINES 8
/** Copies one queue batches before it submits. */
#define HSPLIT_OPS_MAX 512
/** Mbufs an RX queue keeps per pool (its "descriptor ring"). */
#define HSPLIT_STASH 64
#define HSPLIT_DMA_WIN_MAX 32
/** Bytes of line time per frame beyond the frame: preamble, SFD, FCS, IFG. */
#define HSPLIT_WIRE_OVERHEAD 24
/** A frame held back for reordering goes out after this long anyway. */
#define HSPLIT_HOLD_US 1000

/** A frame on the wire: host memory, with what the receiving NIC learnt at ingress. */
struct hsplit_wbuf {
	uint32_t len;
	uint32_t rss_hash;
	uint64_t rx_flags;      /**< RX ol_flags (checksums, RSS) */
	uint16_t queue;         /**< receiving queue */
	/** Delay line: TSC before which the frame is not received (0: now). */
	uint64_t due;
	/** A TSO frame sent whole (interface backend): MSS and header bytes. */
	uint16_t gso_size;
	uint16_t gso_hdr_len;
	struct hsplit_pkt_info pi;
	/*
	 * HSPLIT_WIRE_DATA bytes (HSPLIT_WIRE_SIZE), or HSPLIT_WIRE_DATA_LRO in
	 * the interface backend's LRO pool: a flexible array, since a 64 KiB
	 * LRO frame indexed past a fixed [HSPLIT_WIRE_DATA] is out of bounds
	 * for UBSan even inside its allocation.
	 */
	uint8_t data[] __rte_cache_aligned;
};
/** Bytes of a wire buffer of the ordinary pool. */
#define HSPLIT_WIRE_SIZE (sizeof(struct hsplit_wbuf) + HSPLIT_WIRE_DATA)

/** A copy engine a queue reaches, with the queue's own channel. */
struct hsplit_eng {
	struct dt_copy_engine *ce;
	struct dt_copy_chan *ch;
	uintptr_t base;
	uintptr_t end;
	/**
	 * TX: whether the channel gathers into the wire buffers (0: not
	 * asked yet, 1: yes, -1: no; hsplit_eng_gather_setup()), and the
	 * wire-buffer memory it accepted as gather targets.
	 */
	int8_t gather;
	struct dt_copy_gather_targets tgt;
};

/** Where a pool's data buffers are, found at queue setup. */
enum hsplit_mem {
	HSPLIT_MEM_HOST = 0,  /**< all in host memory: memcpy */
	HSPLIT_MEM_DEV,       /**< all in one engine's window */
	HSPLIT_MEM_MIXED,     /**< look each buffer up */
};

/** Mbufs taken from one pool ahead of need, as a NIC's filled descriptors. */
struct hsplit_stash {
	struct rte_mempool *mp;
	uint16_t n;
	uint8_t mem;            /**< enum hsplit_mem */
	uint8_t eng;            /**< engine index when HSPLIT_MEM_DEV */
	struct rte_mbuf *m[HSPLIT_STASH];
};

struct hsplit_rxq_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t split_packets;  /**< frames split as configured */
	uint64_t hdr_bytes;      /**< bytes in header segments of split frames */
	uint64_t payload_bytes;  /**< bytes in payload segments of split frames */
	/** Bytes a copy engine moved into the frames returned (counted at return). */
	uint64_t copy_bytes;
	uint64_t copy_calls;     /**< submit calls */
	uint64_t nomatch;        /**< frames not matching the split rule */
	uint64_t ip_cksum_err;
	uint64_t l4_cksum_err;
	uint64_t drop_nombuf;
	uint64_t drop_hdr_too_big;
	uint64_t drop_too_big;   /**< over MTU, needs SCATTER, chain too long */
	uint64_t drop_copy_err;
	uint64_t copy_busy;      /**< submits the engine deferred (full): retried */
	/** Frames with copies, and TSC cycles from their intake to their return. */
	uint64_t copy_lat_frames, copy_lat_cycles;
	uint64_t missed;         /**< ring full; added atomically by the peer's TX */
};

/** A frame taken from the wire whose payload copies may still be in flight. */
struct hsplit_pend {
	struct rte_mbuf *m;
	struct hsplit_wbuf *wb;  /**< source of the copies: freed on completion */
	uint64_t ticket[HSPLIT_MAX_ENGINES];
	uint32_t copy_bytes;     /**< batched for a copy engine */
	uint8_t eng_mask;
	/** Engines whose ticket[] is still an index into ops[]: not submitted yet. */
	uint8_t unsub_mask;
	uint8_t drop;            /**< a copy failed: free when complete */
	uint64_t tsc;            /**< taken from the wire (rx_ingest's call) */
};

struct hsplit_port;
struct hsplit_iface;

struct hsplit_rxq {
	struct hsplit_port *port;
	struct rte_ring *ring;   /**< the wire: wbuf pointers from the peer */
	uint16_t qid;
	uint16_t port_id;
	uint64_t offloads;
	struct hsplit_split_cfg split;
	struct rte_eth_rxseg_split seg[HSPLIT_MAX_NSEG]; /**< copied from rx_conf */
	uint8_t nseg;
	uint8_t nb_eng;
	struct hsplit_eng eng[HSPLIT_MAX_ENGINES];
	uint16_t nops[HSPLIT_MAX_ENGINES];
	struct dt_copy_op ops[HSPLIT_MAX_ENGINES][HSPLIT_OPS_MAX];
	uint32_t pend_head;      /**< next to deliver */
	uint32_t pend_tail;      /**< next free */
	uint32_t pend_flush;     /**< first entry whose tickets may be batch indexes */
	uint32_t pend_mask;      /**< entries in pend[] - 1 (a power of two) */
	struct hsplit_pend *pend;
	/** Frames taken from the wire and not yet laid out (no room for their copies). */
	uint16_t in_pos, in_n;
	uint64_t in_tsc;         /**< when in[] was taken from the wire */
	uint16_t iface_rot;      /**< interface backend: the other RX socket drained last */
	struct hsplit_wbuf *in[HSPLIT_BURST];
	struct hsplit_stash stash[HSPLIT_MAX_NSEG];
	struct hsplit_rxq_stats st;
};

struct hsplit_txq_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t copy_bytes;     /**< gathered through a copy engine */
	uint64_t copy_calls;
	uint64_t copy_gathers;   /**< of copy_calls: gathers (one GPU launch each) */
	uint64_t drop_copy_err;
	uint64_t drop_too_big;
	uint64_t tso_frames;     /**< TSO frames segmented */
	uint64_t tso_segs;       /**< segments they became */
	uint64_t drop_tso_bad;   /**< TSO frames outside the profile's limits */
	uint64_t drop_multi_seg; /**< chains on a profile without multi-segment TX */
	uint64_t peer_down;      /**< no started peer / queue: dropped */
	uint64_t loss;           /**< injected */
	uint64_t dup;
	uint64_t reorder;
	uint64_t corrupt;        /**< injected: one byte flipped after checksumming */
	uint64_t paced;          /**< packets tx_burst declined for pacing */
	uint64_t delayed;        /**< frames that went through the delay line */
	uint64_t copy_wait_cycles; /**< TSC cycles waiting for TX copies (in-flight ring full) */
	/** Chunks with copies, and TSC cycles from their start to their frames leaving. */
	uint64_t copy_lat_chunks, copy_lat_cycles;
};

/*
 * TX chunks whose copies may be in flight at once (power of 2): 64 x 32
 * frames, about 3 MiB at MTU 1500, enough to cover a GPU's completion
 * latency at tens of Gb/s.
 */
#define HSPLIT_TX_FLIGHT 64
#define HSPLIT_TX_FLIGHT_MASK (HSPLIT_TX_FLIGHT - 1)
/* Copies per engine queued for one submit across chunks (merge buffer). */
#define HSPLIT_TX_MERGE 1024
struct hsplit_tx_chunk;

#define HSPLIT_HOST_POOLS 8

struct hsplit_txq {
	struct hsplit_port *port;
	uint16_t qid;
	uint16_t nb_desc;        /**< as set up (the interface backend's ring) */
	uint8_t nb_eng;
	uint8_t hp_next;
	struct hsplit_eng eng[HSPLIT_MAX_ENGINES];
	/** Pools whose direct mbufs were found in host memory. */
	struct rte_mempool *host_pool[HSPLIT_HOST_POOLS];
	uint64_t prng;
	/* Token bucket, in bytes of line time. */
	double tokens;
	double bucket_max;
	double bytes_per_tsc;    /**< 0: unpaced */
	uint64_t last_tsc;
	struct hsplit_wbuf *held;
	uint64_t held_tsc;
	struct hsplit_delay dl;  /**< delay line of the frames this queue sends */
	/** Interface backend with a delay line: frames not yet due, in order. */
	struct hsplit_wbuf **dq;
	uint32_t dq_head, dq_tail, dq_mask;
	/** In-flight ring: chunks whose copies were submitted, in order. */
	struct hsplit_tx_chunk *fl;
	uint32_t fl_head, fl_tail;
	uint32_t fl_frames;      /**< frames of the in-flight chunks */
	uint32_t fl_sub;         /**< first chunk whose copies are not submitted */
	/** Merge buffer: copies of the chunks [fl_sub, fl_tail), per engine. */
	struct dt_copy_op (*mops)[HSPLIT_TX_MERGE];
	uint16_t mn[HSPLIT_MAX_ENGINES];
	struct hsplit_txq_stats st;
	/** tx_hold=: mbufs of the last frames sent, kept (hsplit_txhold.c). */
	struct rte_mbuf **hold;
	uint32_t hold_cap, hold_head, hold_n;
};

/* hsplit_txhold.c */
int hsplit_txhold_init(struct hsplit_txq *q, uint32_t n, int socket);
void hsplit_txhold_put(struct hsplit_txq *q, struct rte_mbuf **m, uint16_t n);
void hsplit_txhold_flush(struct hsplit_txq *q);

struct hsplit_dma_win {
	uintptr_t addr;
	size_t len;
};

struct hsplit_port {
	uint16_t port_id;
	volatile uint8_t started;
	uint8_t rss_on;           /**< mq_mode RSS with more than one queue */
	struct hsplit_devargs da;
	struct hsplit_port *peer; /**< the other end of the wire, or NULL */
	struct hsplit_iface *iface; /**< Linux-interface backend, or NULL */
	struct rte_eth_dev_data *data;
	struct rte_mempool *wire_pool;
	uint64_t loss_thr;        /**< fault thresholds on a 64-bit PRNG draw */
	uint64_t dup_thr;
	uint64_t reorder_thr;
	uint64_t corrupt_thr;
	/** Faults on frames received from a Linux interface (hsplit_iface.c). */
	uint64_t rx_loss_thr, rx_dup_thr, rx_reorder_thr, rx_corrupt_thr;
	uint64_t rx_offloads;
	uint32_t max_frame;       /**< frames above are dropped on RX (but LRO ones) */
	uint32_t max_lro;         /**< coalesced frames above are dropped (RX LRO on) */
	uint64_t rss_hf;
	uint8_t rss_key[HSPLIT_RSS_KEY_LEN];
	uint16_t reta[HSPLIT_RETA_SIZE];
	uint64_t rx_nodev;        /**< frames for a missing queue (atomic) */
	uint32_t nb_dma_win;
	struct hsplit_dma_win dma_win[HSPLIT_DMA_WIN_MAX];
	struct hsplit_flow_table flow;
};

static inline struct hsplit_port *
hsplit_port_of(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* hsplit_ethdev.c */
/** The port behind @p port_id if it is a net_hsplit port, else NULL with *err -ENODEV/-ENOTSUP. */
struct hsplit_port *hsplit_port_checked(uint16_t port_id, int *err);

/* hsplit_wire.c */
int hsplit_wire_attach(struct rte_eth_dev *dev, const struct eth_dev_ops *ops,
	const struct eth_dev_ops *ops2);
void hsplit_wire_detach(struct hsplit_port *p);
uint64_t hsplit_prob_threshold(double p);
int hsplit_wire_corrupt(struct hsplit_wbuf *wb, uint64_t draw);
void hsplit_pace_init(struct hsplit_txq *q, double rate_gbps, uint16_t nb_txq);
uint16_t hsplit_pace(struct hsplit_txq *q, struct rte_mbuf **pkts, uint16_t n);
void hsplit_pace_refund(struct hsplit_txq *q, struct rte_mbuf **pkts, uint16_t n);
int hsplit_wire_deliver(struct hsplit_port *peer, struct hsplit_wbuf **wb,
	uint16_t n, struct hsplit_txq *q);
void hsplit_wire_classify(struct hsplit_port *peer, struct hsplit_wbuf *wb,
	unsigned int tx_done);
void hsplit_wire_ingress(struct hsplit_port *rx, struct hsplit_wbuf **wb,
	uint16_t n);

/* hsplit_copy.c */
int hsplit_eng_find(struct hsplit_eng *eng, uint8_t *nb_eng,
	const void *addr, size_t len, int *idx);
void hsplit_eng_close_all(struct hsplit_eng *eng, uint8_t *nb_eng);
void hsplit_eng_gather_setup(struct hsplit_eng *e, uint16_t port_id,
	struct rte_mempool *const *pools, unsigned int n);

/* hsplit_rx.c */
uint16_t hsplit_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);
int hsplit_rxq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
	unsigned int socket, const struct rte_eth_rxconf *conf,
	struct rte_mempool *mp);
void hsplit_rxq_release(struct rte_eth_dev *dev, uint16_t qid);
void hsplit_rxq_flush(struct hsplit_rxq *q);
int hsplit_rxq_bind(struct hsplit_rxq *q);
void hsplit_rxq_unbind(struct hsplit_rxq *q);

/* hsplit_tx.c */
uint16_t hsplit_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);
int hsplit_txq_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
	unsigned int socket, const struct rte_eth_txconf *conf);
void hsplit_txq_release(struct rte_eth_dev *dev, uint16_t qid);
void hsplit_txq_flush(struct hsplit_txq *q);
void hsplit_txq_unbind(struct hsplit_txq *q);

/* hsplit_xstats.c */
int hsplit_xstats_get_names(struct rte_eth_dev *dev,
	struct rte_eth_xstat_name *names, unsigned int size);
int hsplit_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
	unsigned int n);
int hsplit_xstats_reset(struct rte_eth_dev *dev);
int hsplit_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st);
int hsplit_stats_reset(struct rte_eth_dev *dev);

#endif /* HSPLIT_PRIVATE_H */
