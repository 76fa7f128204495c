/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gpu_amdgpu probe (--vdev=gpu_amdgpu_t0). Without an amdgpu render node
 * (this CI machine) the driver must skip with exactly one line that says
 * why, create no gpudev device, and leave EAL up. With one, the device
 * must come up with its lib/devmem provider and hand out VRAM that its CPU
 * mapping and dma-buf export reach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_log.h>

#include "dt_devmem_provider.h"
#include "dt_test.h"

#define VDEV "gpu_amdgpu_t0"

static char *log_buf;
static size_t log_len;

/* Lines of the EAL start-up log that name the vdev. */
static unsigned int
lines_naming(const char *what, const char **first)
{
	const char *p = log_buf != NULL ? log_buf : "";
	unsigned int n = 0;

	*first = NULL;
	while ((p = strstr(p, what)) != NULL) {
		if (*first == NULL)
			*first = p;
		n++;
		p = strchr(p, '\n');
		if (p == NULL)
			break;
	}
	return n;
}

static void
test_probe_skip(void)
{
	const char *line;

	DT_CHECK_EQ(rte_gpu_count_avail(), 0);
	DT_CHECK_EQ(lines_naming(VDEV, &line), 1);
	DT_REQUIRE(line != NULL);
	DT_CHECK(strncmp(line, VDEV ": skipped: no amdgpu render node",
		strlen(VDEV ": skipped: no amdgpu render node")) == 0);
	DT_CHECK(strstr(log_buf, "failed to initialize") == NULL);
	DT_CHECK(dt_devmem_provider_get(0) == NULL);
}

static void
test_device_up(void)
{
	const struct dt_devmem_provider_ops *prov;
	void *ptr, *cpu;
	int fd = -1;

	DT_REQUIRE(rte_gpu_count_avail() == 1);
	prov = dt_devmem_provider_get(0);
	DT_REQUIRE(prov != NULL);
	DT_CHECK(strcmp(prov->name, "gpu_amdgpu") == 0);
	ptr = rte_gpu_mem_alloc(0, 1u << 20, 0);
	DT_REQUIRE(ptr != NULL);
	cpu = rte_gpu_mem_cpu_map(0, 1u << 20, ptr);
	DT_CHECK(cpu != NULL && cpu != ptr);
	if (cpu != NULL) {
		memset(cpu, 0x5a, 4096);
		DT_CHECK_EQ(((volatile uint8_t *)cpu)[4095], 0x5a);
	}
	DT_CHECK_EQ(prov->dmabuf_export(0, ptr, 1u << 20, &fd), 0);
	if (fd >= 0)
		close(fd);
	DT_CHECK_EQ(rte_gpu_mem_free(0, ptr), 0);
}

int
main(int argc, char **argv)
{
	FILE *f = open_memstream(&log_buf, &log_len);
	int ret, found;

	/* The probe's lines, to count them. */
	if (f != NULL)
		rte_openlog_stream(f);
	ret = rte_eal_init(argc, argv);
	rte_openlog_stream(NULL);
	if (f != NULL)
		fclose(f);
	if (log_buf != NULL)
		fputs(log_buf, stderr);
	DT_CHECK(ret >= 0);
	if (ret < 0)
		return dt_test_summary();
	found = access("/dev/dri", F_OK) == 0 &&
		strstr(log_buf != NULL ? log_buf : "", "skipped") == NULL;
	if (found)
		DT_RUN(test_device_up);
	else
		DT_RUN(test_probe_skip);
	ret = dt_test_summary();
	rte_eal_cleanup();
	return ret;
}
