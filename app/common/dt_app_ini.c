/* SPDX-License-Identifier: BSD-3-Clause */
/* The INI reader (see dt_app_ini.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_app_ini.h"

/* Trim white space at both ends, in place. */
static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

/* Whether the @p n characters at @p s are all white space (or none). */
static bool
blank(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return n == 0;
}

/* Cut a comment that starts a line or follows white space. */
static void
strip_comment(char *s)
{
	char *p;

	for (p = s; *p != '\0'; p++) {
		if ((*p == '#' || *p == ';') &&
				(p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static int
parse_line(char *s, char *section, size_t seclen, const char *path,
	unsigned int line, dt_app_ini_cb cb, void *arg, char *err, size_t errlen)
{
	char *eq, *key, *val;

	strip_comment(s);
	s = trim(s);
	if (*s == '\0')
		return 0;
	if (*s == '[') {
		char *close = strchr(s, ']');

		/* "[]" and "[ ]" name no section: the same error. */
		if (close == NULL || close[1] != '\0' ||
				blank(s + 1, (size_t)(close - s - 1))) {
			snprintf(err, errlen, "%s:%u: malformed section header '%s' "
				"(expected [name])", path, line, s);
			return -EINVAL;
		}
		*close = '\0';
		snprintf(section, seclen, "%s", trim(s + 1));
		return cb(arg, section, NULL, NULL, line, err, errlen);
	}
	eq = strchr(s, '=');
	if (eq == NULL) {
		snprintf(err, errlen, "%s:%u: expected 'key = value' or '[section]', got '%s'",
			path, line, s);
		return -EINVAL;
	}
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (*key == '\0') {
		snprintf(err, errlen, "%s:%u: missing key before '='", path, line);
		return -EINVAL;
	}
	return cb(arg, section, key, val, line, err, errlen);
}

/*
 * A line as read (@p n bytes, its newline included): within the length
 * limit and free of NUL bytes, which would cut it short unseen.
 */
static int
line_check(const char *buf, size_t n, const char *path, unsigned int line,
	char *err, size_t errlen)
{
	size_t len = n > 0 && buf[n - 1] == '\n' ? n - 1 : n;

	if (len > DT_APP_INI_LINE_MAX - 2) {
		snprintf(err, errlen, "%s:%u: line longer than %d characters",
			path, line, DT_APP_INI_LINE_MAX - 2);
		return -EINVAL;
	}
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, "%s:%u: NUL byte in line (not a text file?)",
			path, line);
		return -EINVAL;
	}
	return 0;
}

int
dt_app_ini_read(FILE *f, const char *path, dt_app_ini_cb cb, void *arg,
	char *err, size_t errlen)
{
	char section[DT_APP_INI_LINE_MAX] = "", *buf = NULL;
	unsigned int line = 0;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	while (rc == 0 && (n = getline(&buf, &cap, f)) >= 0) {
		line++;
		rc = line_check(buf, (size_t)n, path, line, err, errlen);
		if (rc == 0)
			rc = parse_line(buf, section, sizeof(section), path, line,
				cb, arg, err, errlen);
	}
	free(buf);
	if (rc == 0 && ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
	return rc;
}

int
dt_app_ini_parse(const char *path, dt_app_ini_cb cb, void *arg,
	char *err, size_t errlen)
{
	FILE *f;
	int rc;

	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	rc = dt_app_ini_read(f, path, cb, arg, err, errlen);
	fclose(f);
	return rc;
}
