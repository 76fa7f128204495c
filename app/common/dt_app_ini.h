/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A small INI reader for devtcp's programs (pure C, no EAL).
 *
 * Grammar, one construct per line:
 *  - blank lines, and comments starting with '#' or ';' (also after a value,
 *    when preceded by white space);
 *  - "[section]": names the section of the keys that follow;
 *  - "key = value": white space around key and value is dropped; the value
 *    may be empty.
 * Anything else is a syntax error naming the file and line.
 */
#ifndef DT_APP_INI_H
#define DT_APP_INI_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest line accepted, terminating NUL included. */
#define DT_APP_INI_LINE_MAX 512

/**
 * Called for each section header (@p key and @p value NULL) and for each
 * key = value line, with the section it belongs to ("" before the first).
 * Returns 0 to go on, or a negative errno after writing a message to @p err.
 */
typedef int (*dt_app_ini_cb)(void *arg, const char *section, const char *key,
	const char *value, unsigned int line, char *err, size_t errlen);

/**
 * Read @p path and call @p cb for each section and key.
 * @return 0, or a negative errno with a one-line message in @p err that
 *         names the file and line ("file:12: ...").
 */
int dt_app_ini_parse(const char *path, dt_app_ini_cb cb, void *arg,
	char *err, size_t errlen);

/**
 * Read INI text from @p f (its lines named @p path in messages): what
 * dt_app_ini_parse() does once the file is open. @p f stays open.
 */
int dt_app_ini_read(FILE *f, const char *path, dt_app_ini_cb cb, void *arg,
	char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* DT_APP_INI_H */
