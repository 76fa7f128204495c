/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ingest client's data path: descriptors in, tokens out, one index
 * store per ring and call (batches both ways, no system call).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "dt_client.h"
#include "dt_client_priv.h"

/* Socket checks while idle: one recv() per this many empty polls. */
#define CL_IDLE_CHECK 1024

static inline uint32_t
load_acq(volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void
store_rel(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Queue a token for the server; published by the caller. */
static inline void
tok_push(struct dt_client *c, struct dt_client_pair *p, uint32_t token)
{
	p->tok[p->tok_head & (c->w.ring_size - 1)] = token;
	p->tok_head++;
}

/*
 * A DATA descriptor the server cannot have written: a slot outside the
 * ring or already held, a generation over 15 bits, or bytes outside the
 * region (or the slot's linear buffer). The server is trusted, but a broken one must not make this
 * process write outside its tables or hand out a view past the mapping.
 */
static bool
desc_bad(const struct dt_client *c, const struct dt_client_pair *p,
	const struct dt_client_desc *d)
{
	uint32_t slot = d->token & 0xffff;

	/* Generations are 15 bits: held[] marks a slot with gen + 1 in 16. */
	if (slot >= c->w.ring_size || p->held[slot] != 0 || (d->token >> 31) != 0)
		return true;
	if (d->flags & DT_CLIENT_F_HOST)
		return d->len > c->w.linear_size;
	return d->offset > c->w.region_len || d->len > c->w.region_len - d->offset;
}

static void
decode_data(struct dt_client *c, struct dt_client_pair *p,
	const struct dt_client_desc *d, struct dt_client_chunk *ch)
{
	uint32_t slot = d->token & 0xffff;

	if (desc_bad(c, p, d)) {
		c->st.bad_descs++;
		/* A slot of ours goes back, so the server does not starve. */
		if (slot < c->w.ring_size && p->held[slot] == 0)
			tok_push(c, p, d->token);
		return;   /* kind 0: not handed out */
	}
	ch->kind = DT_CLIENT_DATA;
	ch->len = d->len;
	p->held[slot] = (uint16_t)((d->token >> 16) + 1);
	c->st.held++;
	c->st.chunks++;
	c->st.bytes += d->len;
	if (d->flags & DT_CLIENT_F_HOST) {
		ch->host = true;
		ch->offset = UINT64_MAX;
		ch->addr = p->linear + (uint64_t)slot * c->w.linear_size;
		c->st.host_bytes += d->len;
	} else {
		ch->offset = d->offset;
		ch->addr = (const uint8_t *)c->base + d->offset;
	}
}

static void
decode(struct dt_client *c, struct dt_client_pair *p, uint16_t stack,
	const struct dt_client_desc *shared, struct dt_client_chunk *ch)
{
	/* One read of the shared descriptor: checks and use see the same. */
	struct dt_client_desc dl = *(const volatile struct dt_client_desc *)shared;
	const struct dt_client_desc *d = &dl;

	memset(ch, 0, sizeof(*ch));
	ch->stream = (uint64_t)stack << 32 | d->stream;
	ch->stack = stack;
	ch->token = d->token;
	if (d->flags & DT_CLIENT_F_DATA) {
		decode_data(c, p, d, ch);
		return;
	}
	/* Control descriptors hold their slot only until they are read. */
	tok_push(c, p, d->token);
	if (d->flags & DT_CLIENT_F_OPEN) {
		ch->kind = DT_CLIENT_OPEN;
		ch->peer_ipv4 = (uint32_t)(d->offset >> 32);
		ch->peer_port = (uint16_t)(d->offset >> 16);
		ch->local_port = (uint16_t)d->offset;
		ch->reoffered = (d->flags & DT_CLIENT_F_REOFFER) != 0;
		ch->stream_offset = d->aux;
		c->st.streams_opened++;
	} else if (d->flags & DT_CLIENT_F_FIN) {
		ch->kind = DT_CLIENT_FIN;
		c->st.streams_finished++;
	} else {
		ch->kind = DT_CLIENT_RESET;
		ch->err = (d->flags & DT_CLIENT_F_ERROR) ? (int)d->len : ECONNRESET;
		c->st.streams_reset++;
	}
}

/* Read what pair @p i holds, at most @p n. */
static uint16_t
poll_pair(struct dt_client *c, uint16_t i, struct dt_client_chunk *out,
	uint16_t n)
{
	struct dt_client_pair *p = &c->pairs[i];
	uint32_t head = load_acq(&p->desc_idx->head), tok0 = p->tok_head;
	uint16_t k = 0;

	/* A head more than a ring ahead is a broken server: read nothing. */
	if (head - p->desc_tail > c->w.ring_size)
		return 0;
	while (k < n && p->desc_tail != head) {
		decode(c, p, i, &p->desc[p->desc_tail & (c->w.ring_size - 1)],
			&out[k]);
		p->desc_tail++;
		if (out[k].kind != 0)
			k++;
	}
	store_rel(&p->desc_idx->tail, p->desc_tail);
	if (p->tok_head != tok0)
		store_rel(&p->tok_idx->head, p->tok_head);
	return k;
}

/* The server is gone: its socket reads EOF or an error. */
static bool
server_gone(struct dt_client *c)
{
	char b;
	ssize_t r = recv(c->fd, &b, 1, MSG_DONTWAIT | MSG_PEEK);

	return r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		errno != EINTR);
}

int
dt_client_poll(struct dt_client *c, struct dt_client_chunk *out, uint16_t n)
{
	uint16_t k = 0, j, i;

	for (j = 0; j < c->w.nb_stacks && k < n; j++) {
		i = (uint16_t)((c->next_pair + j) % c->w.nb_stacks);
		k += poll_pair(c, i, out + k, n - k);
	}
	c->next_pair = (uint16_t)((c->next_pair + 1) % c->w.nb_stacks);
	if (k > 0) {
		c->idle_polls = 0;
		return k;
	}
	if (++c->idle_polls % CL_IDLE_CHECK == 0 && server_gone(c))
		return -ESHUTDOWN;
	return 0;
}

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A FIN or RESET among @p ch[0..n): the stream ended, the batch may too. */
static bool
has_end(const struct dt_client_chunk *ch, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (ch[i].kind == DT_CLIENT_FIN || ch[i].kind == DT_CLIENT_RESET)
			return true;
	return false;
}

/*
 * Empty polls before poll_batch naps: spinning on dry rings only burns the
 * CPU the consumer's own work (a GPU launch per batch, Python) needs.
 */
#define CL_SPIN_POLLS 256
#define CL_NAP_NS 20000

int
dt_client_poll_batch(struct dt_client *c, struct dt_client_chunk *out,
	uint16_t n, uint16_t min, uint32_t wait_us)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = CL_NAP_NS };
	uint64_t deadline = now_us() + wait_us;
	uint32_t dry = 0;
	uint16_t k = 0;
	int m;

	if (min > n)
		min = n;
	for (;;) {
		m = dt_client_poll(c, out + k, (uint16_t)(n - k));
		if (m < 0)
			return k > 0 ? k : m;
		if (m > 0 && has_end(out + k, m))
			return k + m;
		k = (uint16_t)(k + m);
		if (k >= min || k == n)
			return k;
		if (m > 0) {
			dry = 0;
			continue;
		}
		/* The clock is read only while the rings are dry. */
		if (now_us() >= deadline)
			return k;
		if (++dry > CL_SPIN_POLLS)
			nanosleep(&nap, NULL);
	}
}

