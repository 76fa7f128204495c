/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engine-independent parts of the copy API.
 */
#include <rte_log.h>

#include "dt_copy_private.h"

/*
 * A log type of its own, under devtcp.devmem, because dt_copy is also
 * linked into the software NIC plugin without the rest of lib/devmem.
 */
RTE_LOG_REGISTER(dt_copy_logtype, devtcp.devmem.copy, INFO);

void
dt_copy_engine_destroy(struct dt_copy_engine *ce)
{
	if (ce == NULL)
		return;
	/*
	 * A registered engine would leave a dangling pointer in a table that
	 * drivers read on their fast path; drop it before freeing.
	 */
	if (dt_copy_registry_forget(ce) == 0)
		DT_COPY_LOG(ERR, "engine %s [%p, +%zu) destroyed while still registered; removed it from the registry",
			ce->ops->name, ce->base, ce->len);
	ce->ops->destroy(ce);
}
