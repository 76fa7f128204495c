/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target over the INI reader (app/common/dt_app_ini.c) that
 * devtcp-server, devtcp-bench and the NCCL plugin read their
 * configuration with.
 *
 * Input: byte 0: the line whose callback fails (0: none), then the text,
 * read through dt_app_ini_read() from memory (fmemopen). Beyond memory
 * safety, the reader is judged on its grammar (dt_app_ini.h): a section
 * header gives a non-empty name, trimmed, and no key; a key line gives a
 * non-empty key without '=', both trimmed, the value without a comment;
 * every key belongs to the last section given; lines only go forward; a
 * failure (its own or the callback's) returns a negative errno with a
 * message that names the file (a line called too long is), and stops the
 * reading there. A broken
 * property abort()s.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_app_ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_NAME "fuzz_ini"
#include "fuzz_check.h"

#define FZ_PATH "fuzz.ini"

struct fz_state {
	unsigned int fail_line;      /* the callback fails there (0: never) */
	unsigned int last_line;
	bool failed;                 /* the callback failed: no more calls */
	char section[DT_APP_INI_LINE_MAX];
};

static bool
trimmed(const char *s)
{
	size_t n = strlen(s);

	return n == 0 || (!isspace((unsigned char)s[0]) &&
		!isspace((unsigned char)s[n - 1]));
}

/*
 * No comment left in: '#' or ';' after white space. (At the start of a
 * value it followed '=' directly: part of the value.)
 */
static bool
no_comment(const char *s)
{
	const char *p;

	for (p = s; *p != '\0'; p++)
		if ((*p == '#' || *p == ';') && p > s &&
				isspace((unsigned char)p[-1]))
			return false;
	return true;
}

static int
fz_cb(void *arg, const char *section, const char *key, const char *value,
	unsigned int line, char *err, size_t errlen)
{
	struct fz_state *st = arg;

	FZ_CHECK(!st->failed);
	FZ_CHECK(line > st->last_line);
	st->last_line = line;
	FZ_CHECK(section != NULL && strlen(section) < DT_APP_INI_LINE_MAX);
	FZ_CHECK(strchr(section, '\n') == NULL);
	if (key == NULL) {
		FZ_CHECK(value == NULL);
		FZ_CHECK(section[0] != '\0' && trimmed(section));
		snprintf(st->section, sizeof(st->section), "%s", section);
	} else {
		FZ_CHECK(value != NULL);
		FZ_CHECK(strcmp(section, st->section) == 0);
		FZ_CHECK(key[0] != '\0' && trimmed(key) && trimmed(value));
		FZ_CHECK(strchr(key, '=') == NULL && strchr(key, '\n') == NULL);
		FZ_CHECK(strchr(value, '\n') == NULL);
		FZ_CHECK(no_comment(key) && no_comment(value));
	}
	if (line == st->fail_line) {
		st->failed = true;
		snprintf(err, errlen, FZ_PATH ":%u: refused by the callback", line);
		return -ERANGE;
	}
	return 0;
}

/* Length of line @p n (1-based) of the text, its newline not counted. */
static size_t
line_len(const uint8_t *p, size_t size, unsigned int n)
{
	const uint8_t *e, *end = p + size;

	while (--n > 0) {
		e = memchr(p, '\n', (size_t)(end - p));
		FZ_CHECK(e != NULL);
		p = e + 1;
	}
	e = memchr(p, '\n', (size_t)(end - p));
	return (size_t)((e != NULL ? e : end) - p);
}

/* A "line longer than" error is about a line that is. */
static void
check_long(const char *err, const uint8_t *text, size_t size)
{
	unsigned int n;
	int used = 0;

	if (sscanf(err, FZ_PATH ":%u: line longer than%n", &n, &used) != 1 ||
			used == 0)
		return;
	FZ_CHECK(line_len(text, size, n) > DT_APP_INI_LINE_MAX - 2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_state st;
	char err[256];
	FILE *f;
	int rc;

	if (size < 2)
		return 0;
	memset(&st, 0, sizeof(st));
	st.fail_line = data[0];
	/* fmemopen reads the bytes in place: a copy it may not outlive. */
	f = fmemopen((void *)(uintptr_t)(data + 1), size - 1, "r");
	FZ_CHECK(f != NULL);
	memset(err, 0, sizeof(err));
	rc = dt_app_ini_read(f, FZ_PATH, fz_cb, &st, err, sizeof(err));
	fclose(f);
	FZ_CHECK(rc <= 0);
	if (st.failed)
		FZ_CHECK(rc == -ERANGE);
	if (rc != 0) {
		FZ_CHECK(strncmp(err, FZ_PATH, strlen(FZ_PATH)) == 0);
		FZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		check_long(err, data + 1, size - 1);
	}
	return 0;
}
