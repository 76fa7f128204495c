/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devtcp-cli's one context. cmdline callbacks carry no pointer of the
 * application's, so the command modules reach the context, which main()
 * owns on its stack, through here; nothing else of the console is global.
 */
#include <stddef.h>

#include "cli.h"

static struct cli_ctx *cli_the_ctx;

struct cli_ctx *
cli_ctx_get(void)
{
	return cli_the_ctx;
}

void
cli_ctx_set(struct cli_ctx *ctx)
{
	cli_the_ctx = ctx;
}
