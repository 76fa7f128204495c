/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of the simulated GPU (gpudev vdev gpu_sim) through the
 * gpudev API and rte_pmd_gpu_sim_dev_side(), with a real EAL.
 *
 * The command line must create --vdev=gpu_sim_t0,size=8M,numa=0,processors=7;
 * the other devices are created and removed here with rte_vdev_init().
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "dt_test.h"
#include "rte_pmd_gpu_sim.h"

#define KIB ((size_t)1024)
#define MIB (1024 * KIB)
#define PAGE ((size_t)RTE_PMD_GPU_SIM_PAGE_SIZE)
#define MAIN_NAME "gpu_sim_t0"
#define MAIN_SIZE (8 * MIB)

static int16_t main_dev = -1;

/* ---- helpers ------------------------------------------------------------ */

static int16_t
gpu_by_name(const char *name)
{
	struct rte_gpu_info info;
	int16_t id;

	RTE_GPU_FOREACH(id) {
		if (rte_gpu_info_get(id, &info) == 0 &&
				strcmp(info.name, name) == 0)
			return id;
	}
	return -1;
}

/**
 * Walk /proc/self/maps. Returns the number of mappings that overlap
 * [p, p + len) (len 0: ignore) or whose line contains @p needle (NULL:
 * ignore); @p perms receives the permissions of the first overlapping one.
 */
static int
maps_count(const void *p, size_t len, const char *needle, char perms[5])
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	char line[512], pr[5];
	unsigned long start, end;
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx %4s", &start, &end, pr) != 3)
			continue;
		if (len != 0 && start < hi && lo < end) {
			if (n == 0 && perms != NULL)
				memcpy(perms, pr, 5);
			n++;
		} else if (needle != NULL && strstr(line, needle) != NULL) {
			n++;
		}
	}
	fclose(f);
	return n;
}

/*
 * Whether a simulator mapping (a memfd) still covers part of [p, p + len).
 * Only memfd mappings count: once freed, the address range may be taken by
 * any other mapping of the process (a thread stack, a malloc arena), which
 * says nothing about the simulator.
 */
static bool
range_mapped(const void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len;
	unsigned long start, end;
	char line[512];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (f == NULL)
		return true;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "%lx-%lx", &start, &end) == 2 &&
			start < hi && lo < end && strstr(line, "memfd:") != NULL;
	fclose(f);
	return found;
}

/** Open file descriptors whose target contains @p needle. */
static int
fds_count(const char *needle)
{
	char path[300], target[300];
	struct dirent *de;
	ssize_t n;
	int count = 0;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, needle) != NULL)
			count++;
	}
	closedir(d);
	return count;
}

/** Touch @p p in a child process; returns the signal that killed it, or 0. */
static int
touch_in_child(void *p, bool write)
{
	struct rlimit no_core = { 0, 0 };
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &no_core);
		if (write)
			*(volatile uint8_t *)p = 0x5a;
		else
			(void)*(volatile uint8_t *)p;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static size_t
heap_allocated(void)
{
	struct rte_malloc_socket_stats st;
	size_t total = 0;
	int s;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			total += st.heap_allocsz_bytes;
	}
	return total;
}

/* ---- cases -------------------------------------------------------------- */

