/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * devtcp-server's configuration file: parsing and validation (pure C, no
 * EAL, so that it is unit-tested alone).
 *
 * Sections and keys (config/server.ini documents each one):
 *  - [port] (defaults for every port) and [port.N] (port N): name, rxd, txd,
 *    mtu, split = proto | len | none, split_len, tx_cksum, tso, copy;
 *  - [lcores]: stacks = N (N TCP stacks on the first N worker lcores) or
 *    stack_lcores = lcore list (one stack per lcore named); stack i polls
 *    queue i of the stack port;
 *  - [stack]: port, ipv4, netmask, gateway, listen (port list), backlog;
 *  - [devmem]: gpu (gpudev name or id, or "host"), buffers, buffer_size,
 *    header_buffers, cache;
 *  - [steering]: mode = rss | flow, rules = "TCPPORT:QUEUE, ..." (flow);
 *  - [limits]: max_conns, window, txq_cap, keepalive, keepalive_idle,
 *    keepalive_intvl (milliseconds), keepalive_probes;
 *  - [consumer]: mode = discard | verify | ring | iperf3 | ingest, pattern = stream |
 *    none, sha256 = yes | no, ring_size (iperf3: [stack] listen defaults to
 *    5201, one stack only);
 *  - [ingest] (mode = ingest): socket, socket_mode, allow_uids, allow_gids,
 *    max_clients, quota, on_client_exit = reset | reoffer,
 *    no_client = hold | reset;
 *  - [client]: the sender role (devtcp-send, or devtcp-server pushing to
 *    itself over a loopback wire): port, ipv4, netmask, gateway,
 *    connect = IP:PORT, conns, bytes, file, chunk.
 *
 * Every error names the file, the line and the key: "server.ini:12:
 * [devmem] buffers: expected a positive integer, got 'lots'".
 */
#ifndef SRV_CONFIG_H
#define SRV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SRV_MAX_PORTS 8
#define SRV_MAX_STACKS 16
#define SRV_MAX_LISTEN 16
#define SRV_MAX_RULES 16
#define SRV_NAME_MAX 64
#define SRV_PATH_MAX 256
/** [stack] listen of [consumer] mode = iperf3 when the file names none. */
#define SRV_IPERF3_PORT 5201

/** How a port's RX queues place frames. */
enum srv_split {
	SRV_SPLIT_PROTO,  /**< headers (Eth/IPv4/TCP) in host, payload in device memory */
	SRV_SPLIT_LEN,    /**< first split_len bytes in host, the rest in device memory */
	SRV_SPLIT_NONE,   /**< whole frames in host memory */
};

/** What the server does with received payload. */
enum srv_consumer_mode {
	SRV_CONSUMER_DISCARD, /**< give every chunk back at once */
	SRV_CONSUMER_VERIFY,  /**< check the pattern and/or hash each stream */
	SRV_CONSUMER_RING,    /**< hand chunks to a consumer lcore through a ring */
	SRV_CONSUMER_IPERF3,  /**< iperf3's server: control protocol, streams counted */
	SRV_CONSUMER_INGEST,  /**< other processes take the streams ([ingest], dt_client.h) */
};

/** Ingest: what happens to a client's streams when it goes away. */
enum srv_ingest_exit {
	SRV_INGEST_EXIT_RESET,   /**< reset them (RST to the peers) */
	SRV_INGEST_EXIT_REOFFER, /**< hand them to another client of the port, from the first byte not given back */
};

#define SRV_INGEST_MAX_IDS 16

/** [port] / [port.N]. */
struct srv_port_cfg {
	bool defined;                 /**< a [port.N] section names this port */
	char name[SRV_NAME_MAX];      /**< ethdev name; "" = port id N */
	uint16_t rxd, txd, mtu;
	enum srv_split split;
	uint16_t split_len;
	bool tx_cksum;
	bool tso;                     /**< TSO where the NIC offers it (default yes) */
	bool copy;                    /**< copy mode even on a NIC that splits */
};

/** [stack] and [client]: where a TCP stack lives. */
struct srv_stack_cfg {
	uint16_t port;                /**< index into srv_config.port */
	uint32_t ipv4, netmask, gateway; /**< network order */
	uint16_t listen[SRV_MAX_LISTEN];
	uint16_t nb_listen;
	uint16_t backlog;
};

/** [steering] rules = TCPPORT:QUEUE. */
struct srv_rule {
	uint16_t tcp_port;
	uint16_t queue;
};

/** The whole file. */
struct srv_config {
	char path[SRV_PATH_MAX];
	struct srv_port_cfg port[SRV_MAX_PORTS];
	/* [lcores] */
	uint16_t stack_lcores[SRV_MAX_STACKS];
	uint16_t nb_stacks;           /**< 0: one stack on the first worker lcore */
	bool stacks_counted;          /**< stacks = N: the first N worker lcores */
	/** A deprecated spelling that was accepted, for the program to say. */
	char warning[1024];
	struct srv_stack_cfg stack;
	/* [devmem] */
	char gpu[SRV_NAME_MAX];       /**< gpudev name, id, or "host" */
	uint32_t buffers, buffer_size, header_buffers, cache;
	/* [steering] */
	bool steer_flow;              /**< false: RSS */
	struct srv_rule rules[SRV_MAX_RULES];
	uint16_t nb_rules;
	/* [limits] */
	uint32_t max_conns, window, txq_cap;
	/** Keepalive on every connection; 0 keeps the engine's defaults. */
	bool keepalive;
	uint32_t keepalive_idle_ms, keepalive_intvl_ms, keepalive_probes;
	/* [consumer] */
	enum srv_consumer_mode consumer;
	bool verify_pattern, verify_sha256;
	uint32_t ring_size;
	/* [ingest] */
	char ingest_socket[SRV_PATH_MAX];
	char ingest_socket_mode[8];   /**< octal, as chmod takes it */
	uint32_t ingest_mode;         /**< ingest_socket_mode parsed */
	uint16_t ingest_uids[SRV_INGEST_MAX_IDS], nb_ingest_uids;
	uint16_t ingest_gids[SRV_INGEST_MAX_IDS], nb_ingest_gids;
	uint32_t ingest_max_clients;
	uint32_t ingest_quota;        /**< ring entries per stack and client */
	enum srv_ingest_exit ingest_on_exit;
	bool ingest_no_client_reset;  /**< a stream with no client: reset (else held) */
	/* [client] */
	bool has_client;
	struct srv_stack_cfg client;
	uint32_t client_raddr;        /**< network order */
	uint16_t client_rport;
	uint16_t client_conns;
	uint64_t client_bytes;        /**< per connection; 0 with file = file size */
	char client_file[SRV_PATH_MAX];
	uint32_t client_chunk;
};

/** Defaults of every key. */
void srv_config_default(struct srv_config *cfg);

/**
 * Read and validate @p path into @p cfg (defaults first).
 * @return 0, or -EINVAL (or the errno of opening the file) with a one-line
 *         message in @p err naming the file, line and key.
 */
int srv_config_load(const char *path, struct srv_config *cfg, char *err,
	size_t errlen);

/** Name of a consumer mode ("discard", ...). */
const char *srv_consumer_name(enum srv_consumer_mode m);

/** Name of a split mode ("proto", ...). */
const char *srv_split_name(enum srv_split s);

#ifdef __cplusplus
}
#endif

#endif /* SRV_CONFIG_H */