/* Check and clear the slot of @p token on @p p; false: not held. */
static bool
take_back(struct dt_client *c, struct dt_client_pair *p, uint32_t token)
{
	uint32_t slot = token & 0xffff;

	if (slot >= c->w.ring_size || p->held[slot] == 0 ||
			p->held[slot] != (uint16_t)((token >> 16) + 1))
		return false;
	p->held[slot] = 0;
	c->st.held--;
	c->st.released++;
	return true;
}

int
dt_client_release(struct dt_client *c, const struct dt_client_chunk *ch,
	uint16_t n)
{
	uint32_t dirty = 0;
	uint16_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct dt_client_pair *p;

		if (ch[i].kind != DT_CLIENT_DATA || ch[i].stack >= c->w.nb_stacks) {
			ret = -EINVAL;
			continue;
		}
		p = &c->pairs[ch[i].stack];
		if (!take_back(c, p, ch[i].token)) {
			ret = -EINVAL;
			continue;
		}
		tok_push(c, p, ch[i].token);
		dirty |= 1u << ch[i].stack;
	}
	for (i = 0; dirty != 0; i++, dirty >>= 1)
		if (dirty & 1)
			store_rel(&c->pairs[i].tok_idx->head, c->pairs[i].tok_head);
	return ret;
}

int
dt_client_release_token(struct dt_client *c, uint16_t stack, uint32_t token)
{
	struct dt_client_pair *p;

	if (stack >= c->w.nb_stacks)
		return -EINVAL;
	p = &c->pairs[stack];
	if (!take_back(c, p, token))
		return -EINVAL;
	tok_push(c, p, token);
	store_rel(&p->tok_idx->head, p->tok_head);
	return 0;
}
