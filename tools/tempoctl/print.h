/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One print path for text and JSON (iproute2's json_print idea): every value
 * is printed once with a key and a text format; -j selects which is used.
 *
 *	open_object(NULL);
 *	print_u64("timers", "timers %" PRIu64 "\n", n);
 *	close_object();
 *
 * In JSON mode objects and arrays nest and commas are placed automatically;
 * in text mode the keys are dropped and the formats printed as they are.
 */
#ifndef TEMPOCTL_PRINT_H
#define TEMPOCTL_PRINT_H

#include <inttypes.h>
#include <stdbool.h>

extern bool json, pretty;

void open_object(const char *key);
void close_object(void);
void open_array(const char *key);
void close_array(void);
void print_u64(const char *key, const char *fmt, uint64_t v);
void print_s64(const char *key, const char *fmt, int64_t v);
void print_float(const char *key, const char *fmt, double v);
void print_string(const char *key, const char *fmt, const char *s);
void print_bool(const char *key, const char *fmt, bool v);
/* Text only (headings, blank lines). */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error: to stderr in text mode, {"error": "..."} in JSON mode. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* End the output (closes the JSON document). */
void print_end(void);

#endif /* TEMPOCTL_PRINT_H */
