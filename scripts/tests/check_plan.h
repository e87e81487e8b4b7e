/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan of a test program that prints its own checks ("PASS name" /
 * "FAIL name: why", which its script turns into ok / not ok lines).
 *
 * The program declares every check it can report before it starts
 * (plan_add, from the same tables and loop bounds its tests use), so
 * "--plan" prints their number and the script can declare its plan before
 * the program runs.  The count then holds whatever happens on the way:
 * plan_finish() reports each declared check that was never reached (an
 * earlier step failed, or setup died) as failed, and a check reported but
 * not declared, or reported twice, fails too.  Only a crash leaves checks
 * unreported, and the script's plan catches that.
 *
 * For single-file test programs: #include "check_plan.h" next to them.
 */
#ifndef CHECK_PLAN_H
#define CHECK_PLAN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* printf checking, under the name the kernel uses for it */
#ifndef __printf
#define gcc_attribute	__attribute__
#define __printf(a, b)	gcc_attribute((format(printf, a, b)))
#endif

#define PLAN_MAX	256
#define PLAN_NAME	160

static char plan_names[PLAN_MAX][PLAN_NAME];
static bool plan_reported[PLAN_MAX];
static int plan_n;

static int plan_find(const char *name)
{
	int i;

	for (i = 0; i < plan_n; i++)
		if (!strcmp(plan_names[i], name))
			return i;
	return -1;
}

/* A mistake in the program, not in what it tests: stop at once. */
static void plan_bug(const char *what, const char *name)
{
	fprintf(stderr, "check plan: %s: %s\n", what, name);
	exit(2);
}

static void __printf(1, 2) plan_add(const char *fmt, ...)
{
	char name[PLAN_NAME];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (len < 0 || len >= PLAN_NAME)
		plan_bug("check name too long", name);
	if (plan_n == PLAN_MAX)
		plan_bug("more checks than PLAN_MAX", name);
	if (plan_find(name) >= 0)
		plan_bug("check declared twice", name);
	memcpy(plan_names[plan_n++], name, len + 1);
}

/*
 * Print the line of check @name, passed when @why is NULL; returns true
 * when the line is a failure.
 */
static bool plan_report(const char *name, const char *why)
{
	int i = plan_find(name);

	if (i < 0) {
		printf("FAIL %s: not in the check plan (%s)\n", name,
		       why ? why : "passed");
	} else if (plan_reported[i]) {
		printf("FAIL %s: reported twice (%s)\n", name,
		       why ? why : "passed");
	} else {
		plan_reported[i] = true;
		if (why)
			printf("FAIL %s: %s\n", name, why);
		else
			printf("PASS %s\n", name);
		fflush(stdout);
		return why;
	}
	fflush(stdout);
	return true;
}

/* Fail every check not reported yet, saying why; returns how many. */
static int plan_finish(const char *why)
{
	int i, n = 0;

	for (i = 0; i < plan_n; i++) {
		if (plan_reported[i])
			continue;
		plan_reported[i] = true;
		printf("FAIL %s: not reached (%s)\n", plan_names[i], why);
		n++;
	}
	fflush(stdout);
	return n;
}

#endif /* CHECK_PLAN_H */
