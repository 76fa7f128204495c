/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Component test of dt_devmem: payload regions on the simulated GPU
 * (--vdev=gpu_sim_dm0,size=64M) DMA-mapped to a null port
 * (--vdev=net_null_dm0), and on host memory.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gpudev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "dt_devmem.h"
#include "dt_devmem_provider.h"
#include "dt_test.h"

/* Vdev names are per program (set by its meson test: 0 linked, 1 plugin). */
#define GPU_VDEV "gpu_sim_dm"
#define PORT_VDEV "net_null_dm"
#define GPU_SIZE (64u << 20)
#define NB_BUFS 1024u
#define BUF_SIZE 2048u

/* What the test cases share: found once after EAL init. */
struct env {
	int16_t gpu;
	uint16_t port;
};

static struct env env;

static struct dt_devmem_region_conf
conf_gpu(const char *name, uint32_t nb_bufs)
{
	return (struct dt_devmem_region_conf){
		.name = name,
		.gpu_id = env.gpu,
		.port_id = env.port,
		.nb_bufs = nb_bufs,
		.buf_size = BUF_SIZE,
		.cache_size = 0,
		.socket_id = SOCKET_ID_ANY,
	};
}

/* Log captured while a call runs, to check what its errors say. */
struct log_capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void
capture_start(struct log_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	if (c->f != NULL)
		rte_openlog_stream(c->f);
}

static const char *
capture_stop(struct log_capture *c)
{
	rte_openlog_stream(NULL);
	if (c->f != NULL)
		fclose(c->f);
	if (c->buf != NULL)
		fputs(c->buf, stderr);   /* keep it in the test log */
	return c->buf != NULL ? c->buf : "";
}

static int
in_region(const struct dt_devmem_region *r, const void *p, size_t len)
{
	uintptr_t b = (uintptr_t)dt_devmem_region_base(r);
	uintptr_t a = (uintptr_t)p;

	return a >= b && a + len <= b + dt_devmem_region_len(r);
}