static void
test_probe_info(void)
{
	struct rte_gpu_info info;
	uint16_t avail = rte_gpu_count_avail();
	int16_t id;

	DT_REQUIRE(main_dev >= 0);
	DT_REQUIRE(rte_gpu_info_get(main_dev, &info) == 0);
	DT_CHECK(strcmp(info.name, MAIN_NAME) == 0);
	DT_CHECK_EQ(info.total_memory, MAIN_SIZE);
	DT_CHECK_EQ(info.page_size, 64 * KIB);
	DT_CHECK_EQ(info.numa_node, 0);
	DT_CHECK_EQ(info.processor_count, 7);
	DT_CHECK_EQ(info.parent, RTE_GPU_ID_NONE);
	DT_CHECK(info.context != 0);

	/* Suffixes, defaults and a plain byte count. */
	DT_REQUIRE(rte_vdev_init("gpu_sim_t1", "size=2G,numa=1") == 0);
	DT_REQUIRE(rte_vdev_init("gpu_sim_t2", "size=1048576") == 0);
	DT_REQUIRE(rte_vdev_init("gpu_sim_t3", "size=512k") == 0);
	DT_REQUIRE(rte_vdev_init("gpu_sim_t4", NULL) == 0);
	DT_CHECK_EQ(rte_gpu_count_avail(), avail + 4);

	id = gpu_by_name("gpu_sim_t1");
	DT_REQUIRE(id >= 0 && rte_gpu_info_get(id, &info) == 0);
	DT_CHECK_EQ(info.total_memory, 2048 * MIB);
	DT_CHECK_EQ(info.numa_node, 1);
	DT_CHECK_EQ(info.processor_count, 132);
	id = gpu_by_name("gpu_sim_t2");
	DT_REQUIRE(id >= 0 && rte_gpu_info_get(id, &info) == 0);
	DT_CHECK_EQ(info.total_memory, MIB);
	id = gpu_by_name("gpu_sim_t3");
	DT_REQUIRE(id >= 0 && rte_gpu_info_get(id, &info) == 0);
	DT_CHECK_EQ(info.total_memory, 512 * KIB);
	id = gpu_by_name("gpu_sim_t4");
	DT_REQUIRE(id >= 0 && rte_gpu_info_get(id, &info) == 0);
	DT_CHECK_EQ(info.total_memory, 1024 * MIB);
	DT_CHECK_EQ(info.numa_node, 0);

	DT_CHECK_EQ(rte_vdev_uninit("gpu_sim_t1"), 0);
	DT_CHECK_EQ(rte_vdev_uninit("gpu_sim_t2"), 0);
	DT_CHECK_EQ(rte_vdev_uninit("gpu_sim_t3"), 0);
	DT_CHECK_EQ(rte_vdev_uninit("gpu_sim_t4"), 0);
	DT_CHECK_EQ(rte_gpu_count_avail(), avail);
	DT_CHECK_EQ(gpu_by_name("gpu_sim_t1"), -1);
}

static void
test_bad_devargs(void)
{
	static const char * const bad[] = {
		"size=", "size=abc", "size=0", "size=12Q", "size=1M5",
		"size=-1M", "size=100000", "size=99999999999999G",
		"numa=-1", "numa=32", "numa=x", "processors=0",
		"bogus=1", "size=1M,size=2M", "size",
	};
	uint16_t avail = rte_gpu_count_avail();
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		int ret = rte_vdev_init("gpu_sim_tbad", bad[i]);

		if (ret == 0) {
			fprintf(stderr, "devargs \"%s\" were accepted\n", bad[i]);
			rte_vdev_uninit("gpu_sim_tbad");
		}
		DT_CHECK(ret != 0);
		DT_CHECK_EQ(gpu_by_name("gpu_sim_tbad"), -1);
	}
	DT_CHECK_EQ(rte_gpu_count_avail(), avail);
}

static void
test_alloc_align(void)
{
	static const struct { size_t size; unsigned int align, expect; } c[] = {
		{ 1000, 0, 64 * 1024 },
		{ 1, 2 * 1024 * 1024, 2 * 1024 * 1024 },
		{ 100, 4096, 64 * 1024 },
		{ 3 * 64 * 1024 + 1, 1024 * 1024, 1024 * 1024 },
		{ 64 * 1024, 64 * 1024, 64 * 1024 },
	};
	void *p[RTE_DIM(c)];
	unsigned int i, j;
	char perms[5];

	for (i = 0; i < RTE_DIM(c); i++) {
		p[i] = rte_gpu_mem_alloc(main_dev, c[i].size, c[i].align);
		DT_REQUIRE(p[i] != NULL);
		DT_CHECK_EQ((uintptr_t)p[i] % c[i].expect, 0);
		/* The device address is mapped, with no access rights. */
		DT_CHECK_EQ(maps_count(p[i], c[i].size, NULL, perms), 1);
		DT_CHECK(strcmp(perms, "---s") == 0);
	}
	for (i = 0; i < RTE_DIM(c); i++)
		for (j = i + 1; j < RTE_DIM(c); j++)
			DT_CHECK((uint8_t *)p[i] + c[i].size <= (uint8_t *)p[j] ||
				(uint8_t *)p[j] + c[j].size <= (uint8_t *)p[i]);
	for (i = 0; i < RTE_DIM(c); i++)
		DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p[i]), 0);

	DT_CHECK(rte_gpu_mem_alloc(main_dev, 4096, 3000) == NULL);
	DT_CHECK_EQ(rte_errno, EINVAL);
}

