/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ingest client (dt_client.h): attach over the control socket, map the
 * rings and the region, take descriptors, give tokens back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dt_client.h"
#include "dt_client_priv.h"
#include "dt_client_proto.h"

int
dt_client_fail(struct dt_client_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -code;
}

static int
cl_connect(const char *path, struct dt_client_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (path == NULL || strlen(path) >= sizeof(sa.sun_path))
		return dt_client_fail(err, EINVAL, "socket path %s", path == NULL ?
			"missing" : "too long");
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return dt_client_fail(err, errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		e = errno;
		close(fd);
		return dt_client_fail(err, e, "cannot connect to %s: %s (is devtcp-server running with [consumer] mode = ingest?)",
			path, strerror(e));
	}
	return fd;
}

/* Receive the welcome and up to two fds. */
static int
cl_recv_welcome(int fd, struct dt_client_welcome *w, int fds[2],
	struct dt_client_error *err)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { w, sizeof(*w) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	fds[0] = fds[1] = -1;
	do {
		n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return dt_client_fail(err, errno, "no answer from the server: %s",
			strerror(errno));
	for (cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			memcpy(fds, CMSG_DATA(cm), RTE_MIN_(k, 2) * sizeof(int));
		}
	if (n == 0)
		return dt_client_fail(err, ECONNRESET, "the server closed the connection without answering");
	if ((size_t)n < offsetof(struct dt_client_welcome, client_id) ||
			w->magic != DT_CLIENT_MAGIC)
		return dt_client_fail(err, EPROTO, "the server's answer is not an ingest welcome (%zd bytes)", n);
	if (w->version != DT_CLIENT_VERSION)
		return dt_client_fail(err, EPROTO, "protocol version mismatch: server %u, client %u",
			w->version, DT_CLIENT_VERSION);
	if (w->status != 0) {
		w->why[sizeof(w->why) - 1] = '\0';
		return dt_client_fail(err, w->status, "refused by the server: %s", w->why);
	}
	if ((size_t)n != sizeof(*w) || w->type != DT_CLIENT_MSG_WELCOME)
		return dt_client_fail(err, EPROTO, "malformed welcome (%zd bytes)", n);
	return 0;
}

static int
cl_hello(int fd, const struct dt_client_conf *conf, struct dt_client_error *err)
{
	struct dt_client_hello h = {
		.magic = DT_CLIENT_MAGIC, .version = DT_CLIENT_VERSION,
		.type = DT_CLIENT_MSG_HELLO, .port = conf->port,
		.quota = conf->quota,
	};

	if (conf->name != NULL)
		snprintf(h.name, sizeof(h.name), "%s", conf->name);
	else
		snprintf(h.name, sizeof(h.name), "pid %d", (int)getpid());
	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		return dt_client_fail(err, errno, "cannot send the hello: %s", strerror(errno));
	return 0;
}

/* Check the ring memfd's size and header against the welcome. */
static int
cl_map_rings(struct dt_client *c, int fd, struct dt_client_error *err)
{
	const struct dt_client_welcome *w = &c->w;
	const struct dt_client_shm_hdr *h;
	uint16_t i;
	off_t sz = lseek(fd, 0, SEEK_END);

	if (w->nb_stacks == 0 || w->nb_stacks > DT_CLIENT_MAX_STACKS ||
			w->ring_size == 0 || (w->ring_size & (w->ring_size - 1)) ||
			w->ring_size > 32768 ||
			w->shm_len != dt_client_shm_len(w->ring_size, w->linear_size,
				w->nb_stacks) || sz < 0 || (uint64_t)sz < w->shm_len)
		return dt_client_fail(err, EPROTO, "inconsistent ring layout from the server");
	c->shm = mmap(NULL, w->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c->shm == MAP_FAILED) {
		c->shm = NULL;
		return dt_client_fail(err, errno, "cannot map the rings: %s", strerror(errno));
	}
	h = c->shm;
	if (h->magic != DT_CLIENT_MAGIC || h->nb_stacks != w->nb_stacks ||
			h->ring_size != w->ring_size)
		return dt_client_fail(err, EPROTO, "ring memfd header does not match the welcome");
	for (i = 0; i < w->nb_stacks; i++) {
		struct dt_client_pair_layout l;
		struct dt_client_pair *p = &c->pairs[i];
		uint8_t *b = c->shm;

		dt_client_pair_layout(w->ring_size, w->linear_size, i, &l);
		p->desc_idx = (struct dt_client_ring_idx *)(b + l.desc_idx);
		p->tok_idx = (struct dt_client_ring_idx *)(b + l.tok_idx);
		p->desc = (const struct dt_client_desc *)(b + l.desc_ring);
		p->tok = (uint32_t *)(b + l.tok_ring);
		p->linear = b + l.linear;
		p->desc_tail = p->desc_idx->tail;
		p->tok_head = p->tok_idx->head;
		p->held = calloc(w->ring_size, sizeof(*p->held));
		if (p->held == NULL)
			return dt_client_fail(err, ENOMEM, "out of memory");
	}
	return 0;
}

static int
cl_map_region(struct dt_client *c, int fd, struct dt_client_error *err)
{
	const struct dt_client_welcome *w = &c->w;

	switch (w->region_kind) {
	case DT_DEVMEM_IPC_MEMFD:
		if (fd < 0 || w->region_map_off % 4096 != 0 ||
				w->region_map_len < w->region_len)
			return dt_client_fail(err, EPROTO, "region memfd missing or misdescribed");
		/* Read-only: the client can write nowhere the NIC writes. */
		c->region_map = mmap(NULL, w->region_map_len, PROT_READ,
			MAP_SHARED, fd, (off_t)w->region_map_off);
		if (c->region_map == MAP_FAILED) {
			c->region_map = NULL;
			return dt_client_fail(err, errno, "cannot map the region: %s",
				strerror(errno));
		}
		c->mem = DT_CLIENT_MEM_CPU;
		c->base = c->region_map;
		c->cuda_dev = -1;
		return 0;
	case DT_DEVMEM_IPC_CUDA:
		return dt_client_cuda_open(c, err);
	default:
		return dt_client_fail(err, EPROTO, "unknown region kind %u", w->region_kind);
	}
}

int
dt_client_attach(const struct dt_client_conf *conf, struct dt_client **out,
	struct dt_client_error *err)
{
	struct dt_client *c;
	int fds[2] = { -1, -1 }, fd, ret;

	if (err != NULL)
		memset(err, 0, sizeof(*err));
	if (conf == NULL || out == NULL)
		return dt_client_fail(err, EINVAL, "no configuration");
	fd = cl_connect(conf->path, err);
	if (fd < 0)
		return fd;
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		close(fd);
		return dt_client_fail(err, ENOMEM, "out of memory");
	}
	c->fd = fd;
	c->cuda_dev = -1;
	ret = cl_hello(fd, conf, err);
	if (ret == 0)
		ret = cl_recv_welcome(fd, &c->w, fds, err);
	if (ret == 0 && fds[0] < 0)
		ret = dt_client_fail(err, EPROTO, "the server sent no ring memfd");
	if (ret == 0)
		ret = cl_map_rings(c, fds[0], err);
	if (ret == 0)
		ret = cl_map_region(c, fds[1], err);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (ret != 0) {
		dt_client_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int
dt_client_detach(struct dt_client *c)
{
	struct dt_client_bye b = {
		.magic = DT_CLIENT_MAGIC, .version = DT_CLIENT_VERSION,
		.type = DT_CLIENT_MSG_BYE,
	};
	int ret = 0;

	if (c == NULL)
		return -EINVAL;
	if (send(c->fd, &b, sizeof(b), MSG_NOSIGNAL) != (ssize_t)sizeof(b) &&
			errno != EPIPE && errno != ECONNRESET)
		ret = -errno;
	dt_client_free(c);
	return ret;
}

void
dt_client_free(struct dt_client *c)
{
	uint16_t i;

	dt_client_cuda_close(c);
	if (c->region_map != NULL)
		munmap(c->region_map, c->w.region_map_len);
	if (c->shm != NULL)
		munmap(c->shm, c->w.shm_len);
	for (i = 0; i < DT_CLIENT_MAX_STACKS; i++)
		free(c->pairs[i].held);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

int
dt_client_mem(const struct dt_client *c)
{
	return c->mem;
}

const void *
dt_client_region_base(const struct dt_client *c)
{
	return c->base;
}

uint64_t
dt_client_region_len(const struct dt_client *c)
{
	return c->w.region_len;
}

const void *
dt_client_cpu_alias(const struct dt_client *c)
{
	return c->mem == DT_CLIENT_MEM_CPU ? c->base : NULL;
}

int
dt_client_cuda_device(const struct dt_client *c)
{
	return c->cuda_dev;
}

int
dt_client_fd(const struct dt_client *c)
{
	return c->fd;
}

void
dt_client_stats_get(const struct dt_client *c, struct dt_client_stats *s)
{
	*s = c->st;
	s->client_id = c->w.client_id;
	s->nb_stacks = c->w.nb_stacks;
	s->ring_size = c->w.ring_size;
}
