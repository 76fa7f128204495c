/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The NCCL net-plugin ABI, declared from NCCL's documented ext-net
 * interface (no NCCL header is needed to build): the result codes, the
 * logger, the profiler callback, the property structures and the function
 * tables of versions 8, 10, 11 and 12 (NCCL 2.30's src/include/plugin/net/
 * net_v12.h). Layouts must match NCCL's member for member: NCCL reads these
 * structures from the plugin by the symbol names ncclNetPlugin_vN.
 */
#ifndef NN_ABI_H
#define NN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ncclResult_t. */
typedef enum {
	nn_ncclSuccess = 0,
	nn_ncclUnhandledCudaError = 1,
	nn_ncclSystemError = 2,
	nn_ncclInternalError = 3,
	nn_ncclInvalidArgument = 4,
	nn_ncclInvalidUsage = 5,
	nn_ncclRemoteError = 6,
	nn_ncclInProgress = 7,
} nn_result_t;

/** ncclDebugLogLevel. */
enum nn_log_level {
	NN_LOG_NONE = 0,
	NN_LOG_VERSION = 1,
	NN_LOG_WARN = 2,
	NN_LOG_INFO = 3,
	NN_LOG_ABORT = 4,
	NN_LOG_TRACE = 5,
};

/** ncclDebugLogSubSys bits used here. */
#define NN_LOG_SUB_INIT 0x1
#define NN_LOG_SUB_NET 0x10

/** ncclDebugLogger_t. */
typedef void (*nn_logger_t)(int level, unsigned long flags,
	const char *file, int line, const char *fmt, ...);

/**
 * ncclProfilerCallback_t (nccl_common.h), handed to init since v10: @p type
 * is an nn_prof_net_event; @p phandle the one isend/irecv received (start
 * only); @p plugin_id says whose descriptor @p ext is (start) or the
 * update's data.
 */
typedef nn_result_t (*nn_prof_cb_t)(void **handle, int type, void *phandle,
	int64_t plugin_id, void *ext);

/** ncclProfilerNetEventStart .. UpdateAndStop (nccl_common.h). */
enum nn_prof_net_event {
	NN_PROF_NET_START = 0,
	NN_PROF_NET_STOP = 1,
	NN_PROF_NET_UPDATE = 2,
	NN_PROF_NET_UPDATE_AND_STOP = 3,
};

/**
 * NCCL_PROFILER_NET_TYPE_SOCK (nccl_profiler.h): the plugin id's high 16
 * bits name the descriptor's family, the low 16 its version
 * (NCCL_PROFILER_NET_SOCKET_VER 1).
 */
#define NN_PROF_NET_TYPE_SOCK (2u << 16)
#define NN_PROF_NET_SOCK_VER 1
/** ncclProfileSocket (net_socket_v1.h): the descriptor's type. */
#define NN_PROF_SOCKET 1

/** ncclProfilerNetSockDescr_v1_t: what a start event describes. */
struct nn_prof_sock_descr {
	uint8_t type;            /* NN_PROF_SOCKET */
	struct {
		int fd;
		int op;
		size_t length;
	} sock;
};

/** Pointer kinds of ptrSupport and regMr's type. */
#define NN_PTR_HOST 0x1
#define NN_PTR_CUDA 0x2
#define NN_PTR_DMABUF 0x4

/** Largest connection handle NCCL exchanges between ranks. */
#define NN_HANDLE_MAXSIZE 128
/** Devices per virtual NIC (NCCL_NET_MAX_DEVS_PER_NIC_V10/_V11; _V12). */
#define NN_MAX_DEVS_PER_NIC 4
#define NN_MAX_DEVS_PER_NIC_V12 8
/** NCCL_NET_ID_UNDEF: no rail or plane (v12 railId, planeId). */
#define NN_NET_ID_UNDEF (-1)

/** ncclNetDeviceType: 0 host (no device offload), 1 NCCL's unpack kernel. */
#define NN_NET_DEVICE_HOST 0
#define NN_NET_DEVICE_UNPACK 1
/** The only netDeviceVersion NCCL 2.19-2.30 accept for the unpack type. */
#define NN_NET_UNPACK_VERSION 0x7