static void
test_gpu_region_pool_in_window(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_pool", NB_BUFS);
	struct dt_devmem_region *r = NULL;
	struct rte_mbuf *m[NB_BUFS];
	struct rte_mempool *mp;
	unsigned int i;
	int ok = 1;

	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	mp = dt_devmem_region_pool(r);
	DT_REQUIRE(mp != NULL);
	DT_CHECK_EQ(dt_devmem_region_gpu_id(r), env.gpu);
	DT_CHECK_EQ(dt_devmem_region_port_id(r), env.port);
	DT_CHECK(strcmp(dt_devmem_region_name(r), "dm_pool") == 0);
	DT_CHECK(rte_mempool_lookup("dm_pool") == mp);
	DT_CHECK(rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF);
	DT_CHECK_EQ(rte_pktmbuf_data_room_size(mp), BUF_SIZE);
	DT_CHECK(dt_devmem_region_len(r) >= (size_t)NB_BUFS * BUF_SIZE);
	DT_CHECK(rte_mem_virt2memseg_list(dt_devmem_region_base(r)) != NULL);
	DT_CHECK(dt_copy_registry_lookup(dt_devmem_region_base(r),
		dt_devmem_region_len(r)) == dt_devmem_region_engine(r));

	/* Every buffer lies in the window, none shared; headers do not. */
	DT_REQUIRE(rte_pktmbuf_alloc_bulk(mp, m, NB_BUFS) == 0);
	for (i = 0; i < NB_BUFS; i++) {
		ok &= in_region(r, m[i]->buf_addr, m[i]->buf_len);
		ok &= !in_region(r, m[i], sizeof(*m[i]));
		ok &= RTE_MBUF_HAS_PINNED_EXTBUF(m[i]) != 0;
		ok &= m[i]->buf_len >= BUF_SIZE;
		ok &= dt_copy_registry_lookup(m[i]->buf_addr, m[i]->buf_len) ==
			dt_devmem_region_engine(r);
		if (i > 0)
			ok &= m[i]->buf_addr != m[i - 1]->buf_addr;
	}
	DT_CHECK(ok);
	DT_CHECK_EQ(rte_mempool_in_use_count(mp), NB_BUFS);
	rte_pktmbuf_free_bulk(m, NB_BUFS);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

static void
test_gpu_copy_visible_through_alias(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_copy", 64);
	struct dt_devmem_region *r = NULL;
	struct dt_copy_chan *ch;
	struct rte_mbuf *m;
	uint8_t pat[1500], back[1500];
	struct dt_copy_op op;
	uint64_t ticket = 0;
	uint8_t *alias, *dst;
	size_t off, i;

	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	m = rte_pktmbuf_alloc(dt_devmem_region_pool(r));
	DT_REQUIRE(m != NULL);
	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 13 + 5);

	/* The engine is how a NIC lands payload in the buffer. */
	ch = dt_copy_chan_open(dt_devmem_region_engine(r));
	DT_REQUIRE(ch != NULL);
	dst = rte_pktmbuf_mtod(m, uint8_t *);   /* an address, not a load */
	op = (struct dt_copy_op){ dst, pat, sizeof(pat) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	dt_copy_wait(ch, ticket);

	alias = dt_devmem_region_cpu_map(r);
	DT_REQUIRE(alias != NULL);
	DT_CHECK(alias != (uint8_t *)dt_devmem_region_base(r));
	off = (size_t)(dst - (uint8_t *)dt_devmem_region_base(r));
	DT_CHECK(memcmp(alias + off, pat, sizeof(pat)) == 0);
	/* Nested maps share the alias. */
	DT_CHECK(dt_devmem_region_cpu_map(r) == alias);
	DT_CHECK_EQ(dt_devmem_region_cpu_unmap(r), 0);

	/* A write through the alias is what the engine reads back. */
	alias[off] ^= 0xff;
	memset(back, 0, sizeof(back));
	op = (struct dt_copy_op){ back, dst, sizeof(back) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	dt_copy_wait(ch, ticket);
	DT_CHECK_EQ(back[0], pat[0] ^ 0xff);
	DT_CHECK(memcmp(back + 1, pat + 1, sizeof(pat) - 1) == 0);
	DT_CHECK_EQ(dt_devmem_region_cpu_unmap(r), 0);
	DT_CHECK_EQ(dt_devmem_region_cpu_unmap(r), -EINVAL);

	DT_CHECK_EQ(ch->stats.copies, 2);
	DT_CHECK_EQ(ch->stats.bytes, 2 * sizeof(pat));
	dt_copy_chan_close(ch);

	/* Destroy waits for its mbufs. */
	DT_CHECK_EQ(dt_devmem_region_destroy(r), -EBUSY);
	DT_CHECK_EQ(rte_errno, EBUSY);
	rte_pktmbuf_free(m);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

static void
test_gpu_zero_touch_guard(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_guard", 16);
	struct dt_devmem_region *r = NULL;
	struct rte_mbuf *m;
	int status = 0;
	pid_t pid;

	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	m = rte_pktmbuf_alloc(dt_devmem_region_pool(r));
	DT_REQUIRE(m != NULL);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* A stray CPU read of payload, as a checksum or dump would do. */
		volatile uint8_t *p = m->buf_addr;
		uint8_t v = p[0];

		(void)v;
		_exit(0);
	}
	DT_REQUIRE(pid > 0);
	DT_REQUIRE(waitpid(pid, &status, 0) == pid);
	DT_CHECK(WIFSIGNALED(status));
	DT_CHECK_EQ(WIFSIGNALED(status) ? WTERMSIG(status) : 0, SIGSEGV);
	rte_pktmbuf_free(m);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

/* 40 MiB of the 64 MiB device: two cannot coexist, one can come back. */
#define BIG_BUFS ((40u << 20) / BUF_SIZE)

static void
test_gpu_teardown_returns_everything(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_big", BIG_BUFS);
	struct dt_devmem_region_conf c2 = conf_gpu("dm_big2", BIG_BUFS);
	struct dt_devmem_region *r = NULL, *r2 = NULL;
	unsigned int n0 = dt_copy_registry_count();
	void *base;

	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	base = dt_devmem_region_base(r);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 1);
	/* The device is full enough that a second one does not fit. */
	DT_CHECK(dt_devmem_region_create(&c2, &r2) < 0);
	DT_CHECK(r2 == NULL);
	DT_CHECK(rte_mempool_lookup("dm_big2") == NULL);
	/* Same name twice is refused before anything is allocated. */
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r2), -EEXIST);

	/* A CPU alias still mapped goes with the region. */
	DT_CHECK(dt_devmem_region_cpu_map(r) != NULL);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
	DT_CHECK(rte_mempool_lookup("dm_big") == NULL);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	DT_CHECK(dt_copy_registry_lookup(base, 1) == NULL);
	DT_CHECK(rte_mem_virt2memseg_list(base) == NULL);

	/* The same device memory and the same name, again. */
	r = NULL;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(NULL), 0);
}

