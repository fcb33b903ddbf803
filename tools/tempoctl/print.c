// SPDX-License-Identifier: GPL-2.0
/* tempoctl: the text/JSON print path, see print.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "print.h"

bool json, pretty;

static int depth;
static bool need_comma[32];
static char closer[32];
static bool started;

static void indent(void)
{
	int i;

	if (!pretty)
		return;
	putchar('\n');
	for (i = 0; i < depth; i++)
		fputs("  ", stdout);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Comma, indentation and "key": before a JSON value. */
static void json_key(const char *key)
{
	started = true;
	if (need_comma[depth])
		putchar(',');
	need_comma[depth] = true;
	if (depth)
		indent();
	if (key) {
		json_string(key);
		fputs(pretty ? ": " : ":", stdout);
	}
}

static void json_open(const char *key, char c)
{
	json_key(key);
	putchar(c);
	if (depth < 31)
		depth++;
	need_comma[depth] = false;
	closer[depth] = c == '{' ? '}' : ']';
}

static void json_close(char c)
{
	bool had = need_comma[depth];

	if (depth)
		depth--;
	if (had)
		indent();
	putchar(c);
	if (!depth)
		putchar('\n');
}

void open_object(const char *key)
{
	if (json)
		json_open(key, '{');
}

void close_object(void)
{
	if (json)
		json_close('}');
}

void open_array(const char *key)
{
	if (json)
		json_open(key, '[');
}

void close_array(void)
{
	if (json)
		json_close(']');
}

void print_u64(const char *key, const char *fmt, uint64_t v)
{
	if (json) {
		json_key(key);
		printf("%" PRIu64, v);
	} else if (fmt) {
		printf(fmt, v);
	}
}

void print_s64(const char *key, const char *fmt, int64_t v)
{
	if (json) {
		json_key(key);
		printf("%" PRId64, v);
	} else if (fmt) {
		printf(fmt, v);
	}
}

void print_float(const char *key, const char *fmt, double v)
{
	if (json) {
		json_key(key);
		printf("%.3f", v);
	} else if (fmt) {
		printf(fmt, v);
	}
}

void print_string(const char *key, const char *fmt, const char *s)
{
	if (json) {
		json_key(key);
		json_string(s);
	} else if (fmt) {
		printf(fmt, s);
	}
}

void print_bool(const char *key, const char *fmt, bool v)
{
	if (json) {
		json_key(key);
		fputs(v ? "true" : "false", stdout);
	} else if (fmt) {
		printf(fmt, v ? "yes" : "no");
	}
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void p_err(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (json) {
		while (depth)
			json_close(closer[depth]);
		json_open(NULL, '{');
		print_string("error", NULL, buf);
		json_close('}');
		started = false;
	} else {
		fprintf(stderr, "tempoctl: %s\n", buf);
	}
}

void print_end(void)
{
	fflush(stdout);
}
