/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Devargs of the software NIC, parsed without EAL (rte_kvargs only):
 *   wire=NAME          loopback wire; two ports with the same NAME are
 *                      connected back to back (a third is refused)
 *   mac=XX:XX:XX:XX:XX:XX  MAC address (default: 02:68:73:00:00:<port id>)
 *   rate=GBPS          line rate in Gb/s, paced on TX (default 0: unpaced)
 *   loss=P dup=P reorder=P  fault probabilities in [0, 1] (default 0)
 *   corrupt=P          probability that a sent frame has one byte of its
 *                      IP payload flipped after the checksums were computed
 *                      (the receiver's checksum verification catches it)
 *   rx_loss=P rx_dup=P rx_reorder=P rx_corrupt=P  the same faults on
 *                      frames received from a Linux interface (iface=), so
 *                      that a test wire is faulty in both directions
 *   seed=N             PRNG seed of the faults (default 1)
 *   nomatch=host|last  where frames that do not match the buffer-split rule
 *                      go (default host; see hsplit_split.h)
 *   wire_bufs=N        wire buffers of the port's TX side (default 4096)
 *   iface=NAME         instead of a loopback wire, a Linux network interface
 *                      (AF_PACKET; see hsplit_iface.h); excludes wire=
 *   iface_ring=N       frames of the interface's RX ring (default 4096;
 *                      needs iface=); with several RX sockets each ring
 *                      has 2 x N / sockets frames (at least 1024)
 *   iface_rx_sockets=N RX sockets of the interface, in a PACKET_FANOUT_HASH
 *                      group (a flow stays on one): 0 (default) one per RX
 *                      queue, so that the queues drain the interface in
 *                      parallel; 1 the single socket of before (needs iface=)
 *   delay_us=N         delay line: every frame the port sends, and every
 *                      frame it receives from an interface, reaches the
 *                      other side N microseconds later (default 0)
 *   jitter_us=N        plus a uniform extra delay in [0, N] us per frame,
 *                      never reordering frames (reorder= does that)
 *   delay_dir=both|rx|tx  on an interface, which directions the delay line
 *                      delays (default both; rx: frames received from the
 *                      interface only, for applications that call tx_burst
 *                      only with frames to send, which never release held
 *                      TX frames otherwise)
 *   tx_hold=N          keep the mbufs of the last N frames sent, freeing the
 *                      oldest only when more come, with no tx_done_cleanup:
 *                      a PMD such as DPDK 22.11's virtio_user (default 0:
 *                      freed once gathered)
 *   caps=full|mlx5|ice|notso|nosplit|noflow|linear capability profile: what the
 *                      port reports and does for buffer split, TSO and
 *                      rte_flow (default full; see hsplit_caps.h)
 *   flow=on|off        off: no rte_flow API whatever the profile (a split
 *                      NIC without flow rules, for lib/dp's RSS-only
 *                      steering with a split; no 22.11 PMD is one)
 *   tx_gather=on|off   device-memory TX payload: one gather per burst where
 *                      the copy engine has one (default on), or one submit
 *                      of per-segment copies (off: the path before, for
 *                      comparisons)
 *   iface_gro=on|off   with RX LRO on the port (and no rx_* faults), turn the
 *                      interface's GRO on while the port runs (default on: one kernel trip and
 *                      one ring slot per coalesced frame, not per MTU
 *                      frame), or leave it as it is (off: the path before);
 *                      needs iface=
 */
#ifndef HSPLIT_DEVARGS_H
#define HSPLIT_DEVARGS_H

#include <stddef.h>
#include <stdint.h>

#define HSPLIT_WIRE_NAME_MAX 32
/** Linux interface names: IFNAMSIZ (16) with the NUL. */
#define HSPLIT_IFACE_NAME_MAX 16
#define HSPLIT_IFACE_RING_DEFAULT 4096
/** RX sockets of an interface at most (the port's RX queues at most). */
#define HSPLIT_IFACE_RX_SOCKETS_MAX 16

