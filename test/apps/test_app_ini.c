/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the INI reader (app/common/dt_app_ini.c) on text in memory:
 * the grammar's accepted forms, and the inputs fuzz_ini found mis-reported
 * (issue 25): a section name of white space only, a NUL byte in a line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dt_app_ini.h"
#include "dt_test.h"

struct seen {
	char log[512];
};

static int
log_cb(void *arg, const char *section, const char *key, const char *value,
	unsigned int line, char *err, size_t errlen)
{
	struct seen *s = arg;
	size_t n = strlen(s->log);

	snprintf(s->log + n, sizeof(s->log) - n, "%u[%s]%s=%s;", line, section,
		key ? key : "-", value ? value : "-");
	return 0;
}

/* Read @p len bytes of @p text; the result, the message into @p err. */
static int
read_text(const char *text, size_t len, struct seen *s, char *err,
	size_t errlen)
{
	FILE *f = fmemopen((void *)(uintptr_t)text, len, "r");
	int rc;

	if (f == NULL)
		return -errno;
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	rc = dt_app_ini_read(f, "t.ini", log_cb, s, err, errlen);
	fclose(f);
	return rc;
}

static void
test_grammar(void)
{
	static const char text[] = "# c\n k = v ; c\n[ s ]\nx=#y\ne =\n";
	struct seen s;
	char err[256];

	DT_CHECK_EQ(read_text(text, sizeof(text) - 1, &s, err, sizeof(err)), 0);
	DT_CHECK(strcmp(s.log, "2[]k=v;3[s]-=-;4[s]x=#y;5[s]e=;") == 0);
}

/* "[ ]" named the section "" (as before any header): now refused. */
static void
test_blank_section(void)
{
	static const char *const bad[] = { "[]\n", "[ ]\n", "[\f]\nk = v\n" };
	struct seen s;
	char err[256], want[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		DT_CHECK_EQ(read_text(bad[i], strlen(bad[i]), &s, err, sizeof(err)),
			-EINVAL);
		snprintf(want, sizeof(want), "t.ini:1: malformed section header "
			"'%.*s' (expected [name])", (int)strcspn(bad[i], "\n"), bad[i]);
		DT_CHECK(strcmp(err, want) == 0);
		DT_CHECK(s.log[0] == '\0');
	}
}

/* A NUL byte was reported as a line longer than 510 characters. */
static void
test_nul_byte(void)
{
	static const char text[] = "k = v\nx\0y = 1\n";
	struct seen s;
	char err[256];

	DT_CHECK_EQ(read_text(text, sizeof(text) - 1, &s, err, sizeof(err)),
		-EINVAL);
	DT_CHECK(strcmp(err, "t.ini:2: NUL byte in line (not a text file?)") == 0);
	DT_CHECK(strcmp(s.log, "1[]k=v;") == 0);
}

/* The length limit is where it was: 510 characters and the newline. */
static void
test_line_length(void)
{
	char text[600];
	struct seen s;
	char err[256];

	memset(text, 'v', sizeof(text));
	memcpy(text, "k=", 2);
	text[510] = '\n';
	DT_CHECK_EQ(read_text(text, 511, &s, err, sizeof(err)), 0);
	text[510] = 'v';
	text[511] = '\n';
	DT_CHECK_EQ(read_text(text, 512, &s, err, sizeof(err)), -EINVAL);
	DT_CHECK(strcmp(err, "t.ini:1: line longer than 510 characters") == 0);
}

int
main(void)
{
	DT_RUN(test_grammar);
	DT_RUN(test_blank_section);
	DT_RUN(test_nul_byte);
	DT_RUN(test_line_length);
	return dt_test_summary();
}
