/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * devtcp-server's iperf3 consumer ([consumer] mode = iperf3): the server
 * side of iperf3's control protocol, so that an unmodified `iperf3 -c`
 * runs TCP tests (one or more parallel streams, client sending) against a
 * devtcp stack.
 *
 * Control connection: a 37-byte cookie, state bytes (PARAM_EXCHANGE,
 * CREATE_STREAMS, TEST_START, TEST_RUNNING, TEST_END, EXCHANGE_RESULTS,
 * DISPLAY_RESULTS, IPERF_DONE) and JSON messages prefixed with their length
 * (4 bytes, big endian). Its bytes arrive as chunks like any payload and are
 * read through the payload region's CPU alias: control-plane parsing, the
 * one exception to the zero-touch rule this mode makes. Data connections
 * start with the same cookie; the payload after it is counted and released
 * at once, never read.
 *
 * One test at a time, as iperf3's own server: a client that connects while
 * a test runs gets ACCESS_DENIED. The mode runs on one stack (the control
 * and data connections of a test must meet on it; srv_config_check refuses
 * more) and needs a CPU alias of the payload region (start-up fails without).
 */
#ifndef SRV_IPERF3_H
#define SRV_IPERF3_H

#include "dt_dp.h"

struct srv_stack;

/**
 * Set up the mode on stack @p s (from its lcore, before it listens): maps
 * the payload region's CPU alias if nobody did yet.
 * @return 0, or a negative errno with a message on stderr.
 */
int srv_iperf3_init(struct srv_stack *s);

/** Free what the mode holds; call after dt_dp_stack_destroy(). */
void srv_iperf3_fini(struct srv_stack *s);

/** Handle one event of a server stack in iperf3 mode (stack's lcore). */
void srv_iperf3_event(struct srv_stack *s, const struct dt_dp_event *ev);

#endif /* SRV_IPERF3_H */