/**
 * ncclNetDeviceHandle (v7; v8-v11 are the same): NCCL allocates it on the
 * receive side only, fills the first two members and hands it to accept();
 * the plugin fills the rest.
 */
struct nn_net_device_handle {
	int netDeviceType;
	int netDeviceVersion;
	void *handle;            /* device-visible; NCCL's kernel writes head back */
	size_t size;
	int needsProxyProgress;  /* must be 1: else NCCL posts no receive */
};

/** What handle points to for the unpack type (24 bytes). */
struct nn_unpack_handle {
	void *meta;              /* struct nn_unpack_meta, as the GPU reaches it */
	void *bounce_buf;        /* base of every src_off: one per GPU */
	uint64_t head;           /* NCCL's slot counter; starts at -1 */
};

/** Slots per receive comm, entries per slot (NCCL's unpack_defs.h). */
#define NN_UNPACK_DEPTH 16
#define NN_UNPACK_ENTRIES 2048

/** One copy for NCCL's kernel: bounce_buf + src_off -> irecv data + dst_off. */
union nn_unpack_entry {
	uint64_t r64[2];
	struct {
		uint32_t src_off;
		uint32_t len;
		uint64_t dst_off;
	};
} __attribute__((aligned(16)));

/** The meta area of one receive comm: entries and a count per slot. */
struct nn_unpack_meta {
	union nn_unpack_entry mem[NN_UNPACK_DEPTH][NN_UNPACK_ENTRIES];
	uint64_t cnt[NN_UNPACK_DEPTH];
};

/** ncclNetProperties_v8_t. */
struct nn_props_v8 {
	char *name;
	char *pciPath;
	uint64_t guid;
	int ptrSupport;
	int regIsGlobal;
	int speed;               /* Mb/s */
	int port;
	float latency;
	int maxComms;
	int maxRecvs;
	int netDeviceType;
	int netDeviceVersion;
};

/** ncclNetVDeviceProps_v10_t / _v11_t. */
struct nn_vprops {
	int ndevs;
	int devs[NN_MAX_DEVS_PER_NIC];
};

/** ncclNetVDeviceProps_v12_t: up to 8 devices per virtual NIC. */
struct nn_vprops_v12 {
	int ndevs;
	int devs[NN_MAX_DEVS_PER_NIC_V12];
};

/** ncclNetCommConfig_v10_t / _v11_t / _v12_t. */
struct nn_comm_config {
	int trafficClass;
};

/** ncclNetProperties_v10_t (v9 and v10). */
struct nn_props_v10 {
	char *name;
	char *pciPath;
	uint64_t guid;
	int ptrSupport;
	int regIsGlobal;
	int forceFlush;
	int speed;
	int port;
	float latency;
	int maxComms;
	int maxRecvs;
	int netDeviceType;
	int netDeviceVersion;
	struct nn_vprops vProps;
	size_t maxP2pBytes;
	size_t maxCollBytes;
};

/** ncclNetProperties_v11_t: v10 plus maxMultiRequestSize. */
struct nn_props_v11 {
	char *name;
	char *pciPath;
	uint64_t guid;
	int ptrSupport;
	int regIsGlobal;
	int forceFlush;
	int speed;
	int port;
	float latency;
	int maxComms;
	int maxRecvs;
	int netDeviceType;
	int netDeviceVersion;
	struct nn_vprops vProps;
	size_t maxP2pBytes;
	size_t maxCollBytes;
	int maxMultiRequestSize;
};

/**
 * ncclNetProperties_v12_t: v11 with 8-device vProps (so not a prefix of
 * v11) and the NIC's rail and plane (NN_NET_ID_UNDEF: none), which NCCL's
 * topology search matches between the NICs of a ring or tree.
 */
struct nn_props_v12 {
	char *name;
	char *pciPath;
	uint64_t guid;
	int ptrSupport;
	int regIsGlobal;
	int forceFlush;
	int speed;
	int port;
	float latency;
	int maxComms;
	int maxRecvs;
	int netDeviceType;
	int netDeviceVersion;
	struct nn_vprops_v12 vProps;
	size_t maxP2pBytes;
	size_t maxCollBytes;
	int maxMultiRequestSize;
	int16_t railId;
	int16_t planeId;
};

