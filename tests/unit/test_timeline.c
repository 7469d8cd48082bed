// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The Perfetto writer (report/timeline.c): what it writes, read back with protobuf-c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <glob.h>
#include <unistd.h>

#include "report/timeline.h"
#include "perfetto.pb-c.h"

static Cgsched__Perfetto__Trace *read_back(const char *path, uint8_t **buf)
{
	FILE *f = fopen(path, "rb");
	long n;

	cr_assert(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*buf = malloc(n);
	cr_assert(fread(*buf, 1, n, f) == (size_t)n);
	fclose(f);
	return cgsched__perfetto__trace__unpack(NULL, n, *buf);
}

/* A track, a slice with an argument, a counter: one Trace of their packets, times in BOOTTIME. */
Test(timeline, packets_decode)
{
	char path[] = "/tmp/cgs-timeline-XXXXXX";
	struct timeline t;
	uint8_t *buf;
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd); /* an older file at the name: replaced at close */
	cr_assert_eq(timeline_open(&t, path), 0);
	int64_t off = t.boot_off;
	timeline_track(&t, 7, 0, "cg", "/cg", false, NULL);
	timeline_track(&t, 8, 7, "CPU %", NULL, true, "%");
	struct timeline_arg a[] = { { "behind", "/other", 0 }, { "cpu", NULL, 1 } };
	timeline_slice(&t, 7, 1000, 5000, "waited", a, 2);
	timeline_counter(&t, 8, 6000, 42.5);
	cr_assert_eq(timeline_close(&t, true), 0);

	Cgsched__Perfetto__Trace *tr = read_back(path, &buf);
	unlink(path);
	cr_assert_not_null(tr, "the file is one Trace message");
	cr_assert_eq(tr->n_packet, 5);
	Cgsched__Perfetto__TracePacket **p = tr->packet;
	cr_assert(p[0]->has_first_packet_on_sequence && p[0]->sequence_flags == 1, "the sequence's first packet says so");
	cr_assert_eq(p[0]->trusted_packet_sequence_id, p[4]->trusted_packet_sequence_id);
	cr_assert_str_eq(p[0]->track_descriptor->name, "cg");
	cr_assert(!p[0]->track_descriptor->has_parent_uuid);
	cr_assert_eq(p[1]->track_descriptor->parent_uuid, 7);
	cr_assert_str_eq(p[1]->track_descriptor->counter->unit_name, "%");
	cr_assert_eq(p[2]->track_event->type, CGSCHED__PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN);
	cr_assert_eq(p[2]->timestamp, (uint64_t)(1000 + off));
	cr_assert_str_eq(p[2]->track_event->debug_annotations[0]->string_value, "/other");
	cr_assert_eq(p[2]->track_event->debug_annotations[1]->int_value, 1);
	cr_assert_eq(p[3]->track_event->type, CGSCHED__PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_END);
	cr_assert_eq(p[3]->timestamp, (uint64_t)(5000 + off));
	cr_assert_eq(p[4]->track_event->track_uuid, 8);
	cr_assert_float_eq(p[4]->track_event->double_counter_value, 42.5, 1e-9);
	cgsched__perfetto__trace__free_unpacked(tr, NULL);
	free(buf);
}

/* A path it cannot create: -errno, nothing left; closed without keeping: nothing left either. */
Test(timeline, bad_path_and_discard)
{
	struct timeline t;
	char path[] = "/tmp/cgs-timeline-discard";

	cr_assert_lt(timeline_open(&t, "/nonexistent/dir/x.pftrace"), 0);
	unlink(path);
	cr_assert_eq(timeline_open(&t, path), 0);
	timeline_instant(&t, 1, 1, "x");
	cr_assert_eq(timeline_close(&t, false), 0);
	glob_t g;
	int left = glob("/tmp/.cgs-timeline-discard.new-*", 0, NULL, &g);
	cr_assert(access(path, F_OK) && left == GLOB_NOMATCH, "nothing left behind");
	if (!left)
		globfree(&g);
}