/* lib/devmem's path: device memory becomes DPDK external memory, untouched. */
static void
test_extmem(void)
{
	size_t len = 4 * PAGE;
	uint8_t *p;

	p = rte_gpu_mem_alloc(main_dev, len, 0);
	DT_REQUIRE(p != NULL);
	DT_CHECK_EQ(rte_extmem_register(p, len, NULL, 0, PAGE), 0);
	DT_CHECK(rte_mem_virt2memseg_list(p) != NULL);
	DT_CHECK_EQ(rte_extmem_unregister(p, len), 0);
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p), 0);
}

static void
test_zero_touch(void)
{
	size_t size = 2 * PAGE;
	uint8_t host = 0;
	uint8_t *p, *alias;

	/* The probe itself: a host byte survives both accesses. */
	DT_CHECK_EQ(touch_in_child(&host, false), 0);
	DT_CHECK_EQ(touch_in_child(&host, true), 0);

	p = rte_gpu_mem_alloc(main_dev, size, 0);
	DT_REQUIRE(p != NULL);
	DT_CHECK_EQ(touch_in_child(p, false), SIGSEGV);
	DT_CHECK_EQ(touch_in_child(p, true), SIGSEGV);
	DT_CHECK_EQ(touch_in_child(p + size / 2 + 3, false), SIGSEGV);
	DT_CHECK_EQ(touch_in_child(p + size - 1, true), SIGSEGV);

	/* A CPU alias does not open up the device address. */
	alias = rte_gpu_mem_cpu_map(main_dev, size, p);
	DT_REQUIRE(alias != NULL);
	DT_CHECK_EQ(touch_in_child(alias, true), 0);
	DT_CHECK_EQ(touch_in_child(p, false), SIGSEGV);
	DT_CHECK_EQ(touch_in_child(p, true), SIGSEGV);
	DT_CHECK_EQ(rte_gpu_mem_cpu_unmap(main_dev, p), 0);
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p), 0);
}

static void
test_alias_coherence(void)
{
	size_t size = 200000, i;
	uint8_t *p, *alias, *alias2, *sub, *ds, *ds_sub;
	bool same = true;

	p = rte_gpu_mem_alloc(main_dev, size, 0);
	DT_REQUIRE(p != NULL);
	alias = rte_gpu_mem_cpu_map(main_dev, size, p);
	DT_REQUIRE(alias != NULL);
	DT_REQUIRE(rte_pmd_gpu_sim_dev_side(main_dev, p, size, (void **)&ds) == 0);
	DT_CHECK(alias != p && ds != p && ds != alias);

	/* CPU alias -> device side. */
	for (i = 0; i < size; i++)
		alias[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < size; i++)
		same &= ds[i] == (uint8_t)(i * 7 + 3);
	DT_CHECK(same);
	/* Device side -> CPU alias. */
	for (i = 0; i < size; i++)
		ds[i] = (uint8_t)(i * 13 + 1);
	same = true;
	for (i = 0; i < size; i++)
		same &= alias[i] == (uint8_t)(i * 13 + 1);
	DT_CHECK(same);

	/* Sub-ranges land at the same offset in every mapping. */
	sub = rte_gpu_mem_cpu_map(main_dev, 500, p + 1000);
	DT_CHECK(sub == alias + 1000);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p + 1000, 500,
		(void **)&ds_sub), 0);
	DT_CHECK(ds_sub == ds + 1000);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p + size - 1, 1,
		(void **)&ds_sub), 0);
	DT_CHECK(ds_sub == ds + size - 1);

	/* Two maps, two unmaps: the alias lives until the last one. */
	DT_CHECK_EQ(rte_gpu_mem_cpu_unmap(main_dev, p), 0);
	DT_CHECK(range_mapped(alias, size));
	DT_CHECK_EQ(rte_gpu_mem_cpu_unmap(main_dev, p), 0);
	DT_CHECK(!range_mapped(alias, size));
	DT_CHECK(rte_gpu_mem_cpu_unmap(main_dev, p) != 0);
	DT_CHECK(rte_gpu_mem_cpu_unmap(main_dev, alias) != 0);

	/* Mapped again, the bytes are still there. */
	alias2 = rte_gpu_mem_cpu_map(main_dev, size, p);
	DT_REQUIRE(alias2 != NULL);
	DT_CHECK_EQ(alias2[12345], (uint8_t)(12345 * 13 + 1));
	/* Outside the allocation there is nothing to map. */
	DT_CHECK(rte_gpu_mem_cpu_map(main_dev, 2, p + size - 1) == NULL);

	/* Freeing a mapped allocation takes the alias and the device side too. */
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p), 0);
	DT_CHECK(!range_mapped(alias2, size));
	DT_CHECK(!range_mapped(ds, size));
	DT_CHECK(!range_mapped(p, size));
}