/** ncclNetCommAttr_v11_t / _v12_t and ncclNetAttr_v11_t / _v12_t (setNetAttr hints). */
struct nn_comm_attr {
	int32_t maxConcurrentPeers, minConcurrentPeers;
	int32_t maxFlowsPerPeer, minFlowsPerPeer;
};
struct nn_net_attr {
	struct nn_comm_attr sendCommAttr, recvCommAttr;
	uint32_t op, algo, proto;
};

/** ncclNet_v8_t. */
struct nn_net_v8 {
	const char *name;
	nn_result_t (*init)(nn_logger_t log);
	nn_result_t (*devices)(int *ndev);
	nn_result_t (*getProperties)(int dev, struct nn_props_v8 *props);
	nn_result_t (*listen)(int dev, void *handle, void **listen_comm);
	nn_result_t (*connect)(int dev, void *handle, void **send_comm,
		void **send_dev_comm);
	nn_result_t (*accept)(void *listen_comm, void **recv_comm,
		void **recv_dev_comm);
	nn_result_t (*regMr)(void *comm, void *data, size_t size, int type,
		void **mhandle);
	nn_result_t (*regMrDmaBuf)(void *comm, void *data, size_t size, int type,
		uint64_t offset, int fd, void **mhandle);
	nn_result_t (*deregMr)(void *comm, void *mhandle);
	nn_result_t (*isend)(void *send_comm, void *data, int size, int tag,
		void *mhandle, void **request);
	nn_result_t (*irecv)(void *recv_comm, int n, void **data, int *sizes,
		int *tags, void **mhandles, void **request);
	nn_result_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
		void **mhandles, void **request);
	nn_result_t (*test)(void *request, int *done, int *sizes);
	nn_result_t (*closeSend)(void *send_comm);
	nn_result_t (*closeRecv)(void *recv_comm);
	nn_result_t (*closeListen)(void *listen_comm);
	nn_result_t (*getDeviceMr)(void *comm, void *mhandle, void **dptr);
	nn_result_t (*irecvConsumed)(void *recv_comm, int n, void *request);
};

/** ncclNet_v10_t. */
struct nn_net_v10 {
	const char *name;
	nn_result_t (*init)(nn_logger_t log, nn_prof_cb_t prof);
	nn_result_t (*devices)(int *ndev);
	nn_result_t (*getProperties)(int dev, struct nn_props_v10 *props);
	nn_result_t (*listen)(int dev, void *handle, void **listen_comm);
	nn_result_t (*connect)(int dev, struct nn_comm_config *config,
		void *handle, void **send_comm, void **send_dev_comm);
	nn_result_t (*accept)(void *listen_comm, void **recv_comm,
		void **recv_dev_comm);
	nn_result_t (*regMr)(void *comm, void *data, size_t size, int type,
		void **mhandle);
	nn_result_t (*regMrDmaBuf)(void *comm, void *data, size_t size, int type,
		uint64_t offset, int fd, void **mhandle);
	nn_result_t (*deregMr)(void *comm, void *mhandle);
	nn_result_t (*isend)(void *send_comm, void *data, size_t size, int tag,
		void *mhandle, void *phandle, void **request);
	nn_result_t (*irecv)(void *recv_comm, int n, void **data, size_t *sizes,
		int *tags, void **mhandles, void **phandles, void **request);
	nn_result_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
		void **mhandles, void **request);
	nn_result_t (*test)(void *request, int *done, int *sizes);
	nn_result_t (*closeSend)(void *send_comm);
	nn_result_t (*closeRecv)(void *recv_comm);
	nn_result_t (*closeListen)(void *listen_comm);
	nn_result_t (*getDeviceMr)(void *comm, void *mhandle, void **dptr);
	nn_result_t (*irecvConsumed)(void *recv_comm, int n, void *request);
	nn_result_t (*makeVDevice)(int *d, struct nn_vprops *props);
};

