/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's process context: EAL, the port, the payload region and the
 * stacks, set up once per process on NCCL's first init (nn_runtime.c).
 */
#ifndef NN_RT_H
#define NN_RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "nn.h"

/* NCCL's calls into the plugin, counted for the watchdog (nn_watchdog.c). */
enum nn_call {
	NN_CALL_ISEND, NN_CALL_IRECV, NN_CALL_TEST, NN_CALL_REGMR,
	NN_CALL_CONNECT, NN_CALL_ACCEPT, NN_CALL__COUNT
};

struct nn_rt {
	struct nn_config cfg;
	nn_logger_t log;
	nn_prof_cb_t prof_cb;        /* NCCL's profiler callback (v10+ init), or NULL */
	uint16_t port_id;
	int16_t gpu_id;              /* RTE_GPU_ID_NONE: host region */
	bool gpu_cuda;               /* the region is on a gpu_cuda device */
	bool unpack;                 /* NCCL's device-side unpack offered */
	struct rte_ring *unpack_gc;  /* unpack areas to free on NCCL's threads */
	int cuda_ordinal;            /* CUDA device of the region, or -1 */
	struct rte_mempool *hdr_pool, *shell_pool;
	struct rte_mempool *host_pool;   /* steered mode's queue 0 (stacks > 1) */
	struct dt_devmem_region *region;
	uint16_t nb_stacks;
	struct nn_stack *stacks[NN_MAX_STACKS];
	bool port_started;
	struct rte_mempool *wire_registered; /* NIC wire pool pinned for CUDA */
	struct rte_mempool *lro_registered;  /* and its LRO pool */
	struct rte_mempool *gso_registered;  /* and its GSO (TSO frames) pool */
	uint32_t users;              /* inits not finalized (nn_rt_use) */
	uint64_t calls[NN_CALL__COUNT]; /* atomic: NCCL's calls (watchdog) */
	uint64_t reqs_posted, reqs_done; /* atomic: requests given to / done for NCCL */
	bool paused;                 /* lcores stopped by the last finalize */
	char name[96];
	char pci_path[256];          /* "" when the port has none */
	int speed;                   /* Mb/s */
	int ptr_support;
	uint32_t next_port;          /* atomic: listen ports handed out */
	uint32_t next_comm;          /* atomic: send comms created */
	uint64_t id_salt;            /* makes comm ids unique across processes */
	volatile bool stop;
	uint32_t mr_lock;            /* spin lock of the MR cache (control path) */
	struct nn_mr *mrs[64];
	uint16_t nb_mrs;
	uint16_t nb_tx_engines;      /* send-buffer copy engines (gpu_sim: one per buffer) */
	struct dt_copy_engine *tx_cuda_ce; /* the CUDA send buffers' one engine */
	bool streams_warned;         /* nn_cuda_streams_check() spoke */
};

/** The process context once nn_rt_init() succeeded, else NULL. */
struct nn_rt *nn_rt_get(void);

/**
 * Set up the process context (once; later calls return the first result).
 * @return 0, or a negative errno (logged through NCCL's logger).
 */
int nn_rt_init(nn_logger_t log);

/**
 * One more user of the context (an init); relaunches the lcores when the
 * last finalize stopped them.
 * @return 0, or a negative errno
 */
int nn_rt_use(void);

/** A user finalized; the last one stops the lcores (and logs the counters). */
void nn_rt_unuse(void);

/** Start the watchdog thread ([nccl] stall_report; nn_watchdog.c). */
void nn_watchdog_start(struct nn_rt *rt);

/** Count one of NCCL's calls for the watchdog. */
static inline void
nn_count_call(enum nn_call k)
{
	struct nn_rt *rt = nn_rt_get();

	if (rt != NULL)
		__atomic_fetch_add(&rt->calls[k], 1, __ATOMIC_RELAXED);
}

/**
 * Free/total buffers of the pools the data path draws on (the software
 * NIC's wire and LRO pools, headers, payload region), as one line: a pool
 * that stays empty is a stall of its own (a frame waits for a buffer).
 * @return what snprintf() returned for @p buf
 */
int nn_pools_line(const struct nn_rt *rt, char *buf, size_t len);

/** Warn once when the CUDA streams outnumber the context's hardware queues. */
void nn_cuda_streams_check(struct nn_rt *rt);

/** Free and total buffers of the software NIC's wire pool (0/0: none). */
void nn_wire_pool_count(const struct nn_rt *rt, uint64_t *avail, uint64_t *size);

/** Stop the lcores and release the port and the region (tests). */
void nn_rt_shutdown(void);

/** Log through NCCL's logger (stderr before init). */
void nn_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define NN_WARN(...) nn_log(NN_LOG_WARN, __VA_ARGS__)
#define NN_INFO(...) nn_log(NN_LOG_INFO, __VA_ARGS__)

/* NCCL's device-side unpack (nn_unpack.c). */
/** Whether the region allows it; *why says why not. */
bool nn_unpack_available(const struct nn_rt *rt, const char **why);
/** [nccl] unpack against the region and NCCL's settings: offer it or not (one log line). */
bool nn_unpack_choose(const struct nn_rt *rt);
/** Meta area and device handle for receive comm @p c, filled into @p dh; 0 or -errno. */
int nn_unpack_open(struct nn_rt *rt, struct nn_comm *c,
	struct nn_net_device_handle *dh);
/** Free what nn_unpack_open() made (the comm's last reference; an lcore defers CUDA frees). */
void nn_unpack_free(struct nn_comm *c);
/** NCCL's threads: free what lcores deferred. */
void nn_unpack_gc(struct nn_rt *rt);
/** An entry of receive @p r: 0, -ENOBUFS (slot full: gather the piece) or -ERANGE. Any lcore. */
int nn_unpack_add(struct nn_req *r, uint64_t src_off, uint32_t len,
	uint64_t dst_off);
/**
 * Whether receive comm @p c's receive into MR @p mr is NCCL's unpack
 * (Simple protocol), not LL or LL128 (gathered); NCCL's thread.
 */
bool nn_unpack_wants(const struct nn_comm *c, const struct nn_mr *mr);
/** Note MR @p mr registered on receive comm @p c; false: refuse it (user buffer). */
bool nn_unpack_note_mr(struct nn_comm *c, struct nn_mr *mr);
/** Write @p r's entry count into its slot: NCCL's thread, before test() says done. */
void nn_unpack_publish(const struct nn_req *r);
/** The comm's meta area as the CPU sees it (tests), or NULL. */
const struct nn_unpack_meta *nn_unpack_meta(const struct nn_comm *c);

/* CUDA helpers (nn_cuda.c; stubs without the CUDA headers). */
/** PCI bus id ("0000:19:00.0") of the current CUDA context's device. */
int nn_cuda_current_pci(char *buf, size_t len, int *ordinal);
/**
 * A copy engine over any CUDA address of the region's gpu_cuda device's
 * context (gpu_cuda's dt_copy_cuda_engine_create_any()), named by window
 * [base, base + len) in the registry (NULL, 0: no window); NULL with
 * rte_errno ENOTSUP when the region is not on a gpu_cuda device.
 */
struct dt_copy_engine *nn_cuda_engine_create(const struct nn_rt *rt,
	void *base, size_t len);
/** Whether @p ptr is CUDA device memory. */
bool nn_cuda_is_device(const void *ptr);
/** Pinned host memory the GPU reaches: *h for the CPU, *d for the GPU; 0 or -errno. */
int nn_cuda_host_alloc_mapped(size_t len, void **h, void **d);
void nn_cuda_host_free(void *h);


#endif /* NN_RT_H */
