/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nearest command to a line that did not parse, from the commands' own
 * syntax (each help string up to ": "): words are compared in order; a word
 * that is one of the syntax word's alternatives ("info|stats") or fills a
 * placeholder ("<port_id>", "HDR[,PAYLOAD]") scores 2, a word within two
 * edits of an alternative (a typo) scores 1, and the first word that is
 * neither ends the comparison. The best score wins; nothing under 2 words'
 * worth of agreement is suggested.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define SUGGEST_WORDS 16
#define SUGGEST_WORD_LEN 48

/* Levenshtein distance of two short words, capped at 3. */
static unsigned int
edits(const char *a, const char *b)
{
	unsigned int d[SUGGEST_WORD_LEN + 1][SUGGEST_WORD_LEN + 1];
	size_t n = strlen(a), m = strlen(b), i, j;

	if (n > SUGGEST_WORD_LEN || m > SUGGEST_WORD_LEN)
		return 3;
	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= m; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++)
		for (j = 1; j <= m; j++) {
			unsigned int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;

			d[i][j] = RTE_MIN(sub, RTE_MIN(del, ins));
		}
	return RTE_MIN(d[n][m], 3u);
}

/* Split @p s at blanks into at most SUGGEST_WORDS words. */
static unsigned int
words_of(const char *s, size_t len, char w[][SUGGEST_WORD_LEN + 1])
{
	unsigned int n = 0;
	size_t i = 0, k;

	while (i < len && n < SUGGEST_WORDS) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		for (k = 0; i < len && !isspace((unsigned char)s[i]); i++)
			if (k < SUGGEST_WORD_LEN)
				w[n][k++] = s[i];
		if (k != 0)
			w[n++][k] = '\0';
	}
	return n;
}

/* 2: @p typed is an alternative of @p syn or fills it; 1: a typo; 0: no. */
static unsigned int
word_score(const char *typed, const char *syn)
{
	char alt[SUGGEST_WORD_LEN + 1], *save = NULL, *a;
	unsigned int best = 0;

	/* Placeholders and value syntax take any word. */
	if (strpbrk(syn, "<[,") != NULL || isupper((unsigned char)syn[0]))
		return 2;
	snprintf(alt, sizeof(alt), "%.*s", SUGGEST_WORD_LEN, syn);
	for (a = strtok_r(alt, "|", &save); a != NULL; a = strtok_r(NULL, "|", &save)) {
		if (strcmp(typed, a) == 0)
			return 2;
		if (edits(typed, a) <= (strlen(a) > 3 ? 2u : 1u))
			best = 1;
	}
	return best;
}

static unsigned int
score(char typed[][SUGGEST_WORD_LEN + 1], unsigned int nt, const char *help)
{
	char syn[SUGGEST_WORDS][SUGGEST_WORD_LEN + 1];
	const char *colon = strstr(help, ": ");
	unsigned int ns, i, s = 0, w;

	ns = words_of(help, colon != NULL ? (size_t)(colon - help) : strlen(help),
		syn);
	for (i = 0; i < nt && i < ns; i++) {
		w = word_score(typed[i], syn[i]);
		if (w == 0)
			break;
		s += w;
	}
	return s;
}

void
cli_suggest(struct cmdline *cl, const char *line)
{
	char typed[SUGGEST_WORDS][SUGGEST_WORD_LEN + 1];
	unsigned int nt, i, s, best = 0;
	const char *help = NULL;

	nt = words_of(line, strcspn(line, "\r\n"), typed);
	for (i = 0; nt != 0 && cli_main_ctx[i] != NULL; i++) {
		s = score(typed, nt, cli_main_ctx[i]->help_str);
		if (s > best) {
			best = s;
			help = cli_main_ctx[i]->help_str;
		}
	}
	if (best >= 3)
		cmdline_printf(cl, "  nearest command: %s\n", help);
}
