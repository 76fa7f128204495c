/* SPDX-License-Identifier: BSD-3-Clause */
/* The programs' caller-supplied error (dt_app_error.h). */
#include <stdarg.h>
#include <stdio.h>

#include "dt_app_error.h"

int
dt_app_error_set(struct dt_app_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}
