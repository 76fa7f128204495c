/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's calls as NCCL makes them, per ncclNet version. v11 and v12
 * differ only in getProperties (and makeVDevice, unused): CALL11 takes
 * whichever of the two tables was loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nccl_net.h"
#include "nccl_netprof.h"

#define CALL11(n, f, ...) ((n)->version == 12 ? (n)->v12->f(__VA_ARGS__) : \
	(n)->v11->f(__VA_ARGS__))
#define CALL(n, f, ...) ((n)->version == 8 ? (n)->v8->f(__VA_ARGS__) : \
	(n)->version == 10 ? (n)->v10->f(__VA_ARGS__) : CALL11(n, f, __VA_ARGS__))

int
net_open(struct net *n, void *lib, int version)
{
	char sym[32];
	const void *t;

	n->version = version;
	snprintf(sym, sizeof(sym), "ncclNetPlugin_v%d", version);
	t = dlsym(lib, sym);
	switch (version) {
	case 8: n->v8 = t; break;
	case 10: n->v10 = t; break;
	case 11: n->v11 = t; break;
	case 12: n->v12 = t; break;
	default: return -1;
	}
	return t != NULL ? 0 : -1;
}

nn_result_t
net_init(struct net *n, nn_logger_t log)
{
	switch (n->version) {
	case 8:
		return n->v8->init(log);
	case 10:
		return n->v10->init(log, netprof_cb);
	default:
		return CALL11(n, init, &n->ctx, 1, NULL, log, netprof_cb);
	}
}

static void
props_from_v8(struct nn_props_v12 *p, const struct nn_props_v8 *p8)
{
	p->name = p8->name;
	p->pciPath = p8->pciPath;
	p->guid = p8->guid;
	p->ptrSupport = p8->ptrSupport;
	p->speed = p8->speed;
	p->maxRecvs = p8->maxRecvs;
	p->maxComms = p8->maxComms;
	p->netDeviceType = p8->netDeviceType;
	p->netDeviceVersion = p8->netDeviceVersion;
}

/* As NCCL's net_v11.cc: v11's fields, then rail and plane undefined. */
static void
props_from_v11(struct nn_props_v12 *p, const struct nn_props_v11 *p11)
{
	int i;

	memcpy(p, p11, offsetof(struct nn_props_v11, vProps));
	p->vProps.ndevs = p11->vProps.ndevs;
	for (i = 0; i < p11->vProps.ndevs && i < NN_MAX_DEVS_PER_NIC; i++)
		p->vProps.devs[i] = p11->vProps.devs[i];
	p->maxP2pBytes = p11->maxP2pBytes;
	p->maxCollBytes = p11->maxCollBytes;
	p->maxMultiRequestSize = p11->maxMultiRequestSize;
}

nn_result_t
net_props(struct net *n, struct nn_props_v12 *p)
{
	struct nn_props_v11 p11;
	struct nn_props_v8 p8;
	nn_result_t rc;

	memset(p, 0, sizeof(*p));
	memset(&p11, 0, sizeof(p11));
	p->railId = p->planeId = NN_NET_ID_UNDEF;
	switch (n->version) {
	case 8:
		rc = n->v8->getProperties(0, &p8);
		if (rc == nn_ncclSuccess)
			props_from_v8(p, &p8);
		return rc;
	case 10:
		rc = n->v10->getProperties(0, (struct nn_props_v10 *)&p11);
		break;
	case 11:
		rc = n->v11->getProperties(0, &p11);
		break;
	default:
		return n->v12->getProperties(0, p);
	}
	if (rc == nn_ncclSuccess)
		props_from_v11(p, &p11);
	return rc;
}

nn_result_t
net_listen(struct net *n, void *h, void **l)
{
	if (n->version >= 11)
		return CALL11(n, listen, n->ctx, 0, h, l);
	return n->version == 8 ? n->v8->listen(0, h, l) : n->v10->listen(0, h, l);
}

nn_result_t
net_connect(struct net *n, void *h, void **sc)
{
	void *dc = NULL;

	if (n->version >= 11)
		return CALL11(n, connect, n->ctx, 0, h, sc, &dc);
	return n->version == 8 ? n->v8->connect(0, h, sc, &dc) :
		n->v10->connect(0, NULL, h, sc, &dc);
}

nn_result_t
net_accept(struct net *n, void *l, void **rc, void **dc)
{
	return CALL(n, accept, l, rc, dc);
}

nn_result_t
net_regmr(struct net *n, void *c, void *d, size_t sz, int type, void **mh)
{
	return CALL(n, regMr, c, d, sz, type, mh);
}

nn_result_t
net_deregmr(struct net *n, void *c, void *mh)
{
	return CALL(n, deregMr, c, mh);
}

/* The post's phandle checked against what the plugin returned. */
static nn_result_t
posted(void *ph, nn_result_t rc, void *req)
{
	char why[200];

	if (rc != nn_ncclSuccess)
		req = NULL;
	if (netprof_posted(ph, req, why, sizeof(why)) != 0) {
		fprintf(stderr, "netprof: %s\n", why);
		return nn_ncclInternalError;
	}
	return rc;
}

nn_result_t
net_isend(struct net *n, void *c, void *d, size_t sz, int tag, void *mh,
	void **req)
{
	nn_result_t rc;
	void *ph;

	if (n->version == 8)
		return n->v8->isend(c, d, (int)sz, tag, mh, req);
	ph = netprof_phandle(1, sz);
	rc = n->version == 10 ? n->v10->isend(c, d, sz, tag, mh, ph, req) :
		CALL11(n, isend, c, d, sz, tag, mh, ph, req);
	return posted(ph, rc, *req);
}

nn_result_t
net_irecv(struct net *n, void *c, void *d, size_t sz, int tag, void *mh,
	void **req)
{
	int isz = (int)sz;
	nn_result_t rc;
	void *ph;

	if (n->version == 8)
		return n->v8->irecv(c, 1, &d, &isz, &tag, &mh, req);
	ph = netprof_phandle(0, sz);
	rc = n->version == 10 ? n->v10->irecv(c, 1, &d, &sz, &tag, &mh, &ph, req) :
		CALL11(n, irecv, c, 1, &d, &sz, &tag, &mh, &ph, req);
	return posted(ph, rc, *req);
}

nn_result_t
net_consumed(struct net *n, void *c, void *req)
{
	nn_result_t (*fn)(void *, int, void *) = n->version == 8 ?
		n->v8->irecvConsumed : n->version == 10 ? n->v10->irecvConsumed :
		n->version == 11 ? n->v11->irecvConsumed : n->v12->irecvConsumed;

	return fn != NULL ? fn(c, 1, req) : nn_ncclInternalError;
}

nn_result_t
net_test(struct net *n, void *req, int *done, int *size)
{
	nn_result_t rc = CALL(n, test, req, done, size);
	char why[200];

	if ((rc != nn_ncclSuccess || *done) &&
			netprof_ended(req, why, sizeof(why)) != 0) {
		fprintf(stderr, "netprof: %s\n", why);
		return nn_ncclInternalError;
	}
	return rc;
}

nn_result_t
net_close(struct net *n, void *c, int which)
{
	if (c == NULL)
		return nn_ncclSuccess;  /* a listen comm closed after accept */
	return which == 0 ? CALL(n, closeSend, c) : which == 1 ?
		CALL(n, closeRecv, c) : CALL(n, closeListen, c);
}

nn_result_t
net_finalize(struct net *n)
{
	if (n->version < 11)
		return nn_ncclInvalidUsage;
	return CALL11(n, finalize, n->ctx);
}
