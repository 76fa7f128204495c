/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every part of devtcp-bench asks about a mode (its name, its kind)
 * and the port counter sum several of them read. A leaf: it calls nothing
 * else of the bench, so the mode files and the report can all use it
 * without calling back into bench_main.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "bench.h"

static const struct {
	const char *name;
	uint32_t flags;
} mode_info[BENCH_MODE_MAX] = {
	[BENCH_MODE_SPLIT] = { "split", BENCH_MODE_F_TCP },
	[BENCH_MODE_COPY] = { "copy", BENCH_MODE_F_TCP },
	[BENCH_MODE_RAW_SPLIT] = { "raw-split", BENCH_MODE_F_SENDER },
	[BENCH_MODE_RAW] = { "raw", BENCH_MODE_F_SENDER },
	[BENCH_MODE_BOUNCE] = { "bounce", BENCH_MODE_F_SENDER },
	[BENCH_MODE_CEILING] = { "ceiling", 0 },
	[BENCH_MODE_CPS] = { "cps", BENCH_MODE_F_TCP | BENCH_MODE_F_CONNS },
	[BENCH_MODE_HOLD] = { "hold", BENCH_MODE_F_TCP | BENCH_MODE_F_CONNS },
};

const char *
bench_mode_name(enum bench_mode m)
{
	return m < BENCH_MODE_MAX ? mode_info[m].name : "?";
}

uint32_t
bench_mode_flags(enum bench_mode m)
{
	return m < BENCH_MODE_MAX ? mode_info[m].flags : 0;
}

int
bench_mode_parse(const char *s, enum bench_mode *m)
{
	int i;

	for (i = 0; i < BENCH_MODE_MAX; i++)
		if (strcmp(s, mode_info[i].name) == 0) {
			*m = (enum bench_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* Sum of the port's xstats named <prefix><N><suffix>. */
static uint64_t
xstat_sum(uint16_t port, const char *prefix, const char *suffix)
{
	struct rte_eth_xstat_name *names;
	struct rte_eth_xstat *vals;
	size_t sl = strlen(suffix), pl = strlen(prefix);
	uint64_t sum = 0;
	int n, i;

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return 0;
	names = calloc(n, sizeof(*names));
	vals = calloc(n, sizeof(*vals));
	if (names != NULL && vals != NULL &&
			rte_eth_xstats_get_names(port, names, n) == n &&
			rte_eth_xstats_get(port, vals, n) == n) {
		for (i = 0; i < n; i++) {
			size_t l = strlen(names[i].name);

			if (strncmp(names[i].name, prefix, pl) == 0 && l >= sl &&
					strcmp(names[i].name + l - sl, suffix) == 0)
				sum += vals[i].value;
		}
	}
	free(names);
	free(vals);
	return sum;
}

uint64_t
bench_xstat_sum(uint16_t port, const char *suffix)
{
	return xstat_sum(port, "rx_q", suffix);
}

uint64_t
bench_xstat_sum_tx(uint16_t port, const char *suffix)
{
	return xstat_sum(port, "tx_q", suffix);
}
