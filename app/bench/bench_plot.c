/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --plot: the PNG of goodput against server stacks, drawn by
 * bench/plot_stacks.py over the run's JSON. The script is looked for in
 * $DEVTCP_PLOT_SCRIPT, next to the executable (a device bundle's bin/),
 * then in the source tree the program was built from.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#ifndef BENCH_PLOT_SCRIPT
#define BENCH_PLOT_SCRIPT "bench/plot_stacks.py"
#endif

extern char **environ;

static int
find_script(char *path, size_t len)
{
	const char *env = getenv("DEVTCP_PLOT_SCRIPT");
	char exe[PATH_MAX - 32];
	ssize_t n;
	char *slash;

	if (env != NULL && env[0] != '\0') {
		snprintf(path, len, "%s", env);
		return access(path, R_OK) == 0 ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			*slash = '\0';
			snprintf(path, len, "%s/plot_stacks.py", exe);
			if (access(path, R_OK) == 0)
				return 0;
		}
	}
	snprintf(path, len, "%s", BENCH_PLOT_SCRIPT);
	return access(path, R_OK) == 0 ? 0 : -ENOENT;
}

/*
 * The environment without LD_LIBRARY_PATH: a device bundle points it at its
 * own libraries, which are for the DPDK programs, not for python3's
 * modules. NULL when out of memory.
 */
static char **
child_env(void)
{
	size_t n = 0, i, k = 0;
	char **e;

	while (environ[n] != NULL)
		n++;
	e = calloc(n + 1, sizeof(*e));
	if (e == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_LIBRARY_PATH=", 16) != 0)
			e[k++] = environ[i];
	return e;
}

int
bench_plot(const char *json_path, const char *png_path)
{
	char script[PATH_MAX];
	char *argv[5], **env;
	pid_t pid;
	int st, rc;

	if (find_script(script, sizeof(script)) != 0) {
		fprintf(stderr, "devtcp-bench: --plot: plot_stacks.py not found (set DEVTCP_PLOT_SCRIPT)\n");
		return -ENOENT;
	}
	argv[0] = (char *)"python3";
	argv[1] = script;
	argv[2] = (char *)json_path;
	argv[3] = (char *)png_path;
	argv[4] = NULL;
	fflush(stdout);
	env = child_env();
	rc = env == NULL ? ENOMEM :
		posix_spawnp(&pid, "python3", NULL, NULL, argv, env);
	free(env);
	if (rc != 0) {
		fprintf(stderr, "devtcp-bench: --plot: cannot run python3: %s\n",
			strerror(rc));
		return -rc;
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "devtcp-bench: --plot: %s failed (status %d): no plot\n",
			script, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -EIO;
	}
	printf("plot: %s\n", png_path);
	return 0;
}