static void
test_free_contract(void)
{
	uint8_t host[64];
	uint8_t *p, *q, *other;
	int16_t dev2;

	p = rte_gpu_mem_alloc(main_dev, 1024, 0);
	q = rte_gpu_mem_alloc(main_dev, 1024, 0);
	DT_REQUIRE(p != NULL && q != NULL);
	DT_CHECK(rte_gpu_mem_free(main_dev, p + 0x700) < 0);
	DT_CHECK_EQ(rte_errno, EPERM);
	DT_CHECK(rte_gpu_mem_free(main_dev, p + 1) < 0);
	DT_CHECK(rte_gpu_mem_free(main_dev, host) < 0);
	/* The failed frees left p intact. */
	DT_CHECK(rte_pmd_gpu_sim_dev_side(main_dev, p, 1024, (void **)&other) == 0);
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p), 0);
	DT_CHECK(rte_gpu_mem_free(main_dev, p) < 0);
	DT_CHECK(!range_mapped(p, 1024));
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, q), 0);

	/* Another device's allocation is not ours to free. */
	DT_REQUIRE(rte_vdev_init("gpu_sim_t5", "size=1M") == 0);
	dev2 = gpu_by_name("gpu_sim_t5");
	DT_REQUIRE(dev2 >= 0);
	other = rte_gpu_mem_alloc(dev2, 100, 0);
	DT_CHECK(other != NULL);
	DT_CHECK(rte_gpu_mem_free(main_dev, other) < 0);
	DT_CHECK_EQ(rte_gpu_mem_free(dev2, other), 0);
	DT_CHECK_EQ(rte_vdev_uninit("gpu_sim_t5"), 0);
}

