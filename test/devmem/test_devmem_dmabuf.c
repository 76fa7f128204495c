/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/devmem's generic dma-buf import with an exporter every Linux kernel
 * may have: udmabuf (/dev/udmabuf turns memfd pages into a dma-buf). The
 * dma-buf becomes a host payload region (mmap of the fd, extmem, CPU
 * engine); its bytes must be the memfd's. Skips where /dev/udmabuf is
 * absent or refuses this user.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_gpudev.h>
#include <rte_mbuf.h>

#include "dt_devmem.h"
#include "dt_test.h"

#define DMABUF_LEN (4u << 20)

static int memfd = -1, dmabuf = -1;

/* A udmabuf over a sealed memfd; -errno when the host cannot make one. */
static int
make_udmabuf(void)
{
	struct udmabuf_create c = { 0 };
	int dev, fd;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return -errno;
	memfd = memfd_create("dt_udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, DMABUF_LEN) != 0 ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		close(dev);
		return -errno;
	}
	c.memfd = memfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	c.offset = 0;
	c.size = DMABUF_LEN;
	fd = ioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	return fd < 0 ? -errno : fd;
}

static void
test_udmabuf_host_region(void)
{
	struct dt_devmem_region_conf c = {
		.name = "dm_udmabuf",
		.gpu_id = RTE_GPU_ID_NONE,
		.port_id = RTE_MAX_ETHPORTS,
		.nb_bufs = 1024,
		.buf_size = 2048,
		.socket_id = SOCKET_ID_ANY,
		.dmabuf = true,
		.dmabuf_fd = dmabuf,
	};
	struct dt_devmem_region *r = NULL;
	struct dt_copy_chan *ch;
	struct dt_copy_op op;
	uint8_t pat[256], back[256];
	uint64_t t = 0;
	struct rte_mbuf *m;
	unsigned int i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (uint8_t)(i * 7 + 3);
	DT_REQUIRE(dt_devmem_region_create(&c, &r) == 0);
	DT_CHECK_EQ(dt_devmem_region_len(r), DMABUF_LEN);
	DT_CHECK(strcmp(dt_devmem_region_provider(r), "host (dma-buf)") == 0);
	m = rte_pktmbuf_alloc(dt_devmem_region_pool(r));
	DT_REQUIRE(m != NULL);
	/* The engine writes the mbuf's buffer: the bytes land in the memfd. */
	ch = dt_copy_chan_open(dt_devmem_region_engine(r));
	DT_REQUIRE(ch != NULL);
	op = (struct dt_copy_op){ rte_pktmbuf_mtod(m, void *), pat, sizeof(pat) };
	DT_CHECK_EQ(dt_copy_submit(ch, &op, 1, &t), 1);
	while (dt_copy_completed(ch) < t)
		;
	dt_copy_chan_close(ch);
	DT_CHECK_EQ(pread(memfd, back, sizeof(back),
		(off_t)((uintptr_t)rte_pktmbuf_mtod(m, uint8_t *) -
		(uintptr_t)dt_devmem_region_base(r))), (ssize_t)sizeof(back));
	DT_CHECK(memcmp(back, pat, sizeof(pat)) == 0);
	rte_pktmbuf_free(m);
	DT_CHECK_EQ(dt_devmem_region_destroy(r), 0);

	/* A buffer bigger than the dma-buf holds: refused. */
	c.nb_bufs = DMABUF_LEN / 1024;
	DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -EINVAL);
	/* Not a dma-buf (a pipe has no size): refused. */
	{
		int p[2];

		DT_REQUIRE(pipe(p) == 0);
		c.nb_bufs = 16;
		c.dmabuf_fd = p[0];
		DT_CHECK_EQ(dt_devmem_region_create(&c, &r), -EINVAL);
		close(p[0]);
		close(p[1]);
	}
}

int
main(int argc, char **argv)
{
	int ret;

	dmabuf = make_udmabuf();
	if (dmabuf < 0)
		DT_TEST_SKIP("no udmabuf here (/dev/udmabuf: %s): the generic dma-buf import is not exercised",
			strerror(-dmabuf));
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	DT_RUN(test_udmabuf_host_region);
	ret = dt_test_summary();
	close(dmabuf);
	close(memfd);
	rte_eal_cleanup();
	return ret;
}
