/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plugin's reports through NCCL's logger (nn_report.c): read by the
 * entry points (a late request), the watchdog and the runtime's last
 * finalize; they only read the process context.
 */
#ifndef NN_REPORT_H
#define NN_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "nn_rt.h"

/**
 * Report request @p r of comm @p c once, with its flows, stacks and port,
 * when it has been pending for [nccl] stall_report ms (0: never).
 */
void nn_stall_check(struct nn_comm *c, struct nn_req *r);

/** A stack's frame and drop counters and its queues', at WARNING. */
void nn_stack_report(const struct nn_stack *s);

/**
 * The port's non-zero xstats, several lines: at INFO, or at WARNING for a
 * stall report (@p stall; per-queue counters left to the stacks' lines).
 */
void nn_port_xstats_log(struct nn_rt *rt, bool stall);

/** Log the stacks' and copy channels' counters (lcores stopped), at INFO. */
void nn_stats_log(struct nn_rt *rt);

/** Every drop_* counter of @p st, summed. */
uint64_t nn_dp_drops(const struct dt_dp_stats *st);

#endif /* NN_REPORT_H */
