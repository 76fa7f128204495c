/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The ingest client: take TCP streams that devtcp-server received into GPU
 * memory, in another process, without a copy.
 *
 * devtcp-server with `[consumer] mode = ingest` listens on a Unix socket.
 * A process attaches for one TCP listen port and is handed streams accepted
 * on that port (balanced across the clients attached to it). It maps the
 * server's payload region once, read-only (CUDA: a CUDA IPC handle opened in
 * this process's primary context of the same GPU; gpu_sim: the device's
 * memfd, CPU-readable), and takes chunks {stream, region offset, length}
 * from shared-memory rings, one pair per server stack. No system call per
 * chunk on either side.
 *
 * Buffers: each DATA chunk names bytes in the server's region (or, rarely,
 * a small linear slot in shared memory: bytes the NIC left in a header
 * buffer). They stay valid and unchanged until the chunk's token is given
 * back with dt_client_release(); then the server may reuse them. Keeping
 * tokens is flow control: the stream's TCP window closes, nothing is lost.
 * The chunks of one stream arrive in stream order.
 *
 * Threads: one thread polls and releases at a time (the rings are
 * single-producer/single-consumer); the library takes no lock. Nothing here
 * needs DPDK's EAL.
 *
 * Errors: calls return 0 or a count, or a negative errno; attach fills a
 * struct dt_client_error with the reason the server or the system gave.
 */
#ifndef DT_CLIENT_H
#define DT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dt_client;

/** Why a call failed: an errno and one line for a human. */
struct dt_client_error {
	int code;          /**< positive errno, 0: no error */
	char message[192]; /**< NUL-terminated reason */
};

/** What dt_client_attach() asks for. */
struct dt_client_conf {
	const char *path;  /**< the server's control socket ([ingest] socket) */
	uint16_t port;     /**< TCP listen port whose streams this client takes */
	uint32_t quota;    /**< chunks held per server stack at most; 0: the server's default */
	const char *name;  /**< shown in the server's telemetry; NULL: "pid N" */
};

/** Where the region lives in this process. */
enum dt_client_mem {
	DT_CLIENT_MEM_CPU = 1,   /**< CPU-readable mapping (gpu_sim's memfd): kDLCPU */
	DT_CLIENT_MEM_CUDA = 2,  /**< device memory of a CUDA GPU: kDLCUDA */
};

/** Kinds of chunk. */
enum dt_client_chunk_kind {
	DT_CLIENT_OPEN = 1,   /**< a new stream (no bytes); @c peer_ipv4 / ports set */
	DT_CLIENT_DATA = 2,   /**< @c len bytes at @c addr */
	DT_CLIENT_FIN = 3,    /**< the peer closed: the stream's last event */
	DT_CLIENT_RESET = 4,  /**< the stream was reset or failed (@c err): last event */
};

/** One event of a stream: a piece of payload, or its opening or end. */
struct dt_client_chunk {
	uint64_t stream;      /**< stack << 32 | the stream's number: unique while open */
	const void *addr;     /**< DATA: device address (CUDA) or CPU address */
	uint64_t offset;      /**< DATA: offset in the region (host chunks: UINT64_MAX) */
	uint32_t len;         /**< DATA: bytes */
	uint8_t kind;         /**< enum dt_client_chunk_kind */
	bool host;            /**< DATA: bytes in host shared memory (CPU-readable) */
	bool reoffered;       /**< OPEN: the stream was another client's (@c stream_offset) */
	uint32_t peer_ipv4;   /**< OPEN: network order */
	uint16_t peer_port;   /**< OPEN: the peer's TCP port, host order */
	uint16_t local_port;  /**< OPEN: the local (listen) port, host order */
	uint64_t stream_offset; /**< OPEN: byte of the stream the first DATA starts at */
	int err;              /**< RESET: positive errno (ECONNRESET, ...) */
	uint32_t token;       /**< give back with dt_client_release() (DATA only) */
	uint16_t stack;       /**< the server stack the stream lives on */
};

/**
 * Attach to the server at @p conf->path and map its region and rings.
 * @param conf      where and as whom to attach
 * @param[out] out  the client
 * @param[out] err  the reason on failure (a refusal: EPROTO version
 *                  mismatch, EUSERS too many clients, ENOENT port not
 *                  served, EACCES uid/gid not allowed; or a system error)
 * @return 0 with *out set, or a negative errno.
 */
int dt_client_attach(const struct dt_client_conf *conf, struct dt_client **out,
	struct dt_client_error *err);