static void
test_gpu_region_too_big(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_huge", 2 * GPU_SIZE / BUF_SIZE);
	struct dt_devmem_region *r = NULL;
	unsigned int n0 = dt_copy_registry_count();
	struct log_capture cap;
	const char *log;
	int ret;

	capture_start(&cap);
	ret = dt_devmem_region_create(&c, &r);
	log = capture_stop(&cap);
	DT_CHECK(ret < 0);
	DT_CHECK_EQ(rte_errno, -ret);
	DT_CHECK(r == NULL);
	DT_CHECK(strstr(log, "region dm_huge: gpu_mem_alloc failed") != NULL);
	DT_CHECK(rte_mempool_lookup("dm_huge") == NULL);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	free(cap.buf);
}

/* A failure at the last step undoes the four before it. */
static void
test_gpu_failed_create_undoes(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_undo", BIG_BUFS);
	struct dt_devmem_region *r = NULL;
	unsigned int n0 = dt_copy_registry_count();
	struct log_capture cap;
	const char *log;
	int ret;

	c.cache_size = 100000;   /* beyond RTE_MEMPOOL_CACHE_MAX_SIZE */
	capture_start(&cap);
	ret = dt_devmem_region_create(&c, &r);
	log = capture_stop(&cap);
	DT_CHECK(ret < 0);
	DT_CHECK(r == NULL);
	DT_CHECK(strstr(log, "region dm_undo: mempool create failed") != NULL);
	DT_CHECK(strstr(log, "teardown") == NULL);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	free(cap.buf);

	/* Nothing is left holding the device memory or the name. */
	c.cache_size = 0;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

static void
test_bad_config(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_bad", 16);
	struct dt_devmem_region *r = NULL;

	c.port_id = RTE_MAX_ETHPORTS - 1;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -ENODEV);
	c = conf_gpu("dm_bad", 16);
	c.gpu_id = RTE_GPU_DEFAULT_MAX - 1;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -ENODEV);
	c = conf_gpu("dm_bad", 0);
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -EINVAL);
	c = conf_gpu("a_name_much_longer_than_allowed", 16);
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -EINVAL);
	c = conf_gpu(NULL, 16);
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -EINVAL);
	DT_CHECK(r == NULL);
}

struct hook_calls {
	unsigned int calls;
	int16_t gpu;
	void *base;
	size_t len;
	int fail;
};

/* A stand-in for the CUDA engine: records its call, may refuse. */
static struct dt_copy_engine *
hook_engine(int16_t gpu_id, void *base, size_t len, void *arg)
{
	struct hook_calls *h = arg;

	h->calls++;
	h->gpu = gpu_id;
	h->base = base;
	h->len = len;
	if (h->fail) {
		rte_errno = ENOTSUP;
		return NULL;
	}
	return dt_devmem_engine_create_default(gpu_id, base, len, NULL);
}

