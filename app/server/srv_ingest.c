/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ingest consumer's control side, on the main lcore: the Unix socket,
 * attach (credentials, hello, refusals, the rings and the region handed
 * over), and a client's end (goodbye or death), after which the stacks take
 * back what it held and its memory is freed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_telemetry.h>

#include "dt_devmem.h"
#include "srv.h"
#include "srv_ingest.h"

/* Control work every millisecond at most: it costs system calls. */
#define ING_PERIOD_US 1000
/* A connection that sends no hello in this time is closed. */
#define ING_HELLO_MS 2000

/* The region's free buffers: equal before and after a client when nothing else runs. */
static void
log_pools(const struct srv_ctx *ctx)
{
	struct rte_mempool *mp = dt_devmem_region_pool(ctx->region);

	SRV_LOG(INFO, "ingest: pools: region %u/%u free, headers %u/%u free",
		rte_mempool_avail_count(mp), mp->size,
		rte_mempool_avail_count(ctx->hdr_pool), ctx->hdr_pool->size);
}

static int
ing_listen(struct srv_ingest *ing, const struct srv_config *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat stt;
	int fd;

	/* Its length was checked with the configuration. */
	memcpy(sa.sun_path, c->ingest_socket, sizeof(sa.sun_path) - 1);
	/* A socket left by a server that died is removed; any other file is not. */
	if (lstat(sa.sun_path, &stt) == 0) {
		if (!S_ISSOCK(stt.st_mode)) {
			fprintf(stderr, "[ingest] socket %s exists and is not a socket\n",
				sa.sun_path);
			return -EEXIST;
		}
		unlink(sa.sun_path);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
			chmod(sa.sun_path, c->ingest_mode) != 0 ||
			listen(fd, SRV_INGEST_PENDING) != 0) {
		int e = errno;

		fprintf(stderr, "[ingest] cannot listen on %s: %s\n", sa.sun_path,
			strerror(e));
		close(fd);
		return -e;
	}
	ing->lfd = fd;
	return 0;
}

int
srv_ingest_init(struct srv_ctx *ctx)
{
	struct srv_ingest *ing;
	int rc;

	if (ctx->cfg.consumer != SRV_CONSUMER_INGEST)
		return 0;
	if (ctx->nb_stacks > DT_CLIENT_MAX_STACKS)
		return -E2BIG;
	ing = calloc(1, sizeof(*ing));
	if (ing == NULL)
		return -ENOMEM;
	ing->app = ctx;
	ing->lfd = -1;
	ctx->ingest = ing;
	rc = dt_devmem_region_ipc_export(ctx->region, &ing->ipc);
	if (rc != 0) {
		fprintf(stderr, "[consumer] mode = ingest: the payload region (%s) cannot be shared with other processes: %s\n",
			dt_devmem_region_provider(ctx->region), rte_strerror(-rc));
		return rc;
	}
	/* A host chunk is what a header buffer holds at most. */
	ing->linear_size = rte_pktmbuf_data_room_size(ctx->hdr_pool);
	rc = ing_listen(ing, &ctx->cfg);
	if (rc != 0)
		return rc;
	log_pools(ctx);
	SRV_LOG(INFO, "ingest: clients attach at %s (mode %s, at most %u, quota %u chunks per stack)",
		ctx->cfg.ingest_socket, ctx->cfg.ingest_socket_mode,
		ctx->cfg.ingest_max_clients, ctx->cfg.ingest_quota);
	return 0;
}

/* ---- attach ------------------------------------------------------------- */

