/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON side of devtcp-server's iperf3 consumer (srv_iperf3.c): the
 * members of the client's parameters message the server acts on. A parser
 * of the flat objects cJSON writes, no more.
 */
#ifndef SRV_IPERF3_JSON_H
#define SRV_IPERF3_JSON_H

#include <stdbool.h>

/* What the test asks for (the members of the client's parameters we use). */
struct ip3_params {
	bool tcp, udp, sctp, reverse, bidir;
	long parallel;
	double time;
};

/*
 * The client's parameters: a flat JSON object written by cJSON
 * (send_parameters()); members other than the ones above are skipped.
 * 0, or -EINVAL when it is not an object.
 */
int srv_iperf3_parse_params(const char *p, const char *e,
	struct ip3_params *pr);

#endif /* SRV_IPERF3_JSON_H */
