/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Copy-mode checks of the lib/dp component tests: what dt_dp_port_start()
 * decided for the receiving port, and what its stack counted.
 */
#ifndef DP_TEST_COPY_H
#define DP_TEST_COPY_H

#include <inttypes.h>
#include <stdio.h>

#include "dt_dp.h"
#include "dt_dp_port.h"
#include "dt_test.h"

/*
 * @p expect true: the port is in copy mode (a NIC without buffer split),
 * every payload byte was copied into the region and delivered as DEVICE
 * chunks, none as HOST; false: the port split, nothing was copied.
 */
static inline void
dp_test_check_copy(uint16_t port, const struct dt_dp_stats *s, bool expect)
{
	struct dt_dp_port_mode m;
	char line[320];

	DT_CHECK_EQ(dt_dp_port_mode_get(port, &m), 0);
	dt_dp_port_mode_str(&m, line, sizeof(line));
	printf("  port %u: %s\n  copy: %" PRIu64 " bytes in %" PRIu64
		" buffers, %" PRIu64 " dropped (no buffer), %" PRIu64 " errors\n",
		port, line, s->rx_copy_bytes, s->rx_copy_chunks,
		s->drop_copy_no_buf, s->rx_copy_errors);
	DT_CHECK_EQ(s->rx_copy_errors, 0);
	if (expect) {
		DT_CHECK_EQ(m.rx, DT_DP_RX_COPY);
		DT_CHECK(s->rx_copy_bytes > 0);
		DT_CHECK(s->rx_copy_chunks >= s->device_chunks);
		DT_CHECK(s->device_chunks > 0);
		DT_CHECK_EQ(s->host_chunks, 0);
		DT_CHECK_EQ(s->rx_hdr_spill, 0);
	} else {
		DT_CHECK(m.rx != DT_DP_RX_COPY);
		DT_CHECK_EQ(s->rx_copy_bytes, 0);
		DT_CHECK_EQ(s->rx_copy_chunks, 0);
	}
}

#endif /* DP_TEST_COPY_H */
