// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The counter list (CGS_CG_COUNTERS, CG_THR_COUNTERS) is the one source of
 * the BPF struct, the snapshot's counters, the JSON keys and the table's
 * columns: each counter, given a value of its own, must come out of every
 * output at the place the list gives it.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "report/json_out.h"
#include "report/record.h"

/* The BPF structs begin with the list's counters, in list order, each a __u64: the hot ones ... */
Test(counters, bpf_structs_follow_the_list)
{
	size_t i = 0;
#define AT(type, field)                                                                             \
	cr_assert_eq(offsetof(struct type, field), i * sizeof(__u64), "%s out of place", #field); \
	cr_assert_eq(sizeof(((struct type *)0)->field), sizeof(__u64));                           \
	i++;
#define HOT(field) AT(cgs_cg_hot, field)
#define SHARD(field) AT(cgs_cg_shard, field)
	CGS_CG_HOT_COUNTERS(HOT)
	cr_assert_eq(offsetof(struct cgs_cg_hot, runq_max), i * sizeof(__u64),
		     "a field between the hot counters and runq_max");
	/* ... and the shard's. */
	i = 0;
	CGS_CG_SHARD_COUNTERS(SHARD)
	cr_assert_eq(offsetof(struct cgs_cg_shard, runq_slots), i * sizeof(__u64),
		     "a field between the shard's counters and runq_slots");
#undef HOT
#undef SHARD
#undef AT
}

/* The snapshot's counters: the list's, in order, then the three histograms. */
Test(counters, snapshot_struct_follows_the_list)
{
	cr_assert_eq(CG_NCOUNTERS, sizeof(cg_counter_defs) / sizeof(cg_counter_defs[0]));
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		cr_assert_eq(cg_counter_defs[i].offset, i * sizeof(uint64_t), "%s out of place",
			     cg_counter_defs[i].field);
		for (size_t j = 0; j < i; j++)
			cr_assert(strcmp(cg_counter_defs[i].field, cg_counter_defs[j].field),
				  "%s twice", cg_counter_defs[i].field);
		/* record's summary has no oncpu_slices object to put one in */
		cr_assert(!(cg_counter_defs[i].json == CGJ_SLICES && cg_counter_defs[i].in_record),
			  "%s: record's summary has no oncpu_slices", cg_counter_defs[i].field);
	}
	cr_assert_eq(offsetof(struct cg_counters, runq_slots), CG_NCOUNTERS * sizeof(uint64_t));
}

/* Counter i is 1000 + i: any mix-up shows. */
static void distinct(struct cg_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < CG_NCOUNTERS; i++)
		*(uint64_t *)((char *)c + cg_counter_defs[i].offset) = 1000 + i;
}

/* The object a counter sits in, in a row or in record's summary (top level). */
static struct json_object *holder(struct json_object *top, enum cg_json where)
{
	const char *name = NULL;
	struct json_object *o = top;

	switch (where) {
	case CGJ_ROW_TIME:
	case CGJ_ROW: break;
	case CGJ_SLICES: name = "oncpu_slices"; break;
	case CGJ_SWITCHES: name = "switches"; break;
	case CGJ_RUNQ: name = "runq"; break;
	case CGJ_THR:
	case CGJ_THR_WAIT: name = "throttle"; break;
	case CGJ_WHY: name = "waited"; break;
	}
	if (name)
		cr_assert(json_object_object_get_ex(top, name, &o), "no object %s", name);
	return o;
}

static uint64_t get_u64(struct json_object *o, const char *key, bool *present)
{
	struct json_object *v;

	*present = json_object_object_get_ex(o, key, &v);
	return *present ? json_object_get_uint64(v) : 0;
}

