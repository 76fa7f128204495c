/* SPDX-License-Identifier: BSD-3-Clause */
/* libdevtcp's version, for programs that link it dynamically. */
#include "devtcp_version.h"

const char *
devtcp_version(void)
{
	return DEVTCP_VERSION;
}
