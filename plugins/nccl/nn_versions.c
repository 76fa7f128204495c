/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NCCL's tables, one per ncclNet version the plugin exports (v8, v10,
 * v11, v12; nn.map): each adapts the shared entry points (nn_plugin.h) to its
 * version's signatures and properties layout (nn_abi.h). NCCL takes the
 * newest it knows.
 */
#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "nn_plugin.h"
#include "nn_rt.h"

#define NN_EXPORT __attribute__((visibility("default")))

static nn_result_t
nn_props_v8(int dev, struct nn_props_v8 *p8)
{
	struct nn_props_v12 p;
	nn_result_t rc = nn_props(dev, &p);

	if (rc != nn_ncclSuccess)
		return rc;
	memset(p8, 0, sizeof(*p8));
	p8->name = p.name;
	p8->pciPath = p.pciPath;
	p8->guid = p.guid;
	p8->ptrSupport = p.ptrSupport;
	p8->regIsGlobal = p.regIsGlobal;
	p8->speed = p.speed;
	p8->port = p.port;
	p8->latency = p.latency;
	p8->maxComms = p.maxComms;
	p8->maxRecvs = p.maxRecvs;
	p8->netDeviceType = p.netDeviceType;
	p8->netDeviceVersion = p.netDeviceVersion;
	return nn_ncclSuccess;
}

/* v12 less rail and plane, its vProps cut to v11's 4 devices. */
static nn_result_t
nn_props_v11(int dev, struct nn_props_v11 *p11)
{
	struct nn_props_v12 p;
	nn_result_t rc = nn_props(dev, &p);
	int i;

	if (rc != nn_ncclSuccess)
		return rc;
	memset(p11, 0, sizeof(*p11));
	memcpy(p11, &p, offsetof(struct nn_props_v11, vProps));
	p11->vProps.ndevs = RTE_MIN(p.vProps.ndevs, NN_MAX_DEVS_PER_NIC);
	for (i = 0; i < p11->vProps.ndevs; i++)
		p11->vProps.devs[i] = p.vProps.devs[i];
	p11->maxP2pBytes = p.maxP2pBytes;
	p11->maxCollBytes = p.maxCollBytes;
	p11->maxMultiRequestSize = p.maxMultiRequestSize;
	return nn_ncclSuccess;
}

static nn_result_t
nn_props_v10(int dev, struct nn_props_v10 *p10)
{
	struct nn_props_v11 p;
	nn_result_t rc = nn_props_v11(dev, &p);

	if (rc == nn_ncclSuccess)
		memcpy(p10, &p, sizeof(*p10));   /* v11 extends v10 */
	return rc;
}

static nn_result_t
nn_isend_v8(void *c, void *data, int size, int tag, void *mh, void **req)
{
	return nn_isend(c, data, (size_t)size, tag, mh, NULL, req);
}

static nn_result_t
nn_irecv_v8(void *c, int n, void **data, int *sizes, int *tags, void **mh,
	void **req)
{
	return nn_irecv(c, n, data, n >= 1 ? (size_t)sizes[0] : 0, tags,
		mh, NULL, req);
}

static nn_result_t
nn_isend_v10(void *c, void *data, size_t size, int tag, void *mh, void *ph,
	void **req)
{
	return nn_isend(c, data, size, tag, mh, ph, req);
}

static nn_result_t
nn_irecv_v10(void *c, int n, void **data, size_t *sizes, int *tags, void **mh,
	void **ph, void **req)
{
	return nn_irecv(c, n, data, n >= 1 ? sizes[0] : 0, tags, mh, ph, req);
}

/* v8: no profiler callback. */
static nn_result_t
nn_init_v8(nn_logger_t log)
{
	return nn_init(log, NULL);
}

static nn_result_t
nn_init_v10(nn_logger_t log, nn_prof_cb_t prof)
{
	return nn_init(log, prof);
}

static nn_result_t
nn_connect_v10(int dev, struct nn_comm_config *cfg, void *handle,
	void **send_comm, void **dev_comm)
{
	return nn_connect(dev, handle, send_comm, dev_comm);
}

