/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames of a test's own making (dp_raw.h). */
#include <string.h>

#include <netinet/in.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dp_raw.h"
#include "dt_net_bytes.h"
#include "dt_net_cksum.h"

int
dp_raw_send(uint16_t port, uint16_t txq, struct rte_mempool *mp,
	const uint8_t dst_mac[6], const uint8_t src_mac[6], uint32_t src_ip,
	uint32_t dst_ip, uint8_t proto, uint16_t dport, uint16_t plen)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint16_t l4 = proto == IPPROTO_TCP ? 20 : 8;
	uint16_t tot = (uint16_t)(20 + l4 + plen), ck;
	uint8_t *p;
	uint32_t pseudo;

	if (m == NULL)
		return -1;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + tot));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -1;
	}
	memset(p, 0, 14u + tot);
	memcpy(p, dst_mac, 6);
	memcpy(p + 6, src_mac, 6);
	p[12] = 0x08;
	p[14] = 0x45;
	p[16] = (uint8_t)(tot >> 8);
	p[17] = (uint8_t)tot;
	p[22] = 64;
	p[23] = proto;
	/* Byte stores: the IPv4 addresses sit at odd 16-bit offsets. */
	dt_net_put_be32(p + 26, src_ip);
	dt_net_put_be32(p + 30, dst_ip);
	ck = dt_net_cksum_finish(dt_net_cksum_add_at(0, p + 14, 20, 0));
	p[24] = (uint8_t)(ck >> 8);
	p[25] = (uint8_t)ck;
	memset(p + 34 + l4, 0xa5, plen);
	if (proto == IPPROTO_ICMP) {
		p[34] = 8;     /* echo request */
		p[38] = 0x12;
		p[41] = 1;
		ck = dt_net_cksum_finish(dt_net_cksum_add_at(0, p + 34, l4 + plen, 0));
		p[36] = (uint8_t)(ck >> 8);
		p[37] = (uint8_t)ck;
	} else {
		p[34] = 0x9c;   /* source port 40000 */
		p[35] = 0x40;
		p[36] = (uint8_t)(dport >> 8);
		p[37] = (uint8_t)dport;
		if (proto == IPPROTO_UDP) {
			p[38] = (uint8_t)((l4 + plen) >> 8);
			p[39] = (uint8_t)(l4 + plen);
		} else {
			p[38 + 3] = 1;        /* seq 1 */
			p[46] = 0x50;         /* data offset 5 */
			p[47] = 0x18;         /* PSH ACK */
			p[48] = 0xff;
		}
		pseudo = dt_net_ipv4_pseudo_sum(src_ip, dst_ip, proto, l4 + plen);
		ck = dt_net_cksum_finish(dt_net_cksum_add_at(pseudo, p + 34,
			l4 + plen, 0));
		if (proto == IPPROTO_UDP) {
			p[40] = (uint8_t)(ck >> 8);
			p[41] = (uint8_t)ck;
		} else {
			p[50] = (uint8_t)(ck >> 8);
			p[51] = (uint8_t)ck;
		}
	}
	if (rte_eth_tx_burst(port, txq, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return -1;
	}
	return 0;
}
