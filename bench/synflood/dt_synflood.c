/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A SYN flooder for devtcp's flood benchmark (bench/synflood/run.py): raw
 * IPv4 SYNs with Linux's options (MSS, SACK-permitted, timestamps, window
 * scale) from a range of source addresses and random ports, at a target
 * rate, for a while. Prints one JSON line: SYNs sent, seconds, rate
 * achieved, send errors. Exit 1 when nothing could be sent.
 *
 *   dt-synflood --dst A.B.C.D --dport N --src A.B.C.D [--src-count N]
 *               [--rate SYN/s] [--seconds S] [--seed N]
 *
 * The sources should be addresses whose SYN-ACKs nobody answers (the
 * benchmark adds them to the namespace and drops what comes to them), as
 * with spoofed sources: each SYN then pins a half-open entry or costs a
 * cookie on the listener.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define IP_HLEN 20
#define TCP_HLEN 40	/* 20 + MSS 4, SACK_PERM 2, TS 10, NOP 1, WS 3 */
#define PKT_LEN (IP_HLEN + TCP_HLEN)

struct flood {
	uint32_t dst, src;	/* network order */
	uint32_t src_count;
	uint16_t dport;
	double rate;
	double seconds;
	uint64_t rng;
};

static uint64_t
rng_next(uint64_t *s)
{
	/* xorshift64*: plenty for ports and sequence numbers. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* One SYN from @p src (network order) port @p sport. */
static void
build_syn(const struct flood *f, uint8_t *pkt, uint32_t src, uint16_t sport,
	uint32_t seq, uint32_t tsval)
{
	uint8_t *ip = pkt, *th = pkt + IP_HLEN, *o = th + 20;
	uint8_t ph[12];
	uint32_t s;

	memset(pkt, 0, PKT_LEN);
	ip[0] = 0x45;
	put16(ip + 2, PKT_LEN);
	put16(ip + 4, (uint16_t)seq);
	ip[6] = 0x40;		/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &f->dst, 4);
	put16(ip + 10, fold(sum16(ip, IP_HLEN, 0)));
	put16(th, sport);
	put16(th + 2, f->dport);
	put32(th + 4, seq);
	th[12] = (TCP_HLEN / 4) << 4;
	th[13] = 0x02;		/* SYN */
	put16(th + 14, 64240);
	o[0] = 2; o[1] = 4; put16(o + 2, 1460);
	o[4] = 4; o[5] = 2;
	o[6] = 8; o[7] = 10; put32(o + 8, tsval); put32(o + 12, 0);
	o[16] = 1;
	o[17] = 3; o[18] = 3; o[19] = 7;
	memcpy(ph, &src, 4);
	memcpy(ph + 4, &f->dst, 4);
	ph[8] = 0;
	ph[9] = IPPROTO_TCP;
	put16(ph + 10, TCP_HLEN);
	s = sum16(ph, sizeof(ph), 0);
	put16(th + 16, fold(sum16(th, TCP_HLEN, s)));
}

static int
usage(const char *p)
{
	fprintf(stderr, "usage: %s --dst IP --dport N --src IP [--src-count N] "
		"[--rate SYN/s] [--seconds S] [--seed N]\n", p);
	return 2;
}

static int
parse(int argc, char **argv, struct flood *f)
{
	static const struct option lo[] = {
		{ "dst", 1, 0, 'd' }, { "dport", 1, 0, 'p' },
		{ "src", 1, 0, 's' }, { "src-count", 1, 0, 'n' },
		{ "rate", 1, 0, 'r' }, { "seconds", 1, 0, 't' },
		{ "seed", 1, 0, 'e' }, { 0, 0, 0, 0 },
	};
	struct in_addr a;
	int c;

	memset(f, 0, sizeof(*f));
	f->src_count = 1;
	f->rate = 1000;
	f->seconds = 5;
	f->rng = 0x9e3779b97f4a7c15ull;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!inet_aton(optarg, &a))
				return -1;
			f->dst = a.s_addr;
			break;
		case 's':
			if (!inet_aton(optarg, &a))
				return -1;
			f->src = a.s_addr;
			break;
		case 'p': f->dport = (uint16_t)atoi(optarg); break;
		case 'n': f->src_count = (uint32_t)atoi(optarg); break;
		case 'r': f->rate = atof(optarg); break;
		case 't': f->seconds = atof(optarg); break;
		case 'e': f->rng = strtoull(optarg, NULL, 0) | 1; break;
		default: return -1;
		}
	}
	if (f->dst == 0 || f->src == 0 || f->dport == 0 || f->rate <= 0 ||
			f->seconds <= 0 || f->src_count == 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static uint8_t pkts[BATCH][PKT_LEN];
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in to;
	struct flood f;
	uint64_t sent = 0, errors = 0, due;
	double t0, t, end;
	int fd, i, n, one = 1;
	uint32_t src;
	int last_errno = 0;

	if (parse(argc, argv, &f) != 0)
		return usage(argv[0]);
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one,
			sizeof(one)) < 0) {
		perror("raw socket (needs root)");
		return 1;
	}
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = f.dst;
	memset(msg, 0, sizeof(msg));
	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = pkts[i];
		iov[i].iov_len = PKT_LEN;
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
		msg[i].msg_hdr.msg_name = &to;
		msg[i].msg_hdr.msg_namelen = sizeof(to);
	}
	t0 = now_s();
	end = t0 + f.seconds;
	for (;;) {
		t = now_s();
		if (t >= end)
			break;
		/* SYNs owed by now at the target rate, a batch at most. */
		due = (uint64_t)((t - t0) * f.rate);
		if (due <= sent) {
			usleep(200);
			continue;
		}
		n = due - sent > BATCH ? BATCH : (int)(due - sent);
		for (i = 0; i < n; i++) {
			uint64_t r = rng_next(&f.rng);

			src = htonl(ntohl(f.src) + (uint32_t)(r % f.src_count));
			build_syn(&f, pkts[i], src,
				(uint16_t)(1024 + (r >> 16) % 64000),
				(uint32_t)(r >> 32), (uint32_t)(t * 1000));
		}
		i = sendmmsg(fd, msg, (unsigned int)n, 0);
		if (i < 0) {
			last_errno = errno;
			errors += (uint64_t)n;
			/* Count them as sent for pacing: do not burst later. */
			sent += (uint64_t)n;
			continue;
		}
		sent += (uint64_t)n;
		errors += (uint64_t)(n - i);
	}
	t = now_s() - t0;
	printf("{\"sent\": %llu, \"errors\": %llu, \"seconds\": %.3f, "
		"\"rate\": %.0f, \"target_rate\": %.0f, \"last_error\": \"%s\"}\n",
		(unsigned long long)(sent - errors),
		(unsigned long long)errors, t, (sent - errors) / t, f.rate,
		last_errno ? strerror(last_errno) : "");
	close(fd);
	return sent > errors ? 0 : 1;
}