/** ncclNet_v11_t: context-based init, listen and connect. */
struct nn_net_v11 {
	const char *name;
	nn_result_t (*init)(void **ctx, uint64_t comm_id,
		struct nn_comm_config *config, nn_logger_t log, nn_prof_cb_t prof);
	nn_result_t (*devices)(int *ndev);
	nn_result_t (*getProperties)(int dev, struct nn_props_v11 *props);
	nn_result_t (*listen)(void *ctx, int dev, void *handle,
		void **listen_comm);
	nn_result_t (*connect)(void *ctx, int dev, void *handle,
		void **send_comm, void **send_dev_comm);
	nn_result_t (*accept)(void *listen_comm, void **recv_comm,
		void **recv_dev_comm);
	nn_result_t (*regMr)(void *comm, void *data, size_t size, int type,
		void **mhandle);
	nn_result_t (*regMrDmaBuf)(void *comm, void *data, size_t size, int type,
		uint64_t offset, int fd, void **mhandle);
	nn_result_t (*deregMr)(void *comm, void *mhandle);
	nn_result_t (*isend)(void *send_comm, void *data, size_t size, int tag,
		void *mhandle, void *phandle, void **request);
	nn_result_t (*irecv)(void *recv_comm, int n, void **data, size_t *sizes,
		int *tags, void **mhandles, void **phandles, void **request);
	nn_result_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
		void **mhandles, void **request);
	nn_result_t (*test)(void *request, int *done, int *sizes);
	nn_result_t (*closeSend)(void *send_comm);
	nn_result_t (*closeRecv)(void *recv_comm);
	nn_result_t (*closeListen)(void *listen_comm);
	nn_result_t (*getDeviceMr)(void *comm, void *mhandle, void **dptr);
	nn_result_t (*irecvConsumed)(void *recv_comm, int n, void *request);
	nn_result_t (*makeVDevice)(int *d, struct nn_vprops *props);
	nn_result_t (*finalize)(void *ctx);
	nn_result_t (*setNetAttr)(void *ctx, struct nn_net_attr *attr);
};

/** ncclNet_v12_t: v11 with v12 properties and 8-device virtual NICs. */
struct nn_net_v12 {
	const char *name;
	nn_result_t (*init)(void **ctx, uint64_t comm_id,
		struct nn_comm_config *config, nn_logger_t log, nn_prof_cb_t prof);
	nn_result_t (*devices)(int *ndev);
	nn_result_t (*getProperties)(int dev, struct nn_props_v12 *props);
	nn_result_t (*listen)(void *ctx, int dev, void *handle,
		void **listen_comm);
	nn_result_t (*connect)(void *ctx, int dev, void *handle,
		void **send_comm, void **send_dev_comm);
	nn_result_t (*accept)(void *listen_comm, void **recv_comm,
		void **recv_dev_comm);
	nn_result_t (*regMr)(void *comm, void *data, size_t size, int type,
		void **mhandle);
	nn_result_t (*regMrDmaBuf)(void *comm, void *data, size_t size, int type,
		uint64_t offset, int fd, void **mhandle);
	nn_result_t (*deregMr)(void *comm, void *mhandle);
	nn_result_t (*isend)(void *send_comm, void *data, size_t size, int tag,
		void *mhandle, void *phandle, void **request);
	nn_result_t (*irecv)(void *recv_comm, int n, void **data, size_t *sizes,
		int *tags, void **mhandles, void **phandles, void **request);
	nn_result_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
		void **mhandles, void **request);
	nn_result_t (*test)(void *request, int *done, int *sizes);
	nn_result_t (*closeSend)(void *send_comm);
	nn_result_t (*closeRecv)(void *recv_comm);
	nn_result_t (*closeListen)(void *listen_comm);
	nn_result_t (*getDeviceMr)(void *comm, void *mhandle, void **dptr);
	nn_result_t (*irecvConsumed)(void *recv_comm, int n, void *request);
	nn_result_t (*makeVDevice)(int *d, struct nn_vprops_v12 *props);
	nn_result_t (*finalize)(void *ctx);
	nn_result_t (*setNetAttr)(void *ctx, struct nn_net_attr *attr);
};

#ifndef __cplusplus
/* Layouts NCCL 2.30 reads (x86-64 and aarch64, LP64). */
_Static_assert(sizeof(struct nn_props_v11) == 112, "ncclNetProperties_v11_t");
_Static_assert(offsetof(struct nn_props_v12, maxP2pBytes) == 104,
	"ncclNetProperties_v12_t");
_Static_assert(offsetof(struct nn_props_v12, railId) == 124 &&
	sizeof(struct nn_props_v12) == 128, "ncclNetProperties_v12_t");
#endif

#ifdef __cplusplus
}
#endif

#endif /* NN_ABI_H */
