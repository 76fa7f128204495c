/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL start-up habits of the programs (see dt_app_eal.h). */
#include <errno.h>
#include <string.h>

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

const char *
dt_app_eal_strerror(int err)
{
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
		return "permission denied (hugepages and devices need root)";
	default:
		return rte_strerror(err);
	}
}