/**
 * Take up to @p n chunks, oldest first per stack (each stream in order).
 * OPEN, FIN and RESET chunks need no release.
 * @param c         the client
 * @param[out] out  room for @p n chunks
 * @param n         how many at most
 * @return the number taken (0: none now), or -ESHUTDOWN once the server is
 *         gone and every ring is empty.
 */
int dt_client_poll(struct dt_client *c, struct dt_client_chunk *out, uint16_t n);

/**
 * Take chunks until at least @p min are out, a FIN or RESET is among them,
 * @p n are out, or @p wait_us microseconds have passed since the call:
 * dt_client_poll() in a loop, so that a consumer that handles chunks in
 * batches (a GPU gather per batch) makes one call per batch, not one per
 * few chunks. It spins while chunks come, and naps (20 us at a time)
 * once the rings have been dry for a few hundred polls, so a consumer that
 * waits for the wire does not burn its CPU.
 * @param c         the client
 * @param[out] out  room for @p n chunks
 * @param n         how many at most
 * @param min       how many are enough to return
 * @param wait_us   how long to wait for them, microseconds
 * @return the number taken (0: none within @p wait_us), or -ESHUTDOWN as
 *         dt_client_poll() (only when nothing was taken).
 */
int dt_client_poll_batch(struct dt_client *c, struct dt_client_chunk *out,
	uint16_t n, uint16_t min, uint32_t wait_us);

/**
 * Give back the buffers of @p n DATA chunks (any order, any streams).
 * @param c   the client
 * @param ch  the chunks
 * @param n   how many
 * @return 0, or -EINVAL when a chunk is not one this client holds (nothing
 *         of that chunk is given back).
 */
int dt_client_release(struct dt_client *c, const struct dt_client_chunk *ch,
	uint16_t n);

/**
 * Give back one token (dt_client_chunk.token of a chunk on @p stack).
 * @param c      the client
 * @param stack  the chunk's stack
 * @param token  its token
 * @return 0, or -EINVAL when this client does not hold it
 */
int dt_client_release_token(struct dt_client *c, uint16_t stack,
	uint32_t token);

/**
 * Leave: tell the server (it takes back whatever is still held), unmap,
 * close. @p c is freed.
 * @param c  the client
 * @return 0 or a negative errno.
 */
int dt_client_detach(struct dt_client *c);

/**
 * @param c  the client
 * @return where the region is mapped (enum dt_client_mem)
 */
int dt_client_mem(const struct dt_client *c);

/**
 * @param c  the client
 * @return base of the region in this process (device address or CPU mapping)
 */
const void *dt_client_region_base(const struct dt_client *c);

/**
 * @param c  the client
 * @return bytes of the region
 */
uint64_t dt_client_region_len(const struct dt_client *c);

/**
 * @param c  the client
 * @return a CPU-readable alias of the region (verification), or NULL when
 *         the region is device memory without one
 */
const void *dt_client_cpu_alias(const struct dt_client *c);

/**
 * @param c  the client
 * @return the CUDA device ordinal of the region in this process, or -1 (CPU)
 */
int dt_client_cuda_device(const struct dt_client *c);

/**
 * @param c  the client
 * @return the control socket (poll it for POLLHUP: the server went away)
 */
int dt_client_fd(const struct dt_client *c);

/** Counters of this client. */
struct dt_client_stats {
	uint64_t chunks;            /**< DATA chunks taken */
	uint64_t bytes;             /**< DATA bytes taken */
	uint64_t host_bytes;        /**< of those, in host shared memory */
	uint64_t streams_opened;    /**< OPEN chunks taken */
	uint64_t streams_finished;  /**< FIN chunks taken */
	uint64_t streams_reset;     /**< RESET chunks taken */
	uint64_t released;          /**< DATA chunks given back */
	uint32_t held;            /**< DATA chunks taken and not given back */
	uint32_t client_id;       /**< as the server numbered it */
	uint16_t nb_stacks;         /**< the server's stacks (one ring each) */
	uint32_t ring_size;       /**< quota per stack */
	uint64_t bad_descs;       /**< descriptors a broken server wrote (a slot
				    *  outside the ring or held, bytes outside
				    *  the region): skipped */
};

/**
 * The counters of this client.
 * @param c       the client
 * @param[out] s  filled
 */
void dt_client_stats_get(const struct dt_client *c, struct dt_client_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* DT_CLIENT_H */