Test(counters, every_counter_reaches_json)
{
	struct cg_sample s = { .id = 7 };
	struct row row = { .id = 7, .path = "/x", .s = &s };
	struct snapshot d = { .n = 1, .cg = &s };
	struct report r = { .interval_ns = 1000000000ULL, .d = &d, .n = 1, .rows = &row };
	struct record_summary rs = { .ti = { .kernel = "k", .sched_backend = "b", .thr_backend = "t", .ncpus = 1 },
				     .cgroup = "/x", .exit_signal = -1 };
	bool present;

	distinct(&s.c);
	cr_assert_eq(report_why(&r), 0);
	char *text;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	struct jw w;
	jw_init(&w, f, false);
	json_row(&w, &row, false, 1, NULL);
	fclose(f);
	struct json_object *j = json_tokener_parse(text);
	cr_assert_not_null(j, "not JSON: %s", text);
	free(text);
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		const struct cg_counter_def *c = &cg_counter_defs[i];
		uint64_t v = get_u64(holder(j, c->json), c->key, &present);
		cr_assert(present, "row: %s has no key %s", c->field, c->key);
		cr_assert_eq(v, 1000 + i, "row: %s is %llu", c->field, (unsigned long long)v);
	}
	json_object_put(j);

	record_aggregate(&rs, &r);
	record_why(&rs, &r, NULL);
	text = record_json_text(&rs, &len);
	j = json_tokener_parse(text);
	cr_assert_not_null(j, "not JSON: %s", text);
	free(text);
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		const struct cg_counter_def *c = &cg_counter_defs[i];
		if (c->json == CGJ_SLICES)
			continue;
		uint64_t v = get_u64(holder(j, c->json), c->key, &present);
		cr_assert_eq(present, c->in_record, "record: %s %s", c->field,
			     c->in_record ? "missing" : "present though not in_record");
		if (present)
			cr_assert_eq(v, 1000 + i, "record: %s is %llu", c->field, (unsigned long long)v);
	}
	json_object_put(j);
	free(row.why);
}

/* Each column of the list: its title in the header, the counter's value below it. */
Test(counters, every_column_reaches_the_table)
{
	struct cg_sample s = { .id = 7 };
	struct row row = { .id = 7, .path = "/x", .s = &s, .quota_used_pct = -1 };
	struct snapshot d = { .n = 1, .cg = &s };
	struct report r = { .interval_ns = 1000000000ULL, .d = &d, .n = 1, .rows = &row };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	distinct(&s.c);
	report_table(f, &r, 0);
	fclose(f);
	char *nl = strchr(buf, '\n');
	cr_assert_not_null(nl);
	*nl = 0;
	const char *line = nl + 1;
	int ncol = 0;
	for (size_t i = 0; i < CG_NCOUNTERS; i++) {
		const struct cg_counter_def *c = &cg_counter_defs[i];
		if (!c->column)
			continue;
		ncol++;
		const char *t = strstr(buf, c->column);
		cr_assert_not_null(t, "no column %s in: %s", c->column, buf);
		/* Right-aligned: the value ends where the title ends. */
		size_t end = (size_t)(t - buf) + strlen(c->column);
		char want[32];
		int wl = snprintf(want, sizeof(want), "%llu", 1000ULL + i);
		cr_assert(strlen(line) >= end && !strncmp(line + end - wl, want, wl),
			  "column %s does not show %s: %s", c->column, want, line);
	}
	cr_assert(ncol > 0);
	free(buf);
}

/* cg_hot's packed maximum (cgsched.h): read by its epoch, clamped, merged to the later. */
Test(counters, packed_maximum)
{
	__u64 m[2] = { 0, 0 }, d[2] = { 0, 0 };

	m[5 & 1] = CGS_PMAX_TAG(5) | 1234;
	cr_assert_eq(cgs_pmax_of(m, 5), 1234);
	cr_assert_eq(cgs_pmax_of(m, 7), 0, "another epoch of the same parity reads nothing");
	cr_assert_eq(cgs_pmax_of(m, 4), 0);
	m[0] = CGS_PMAX_TAG(6) | CGS_PMAX_VMAX;
	cr_assert_eq(cgs_pmax_of(m, 6), CGS_PMAX_VMAX, "the largest value kept whole");
	/* Epoch 2^24 + 5 wraps onto 5's tag: the documented limit. */
	cr_assert_eq(cgs_pmax_of(m, (1ULL << 24) + 5), 1234);
	cgs_pmax_merge(d, m);
	cr_assert_eq(d[1], m[1]);
	__u64 later[2] = { CGS_PMAX_TAG(8) | 1, CGS_PMAX_TAG(5) | 99 }, earlier[2] = { CGS_PMAX_TAG(4) | 9999, 0 };
	cgs_pmax_merge(d, later);
	cr_assert_eq(cgs_pmax_of(d, 8), 1, "the later epoch wins");
	cr_assert_eq(cgs_pmax_of(d, 5), 1234, "the same epoch keeps the larger");
	cgs_pmax_merge(d, earlier);
	cr_assert_eq(cgs_pmax_of(d, 8), 1, "an earlier epoch does not replace a later one");
	/* Across the tag's wrap: 0xffffff then 0 (epoch 2^24). */
	__u64 w[2] = { CGS_PMAX_TAG(0xfffffe) | 3, 0 }, n[2] = { CGS_PMAX_TAG(1ULL << 24) | 2, 0 };
	cgs_pmax_merge(w, n);
	cr_assert_eq(cgs_pmax_of(w, 1ULL << 24), 2, "the wrapped epoch is the later");
}