static void
test_enomem(void)
{
	void *p[17], *big, *two;
	int16_t dev;
	int i;

	DT_REQUIRE(rte_vdev_init("gpu_sim_t6", "size=1M") == 0);
	dev = gpu_by_name("gpu_sim_t6");
	DT_REQUIRE(dev >= 0);

	DT_CHECK(rte_gpu_mem_alloc(dev, MIB + 1, 0) == NULL);
	DT_CHECK_EQ(rte_errno, ENOMEM);
	big = rte_gpu_mem_alloc(dev, MIB, 0);
	DT_CHECK(big != NULL);
	DT_CHECK(rte_gpu_mem_alloc(dev, 1, 0) == NULL);
	DT_CHECK_EQ(rte_errno, ENOMEM);
	DT_CHECK_EQ(rte_gpu_mem_free(dev, big), 0);

	/* Allocations take whole 64 KiB pages: 16 single bytes fill 1 MiB. */
	for (i = 0; i < 16; i++) {
		p[i] = rte_gpu_mem_alloc(dev, 1, 0);
		DT_REQUIRE(p[i] != NULL);
	}
	p[16] = rte_gpu_mem_alloc(dev, 1, 0);
	DT_CHECK(p[16] == NULL);
	DT_CHECK_EQ(rte_errno, ENOMEM);

	/* Freed memory is usable again: one page, then two adjacent pages. */
	DT_CHECK_EQ(rte_gpu_mem_free(dev, p[5]), 0);
	DT_CHECK(rte_gpu_mem_alloc(dev, 2 * PAGE, 0) == NULL);
	p[5] = rte_gpu_mem_alloc(dev, PAGE, 0);
	DT_CHECK(p[5] != NULL);
	DT_CHECK_EQ(rte_gpu_mem_free(dev, p[8]), 0);
	DT_CHECK_EQ(rte_gpu_mem_free(dev, p[9]), 0);
	two = rte_gpu_mem_alloc(dev, 2 * PAGE, 0);
	DT_CHECK(two != NULL);
	DT_CHECK(rte_gpu_mem_alloc(dev, 1, 0) == NULL);
	DT_CHECK_EQ(rte_gpu_mem_free(dev, two), 0);
	p[8] = p[9] = NULL;

	for (i = 0; i < 16; i++)
		if (p[i] != NULL)
			DT_CHECK_EQ(rte_gpu_mem_free(dev, p[i]), 0);
	big = rte_gpu_mem_alloc(dev, MIB, 0);
	DT_CHECK(big != NULL);
	DT_CHECK_EQ(rte_vdev_uninit("gpu_sim_t6"), 0);
}

static void
test_register(void)
{
	enum { NB_REGS = 1100, SLICE = 64 };
	struct rte_gpu_comm_list *list;
	uint8_t *buf, *many, *p;
	unsigned int i, ok = 0;

	buf = rte_zmalloc(NULL, 4096, 0);
	DT_REQUIRE(buf != NULL);
	DT_CHECK_EQ(rte_gpu_mem_register(main_dev, 1024, buf), 0);
	DT_CHECK(rte_gpu_mem_unregister(main_dev, buf + 0x700) < 0);
	DT_CHECK(rte_gpu_mem_unregister(main_dev, buf + 1) < 0);
	/* A host byte is registered once. */
	DT_CHECK(rte_gpu_mem_register(main_dev, 100, buf + 512) < 0);
	DT_CHECK(rte_gpu_mem_register(main_dev, 2048, buf) < 0);
	/* Registered host memory is its own CPU mapping. */
	DT_CHECK(rte_gpu_mem_cpu_map(main_dev, 1024, buf) == buf);
	DT_CHECK(rte_gpu_mem_cpu_map(main_dev, 24, buf + 1000) == buf + 1000);
	DT_CHECK(rte_gpu_mem_cpu_map(main_dev, 1025, buf) == NULL);
	DT_CHECK_EQ(rte_gpu_mem_cpu_unmap(main_dev, buf), 0);
	/* Host memory has no device side. */
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, buf, 16, (void **)&p),
		-EINVAL);
	DT_CHECK_EQ(rte_gpu_mem_unregister(main_dev, buf), 0);
	DT_CHECK(rte_gpu_mem_unregister(main_dev, buf) < 0);
	DT_CHECK(rte_gpu_mem_cpu_map(main_dev, 1024, buf) == NULL);
	/* Adjacent ranges are distinct registrations. */
	DT_CHECK_EQ(rte_gpu_mem_register(main_dev, 1024, buf), 0);
	DT_CHECK_EQ(rte_gpu_mem_register(main_dev, 1024, buf + 1024), 0);
	DT_CHECK_EQ(rte_gpu_mem_unregister(main_dev, buf + 1024), 0);
	DT_CHECK_EQ(rte_gpu_mem_unregister(main_dev, buf), 0);
	rte_free(buf);

	/* Device memory is not host memory. */
	p = rte_gpu_mem_alloc(main_dev, PAGE, 0);
	DT_REQUIRE(p != NULL);
	DT_CHECK(rte_gpu_mem_register(main_dev, PAGE, p) < 0);
	DT_CHECK(rte_gpu_mem_unregister(main_dev, p) < 0);
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p), 0);

	/* Many registrations, as gpudev's communication list needs. */
	many = malloc((size_t)NB_REGS * SLICE);
	DT_REQUIRE(many != NULL);
	for (i = 0; i < NB_REGS; i++)
		ok += rte_gpu_mem_register(main_dev, SLICE, many + i * SLICE) == 0;
	DT_CHECK_EQ(ok, NB_REGS);
	ok = 0;
	for (i = 0; i < NB_REGS; i++)
		ok += rte_gpu_mem_unregister(main_dev, many + i * SLICE) == 0;
	DT_CHECK_EQ(ok, NB_REGS);
	free(many);

	list = rte_gpu_comm_create_list(main_dev, 1024);
	DT_REQUIRE(list != NULL);
	DT_CHECK_EQ(rte_gpu_comm_set_status(&list[7], RTE_GPU_COMM_LIST_DONE), 0);
	DT_CHECK_EQ(rte_gpu_comm_destroy_list(list, 1024), 0);
}

