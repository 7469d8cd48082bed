// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <math.h>

#include "report/hist.h"

unsigned hist_slot(uint64_t v, unsigned nslots)
{
	unsigned s = v ? 63 - __builtin_clzll(v) : 0;

	return s < nslots ? s : nslots - 1;
}

uint64_t hist_slot_low(unsigned i)
{
	return i ? 1ULL << i : 0;
}

uint64_t hist_slot_high(unsigned i)
{
	return (1ULL << (i + 1)) - 1;
}

uint64_t hist_total(const uint64_t *slots, unsigned n)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < n; i++)
		t += slots[i];
	return t;
}

double hist_percentile(const uint64_t *slots, unsigned n, double p, double max)
{
	uint64_t total = hist_total(slots, n), seen = 0;
	double target;

	if (!total || p <= 0)
		return 0;
	if (p > 100)
		p = 100;
	target = ceil(total * p / 100.0);
	for (unsigned i = 0; i < n; i++) {
		if (!slots[i])
			continue;
		if (seen + slots[i] >= target) {
			double lo = hist_slot_low(i), hi = hist_slot_high(i) + 1;
			double v = lo + (hi - lo) * (target - seen) / slots[i];
			return max > 0 && v > max ? max : v;
		}
		seen += slots[i];
	}
	return max;
}

static void bar(FILE *f, uint64_t v, uint64_t vmax, int width)
{
	int stars = vmax ? (int)(v * width / vmax) : 0;

	for (int i = 0; i < width; i++)
		fputc(i < stars ? '*' : ' ', f);
}

void hist_print(FILE *f, const uint64_t *slots, unsigned n, const char *unit)
{
	int last = -1;
	uint64_t vmax = 0;

	for (unsigned i = 0; i < n; i++) {
		if (slots[i])
			last = i;
		if (slots[i] > vmax)
			vmax = slots[i];
	}
	if (last < 0)
		return;
	/* bcc widens the columns past slot 32; our 32 slots never get there. */
	fprintf(f, "%5s%-19s : count    distribution\n", "", unit);
	for (int i = 0; i <= last; i++) {
		fprintf(f, "%10llu -> %-10llu : %-8llu |", (unsigned long long)hist_slot_low(i),
			(unsigned long long)hist_slot_high(i), (unsigned long long)slots[i]);
		bar(f, slots[i], vmax, 40);
		fputs("|\n", f);
	}
}
