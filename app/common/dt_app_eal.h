/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * EAL start-up habits shared by devtcp's programs, as testpmd has them:
 * `prog --help` prints EAL's usage and then the program's own, and a failed
 * rte_eal_init() gets a reason that says what to change.
 */
#ifndef DT_APP_EAL_H
#define DT_APP_EAL_H

#include <rte_eal.h>

/**
 * Register @p hook as EAL's application usage hook, and when `--help` or
 * `-h` is among the EAL arguments (before any `--`), let EAL print its usage
 * followed by the program's (EAL then exits 0). Call before rte_eal_init().
 *
 * @param argc, argv  the program's arguments
 * @param hook        prints the program's own options
 */
void dt_app_eal_help(int argc, char **argv, rte_usage_hook_t hook);

/**
 * A reason for rte_eal_init()'s failure: rte_strerror(@p err), with advice
 * where EAL leaves rte_errno unset or the cause is memory.
 *
 * @param err  rte_errno after rte_eal_init() failed
 * @return a static string
 */
const char *dt_app_eal_strerror(int err);

#endif /* DT_APP_EAL_H */