static void
test_engine_hook(void)
{
	struct dt_devmem_region_conf c = conf_gpu("dm_hook", 64);
	struct dt_devmem_region *r = NULL;
	struct hook_calls h = { 0 };
	unsigned int n0 = dt_copy_registry_count();

	c.engine_create = hook_engine;
	c.engine_arg = &h;
	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	DT_CHECK_EQ(h.calls, 1);
	DT_CHECK_EQ(h.gpu, env.gpu);
	DT_CHECK(h.base == dt_devmem_region_base(r));
	DT_CHECK_EQ(h.len, dt_devmem_region_len(r));
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);

	/* A device no engine handles: -ENOTSUP, everything undone. */
	h.fail = 1;
	r = NULL;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -ENOTSUP);
	DT_CHECK_EQ(h.calls, 2);
	DT_CHECK(r == NULL);
	DT_CHECK(rte_mem_virt2memseg_list(h.base) == NULL);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
}

/* The built-in factory asks the device's provider; a device without one is ENOTSUP. */
static void
test_default_engine_other_device(void)
{
	int16_t other = RTE_GPU_DEFAULT_MAX - 1;   /* no such gpu_sim */
	struct log_capture cap;
	struct dt_copy_engine *ce;
	const char *log;
	char want[64];

	DT_REQUIRE(!rte_gpu_is_valid(other));
	snprintf(want, sizeof(want), "no copy engine for device %d", other);
	capture_start(&cap);
	rte_errno = 0;
	ce = dt_devmem_engine_create_default(other, (void *)0x10000, 4096, NULL);
	log = capture_stop(&cap);
	DT_CHECK(ce == NULL);
	DT_CHECK_EQ(rte_errno, ENOTSUP);
	DT_CHECK(strstr(log, want) != NULL);
	DT_CHECK(strstr(log, "registered no device-memory provider") != NULL);
	free(cap.buf);
}

static void
test_host_region(void)
{
	struct dt_devmem_region_conf c = {
		.name = "dm_host",
		.gpu_id = RTE_GPU_ID_NONE,
		.port_id = RTE_MAX_ETHPORTS,
		.nb_bufs = 256,
		.buf_size = BUF_SIZE,
		.cache_size = 32,
		.socket_id = SOCKET_ID_ANY,
	};
	struct dt_devmem_region *r = NULL;
	struct dt_copy_chan *ch;
	struct rte_mbuf *m;
	uint8_t pat[512];
	struct dt_copy_op op;
	uint64_t ticket = 0;
	unsigned int n0 = dt_copy_registry_count();
	size_t i;

	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	DT_CHECK_EQ(dt_devmem_region_gpu_id(r), RTE_GPU_ID_NONE);
	DT_CHECK_EQ(dt_copy_registry_count(), n0 + 1);
	DT_CHECK(dt_devmem_region_iova(r) != RTE_BAD_IOVA);
	m = rte_pktmbuf_alloc(dt_devmem_region_pool(r));
	DT_REQUIRE(m != NULL);
	DT_CHECK(in_region(r, m->buf_addr, m->buf_len));
	DT_CHECK(RTE_MBUF_HAS_PINNED_EXTBUF(m));
	DT_CHECK_EQ(m->buf_iova, dt_devmem_region_iova(r) +
		((uintptr_t)m->buf_addr - (uintptr_t)dt_devmem_region_base(r)));

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i ^ 0x5a);
	ch = dt_copy_chan_open(dt_devmem_region_engine(r));
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ rte_pktmbuf_mtod(m, void *), pat, sizeof(pat) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &ticket), 1);
	dt_copy_wait(ch, ticket);
	dt_copy_chan_close(ch);
	/* Host memory: the CPU may read it directly, and the alias is itself. */
	DT_CHECK(memcmp(rte_pktmbuf_mtod(m, void *), pat, sizeof(pat)) == 0);
	DT_CHECK(dt_devmem_region_cpu_map(r) == dt_devmem_region_base(r));
	DT_CHECK_EQ(dt_devmem_region_cpu_unmap(r), 0);

	rte_pktmbuf_free(m);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
	DT_CHECK_EQ(dt_copy_registry_count(), n0);
	DT_CHECK(rte_mempool_lookup("dm_host") == NULL);
	/* Its memzone is gone with it: the name can be used again. */
	r = NULL;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);
}

