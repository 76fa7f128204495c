/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * EAL start-up habits shared by devtcp's programs, as testpmd has them:
 * `prog --help` prints EAL's usage and then the program's own, and a failed
 * rte_eal_init() gets a reason that says what to change.
 */
#ifndef DT_APP_EAL_H
#define DT_APP_EAL_H

#include <stdbool.h>

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
 * A reason for rte_eal_init()'s failure that says what to change: another
 * primary process on the same --file-prefix (EAL leaves rte_errno unset),
 * no free hugepage (EAL says EACCES, as for a missing permission), memory;
 * else rte_strerror(@p err).
 *
 * @param argc, argv  the EAL arguments given to rte_eal_init()
 * @param err         rte_errno after rte_eal_init() failed
 * @param buf, len    room for a message built here
 * @return @p buf or a static string
 */
const char *dt_app_eal_strerror(int argc, char *const argv[], int err,
	char *buf, size_t len);

/**
 * After rte_eal_init(): every --vdev of the command line must have been
 * started by its driver. EAL only logs a failed probe and goes on, so a
 * program would later say "no port 1" instead of why; this names each
 * device that failed on stderr (with advice when -m or --socket-mem limits
 * memory).
 *
 * @param argc, argv  the EAL arguments given to rte_eal_init()
 * @param prog        the program's name, for the messages
 * @return 0, or -ENODEV when a device is missing
 */
int dt_app_eal_check_vdevs(int argc, char *const argv[], const char *prog);

/**
 * rte_eal_init() with the habits above: on failure a reason on stderr
 * (dt_app_eal_strerror()); on success every --vdev checked
 * (dt_app_eal_check_vdevs(), EAL cleaned up when one is missing).
 *
 * @param argc, argv  as for rte_eal_init()
 * @param prog        the program's name, for the messages
 * @return rte_eal_init()'s result, or -1 when a device is missing
 */
int dt_app_eal_init(int argc, char **argv, const char *prog);

/** Whether the EAL flag @p opt ("--in-memory") is among argv before "--". */
bool dt_app_eal_flag(int argc, char *const argv[], const char *opt);

/**
 * After rte_eal_init(): print the facts a user needs to look inside the
 * running process: the dpdk-telemetry.py command line that reaches this
 * process's telemetry socket (-f PREFIX, and -i N when another process of
 * the same prefix took the first socket name), and whether dpdk-proc-info
 * can attach (not to an --in-memory process).
 *
 * @param prog       the program's name, for the lines
 * @param in_memory  --in-memory was given
 */
void dt_app_eal_print_hints(const char *prog, bool in_memory);

#endif /* DT_APP_EAL_H */
