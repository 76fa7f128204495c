/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The simulated GPU's devargs: size=, numa=, processors=, copy_latency_us=
 * (rte_pmd_gpu_sim.h documents them), decimal and range-checked, each at
 * most once.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_kvargs.h>

#include "gpu_sim_priv.h"
#include "rte_pmd_gpu_sim.h"

static const char * const gpu_sim_valid_args[] = {
	GPU_SIM_ARG_SIZE,
	GPU_SIM_ARG_NUMA,
	GPU_SIM_ARG_PROCESSORS,
	GPU_SIM_ARG_COPY_LATENCY,
	NULL
};

/* Decimal only: "010" must not silently mean 8. */
static int
gpu_sim_parse_u64(const char *value, uint64_t *out, const char **rest)
{
	unsigned long long v;
	char *end;

	if (value == NULL || value[0] < '0' || value[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno != 0)
		return -ERANGE;
	*out = v;
	*rest = end;
	return 0;
}

static int
gpu_sim_parse_size(const char *key, const char *value, void *opaque)
{
	uint64_t *size = opaque;
	const char *rest;
	unsigned int shift = 0;
	uint64_t v;

	if (gpu_sim_parse_u64(value, &v, &rest) != 0)
		goto bad;
	switch (*rest) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		rest++;
		break;
	case 'm': case 'M':
		shift = 20;
		rest++;
		break;
	case 'g': case 'G':
		shift = 30;
		rest++;
		break;
	default:
		goto bad;
	}
	if (*rest != '\0')
		goto bad;
	if (v > (UINT64_MAX >> shift) || (v << shift) > (uint64_t)SSIZE_MAX) {
		GPU_SIM_LOG(ERR, "%s=%s is too large", key, value);
		return -ERANGE;
	}
	v <<= shift;
	if (v == 0 || v % GPU_SIM_PAGE_SIZE != 0) {
		GPU_SIM_LOG(ERR, "%s=%s must be a non-zero multiple of the %u KiB device page",
			key, value, GPU_SIM_PAGE_SIZE / 1024);
		return -EINVAL;
	}
	*size = v;
	return 0;
bad:
	GPU_SIM_LOG(ERR, "invalid %s=%s: expected bytes as a decimal number with an optional K, M or G suffix",
		key, value ? value : "");
	return -EINVAL;
}

/* An integer devarg within [min, max]; @p what says what it counts. */
static int
gpu_sim_parse_range(const char *key, const char *value, uint64_t min,
	uint64_t max, const char *what, uint64_t *out)
{
	const char *rest;

	if (gpu_sim_parse_u64(value, out, &rest) != 0 || *rest != '\0' ||
			*out < min || *out > max) {
		GPU_SIM_LOG(ERR, "invalid %s=%s: expected %s from %" PRIu64 " to %" PRIu64,
			key, value ? value : "", what, min, max);
		return -EINVAL;
	}
	return 0;
}

static int
gpu_sim_parse_numa(const char *key, const char *value, void *opaque)
{
	uint64_t v;
	int rc = gpu_sim_parse_range(key, value, 0, RTE_MAX_NUMA_NODES - 1,
		"a NUMA node", &v);

	if (rc == 0)
		*(int *)opaque = (int)v;
	return rc;
}

static int
gpu_sim_parse_processors(const char *key, const char *value, void *opaque)
{
	uint64_t v;
	int rc = gpu_sim_parse_range(key, value, 1, GPU_SIM_MAX_PROCESSORS,
		"a processor count", &v);

	if (rc == 0)
		*(uint32_t *)opaque = (uint32_t)v;
	return rc;
}

static int
gpu_sim_parse_latency(const char *key, const char *value, void *opaque)
{
	uint64_t v;
	int rc = gpu_sim_parse_range(key, value, 0, GPU_SIM_MAX_COPY_LATENCY_US,
		"microseconds", &v);

	if (rc == 0)
		*(uint32_t *)opaque = (uint32_t)v;
	return rc;
}

int
gpu_sim_parse_devargs(const char *name, const char *args,
	struct gpu_sim_conf *conf)
{
	static const struct {
		const char *key;
		arg_handler_t handler;
	} handlers[] = {
		{ GPU_SIM_ARG_SIZE, gpu_sim_parse_size },
		{ GPU_SIM_ARG_NUMA, gpu_sim_parse_numa },
		{ GPU_SIM_ARG_PROCESSORS, gpu_sim_parse_processors },
		{ GPU_SIM_ARG_COPY_LATENCY, gpu_sim_parse_latency },
	};
	struct rte_kvargs *kvlist;
	void *out[RTE_DIM(handlers)] = {
		&conf->size, &conf->numa, &conf->processors,
		&conf->copy_latency_us
	};
	unsigned int i;
	int ret = 0;

	conf->size = GPU_SIM_DEFAULT_SIZE;
	conf->numa = 0;
	conf->processors = GPU_SIM_DEFAULT_PROCESSORS;
	conf->copy_latency_us = 0;
	if (args == NULL || args[0] == '\0')
		return 0;

	kvlist = rte_kvargs_parse(args, gpu_sim_valid_args);
	if (kvlist == NULL) {
		GPU_SIM_LOG(ERR, "%s: cannot parse devargs \"%s\": expected key=value pairs with keys "
			GPU_SIM_ARG_SIZE ", " GPU_SIM_ARG_NUMA ", " GPU_SIM_ARG_PROCESSORS
			", " GPU_SIM_ARG_COPY_LATENCY,
			name, args);
		return -EINVAL;
	}
	for (i = 0; i < RTE_DIM(handlers) && ret == 0; i++) {
		if (rte_kvargs_count(kvlist, handlers[i].key) > 1) {
			GPU_SIM_LOG(ERR, "%s: devarg %s given more than once",
				name, handlers[i].key);
			ret = -EINVAL;
			break;
		}
		ret = rte_kvargs_process(kvlist, handlers[i].key,
			handlers[i].handler, out[i]);
		if (ret != 0) {
			GPU_SIM_LOG(ERR, "%s: bad devargs \"%s\"", name, args);
			ret = ret < 0 ? ret : -EINVAL;
		}
	}
	rte_kvargs_free(kvlist);
	return ret;
}

