/* SPDX-License-Identifier: BSD-3-Clause */
/* The INI reader (see dt_app_ini.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
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

		if (close == NULL || close[1] != '\0' || close == s + 1) {
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

int
dt_app_ini_parse(const char *path, dt_app_ini_cb cb, void *arg,
	char *err, size_t errlen)
{
	char buf[DT_APP_INI_LINE_MAX], section[DT_APP_INI_LINE_MAX] = "";
	unsigned int line = 0;
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	while (rc == 0 && fgets(buf, sizeof(buf), f) != NULL) {
		line++;
		if (strchr(buf, '\n') == NULL && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line longer than %d characters",
				path, line, DT_APP_INI_LINE_MAX - 2);
			rc = -EINVAL;
			break;
		}
		rc = parse_line(buf, section, sizeof(section), path, line, cb, arg,
			err, errlen);
	}
	if (rc == 0 && ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	}
	fclose(f);
	return rc;
}
