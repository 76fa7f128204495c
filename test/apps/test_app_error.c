/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the programs' caller-supplied error (app/common/
 * dt_app_error.c): the code comes back and is stored, the message is
 * formatted into the caller's struct and cut at its size, a NULL struct is
 * allowed.
 */
#include <errno.h>
#include <string.h>

#include "dt_app_error.h"
#include "dt_test.h"

static void
test_set(void)
{
	struct dt_app_error e = { 0 };

	DT_CHECK_EQ(dt_app_error_set(&e, -ENOBUFS, "conn %u: %s", 7u, "full"),
		-ENOBUFS);
	DT_CHECK_EQ(e.code, -ENOBUFS);
	DT_CHECK(strcmp(e.msg, "conn 7: full") == 0);
}

static void
test_null(void)
{
	DT_CHECK_EQ(dt_app_error_set(NULL, -EINVAL, "nobody reads %d", 1),
		-EINVAL);
}

static void
test_long(void)
{
	struct dt_app_error e;
	char big[2 * DT_APP_ERROR_MSG_MAX];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	DT_CHECK_EQ(dt_app_error_set(&e, -E2BIG, "%s", big), -E2BIG);
	DT_CHECK_EQ(strlen(e.msg), (size_t)DT_APP_ERROR_MSG_MAX - 1);
}

int
main(void)
{
	DT_RUN(test_set);
	DT_RUN(test_null);
	DT_RUN(test_long);
	return dt_test_summary();
}
