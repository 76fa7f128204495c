/* SPDX-License-Identifier: BSD-3-Clause */
/* Ethernet/ARP/IPv4/ICMP/TCP formats: being written. */
