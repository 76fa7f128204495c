/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Minimal test harness shared by devtcp's unit and component tests.
 *
 * A test program is a list of cases; each case runs checks. A failed check
 * prints file:line and the expression and marks the case failed; the program
 * exits 0 when every case passed, 1 when one failed, and 77 (meson's "skipped")
 * when it called DT_TEST_SKIP().
 */
#ifndef DT_TEST_H
#define DT_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#define DT_TEST_EXIT_SKIP 77

struct dt_test_state {
	unsigned int checks;
	unsigned int failed_checks;
	unsigned int cases;
	unsigned int failed_cases;
};

/** One state per test program; tests are single-threaded by design. */
static struct dt_test_state dt_test_state;

#define DT_CHECK(cond) do { \
	dt_test_state.checks++; \
	if (!(cond)) { \
		dt_test_state.failed_checks++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", \
			__FILE__, __LINE__, #cond); \
	} \
} while (0)

#define DT_CHECK_EQ(a, b) do { \
	long long dt_a_ = (long long)(a), dt_b_ = (long long)(b); \
	dt_test_state.checks++; \
	if (dt_a_ != dt_b_) { \
		dt_test_state.failed_checks++; \
		fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", \
			__FILE__, __LINE__, #a, #b, dt_a_, dt_b_); \
	} \
} while (0)

/** Abort the current case when @p cond is false (later checks would be noise). */
#define DT_REQUIRE(cond) do { \
	dt_test_state.checks++; \
	if (!(cond)) { \
		dt_test_state.failed_checks++; \
		fprintf(stderr, "%s:%d: requirement failed: %s\n", \
			__FILE__, __LINE__, #cond); \
		return; \
	} \
} while (0)

#define DT_TEST_SKIP(...) do { \
	printf("SKIP: "); printf(__VA_ARGS__); printf("\n"); \
	exit(DT_TEST_EXIT_SKIP); \
} while (0)

static inline void
dt_test_run(const char *name, void (*fn)(void))
{
	unsigned int before = dt_test_state.failed_checks;

	dt_test_state.cases++;
	fn();
	if (dt_test_state.failed_checks != before) {
		dt_test_state.failed_cases++;
		printf("FAIL %s\n", name);
	} else {
		printf("ok   %s\n", name);
	}
	fflush(stdout);
}

#define DT_RUN(fn) dt_test_run(#fn, fn)

/** Print the summary and return the process exit code. */
static inline int
dt_test_summary(void)
{
	printf("%u cases, %u failed; %u checks, %u failed\n",
		dt_test_state.cases, dt_test_state.failed_cases,
		dt_test_state.checks, dt_test_state.failed_checks);
	return dt_test_state.failed_cases ? 1 : 0;
}

#endif /* DT_TEST_H */