static void
test_dev_side_reject(void)
{
	size_t size = 100000;
	uint8_t host[64], *p;
	void *out = NULL;
	int16_t child;

	p = rte_gpu_mem_alloc(main_dev, size, 0);
	DT_REQUIRE(p != NULL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p, size, &out), 0);
	DT_CHECK(out != NULL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, host, 16, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p - 1, 1, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p - 1, 2, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p + size - 1, 2, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p, size + 1, &out), -EINVAL);
	/* Past the requested size, inside the rounded-up page: still outside. */
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p + size, 1, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p, SIZE_MAX, &out), -EINVAL);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p, 16, NULL), -EINVAL);

	/* Not gpu_sim devices. */
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(-1, p, 16, &out), -ENODEV);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(RTE_GPU_DEFAULT_MAX - 1, p, 16, &out),
		-ENODEV);
	child = rte_gpu_add_child("gpu_sim_t0_child", main_dev, 0x1234);
	DT_REQUIRE(child >= 0);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(child, p, 16, &out), -ENODEV);
	DT_CHECK_EQ(rte_gpu_close(child), 0);

	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, p), 0);
	DT_CHECK_EQ(rte_pmd_gpu_sim_dev_side(main_dev, p, 16, &out), -EINVAL);
}

struct churn_arg {
	int16_t dev;
	uint8_t tag;
	unsigned int errors;
};

/* Allocate, stamp through the device side, check, free: overlapping
 * allocations from a racy allocator would show as a foreign stamp. */
static void *
churn(void *opaque)
{
	struct churn_arg *arg = opaque;
	unsigned int i, k;
	uint8_t *p[4], *ds[4];
	size_t len[4];

	for (i = 0; i < 200; i++) {
		for (k = 0; k < RTE_DIM(p); k++) {
			len[k] = PAGE * (1 + (i + k) % 3) - (i % 7);
			p[k] = rte_gpu_mem_alloc(arg->dev, len[k], 0);
			if (p[k] == NULL ||
					rte_pmd_gpu_sim_dev_side(arg->dev, p[k], len[k],
						(void **)&ds[k]) != 0) {
				arg->errors++;
				return NULL;
			}
			memset(ds[k], arg->tag, len[k]);
		}
		for (k = 0; k < RTE_DIM(p); k++) {
			if (ds[k][0] != arg->tag || ds[k][len[k] - 1] != arg->tag)
				arg->errors++;
			if (rte_gpu_mem_free(arg->dev, p[k]) != 0)
				arg->errors++;
		}
	}
	return NULL;
}

