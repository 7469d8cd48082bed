// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The links attached by hand: sized from their parts, and never written past. */
#include <criterion/criterion.h>

#include "lib/util.h"
#include "trace/tracer.h"

Test(tracer_links, room_for_every_clone_and_both_hooks)
{
	struct tracer t = { 0 };

	/* Three kprobe programs on four clones each, then the two cgroup hooks. */
	cr_assert_geq(ARRAY_SIZE(t.links), 3 * 4 + 2);
	for (int i = 0; i < 3 * 4 + 2; i++)
		cr_assert(tracer_link_add(&t, NULL), "link %d refused", i);
	cr_assert_eq(t.nlinks, 3 * 4 + 2);
	/* A NULL stands in for a link: bpf_link__destroy(NULL) does nothing. */
	while (t.nlinks < (int)ARRAY_SIZE(t.links))
		cr_assert(tracer_link_add(&t, NULL));
	cr_assert_not(tracer_link_add(&t, NULL), "a link past the array was kept");
	cr_assert_eq(t.nlinks, (int)ARRAY_SIZE(t.links), "the count went past the array");
}