#define HSPLIT_ARG_WIRE "wire"
#define HSPLIT_ARG_MAC "mac"
#define HSPLIT_ARG_RATE "rate"
#define HSPLIT_ARG_LOSS "loss"
#define HSPLIT_ARG_DUP "dup"
#define HSPLIT_ARG_REORDER "reorder"
#define HSPLIT_ARG_SEED "seed"
#define HSPLIT_ARG_CORRUPT "corrupt"
#define HSPLIT_ARG_RX_LOSS "rx_loss"
#define HSPLIT_ARG_RX_DUP "rx_dup"
#define HSPLIT_ARG_RX_REORDER "rx_reorder"
#define HSPLIT_ARG_RX_CORRUPT "rx_corrupt"
#define HSPLIT_ARG_NOMATCH "nomatch"
#define HSPLIT_ARG_WIRE_BUFS "wire_bufs"
#define HSPLIT_ARG_IFACE "iface"
#define HSPLIT_ARG_IFACE_RING "iface_ring"
#define HSPLIT_ARG_IFACE_RX_SOCKETS "iface_rx_sockets"
#define HSPLIT_ARG_DELAY_US "delay_us"
#define HSPLIT_ARG_JITTER_US "jitter_us"
#define HSPLIT_ARG_DELAY_DIR "delay_dir"
#define HSPLIT_ARG_CAPS "caps"
#define HSPLIT_ARG_TX_GATHER "tx_gather"
#define HSPLIT_ARG_FLOW "flow"
#define HSPLIT_ARG_IFACE_GRO "iface_gro"
#define HSPLIT_ARG_TX_HOLD "tx_hold"
/** Largest tx_hold=. */
#define HSPLIT_TX_HOLD_MAX 65536
/** Directions of the delay line (bits of hsplit_devargs.delay_dir). */
#define HSPLIT_DELAY_RX 1u
#define HSPLIT_DELAY_TX 2u
/** Largest delay_us= and jitter_us= (10 s): beyond, a typo, not a wire. */
#define HSPLIT_DELAY_US_MAX 10000000u

/** Parsed devargs, defaults filled in. */
struct hsplit_devargs {
	char wire[HSPLIT_WIRE_NAME_MAX]; /**< "" = not connected */
	uint8_t mac[6];
	uint8_t mac_set;
	uint8_t nomatch;     /**< enum hsplit_nomatch */
	double rate_gbps;    /**< 0 = unpaced */
	double loss, dup, reorder;
	double corrupt;      /**< TX side: one byte flipped after checksumming */
	/** Faults on frames received from the interface (iface= only). */
	double rx_loss, rx_dup, rx_reorder, rx_corrupt;
	uint64_t seed;
	uint32_t wire_bufs;
	char iface[HSPLIT_IFACE_NAME_MAX]; /**< "" = no interface backend */
	uint32_t iface_ring;  /**< RX ring frames of the interface backend */
	uint8_t iface_ring_set;
	uint16_t iface_rx_sockets; /**< 0: one per RX queue */
	uint8_t iface_rx_sockets_set;
	uint32_t delay_us;    /**< delay line, each direction (0: none) */
	uint32_t jitter_us;   /**< uniform extra delay in [0, jitter_us] */
	uint8_t delay_dir;    /**< HSPLIT_DELAY_RX | HSPLIT_DELAY_TX */
	uint8_t caps;         /**< enum hsplit_caps_profile */
	uint8_t tx_gather_off; /**< tx_gather=off: TX copies by submit only */
	uint8_t flow_off;     /**< flow=off: no rte_flow API */
	uint8_t iface_gro_off; /**< iface_gro=off: the interface's GRO as it is */
	uint8_t iface_gro_set;
	uint32_t tx_hold;     /**< tx_hold=N: sent mbufs kept until N more are (0: freed at once) */
};

/**
 * Parse a vdev argument string (may be NULL or empty).
 * @return 0, or -EINVAL with a message naming the bad key and value in
 *         @p err (@p errlen bytes)
 */
int hsplit_devargs_parse(const char *args, struct hsplit_devargs *da,
	char *err, size_t errlen);

#endif /* HSPLIT_DEVARGS_H */
