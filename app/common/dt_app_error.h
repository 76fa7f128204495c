/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * How devtcp's programs hand a message back to their caller: one struct
 * the caller supplies, with a code and a message, after DPDK's
 * struct rte_flow_error. A function that can say why it failed takes a
 * `struct dt_app_error *` (NULL: the caller wants no message) and returns
 * the same negative errno it stores; everything else returns a negative
 * errno alone. No static buffers: the message lives in the caller's struct.
 */
#ifndef DT_APP_ERROR_H
#define DT_APP_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/** Longest message kept, terminating NUL included (longer ones are cut). */
#define DT_APP_ERROR_MSG_MAX 256

/** Why a call failed, in the caller's memory. */
struct dt_app_error {
	int code;                        /**< negative errno; 0: no error */
	char msg[DT_APP_ERROR_MSG_MAX];  /**< for a person, without a newline */
};

/**
 * Fill @p err (ignored when NULL) with @p code and a printf-style message.
 * @return @p code, so that a failure path reads
 *   `return dt_app_error_set(err, -ENOMEM, "cannot ...: %s", ...);`
 */
int dt_app_error_set(struct dt_app_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif /* DT_APP_ERROR_H */
