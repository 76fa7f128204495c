/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --json FILE is opened before EAL starts: a path that cannot be written is
 * refused in a second, not discovered after a run of minutes. The file is
 * not truncated until the results are written, and a file the bench created
 * but never wrote (a failed set-up) is removed again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/* --json's value among the program's options (those after "--"), or NULL. */
static const char *
find_json(int argc, char **argv)
{
	const char *path = NULL;
	int i, dd = argc;

	for (i = 1; i < argc; i++) {
		if (dd == argc) {
			if (strcmp(argv[i], "--") == 0)
				dd = i;
			continue;
		}
		/* As getopt_long takes it: the last one wins. */
		if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
			path = argv[++i];
		else if (strncmp(argv[i], "--json=", 7) == 0)
			path = argv[i] + 7;
	}
	return path;
}

int
bench_out_claim(int argc, char **argv, struct bench_out *out)
{
	struct stat st;
	int err;

	*out = (struct bench_out){ .fd = -1 };
	out->path = find_json(argc, argv);
	if (out->path == NULL)
		return 0;
	if (out->path[0] == '\0') {
		fprintf(stderr, "devtcp-bench: --json needs a file name\n");
		return -EINVAL;
	}
	out->created = stat(out->path, &st) != 0;
	out->fd = open(out->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (out->fd < 0) {
		err = errno;
		fprintf(stderr, "devtcp-bench: --json %s: cannot open for writing: %s (nothing was run)\n",
			out->path, strerror(err));
		return -err;
	}
	return 0;
}

void
bench_out_release(struct bench_out *out)
{
	if (out->fd < 0)
		return;
	close(out->fd);
	out->fd = -1;
	if (out->created && !out->written)
		unlink(out->path);
}