/*
 * gpu_sim registered its provider at probe, into the table this program
 * reads (also when gpu_sim is a -d plugin with its own copy of the code).
 */
static void
test_provider_of_gpu_sim(void)
{
	const struct dt_devmem_provider_ops *prov = dt_devmem_provider_get(env.gpu);
	struct dt_devmem_region_conf c = conf_gpu("dm_prov", 16);
	struct dt_devmem_region *r = NULL;
	int fd = -1;

	DT_REQUIRE(prov != NULL);
	DT_CHECK(strcmp(prov->name, "gpu_sim") == 0);
	DT_CHECK(prov->engine_create != NULL);
	DT_CHECK(prov->dmabuf_import == NULL && prov->dmabuf_export == NULL);
	DT_CHECK(dt_devmem_provider_get(RTE_GPU_DEFAULT_MAX - 1) == NULL);
	DT_CHECK_EQ(dt_devmem_provider_register(-1, prov), -EINVAL);
	/* Unregistering someone else's ops leaves the provider in place. */
	DT_CHECK_EQ(dt_devmem_provider_unregister(env.gpu,
		(const struct dt_devmem_provider_ops *)&c), -ENOENT);
	DT_CHECK(dt_devmem_provider_get(env.gpu) == prov);

	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	DT_CHECK(strcmp(dt_devmem_region_provider(r), "gpu_sim") == 0);
	/* gpu_sim exports no dma-buf and needs no host registration. */
	DT_CHECK_EQ(dt_devmem_region_dmabuf_export(r, &fd), -ENOTSUP);
	DT_CHECK_EQ(fd, -1);
	DT_CHECK_EQ(dt_devmem_host_register(env.gpu, &fd, sizeof(fd)), 0);
	DT_CHECK_EQ(dt_devmem_host_unregister(env.gpu, &fd, sizeof(fd)), 0);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);

	/* A dma-buf region on a device whose driver imports none: ENOTSUP. */
	c.dmabuf = true;
	c.dmabuf_fd = 0;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -ENOTSUP);
	DT_CHECK(r == NULL);
}

static int
env_find(void)
{
	const char *sfx = getenv("DT_TEST_VDEV_SUFFIX");
	char port_name[RTE_ETH_NAME_MAX_LEN];
	int16_t id;

	env.gpu = RTE_GPU_ID_NONE;
	RTE_GPU_FOREACH(id) {
		env.gpu = id;
		break;
	}
	if (env.gpu == RTE_GPU_ID_NONE) {
		fprintf(stderr, "no gpudev device: is --vdev=%sN,size=64M given?\n",
			GPU_VDEV);
		return -1;
	}
	snprintf(port_name, sizeof(port_name), PORT_VDEV "%s",
		sfx != NULL ? sfx : "0");
	if (rte_eth_dev_get_port_by_name(port_name, &env.port) != 0) {
		fprintf(stderr, "no port %s: is --vdev=%s given?\n", port_name,
			port_name);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int ret;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (env_find() < 0) {
		rte_eal_cleanup();
		return 1;
	}
	DT_RUN(test_gpu_region_pool_in_window);
	DT_RUN(test_gpu_copy_visible_through_alias);
	DT_RUN(test_gpu_zero_touch_guard);
	DT_RUN(test_gpu_teardown_returns_everything);
	DT_RUN(test_gpu_region_too_big);
	DT_RUN(test_gpu_failed_create_undoes);
	DT_RUN(test_bad_config);
	DT_RUN(test_engine_hook);
	DT_RUN(test_default_engine_other_device);
	DT_RUN(test_host_region);
	DT_RUN(test_provider_of_gpu_sim);
	ret = dt_test_summary();
	rte_eal_cleanup();
	return ret;
}