static bool
id_allowed(const uint16_t *ids, uint16_t n, uint32_t id)
{
	uint16_t i;

	if (n == 0)
		return true;
	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

static bool
port_served(const struct srv_config *c, uint16_t port)
{
	uint16_t i;

	for (i = 0; i < c->stack.nb_listen; i++)
		if (c->stack.listen[i] == port)
			return true;
	return false;
}

static void
welcome_send(int fd, struct dt_client_welcome *w, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { w, sizeof(*w) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	w->magic = DT_CLIENT_MAGIC;
	w->version = DT_CLIENT_VERSION;
	w->type = DT_CLIENT_MSG_WELCOME;
	if (nfds > 0) {
		memset(cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	(void)sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void
refuse(struct srv_ingest *ing, int fd, int code, uint64_t *counter,
	const char *fmt, const char *arg, unsigned int n)
{
	struct dt_client_welcome w;

	memset(&w, 0, sizeof(w));
	w.status = code;
	snprintf(w.why, sizeof(w.why), fmt, arg, n);
	welcome_send(fd, &w, NULL, 0);
	(*counter)++;
	SRV_LOG(NOTICE, "ingest: client refused: %s", w.why);
	close(fd);
	(void)ing;
}

/* The ring memfd of a new client: header, then one pair per stack. */
static int
rings_create(struct srv_ingest *ing, struct srv_ingest_client *cl)
{
	uint16_t nb = (uint16_t)ing->app->nb_stacks, i;
	struct dt_client_shm_hdr *h;
	int fd;

	cl->shm_len = dt_client_shm_len(cl->ring_size, ing->linear_size, nb);
	fd = memfd_create("devtcp-ingest", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)cl->shm_len) != 0)
		goto fail;
	cl->shm = mmap(NULL, cl->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cl->shm == MAP_FAILED)
		goto fail;
	h = cl->shm;
	h->magic = DT_CLIENT_MAGIC;
	h->version = DT_CLIENT_VERSION;
	h->nb_stacks = nb;
	h->ring_size = cl->ring_size;
	h->linear_size = ing->linear_size;
	h->server_state = DT_CLIENT_SERVER_RUNNING;
	for (i = 0; i < nb; i++) {
		struct srv_ingest_pair *p = &cl->pair[i];
		struct dt_client_pair_layout l;
		uint8_t *b = cl->shm;
		uint32_t k;

		dt_client_pair_layout(cl->ring_size, ing->linear_size, i, &l);
		memset(p, 0, sizeof(*p));
		p->desc_idx = (struct dt_client_ring_idx *)(b + l.desc_idx);
		p->tok_idx = (struct dt_client_ring_idx *)(b + l.tok_idx);
		p->desc = (struct dt_client_desc *)(b + l.desc_ring);
		p->tok = (const volatile uint32_t *)(b + l.tok_ring);
		p->linear = b + l.linear;
		p->slots = calloc(cl->ring_size, sizeof(*p->slots));
		p->free_slots = calloc(cl->ring_size, sizeof(*p->free_slots));
		if (p->slots == NULL || p->free_slots == NULL)
			goto fail;
		for (k = 0; k < cl->ring_size; k++) {
			p->slots[k].node = SRV_INGEST_NONE;
			p->free_slots[k] = cl->ring_size - 1 - k;
		}
		p->nb_free = cl->ring_size;
	}
	return fd;
fail:
	close(fd);
	return -ENOMEM;
}

static void
client_free_mem(struct srv_ingest_client *cl)
{
	unsigned int i;

	for (i = 0; i < DT_CLIENT_MAX_STACKS; i++) {
		free(cl->pair[i].slots);
		free(cl->pair[i].free_slots);
		cl->pair[i].slots = NULL;
		cl->pair[i].free_slots = NULL;
	}
	if (cl->shm != NULL && cl->shm != MAP_FAILED)
		munmap(cl->shm, cl->shm_len);
	cl->shm = NULL;
}

static struct srv_ingest_client *
client_slot(struct srv_ingest *ing, unsigned int *n_used)
{
	struct srv_ingest_client *free_cl = NULL;
	unsigned int i;

	*n_used = 0;
	for (i = 0; i < SRV_INGEST_MAX_CLIENTS; i++) {
		if (ing->clients[i].state != ING_FREE)
			(*n_used)++;
		else if (free_cl == NULL)
			free_cl = &ing->clients[i];
	}
	return free_cl;
}

/* Fill the welcome of an accepted client and send it with its fds. */
static void
client_welcome(struct srv_ingest *ing, struct srv_ingest_client *cl, int ring_fd)
{
	struct dt_client_welcome w;
	int fds[2] = { ring_fd, ing->ipc.fd };

	memset(&w, 0, sizeof(w));
	w.client_id = cl->id;
	w.nb_stacks = (uint16_t)ing->app->nb_stacks;
	w.region_kind = (uint16_t)ing->ipc.kind;
	w.region_len = dt_devmem_region_len(ing->app->region);
	w.region_map_off = ing->ipc.map_off;
	w.region_map_len = ing->ipc.map_len;
	memcpy(w.region_handle, ing->ipc.handle, sizeof(w.region_handle));
	memcpy(w.region_pci, ing->ipc.pci, sizeof(w.region_pci));
	w.ring_size = cl->ring_size;
	w.linear_size = ing->linear_size;
	w.shm_len = cl->shm_len;
	w.nb_fds = ing->ipc.fd >= 0 ? 2 : 1;
	welcome_send(cl->fd, &w, fds, w.nb_fds);
}

static void
client_attach(struct srv_ingest *ing, int fd, const struct dt_client_hello *h,
	const struct ucred *cr)
{
	const struct srv_config *c = &ing->app->cfg;
	struct srv_ingest_client *cl;
	unsigned int used;
	uint32_t q = h->quota != 0 ? h->quota : c->ingest_quota;
	int ring_fd;

	cl = client_slot(ing, &used);
	if (cl == NULL || used >= c->ingest_max_clients)
		return refuse(ing, fd, EUSERS, &ing->st.refused_full,
			"too many clients%s (max_clients = %u)", "", c->ingest_max_clients);
	if (!port_served(c, h->port))
		return refuse(ing, fd, ENOENT, &ing->st.refused_port,
			"port %s%u is not a listen port of this server", "", h->port);
	/* The quota asked for, rounded to a power of two, at most the server's. */
	while (q & (q - 1))
		q &= q - 1;
	cl->ring_size = q < 16 ? 16 : q > c->ingest_quota ? c->ingest_quota : q;
	cl->fd = fd;
	cl->pid = cr->pid;
	cl->uid = cr->uid;
	cl->gid = cr->gid;
	cl->port = h->port;
	cl->bye = false;
	cl->streams = 0;
	cl->streams_total = 0;
	cl->id = ++ing->next_id;
	cl->attach_tsc = rte_rdtsc();
	memcpy(cl->name, h->name, sizeof(cl->name));
	cl->name[sizeof(cl->name) - 1] = '\0';
	ring_fd = rings_create(ing, cl);
	if (ring_fd < 0) {
		client_free_mem(cl);
		return refuse(ing, fd, ENOMEM, &ing->st.refused_other,
			"the server is out of memory for the rings%s (%u entries)", "",
			cl->ring_size);
	}
	client_welcome(ing, cl, ring_fd);
	close(ring_fd);
	ing->st.attached++;
	/* Published last: the stacks see a complete client. */
	__atomic_store_n(&cl->state, ING_ATTACHED, __ATOMIC_RELEASE);
	SRV_LOG(INFO, "ingest: client %u '%s' (pid %d, uid %u) attached for port %u, quota %u chunks per stack",
		cl->id, cl->name, (int)cl->pid, (unsigned int)cl->uid, cl->port,
		cl->ring_size);
}

/* A pending connection's hello: attach, refuse, or wait for it. */
static bool
hello_take(struct srv_ingest *ing, struct srv_ingest_pending *pd)
{
	const struct srv_config *c = &ing->app->cfg;
	struct dt_client_hello h;
	struct ucred cr;
	socklen_t crl = sizeof(cr);
	ssize_t n;

	n = recv(pd->fd, &h, sizeof(h), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		if (rte_rdtsc() - pd->tsc < rte_get_tsc_hz() / 1000 * ING_HELLO_MS)
			return false;
		refuse(ing, pd->fd, ETIMEDOUT, &ing->st.refused_other,
			"no hello within %s%u ms", "", ING_HELLO_MS);
		return true;
	}
	if (n >= 8 && h.magic == DT_CLIENT_MAGIC && h.version != DT_CLIENT_VERSION) {
		refuse(ing, pd->fd, EPROTO, &ing->st.refused_version,
			"protocol version mismatch: client %s%u, server " RTE_STR(DT_CLIENT_VERSION),
			"", h.version);
		return true;
	}
	if (n != (ssize_t)sizeof(h) || h.magic != DT_CLIENT_MAGIC ||
			h.type != DT_CLIENT_MSG_HELLO) {
		refuse(ing, pd->fd, EPROTO, &ing->st.refused_other,
			"malformed hello%s (%u bytes)", "", (unsigned int)(n < 0 ? 0 : n));
		return true;
	}
	if (getsockopt(pd->fd, SOL_SOCKET, SO_PEERCRED, &cr, &crl) != 0 ||
			!id_allowed(c->ingest_uids, c->nb_ingest_uids, cr.uid) ||
			!id_allowed(c->ingest_gids, c->nb_ingest_gids, cr.gid)) {
		refuse(ing, pd->fd, EACCES, &ing->st.refused_cred,
			"uid/gid not allowed%s (uid %u; [ingest] allow_uids, allow_gids)",
			"", (unsigned int)cr.uid);
		return true;
	}
	client_attach(ing, pd->fd, &h, &cr);
	return true;
}

static void
accept_new(struct srv_ingest *ing)
{
	unsigned int i;
	int fd;

	for (i = 0; i < SRV_INGEST_PENDING; i++) {
		struct srv_ingest_pending *pd = &ing->pend[i];

		if (pd->fd > 0 && hello_take(ing, pd))
			pd->fd = 0;
	}
	for (i = 0; i < SRV_INGEST_PENDING; i++) {
		if (ing->pend[i].fd > 0)
			continue;
		fd = accept4(ing->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			return;
		ing->pend[i].fd = fd;
		ing->pend[i].tsc = rte_rdtsc();
		if (hello_take(ing, &ing->pend[i]))
			ing->pend[i].fd = 0;
	}
}

/* ---- a client's end ----------------------------------------------------- */

static void
client_watch(struct srv_ingest *ing, struct srv_ingest_client *cl)
{
	struct dt_client_bye b;
	ssize_t n = recv(cl->fd, &b, sizeof(b), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n == (ssize_t)sizeof(b) && b.magic == DT_CLIENT_MAGIC &&
			b.type == DT_CLIENT_MSG_BYE) {
		cl->bye = true;
		return; /* the end of the socket follows */
	}
	if (n > 0)
		return; /* nothing else is expected: ignored */
	/* End of the socket: the stacks take everything back first. */
	__atomic_store_n(&cl->state, ING_DYING, __ATOMIC_RELEASE);
	(void)ing;
}

/* Whether every stack that still runs has taken the client's buffers back. */
static bool
client_reclaimed(const struct srv_ingest *ing, const struct srv_ingest_client *cl)
{
	unsigned int i;

	for (i = 0; i < ing->app->nb_stacks; i++)
		if (!__atomic_load_n(&cl->pair[i].reclaimed, __ATOMIC_ACQUIRE) &&
				!ing->app->stacks[i].done)
			return false;
	return true;
}

static void
client_release(struct srv_ingest *ing, struct srv_ingest_client *cl)
{
	uint64_t bad = 0;
	unsigned int i;

	for (i = 0; i < ing->app->nb_stacks; i++)
		bad += cl->pair[i].bad_tokens;
	if (cl->bye)
		ing->st.detached++;
	else
		ing->st.died++;
	rte_log(cl->bye ? RTE_LOG_INFO : RTE_LOG_WARNING, srv_logtype,
		"devtcp: ingest: client %u '%s' (pid %d) %s; its buffers are back, its streams %s%s\n",
		cl->id, cl->name, (int)cl->pid, cl->bye ? "detached" : "went away without detaching",
		ing->app->cfg.ingest_on_exit == SRV_INGEST_EXIT_REOFFER ?
		"offered to the port's other clients" : "reset",
		bad ? " (it gave back tokens it did not hold)" : "");
	close(cl->fd);
	client_free_mem(cl);
	__atomic_store_n(&cl->state, ING_FREE, __ATOMIC_RELEASE);
	log_pools(ing->app);
}

void
srv_ingest_poll(struct srv_ctx *ctx)
{
	struct srv_ingest *ing = ctx->ingest;
	uint64_t now;
	unsigned int i;

	if (ing == NULL)
		return;
	now = rte_rdtsc();
	if (now < ing->next_tsc)
		return;
	ing->next_tsc = now + rte_get_tsc_hz() / 1000000 * ING_PERIOD_US;
	accept_new(ing);
	for (i = 0; i < SRV_INGEST_MAX_CLIENTS; i++) {
		struct srv_ingest_client *cl = &ing->clients[i];

		if (cl->state == ING_ATTACHED)
			client_watch(ing, cl);
		if (cl->state == ING_DYING && client_reclaimed(ing, cl))
			client_release(ing, cl);
	}
}

/* After the stacks stopped: tell the clients, close everything. */
void
srv_ingest_fini(struct srv_ctx *ctx)
{
	struct srv_ingest *ing = ctx->ingest;
	unsigned int i;

	if (ing == NULL)
		return;
	for (i = 0; i < SRV_INGEST_MAX_CLIENTS; i++) {
		struct srv_ingest_client *cl = &ing->clients[i];

		if (cl->state == ING_FREE)
			continue;
		((struct dt_client_shm_hdr *)cl->shm)->server_state =
			DT_CLIENT_SERVER_STOPPING;
		close(cl->fd);
		client_free_mem(cl);
		cl->state = ING_FREE;
	}
	for (i = 0; i < SRV_INGEST_PENDING; i++)
		if (ing->pend[i].fd > 0)
			close(ing->pend[i].fd);
	if (ing->lfd >= 0) {
		close(ing->lfd);
		unlink(ctx->cfg.ingest_socket);
	}
	if (ing->ipc.fd >= 0)
		close(ing->ipc.fd);
	/* The stacks stopped, their nodes not yet released: a leak shows here. */
	log_pools(ctx);
	for (i = 0; i < ctx->nb_stacks; i++) {
		const struct srv_ingest_stack *is = ctx->stacks[i].ing;

		if (is != NULL)
			SRV_LOG(INFO, "ingest: stack %u: %u nodes in use, %u streams, %" PRIu64
				" pending, %" PRIu64 " descriptors, %" PRIu64 " tokens, %" PRIu64
				" reoffered, %" PRIu64 " reset, %" PRIu64 " dropped after reset",
				i, is->nb_nodes - is->nb_free_nodes, is->nb_active,
				is->pending, is->descs, is->tokens, is->reoffered,
				is->resets, is->dropped_after_reset);
	}
	SRV_LOG(INFO, "ingest: %" PRIu64 " clients attached, %" PRIu64 " detached, %" PRIu64
		" went away; refused: %" PRIu64 " version, %" PRIu64 " full, %" PRIu64
		" port, %" PRIu64 " uid/gid, %" PRIu64 " other",
		ing->st.attached, ing->st.detached, ing->st.died,
		ing->st.refused_version, ing->st.refused_full, ing->st.refused_port,
		ing->st.refused_cred, ing->st.refused_other);
	free(ing);
	ctx->ingest = NULL;
}

/* ---- telemetry (EAL's telemetry thread: reads only) ---------------------- */

static void
tel_client(struct rte_tel_data *d, const struct srv_ingest *ing,
	const struct srv_ingest_client *cl)
{
	struct rte_tel_data *o = rte_tel_data_alloc();
	uint64_t held = 0, bad = 0;
	char key[16];
	unsigned int i;

	if (o == NULL)
		return;
	for (i = 0; i < ing->app->nb_stacks; i++) {
		held += cl->pair[i].held;
		bad += cl->pair[i].bad_tokens;
	}
	rte_tel_data_start_dict(o);
	rte_tel_data_add_dict_string(o, "name", cl->name);
	rte_tel_data_add_dict_string(o, "state",
		cl->state == ING_ATTACHED ? "attached" : "leaving");
	rte_tel_data_add_dict_u64(o, "pid", (uint64_t)cl->pid);
	rte_tel_data_add_dict_u64(o, "uid", cl->uid);
	rte_tel_data_add_dict_u64(o, "port", cl->port);
	rte_tel_data_add_dict_u64(o, "quota_per_stack", cl->ring_size);
	rte_tel_data_add_dict_u64(o, "streams", cl->streams);
	rte_tel_data_add_dict_u64(o, "streams_total", cl->streams_total);
	rte_tel_data_add_dict_u64(o, "held_chunks", held);
	rte_tel_data_add_dict_u64(o, "bad_tokens", bad);
	snprintf(key, sizeof(key), "client%u", cl->id);
	rte_tel_data_add_dict_container(d, key, o, 0);
}

void
srv_ingest_telemetry(const struct srv_ctx *ctx, struct rte_tel_data *d)
{
	const struct srv_ingest *ing = ctx->ingest;
	unsigned int i;

	rte_tel_data_start_dict(d);
	if (ing == NULL)
		return;
	rte_tel_data_add_dict_string(d, "socket", ctx->cfg.ingest_socket);
	rte_tel_data_add_dict_u64(d, "attached", ing->st.attached);
	rte_tel_data_add_dict_u64(d, "detached", ing->st.detached);
	rte_tel_data_add_dict_u64(d, "died", ing->st.died);
	rte_tel_data_add_dict_u64(d, "refused_version", ing->st.refused_version);
	rte_tel_data_add_dict_u64(d, "refused_full", ing->st.refused_full);
	rte_tel_data_add_dict_u64(d, "refused_port", ing->st.refused_port);
	rte_tel_data_add_dict_u64(d, "refused_cred", ing->st.refused_cred);
	rte_tel_data_add_dict_u64(d, "refused_other", ing->st.refused_other);
	for (i = 0; i < SRV_INGEST_MAX_CLIENTS; i++)
		if (ing->clients[i].state != ING_FREE)
			tel_client(d, ing, &ing->clients[i]);
}
