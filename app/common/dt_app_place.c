/* SPDX-License-Identifier: BSD-3-Clause */
/* NUMA placement decisions (see dt_app_place.h). */
#include <stdio.h>
#include <string.h>

#include "dt_app_place.h"

void
dt_app_topo_init(struct dt_app_topo *t, bool numa_ok, int nb_nodes)
{
	memset(t, 0, sizeof(*t));
	t->numa_ok = numa_ok;
	t->nb_nodes = nb_nodes;
	t->gpu = -1;
}

int
dt_app_topo_add(struct dt_app_topo *t, enum dt_app_place_kind kind,
	const char *name, int node, int port, bool payload)
{
	struct dt_app_place_obj *o;

	if (t->nb >= DT_APP_PLACE_MAX)
		return -1;
	o = &t->obj[t->nb];
	o->kind = kind;
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->node = node < 0 ? DT_APP_NODE_ANY : node;
	o->port = port >= 0 && (unsigned int)port < t->nb ? port : -1;
	o->payload = payload;
	if (kind == DT_APP_PLACE_GPU)
		t->gpu = (int)t->nb;
	return (int)t->nb++;
}

/* Both nodes known and different. */
static bool
apart(int a, int b)
{
	return a >= 0 && b >= 0 && a != b;
}

static void
put(struct dt_app_place_warn *w, unsigned int cap, unsigned int *n,
	const struct dt_app_topo *t, unsigned int obj, unsigned int ref)
{
	if (*n < cap)
		w[*n] = (struct dt_app_place_warn){ .obj = obj, .ref = ref,
			.node = t->obj[obj].node, .ref_node = t->obj[ref].node };
	(*n)++;
}

unsigned int
dt_app_place_check(const struct dt_app_topo *t, struct dt_app_place_warn *w,
	unsigned int cap)
{
	const struct dt_app_place_obj *gpu = t->gpu >= 0 ? &t->obj[t->gpu] : NULL;
	unsigned int i, n = 0;

	/* Without libnuma the nodes are EAL's guesses: nothing to stand on. */
	if (!t->numa_ok)
		return 0;
	for (i = 0; i < t->nb; i++) {
		const struct dt_app_place_obj *o = &t->obj[i];
		const struct dt_app_place_obj *p = o->port >= 0 ? &t->obj[o->port] : NULL;
		bool off_port = false;

		if (o->kind == DT_APP_PLACE_GPU)
			continue;
		if (o->kind == DT_APP_PLACE_PORT) {
			if (o->payload && gpu != NULL && apart(o->node, gpu->node))
				put(w, cap, &n, t, i, (unsigned int)t->gpu);
			continue;
		}
		if (p != NULL && apart(o->node, p->node)) {
			put(w, cap, &n, t, i, (unsigned int)o->port);
			off_port = true;
		}
		/*
		 * Against the GPU too, unless that says nothing new: off its
		 * port, and the port on the GPU's node.
		 */
		if (o->payload && gpu != NULL && apart(o->node, gpu->node) &&
				!(off_port && p->node == gpu->node))
			put(w, cap, &n, t, i, (unsigned int)t->gpu);
	}
	return n;
}

int
dt_app_place_pool_node(int port_node, int gpu_node, int lcore_node)
{
	if (port_node >= 0)
		return port_node;
	if (gpu_node >= 0)
		return gpu_node;
	return lcore_node >= 0 ? lcore_node : DT_APP_NODE_ANY;
}

static const char *
why(enum dt_app_place_kind obj, enum dt_app_place_kind ref)
{
	if (ref == DT_APP_PLACE_GPU)
		return obj == DT_APP_PLACE_PORT ?
			"every payload byte crosses the interconnect" :
			"its work reaches the GPU across the interconnect";
	return obj == DT_APP_PLACE_LCORE ?
		"the polling core reaches a remote NIC" :
		"the NIC reads and writes this memory across the interconnect";
}

int
dt_app_place_warn_str(const struct dt_app_topo *t,
	const struct dt_app_place_warn *w, char *buf, size_t len)
{
	const struct dt_app_place_obj *o = &t->obj[w->obj], *r = &t->obj[w->ref];

	return snprintf(buf, len, "%s is on node %d, %s on node %d: %s",
		o->name, w->node, r->name, w->ref_node, why(o->kind, r->kind));
}
