/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ingest protocol between devtcp-server ([consumer] mode = ingest) and
 * its client processes: the control messages on the Unix socket and the
 * layout of the shared-memory rings. Internal to libdevtcp: applications
 * use dt_client.h; the server includes this file.
 *
 * Control socket: AF_UNIX SOCK_SEQPACKET. The client sends one
 * struct dt_client_hello; the server answers one struct dt_client_welcome
 * with, when it accepts, the ring memfd and (gpu_sim) the region's memfd
 * as SCM_RIGHTS. Nothing more crosses the socket until the client leaves:
 * a struct dt_client_bye, then close; or the client dies and the server sees
 * the socket's end. Either way the server takes back every buffer the client
 * held.
 *
 * Data: one pair of single-producer/single-consumer rings per server stack,
 * in the ring memfd: descriptors from the stack to the client, tokens from
 * the client to the stack. Both sides batch: a side publishes its index once
 * per burst, with release order; the other reads it with acquire order. The
 * client maps the payload region read-only: it can read what it holds and
 * write nowhere the NIC writes.
 */
#ifndef DT_CLIENT_PROTO_H
#define DT_CLIENT_PROTO_H

#include <stdint.h>

#include "dt_devmem_provider.h"

#ifdef __cplusplus
extern "C" {
#endif

/** "dtci" */
#define DT_CLIENT_MAGIC 0x64746369u
/** Protocol version: both sides must agree exactly. */
#define DT_CLIENT_VERSION 1
/** Longest client name (telemetry, logs), NUL included. */
#define DT_CLIENT_NAME_LEN 32
/** Longest refusal reason, NUL included. */
#define DT_CLIENT_WHY_LEN 160
/** Stacks a server has at most (SRV_MAX_STACKS). */
#define DT_CLIENT_MAX_STACKS 16

/** Kinds of control message. */
enum dt_client_msg_type {
	DT_CLIENT_MSG_HELLO = 1,
	DT_CLIENT_MSG_WELCOME = 2,
	DT_CLIENT_MSG_BYE = 3,
};

/** Client -> server, first message. */
struct dt_client_hello {
	uint32_t magic;                  /**< DT_CLIENT_MAGIC */
	uint16_t version;                /**< DT_CLIENT_VERSION */
	uint16_t type;                   /**< DT_CLIENT_MSG_HELLO */
	uint16_t port;                   /**< listen port whose streams it takes */
	uint16_t flags;                  /**< 0 */
	uint32_t quota;                  /**< ring entries per stack it asks for; 0: the server's */
	char name[DT_CLIENT_NAME_LEN];   /**< for logs and telemetry */
};

/** Server -> client, the answer to a hello. */
struct dt_client_welcome {
	uint32_t magic;
	uint16_t version;                /**< the server's DT_CLIENT_VERSION */
	uint16_t type;                   /**< DT_CLIENT_MSG_WELCOME */
	int32_t status;                  /**< 0: attached; else a positive errno: refused */
	char why[DT_CLIENT_WHY_LEN];     /**< the refusal's reason */
	uint32_t client_id;
	uint16_t nb_stacks;              /**< ring pairs in the ring memfd */
	uint16_t region_kind;            /**< enum dt_devmem_ipc_kind */
	uint64_t region_len;             /**< chunk offsets lie in [0, region_len) */
	uint64_t region_map_off;         /**< see struct dt_devmem_ipc */
	uint64_t region_map_len;
	uint8_t region_handle[DT_DEVMEM_IPC_HANDLE_LEN];
	char region_pci[32];
	uint32_t ring_size;              /**< entries of every ring (power of two) */
	uint32_t linear_size;            /**< bytes of each linear slot */
	uint64_t shm_len;                /**< bytes of the ring memfd */
	uint16_t nb_fds;                 /**< 1: rings; 2: rings, then the region's memfd */
	uint16_t pad[3];
};

/** Client -> server: leaving on purpose (then close). */
struct dt_client_bye {
	uint32_t magic;
	uint16_t version;
	uint16_t type;                   /**< DT_CLIENT_MSG_BYE */
};

/** Descriptor flags. */
enum dt_client_desc_flag {
	DT_CLIENT_F_OPEN = 1u << 0,      /**< a stream starts: offset = peer address/ports */
	DT_CLIENT_F_DATA = 1u << 1,      /**< len bytes at offset in the region */
	DT_CLIENT_F_HOST = 1u << 2,      /**< DATA in the ring pair's linear slot, not the region */
	DT_CLIENT_F_FIN = 1u << 3,       /**< the peer closed after the last DATA */
	DT_CLIENT_F_RESET = 1u << 4,     /**< the stream was reset: no more DATA */
	DT_CLIENT_F_ERROR = 1u << 5,     /**< the stream failed (len = errno) */
	DT_CLIENT_F_REOFFER = 1u << 6,   /**< OPEN of a stream another client had: aux
					   *  is the stream offset of its next DATA */
};

/**
 * One descriptor, stack -> client. Every descriptor holds a slot of the
 * pair until its token comes back (control descriptors too: the library
 * gives those back itself), so a ring of ring_size entries never overflows.
 */
struct dt_client_desc {
	uint64_t offset;     /**< DATA: region offset (HOST: linear slot offset);
			       *  OPEN: peer IPv4 (network order) << 32 | peer port << 16 | local port */
	uint64_t aux;        /**< OPEN: stream offset of the first DATA (REOFFER), else 0 */
	uint32_t len;        /**< DATA: bytes; ERROR: errno */
	uint16_t flags;      /**< enum dt_client_desc_flag */
	uint16_t stack;      /**< the server stack (ring pair) */
	uint32_t stream;     /**< the stream's number on that stack */
	uint32_t token;      /**< slot | generation << 16: give it back */
};

/** A ring's indices, each on its own cache line (no false sharing). */
struct dt_client_ring_idx {
	volatile uint32_t head;          /**< written by the producer */
	uint8_t pad0[60];
	volatile uint32_t tail;          /**< written by the consumer */
	uint8_t pad1[60];
};

/** Start of the ring memfd. */
struct dt_client_shm_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t nb_stacks;
	uint32_t ring_size;
	uint32_t linear_size;
	volatile uint32_t server_state;  /**< enum dt_client_server_state */
	uint8_t pad[44];
};

