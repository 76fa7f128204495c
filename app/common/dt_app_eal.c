/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL start-up habits of the programs (see dt_app_eal.h). */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#include <libgen.h>
#include <sys/stat.h>

#include <rte_dev.h>
#include <rte_errno.h>

#include "dt_app_eal.h"

void
dt_app_eal_help(int argc, char **argv, rte_usage_hook_t hook)
{
	int i;

	rte_set_application_usage_hook(hook);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			break;
	if (i == argc || strcmp(argv[i], "--") == 0)
		return;
	/* EAL parses its options first, prints both usages and exits 0. */
	(void)rte_eal_init(i + 1, argv);
}

/*
 * The value of the @p n-th (from 0) EAL option @p opt, written "--opt=V",
 * "--opt V", "-m V" or "-mV" before any "--"; NULL when there is none.
 */
static const char *
eal_opt(int argc, char *const argv[], const char *opt, int n)
{
	size_t len = strlen(opt);
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], opt, len) != 0)
			continue;
		if (argv[i][len] == '=' && opt[1] == '-' && n-- == 0)
			return argv[i] + len + 1;
		if (argv[i][len] != '\0' && opt[1] != '-' && n-- == 0)
			return argv[i] + len;
		if (argv[i][len] == '\0' && i + 1 < argc && n-- == 0)
			return argv[i + 1];
	}
	return NULL;
}

bool
dt_app_eal_flag(int argc, char *const argv[], const char *opt)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], opt) == 0)
			return true;
	return false;
}

static unsigned long
read_ulong(const char *path)
{
	unsigned long v = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Free and reserved hugepages of every size, from sysfs. */
static void
hugepages_count(unsigned long *free_pages, unsigned long *total)
{
	char path[512];
	glob_t g;
	size_t i;

	*free_pages = 0;
	*total = 0;
	if (glob("/sys/kernel/mm/hugepages/hugepages-*", 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		snprintf(path, sizeof(path), "%s/free_hugepages", g.gl_pathv[i]);
		*free_pages += read_ulong(path);
		snprintf(path, sizeof(path), "%s/nr_hugepages", g.gl_pathv[i]);
		*total += read_ulong(path);
	}
	globfree(&g);
}

/*
 * The pid of the primary process that holds the lock on the shared
 * configuration of --file-prefix @p prefix (EAL's runtime folder: /var/run
 * for root, else $XDG_RUNTIME_DIR or /tmp), 0 when none does.
 */
static pid_t
prefix_holder(const char *prefix)
{
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	const char *base = getenv("XDG_RUNTIME_DIR");
	char path[512];
	int fd;

	if (getuid() == 0 || base == NULL)
		base = getuid() == 0 ? "/var/run" : "/tmp";
	snprintf(path, sizeof(path), "%s/dpdk/%s/config", base, prefix);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (fcntl(fd, F_GETLK, &lk) != 0 || lk.l_type == F_UNLCK)
		lk.l_pid = 0;
	close(fd);
	return lk.l_pid;
}

/* EAL says EACCES both for a missing permission and for no free hugepage. */
static const char *
why_eacces(char *buf, size_t len)
{
	unsigned long free_pages, total;

	if (geteuid() != 0)
		return "permission denied (hugepages and devices need root)";
	hugepages_count(&free_pages, &total);
	if (free_pages != 0)
		return "EAL could not read the hugepage information (its messages "
			"above say why)";
	snprintf(buf, len, "no free hugepage: %lu reserved, %s (grep Huge "
		"/proc/meminfo; other DPDK processes may hold them: stop them, "
		"reserve more in /proc/sys/vm/nr_hugepages, or run with --no-huge)",
		total, total == 0 ? "none reserved" : "all in use");
	return buf;
}

const char *
dt_app_eal_strerror(int argc, char *const argv[], int err, char *buf,
	size_t len)
{
	const char *prefix = eal_opt(argc, argv, "--file-prefix", 0);
	pid_t pid = 0;

	if (!dt_app_eal_flag(argc, argv, "--in-memory"))
		pid = prefix_holder(prefix != NULL ? prefix : "rte");
	if (pid != 0) {
		snprintf(buf, len, "another DPDK primary process (pid %d) runs with "
			"--file-prefix %s: stop it, or give this one its own "
			"--file-prefix NAME or --in-memory", (int)pid,
			prefix != NULL ? prefix : "rte (the default)");
		return buf;
	}
	switch (err) {
	case 0:
		return "EAL gave no reason (its messages above say which step "
			"failed; hugepages: /proc/sys/vm/nr_hugepages and a hugetlbfs "
			"mount, or --in-memory / --no-huge)";
	case ENOMEM:
		return "out of memory (reserve hugepages in /proc/sys/vm/nr_hugepages, "
			"lower -m, or check a hugetlbfs mount at /dev/hugepages)";
	case EALREADY:
		return "EAL already initialised in this process";
	case EACCES:
		return why_eacces(buf, len);
	default:
		return rte_strerror(err);
	}
}

/* Whether the device named @p name was probed by a driver. */
static bool
dev_probed(const char *name)
{
	struct rte_dev_iterator it;
	struct rte_device *dev;
	bool probed = false;

	RTE_DEV_FOREACH(dev, "bus=vdev", &it)
		if (strcmp(rte_dev_name(dev), name) == 0)
			probed = rte_dev_is_probed(dev) != 0;
	return probed;
}

int
dt_app_eal_check_vdevs(int argc, char *const argv[], const char *prog)
{
	const char *mopt = "-m", *mem = eal_opt(argc, argv, mopt, 0);
	const char *v;
	char name[128], hint[256] = "";
	int n, bad = 0;

	if (mem == NULL) {
		mopt = "--socket-mem";
		mem = eal_opt(argc, argv, mopt, 0);
	}
	/* A probe that runs out of memory is the usual cause with a limit. */
	if (mem != NULL)
		snprintf(hint, sizeof(hint), "; with %s %s EAL may have too little "
			"memory for it: raise %s", mopt, mem, mopt);
	for (n = 0; (v = eal_opt(argc, argv, "--vdev", n)) != NULL; n++) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(v, ","), v);
		if (dev_probed(name))
			continue;
		fprintf(stderr, "%s: --vdev %s: its driver failed to start it (EAL's "
			"messages above say why)%s\n", prog, name, hint);
		bad++;
	}
	return bad != 0 ? -ENODEV : 0;
}

