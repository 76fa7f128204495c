/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the ingest consumer protocol's shared rings
 * (docs/ingest.md), from both ends, each side treating the other as
 * hostile:
 *  - the server's slot table (app/server/srv_ingest_slots.h): the tokens a
 *    client writes into its token ring, and the ring head it publishes;
 *  - the client library's descriptor reading and token giving back
 *    (lib/client/dt_client_ring.c): the descriptors and the head index a
 *    (broken) server writes.
 *
 * Input: byte 0 picks the side (even: server, odd: client) and, in its
 * upper bits, the ring size (16 << (b >> 1 & 3)). Then:
 *  - server: operations until the input ends, one byte each (low 2 bits)
 *    with its operands: 0 give a slot to the next node; 1 give back a token
 *    the client holds (the next byte picks which); 2 give back any 32-bit
 *    token (4 bytes); 3 publish any token ring head (4 bytes).
 *    Judged: a node comes back only if it was given and not yet returned,
 *    and only through the token it was given with; held + free slots is
 *    always the ring size; a head more than a ring ahead reads nothing; at
 *    the end every node still held comes back through its token.
 *  - client: the descriptor ring's contents (ring size x 32 bytes, as the
 *    server writes them; short input leaves zeros), then rounds of 5 bytes:
 *    the published head (4 bytes, relative to the client's tail) and what
 *    to give back (bit 0: every chunk taken, bit 1: one forged token too).
 *    Judged: every DATA chunk handed out lies inside the region (or its
 *    linear slot), no slot is handed out twice while held, a forged or
 *    twice-given token is refused, and held counts what is out.
 * A broken property abort()s.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_client.h"
#include "dt_client_priv.h"
#include "srv_ingest_slots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz_ingest"
#include "fuzz_check.h"

#define FZ_NODES 4096
#define FZ_REGION 65536
#define FZ_LINEAR 256

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static bool
take_u8(struct fz_in *in, uint8_t *v)
{
	if (in->n < 1)
		return false;
	*v = *in->p++;
	in->n--;
	return true;
}

static bool
take_u32(struct fz_in *in, uint32_t *v)
{
	if (in->n < 4)
		return false;
	memcpy(v, in->p, 4);
	in->p += 4;
	in->n -= 4;
	return true;
}

/* ---- the server's slot table ------------------------------------------------ */

struct fz_srv {
	struct srv_ingest_pair p;
	struct srv_ingest_slot slots[2048];
	uint32_t free_slots[2048];
	uint32_t ring;
	uint32_t next_node;
	uint32_t held_tok[2048], held_node[2048], nb_held;
	uint8_t state[FZ_NODES];  /* 0 never given, 1 out, 2 back */
};

static void
srv_check(const struct fz_srv *f)
{
	FZ_CHECK(f->p.nb_free <= f->ring);
	FZ_CHECK(f->p.held + f->p.nb_free == f->ring);
	FZ_CHECK(f->p.held == f->nb_held);
}

static void
srv_forget(struct fz_srv *f, uint32_t i)
{
	f->held_tok[i] = f->held_tok[f->nb_held - 1];
	f->held_node[i] = f->held_node[f->nb_held - 1];
	f->nb_held--;
}

/* A node came back: it was out, and @p tok is the token it went with. */
static void
srv_returned(struct fz_srv *f, uint32_t node, uint32_t tok)
{
	uint32_t i;

	FZ_CHECK(node < f->next_node && f->state[node] == 1);
	for (i = 0; i < f->nb_held; i++)
		if (f->held_node[i] == node)
			break;
	FZ_CHECK(i < f->nb_held && f->held_tok[i] == tok);
	f->state[node] = 2;
	srv_forget(f, i);
}

static void
fuzz_server(struct fz_srv *f, uint32_t ring, struct fz_in *in)
{
	uint32_t i, v, tok, node, before;
	uint8_t op, b;

	memset(f, 0, sizeof(*f));
	f->ring = ring;
	f->p.slots = f->slots;
	f->p.free_slots = f->free_slots;
	for (i = 0; i < f->ring; i++) {
		f->slots[i].node = SRV_INGEST_NONE;
		f->free_slots[i] = f->ring - 1 - i;
	}
	f->p.nb_free = f->ring;
	while (take_u8(in, &op)) {
		switch (op & 3) {
		case 0:
			if (f->p.nb_free == 0 || f->next_node >= FZ_NODES)
				break;
			node = f->next_node++;
			tok = srv_ing_slot_give(&f->p, node);
			FZ_CHECK((tok & 0xffff) < f->ring);
			f->state[node] = 1;
			f->held_tok[f->nb_held] = tok;
			f->held_node[f->nb_held++] = node;
			break;
		case 1:
			if (f->nb_held == 0 || !take_u8(in, &b))
				break;
			i = b % f->nb_held;
			tok = f->held_tok[i];
			node = srv_ing_slot_take(&f->p, f->ring, tok);
			FZ_CHECK(node == f->held_node[i]);
			srv_returned(f, node, tok);
			/* The same token again is a token of a slot not held. */
			before = (uint32_t)f->p.bad_tokens;
			FZ_CHECK(srv_ing_slot_take(&f->p, f->ring, tok) == SRV_INGEST_NONE);
			FZ_CHECK(f->p.bad_tokens == before + 1u);
			break;
		case 2:
			if (!take_u32(in, &tok))
				break;
			node = srv_ing_slot_take(&f->p, f->ring, tok);
			if (node != SRV_INGEST_NONE)
				srv_returned(f, node, tok);
			break;
		case 3:
			if (!take_u32(in, &v))
				break;
			before = f->p.tok_tail;
			i = srv_ing_tok_avail(&f->p, f->ring, v);
			FZ_CHECK(i <= f->ring);
			FZ_CHECK(i == 0 || f->p.tok_tail == before);
			f->p.tok_tail += i;   /* as take_tokens() reads them */
			break;
		}
		srv_check(f);
	}
	while (f->nb_held > 0) {
		tok = f->held_tok[0];
		node = srv_ing_slot_take(&f->p, f->ring, tok);
		FZ_CHECK(node == f->held_node[0]);
		srv_returned(f, node, tok);
	}
	srv_check(f);
	FZ_CHECK(f->p.nb_free == f->ring);
}

/* ---- the client's rings ----------------------------------------------------- */

struct fz_cli {
	struct dt_client c;
	struct dt_client_ring_idx didx, tidx;
	struct dt_client_desc desc[128];
	uint32_t tok[128];
	uint16_t held[128];
	uint8_t linear[128 * FZ_LINEAR];
	struct dt_client_chunk out[128];
};

static void
cli_chunk_check(const struct fz_cli *f, const struct dt_client_chunk *ch)
{
	const uint8_t *base = f->c.base, *a = ch->addr;
	uint32_t slot = ch->token & 0xffff;

	if (ch->kind != DT_CLIENT_DATA)
		return;
	FZ_CHECK(slot < f->c.w.ring_size);
	FZ_CHECK(f->held[slot] == (uint16_t)((ch->token >> 16) + 1));
	if (ch->host) {
		FZ_CHECK(a == f->linear + (size_t)slot * FZ_LINEAR);
		FZ_CHECK(ch->len <= FZ_LINEAR);
	} else {
		FZ_CHECK(a >= base && ch->offset <= FZ_REGION &&
			ch->len <= FZ_REGION - ch->offset);
	}
}

static void
fuzz_client(struct fz_cli *f, uint32_t ring, struct fz_in *in)
{
	static uint8_t region[FZ_REGION];
	uint32_t rel, i, k, held;
	int n;
	uint8_t how;

	memset(f, 0, sizeof(*f));
	f->c.fd = -1;
	f->c.base = region;
	f->c.w.nb_stacks = 1;
	f->c.w.ring_size = ring;
	f->c.w.linear_size = FZ_LINEAR;
	f->c.w.region_len = FZ_REGION;
	f->c.pairs[0].desc_idx = &f->didx;
	f->c.pairs[0].tok_idx = &f->tidx;
	f->c.pairs[0].desc = f->desc;
	f->c.pairs[0].tok = f->tok;
	f->c.pairs[0].linear = f->linear;
	f->c.pairs[0].held = f->held;
	i = (uint32_t)(ring * sizeof(f->desc[0]));
	memcpy(f->desc, in->p, in->n < i ? in->n : i);
	in->p += in->n < i ? in->n : i;
	in->n -= in->n < i ? in->n : i;
	while (take_u32(in, &rel) && take_u8(in, &how)) {
		f->didx.head = f->c.pairs[0].desc_tail + rel;
		n = dt_client_poll(&f->c, f->out, 128);
		FZ_CHECK(n >= 0 && n <= 128);
		for (k = 0; k < (uint32_t)n; k++)
			cli_chunk_check(f, &f->out[k]);
		for (i = 0, held = 0; i < ring; i++)
			held += f->held[i] != 0;
		FZ_CHECK(f->c.st.held == held);
		if (how & 2) {
			/* A token this client was never given, or gave back. */
			struct dt_client_chunk forged = {
				.kind = DT_CLIENT_DATA, .stack = 0,
				.token = (uint32_t)rel ^ 0x5a5a0000u,
			};

			if (dt_client_release(&f->c, &forged, 1) == 0)
				FZ_CHECK(held > 0);
		}
		if (how & 1) {
			for (k = 0; k < (uint32_t)n; k++) {
				if (f->out[k].kind != DT_CLIENT_DATA ||
						f->held[f->out[k].token & 0xffff] == 0)
					continue;
				FZ_CHECK(dt_client_release(&f->c, &f->out[k], 1) == 0);
				FZ_CHECK(dt_client_release(&f->c, &f->out[k], 1) == -EINVAL);
			}
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_srv srv;
	static struct fz_cli cli;
	struct fz_in in = { data, size };
	uint8_t b;
	uint32_t ring;

	if (!take_u8(&in, &b))
		return 0;
	ring = 16u << (b >> 1 & 3);
	if (b & 1) {
		fuzz_client(&cli, ring, &in);
	} else {
		fuzz_server(&srv, ring, &in);
	}
	return 0;
}
