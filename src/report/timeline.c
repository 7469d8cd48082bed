// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Perfetto track events through protobuf-c (timeline.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/util.h"
#include "report/timeline.h"
#include "perfetto.pb-c.h"

/* One sequence for all of cgsched's packets (the writer is one thread). */
#define SEQ_ID 1

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int timeline_open(struct timeline *t, const char *path)
{
	int err;

	memset(t, 0, sizeof(*t));
	if ((err = atomic_file_open(&t->f, path, 0644, false)))
		return err;
	t->boot_off = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
	return 0;
}

int timeline_close(struct timeline *t, bool keep)
{
	char path[PATH_MAX];
	int err;

	if (t->f.fd < 0)
		return 0;
	snprintf(path, sizeof(path), "%s", t->f.path);
	/* Kept with the whole packets before a failed write (said when it happened). */
	if ((err = atomic_file_close(&t->f, keep)) && !t->quiet)
		cgs_err("--timeline %s: %s", path, strerror(-err));
	if (!err && t->failed)
		err = t->err ? t->err : -EIO;
	return err;
}

/* The packet as a one-packet Trace: protobuf-c writes the field's tag and length. */
static void emit(struct timeline *t, Cgsched__Perfetto__TracePacket *p)
{
	Cgsched__Perfetto__Trace tr = CGSCHED__PERFETTO__TRACE__INIT;
	Cgsched__Perfetto__TracePacket *one[] = { p };
	uint8_t stack[1024], *buf = stack;

	if (t->failed)
		return;
	p->has_trusted_packet_sequence_id = true;
	p->trusted_packet_sequence_id = SEQ_ID;
	if (!t->packets) { /* the sequence's first: no state from before it to depend on */
		p->has_sequence_flags = p->has_first_packet_on_sequence = true;
		p->sequence_flags = 1; /* SEQ_INCREMENTAL_STATE_CLEARED */
		p->first_packet_on_sequence = true;
	}
	tr.n_packet = 1;
	tr.packet = one;
	size_t len = cgsched__perfetto__trace__get_packed_size(&tr);
	if (len > sizeof(stack) && !(buf = malloc(len))) {
		t->failed = true;
		t->err = -ENOMEM;
		if (!t->quiet)
			cgs_err("--timeline %s: out of memory; the trace ends here", t->f.path);
		return;
	}
	cgsched__perfetto__trace__pack(&tr, buf);
	/* One write per packet: a cut run leaves whole packets. */
	int err = atomic_file_write(&t->f, buf, len);
	if (err) {
		t->failed = true;
		t->err = err;
		if (!t->quiet)
			cgs_err("--timeline %s: %s; the trace ends at its last whole packet", t->f.path, strerror(-err));
		/* Half a packet would make the whole file unreadable: cut it off. */
		if (ftruncate(t->f.fd, t->bytes) && !t->quiet)
			cgs_err("--timeline %s: cannot cut back the half-written packet: %s", t->f.path, strerror(errno));
	}
	if (buf != stack)
		free(buf);
	if (t->failed)
		return;
	t->packets++;
	t->bytes += len;
}

void timeline_track(struct timeline *t, uint64_t uuid, uint64_t parent, const char *name, const char *description,
		    bool counter, const char *unit_name)
{
	Cgsched__Perfetto__TracePacket p = CGSCHED__PERFETTO__TRACE_PACKET__INIT;
	Cgsched__Perfetto__TrackDescriptor d = CGSCHED__PERFETTO__TRACK_DESCRIPTOR__INIT;
	Cgsched__Perfetto__CounterDescriptor c = CGSCHED__PERFETTO__COUNTER_DESCRIPTOR__INIT;

	d.has_uuid = true;
	d.uuid = uuid;
	d.has_parent_uuid = parent != 0;
	d.parent_uuid = parent;
	d.name = (char *)name;
	d.description = (char *)description;
	if (counter) {
		c.unit_name = (char *)unit_name;
		d.counter = &c;
	}
	p.track_descriptor = &d;
	emit(t, &p);
}

static void event(struct timeline *t, uint64_t track, uint64_t ts_ns, Cgsched__Perfetto__TrackEvent *e)
{
	Cgsched__Perfetto__TracePacket p = CGSCHED__PERFETTO__TRACE_PACKET__INIT;

	p.has_timestamp = true;
	p.timestamp = ts_ns + t->boot_off;
	e->has_track_uuid = true;
	e->track_uuid = track;
	p.track_event = e;
	emit(t, &p);
}

void timeline_slice(struct timeline *t, uint64_t track, uint64_t start_ns, uint64_t end_ns, const char *name,
		    const struct timeline_arg *args, size_t nargs)
{
	Cgsched__Perfetto__TrackEvent b = CGSCHED__PERFETTO__TRACK_EVENT__INIT, e = CGSCHED__PERFETTO__TRACK_EVENT__INIT;
	Cgsched__Perfetto__DebugAnnotation a[8], *ap[8];

	if (nargs > 8)
		nargs = 8;
	for (size_t i = 0; i < nargs; i++) {
		a[i] = (Cgsched__Perfetto__DebugAnnotation)CGSCHED__PERFETTO__DEBUG_ANNOTATION__INIT;
		a[i].name = (char *)args[i].name;
		if (args[i].str) {
			a[i].string_value = (char *)args[i].str;
		} else {
			a[i].has_int_value = true;
			a[i].int_value = args[i].i;
		}
		ap[i] = &a[i];
	}
	b.has_type = true;
	b.type = CGSCHED__PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
	b.name = (char *)name;
	b.n_debug_annotations = nargs;
	b.debug_annotations = ap;
	event(t, track, start_ns, &b);
	e.has_type = true;
	e.type = CGSCHED__PERFETTO__TRACK_EVENT__TYPE__TYPE_SLICE_END;
	event(t, track, end_ns, &e);
}

void timeline_instant(struct timeline *t, uint64_t track, uint64_t ts_ns, const char *name)
{
	Cgsched__Perfetto__TrackEvent e = CGSCHED__PERFETTO__TRACK_EVENT__INIT;

	e.has_type = true;
	e.type = CGSCHED__PERFETTO__TRACK_EVENT__TYPE__TYPE_INSTANT;
	e.name = (char *)name;
	event(t, track, ts_ns, &e);
}

void timeline_counter(struct timeline *t, uint64_t track, uint64_t ts_ns, double value)
{
	Cgsched__Perfetto__TrackEvent e = CGSCHED__PERFETTO__TRACK_EVENT__INIT;

	e.has_type = true;
	e.type = CGSCHED__PERFETTO__TRACK_EVENT__TYPE__TYPE_COUNTER;
	e.has_double_counter_value = true;
	e.double_counter_value = value;
	event(t, track, ts_ns, &e);
}
