/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TSO checks shared by the lib/dp component tests: what the sending stack
 * counted against what its net_hsplit port (one TX queue) segmented.
 */
#ifndef DP_TEST_TSO_H
#define DP_TEST_TSO_H

#include <inttypes.h>
#include <stdio.h>

#include <rte_ethdev.h>

#include "dt_dp.h"
#include "dt_test.h"
#include "dt_test_eth.h"

/*
 * @p expect 1: the stack sent TSO bursts (several MSS each) and the NIC
 * cut every one, none refused; -1: the port offers no TSO, nothing was
 * sent as a burst; 0: only print.
 */
static inline void
dp_test_check_tso(uint16_t port, const struct dt_dp_stats *s, int expect)
{
	uint64_t frames = dt_test_xstat(port, "tx_q0_tso_frames");
	uint64_t segs = dt_test_xstat(port, "tx_q0_tso_segs");
	uint64_t bad = dt_test_xstat(port, "tx_q0_drop_tso_bad");

	printf("  tso: %" PRIu64 " bursts, %" PRIu64 " segments (%.1f per burst);"
		" NIC: %" PRIu64 " frames, %" PRIu64 " segments, %" PRIu64 " refused\n",
		s->tx_tso_bursts, s->tx_tso_segs, s->tx_tso_bursts ?
		(double)s->tx_tso_segs / s->tx_tso_bursts : 0.0, frames, segs, bad);
	if (expect > 0) {
		DT_CHECK(s->tx_tso_bursts > 0);
		DT_CHECK(s->tx_tso_segs >= 2 * s->tx_tso_bursts);
		DT_CHECK_EQ(frames, s->tx_tso_bursts);
		DT_CHECK_EQ(segs, s->tx_tso_segs);
		DT_CHECK_EQ(bad, 0);
	}
	if (expect < 0) {
		DT_CHECK_EQ(s->tx_tso_bursts, 0);
		DT_CHECK_EQ(s->tx_tso_segs, 0);
		DT_CHECK_EQ(frames, 0);
	}
}

#endif /* DP_TEST_TSO_H */