int
dt_app_eal_init(int argc, char **argv, const char *prog)
{
	char **given = calloc(argc + 1, sizeof(*given));
	char why[512];
	int rc;

	if (given == NULL)
		return -1;
	/* EAL's getopt reorders argv: keep the order the user wrote. */
	memcpy(given, argv, argc * sizeof(*argv));
	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		fprintf(stderr, "%s: EAL init failed: %s (EAL options go before "
			"'--'; %s --help)\n", prog, dt_app_eal_strerror(argc, given,
			rte_errno, why, sizeof(why)), prog);
	else if (dt_app_eal_check_vdevs(argc, given, prog) != 0) {
		rte_eal_cleanup();
		rc = -1;
	}
	free(given);
	return rc;
}

/* Whether this process has a file descriptor on socket inode @p ino. */
static bool
own_socket(unsigned long ino)
{
	char want[64], link[64], path[300];
	struct dirent *e;
	bool found = false;
	DIR *d = opendir("/proc/self/fd");
	ssize_t n;

	if (d == NULL)
		return false;
	snprintf(want, sizeof(want), "socket:[%lu]", ino);
	while (!found && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = strcmp(link, want) == 0;
		}
	}
	closedir(d);
	return found;
}

/*
 * The path of this process's telemetry socket: EAL names it
 * dpdk_telemetry.v2, or dpdk_telemetry.v2:N when another process of the
 * same prefix has the name, and does not say which; /proc/net/unix and our
 * own descriptors do.
 */
static int
telemetry_path(char *buf, size_t len)
{
	char line[512], path[400];
	unsigned long ino;
	FILE *f = fopen("/proc/net/unix", "r");
	int rc = -ENOENT;

	if (f == NULL)
		return -errno;
	while (rc != 0 && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %399s", &ino,
				path) != 2 || strstr(path, "/dpdk_telemetry.v2") == NULL)
			continue;
		if (own_socket(ino)) {
			snprintf(buf, len, "%s", path);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

void
dt_app_eal_print_hints(const char *prog, bool in_memory)
{
	char path[400], dir[400];
	const char *inst;

	if (telemetry_path(path, sizeof(path)) != 0) {
		printf("%s: telemetry: off (no telemetry socket: --no-telemetry?)\n",
			prog);
	} else {
		snprintf(dir, sizeof(dir), "%s", path);
		inst = strrchr(path, ':');
		printf("%s: telemetry: dpdk-telemetry.py -f %s%s%s (socket %s; "
			"commands /devtcp/stats, /devtcp/conns, /devtcp/devmem, "
			"/ethdev/stats,N)\n", prog, basename(dirname(dir)),
			inst != NULL ? " -i " : "", inst != NULL ? inst + 1 : "", path);
	}
	if (in_memory)
		printf("%s: dpdk-proc-info and dpdk-pdump cannot attach to this "
			"process: they are secondary processes and --in-memory shares "
			"nothing; run with --file-prefix NAME instead to use them\n",
			prog);
	else
		printf("%s: dpdk-proc-info attaches as a secondary process: "
			"dpdk-proc-info --file-prefix %s -d librte_net_hsplit.so "
			"-d librte_gpu_sim.so -- "
			"--stats (README: plugins for stock DPDK tools)\n", prog,
			telemetry_path(path, sizeof(path)) == 0 ?
			basename(dirname(path)) : "rte");
}
