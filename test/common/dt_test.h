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

/**
 * One state per test program; tests are single-threaded by design. A
 * program whose checks span several files builds with -DDT_TEST_STATE_EXTERN
 * and defines dt_test_state in one of them: a static state per file would
 * count each file's checks apart, and dt_test_summary() would see only its
 * own file's.
 */
#ifdef DT_TEST_STATE_EXTERN
extern struct dt_test_state dt_test_state;
#else
static struct dt_test_state dt_test_state;
#endif

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

/*
 * DT_TEST_ONLY=a,b: run only the cases whose name contains a or b (e.g. the
 * GPU-only cases of one feature on a device machine); the others are named
 * as not run, never counted as passed.
 */
static inline int
dt_test_selected(const char *name)
{
	const char *only = getenv("DT_TEST_ONLY"), *p, *e;
	char part[64];
	size_t n;

	if (only == NULL || only[0] == '\0')
		return 1;
	for (p = only; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		n = (size_t)(e - p) < sizeof(part) - 1 ? (size_t)(e - p) :
			sizeof(part) - 1;
		memcpy(part, p, n);
		part[n] = '\0';
		if (n > 0 && strstr(name, part) != NULL)
			return 1;
	}
	return 0;
}

static inline void
dt_test_run(const char *name, void (*fn)(void))
{
	unsigned int before = dt_test_state.failed_checks;

	if (!dt_test_selected(name)) {
		printf("not run %s (DT_TEST_ONLY)\n", name);
		return;
	}
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
	/* A filter that matched nothing tested nothing: not a pass. */
	if (dt_test_state.cases == 0 && !dt_test_selected("")) {
		printf("FAIL: DT_TEST_ONLY=%s matched no case\n",
			getenv("DT_TEST_ONLY"));
		return 1;
	}
	return dt_test_state.failed_cases ? 1 : 0;
}

#endif /* DT_TEST_H */