static nn_result_t
nn_init_v11(void **ctx, uint64_t comm_id, struct nn_comm_config *cfg,
	nn_logger_t log, nn_prof_cb_t prof)
{
	nn_result_t rc = nn_init(log, prof);

	/* One process context serves every NCCL communicator. */
	if (rc == nn_ncclSuccess && nn_rt_use() != 0)
		rc = nn_ncclSystemError;
	*ctx = rc == nn_ncclSuccess ? (void *)nn_rt_get() : NULL;
	return rc;
}

static nn_result_t
nn_listen_v11(void *ctx, int dev, void *handle, void **listen_comm)
{
	return nn_listen(dev, handle, listen_comm);
}

static nn_result_t
nn_connect_v11(void *ctx, int dev, void *handle, void **send_comm,
	void **dev_comm)
{
	return nn_connect(dev, handle, send_comm, dev_comm);
}

static nn_result_t
nn_finalize_v11(void *ctx)
{
	/*
	 * EAL cannot start twice in a process: the context stays, and the
	 * last finalize only stops the lcores (the next init restarts them).
	 */
	if (ctx != NULL)
		nn_rt_unuse();
	return nn_ncclSuccess;
}

static nn_result_t
nn_set_attr_v11(void *ctx, struct nn_net_attr *attr)
{
	return nn_ncclSuccess;
}

NN_EXPORT const struct nn_net_v8 ncclNetPlugin_v8 = {
	.name = "devtcp",
	.init = nn_init_v8,
	.devices = nn_devices,
	.getProperties = nn_props_v8,
	.listen = nn_listen,
	.connect = nn_connect,
	.accept = nn_accept,
	.regMr = nn_reg_mr,
	.regMrDmaBuf = nn_reg_mr_dmabuf,
	.deregMr = nn_dereg_mr,
	.isend = nn_isend_v8,
	.irecv = nn_irecv_v8,
	.iflush = nn_iflush,
	.test = nn_test,
	.closeSend = nn_close_comm,
	.closeRecv = nn_close_comm,
	.closeListen = nn_close_listen,
	.getDeviceMr = NULL,
	.irecvConsumed = nn_irecv_consumed,
};

NN_EXPORT const struct nn_net_v10 ncclNetPlugin_v10 = {
	.name = "devtcp",
	.init = nn_init_v10,
	.devices = nn_devices,
	.getProperties = nn_props_v10,
	.listen = nn_listen,
	.connect = nn_connect_v10,
	.accept = nn_accept,
	.regMr = nn_reg_mr,
	.regMrDmaBuf = nn_reg_mr_dmabuf,
	.deregMr = nn_dereg_mr,
	.isend = nn_isend_v10,
	.irecv = nn_irecv_v10,
	.iflush = nn_iflush,
	.test = nn_test,
	.closeSend = nn_close_comm,
	.closeRecv = nn_close_comm,
	.closeListen = nn_close_listen,
	.getDeviceMr = NULL,
	.irecvConsumed = nn_irecv_consumed,
	.makeVDevice = NULL,
};

/*
 * v11 and v12 share every call but getProperties: one list for both
 * tables (makeVDevice NULL: NCCL merges no devices into virtual NICs).
 */
#define NN_NET_V11_TABLE(props) \
	.name = "devtcp", \
	.init = nn_init_v11, \
	.devices = nn_devices, \
	.getProperties = props, \
	.listen = nn_listen_v11, \
	.connect = nn_connect_v11, \
	.accept = nn_accept, \
	.regMr = nn_reg_mr, \
	.regMrDmaBuf = nn_reg_mr_dmabuf, \
	.deregMr = nn_dereg_mr, \
	.isend = nn_isend_v10, \
	.irecv = nn_irecv_v10, \
	.iflush = nn_iflush, \
	.test = nn_test, \
	.closeSend = nn_close_comm, \
	.closeRecv = nn_close_comm, \
	.closeListen = nn_close_listen, \
	.getDeviceMr = NULL, \
	.irecvConsumed = nn_irecv_consumed, \
	.makeVDevice = NULL, \
	.finalize = nn_finalize_v11, \
	.setNetAttr = nn_set_attr_v11

NN_EXPORT const struct nn_net_v11 ncclNetPlugin_v11 = {
	NN_NET_V11_TABLE(nn_props_v11),
};

/* NCCL 2.30+: v11 with rail and plane (nn_abi.h). */
NN_EXPORT const struct nn_net_v12 ncclNetPlugin_v12 = {
	NN_NET_V11_TABLE(nn_props),
};