static void
test_threads(void)
{
	struct churn_arg a = { main_dev, 0xa1, 0 }, b = { main_dev, 0xb2, 0 };
	pthread_t ta, tb;
	void *all;

	DT_REQUIRE(pthread_create(&ta, NULL, churn, &a) == 0);
	DT_REQUIRE(pthread_create(&tb, NULL, churn, &b) == 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	DT_CHECK_EQ(a.errors, 0);
	DT_CHECK_EQ(b.errors, 0);
	/* Everything was given back: the whole device is free. */
	all = rte_gpu_mem_alloc(main_dev, MAIN_SIZE, 0);
	DT_CHECK(all != NULL);
	DT_CHECK_EQ(rte_gpu_mem_free(main_dev, all), 0);
}

/* Fill a device with state, close it one way or the other, check nothing is left. */
static void
close_leaves_nothing(const char *name, bool by_gpu_close)
{
	char needle[64];
	uint8_t *p[3], *alias, *ds, *host;
	size_t heap_before;
	int16_t dev;
	int i;

	snprintf(needle, sizeof(needle), "memfd:%s ", name);
	host = malloc(4096);
	DT_REQUIRE(host != NULL);
	heap_before = heap_allocated();

	DT_REQUIRE(rte_vdev_init(name, "size=4M") == 0);
	dev = gpu_by_name(name);
	DT_REQUIRE(dev >= 0);
	for (i = 0; i < 3; i++) {
		p[i] = rte_gpu_mem_alloc(dev, (i + 1) * PAGE, 0);
		DT_REQUIRE(p[i] != NULL);
	}
	alias = rte_gpu_mem_cpu_map(dev, PAGE, p[0]);
	DT_REQUIRE(alias != NULL);
	DT_REQUIRE(rte_pmd_gpu_sim_dev_side(dev, p[1], 2 * PAGE, (void **)&ds) == 0);
	DT_CHECK_EQ(rte_gpu_mem_register(dev, 4096, host), 0);
	/* The kernel may merge neighbouring mappings: count ranges, not lines. */
	DT_CHECK(maps_count(NULL, 0, needle, NULL) > 0);
	for (i = 0; i < 3; i++)
		DT_CHECK(range_mapped(p[i], (i + 1) * PAGE));
	DT_CHECK(range_mapped(alias, PAGE));
	DT_CHECK(range_mapped(ds, 2 * PAGE));
	DT_CHECK_EQ(fds_count(needle), 1);

	if (by_gpu_close)
		DT_CHECK_EQ(rte_gpu_close(dev), 0);
	DT_CHECK_EQ(rte_vdev_uninit(name), 0);
	DT_CHECK(!rte_gpu_is_valid(dev));
	DT_CHECK_EQ(gpu_by_name(name), -1);

	DT_CHECK_EQ(maps_count(NULL, 0, needle, NULL), 0);
	for (i = 0; i < 3; i++)
		DT_CHECK(!range_mapped(p[i], (i + 1) * PAGE));
	DT_CHECK(!range_mapped(alias, PAGE));
	DT_CHECK(!range_mapped(ds, 2 * PAGE));
	DT_CHECK_EQ(fds_count(needle), 0);
	DT_CHECK_EQ(heap_allocated(), heap_before);
	free(host);
}

static void
test_close_by_gpu_close(void)
{
	close_leaves_nothing("gpu_sim_t7", true);
}

static void
test_close_by_vdev_remove(void)
{
	close_leaves_nothing("gpu_sim_t8", false);
}

int
main(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	main_dev = gpu_by_name(MAIN_NAME);
	if (main_dev < 0) {
		fprintf(stderr, "no " MAIN_NAME " device: run with --vdev="
			MAIN_NAME ",size=8M,numa=0,processors=7\n");
		rte_eal_cleanup();
		return 1;
	}

	DT_RUN(test_probe_info);
	DT_RUN(test_bad_devargs);
	DT_RUN(test_alloc_align);
	DT_RUN(test_extmem);
	DT_RUN(test_zero_touch);
	DT_RUN(test_alias_coherence);
	DT_RUN(test_free_contract);
	DT_RUN(test_enomem);
	DT_RUN(test_register);
	DT_RUN(test_dev_side_reject);
	DT_RUN(test_threads);
	DT_RUN(test_close_by_gpu_close);
	DT_RUN(test_close_by_vdev_remove);

	rte_eal_cleanup();
	return dt_test_summary();
}