/** server_state values. */
enum dt_client_server_state {
	DT_CLIENT_SERVER_RUNNING = 1,
	DT_CLIENT_SERVER_STOPPING = 2,   /**< no new streams; the rings still drain */
};

/** Offsets of one pair's pieces in the ring memfd. */
struct dt_client_pair_layout {
	uint64_t desc_idx, desc_ring;    /**< struct dt_client_ring_idx, desc[ring_size] */
	uint64_t tok_idx, tok_ring;      /**< struct dt_client_ring_idx, uint32_t[ring_size] */
	uint64_t linear;                 /**< ring_size x linear_size bytes */
	uint64_t pair_len;
};

/** Round @p x up to a multiple of 4096. */
static inline uint64_t
dt_client_page_up(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

/** Layout of pair @p i, the same for both sides. */
static inline void
dt_client_pair_layout(uint32_t ring_size, uint32_t linear_size, uint16_t i,
	struct dt_client_pair_layout *l)
{
	uint64_t at;

	l->pair_len = dt_client_page_up(2 * sizeof(struct dt_client_ring_idx) +
		(uint64_t)ring_size * (sizeof(struct dt_client_desc) + sizeof(uint32_t))) +
		dt_client_page_up((uint64_t)ring_size * linear_size);
	at = sizeof(struct dt_client_shm_hdr) > 4096 ? 0 : 4096;
	at += (uint64_t)i * l->pair_len;
	l->desc_idx = at;
	l->tok_idx = at + sizeof(struct dt_client_ring_idx);
	l->desc_ring = l->tok_idx + sizeof(struct dt_client_ring_idx);
	l->tok_ring = l->desc_ring + (uint64_t)ring_size * sizeof(struct dt_client_desc);
	l->linear = at + l->pair_len - dt_client_page_up((uint64_t)ring_size * linear_size);
}

/** Bytes of a ring memfd with @p nb_stacks pairs. */
static inline uint64_t
dt_client_shm_len(uint32_t ring_size, uint32_t linear_size, uint16_t nb_stacks)
{
	struct dt_client_pair_layout l;

	dt_client_pair_layout(ring_size, linear_size, 0, &l);
	return 4096 + (uint64_t)nb_stacks * l.pair_len;
}

/** Token of slot @p slot at generation @p gen. */
static inline uint32_t
dt_client_token(uint32_t slot, uint32_t gen)
{
	return (slot & 0xffff) | (gen << 16);
}

#ifdef __cplusplus
}
#endif

#endif /* DT_CLIENT_PROTO_H */
