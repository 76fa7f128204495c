/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A broken property of a fuzz target: say which, where, and abort() so
 * that libFuzzer keeps the input. Define FZ_NAME (the target's name)
 * before including.
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FZ_CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, FZ_NAME ": %s:%d: property broken: %s\n", \
			__FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif /* FUZZ_CHECK_H */
