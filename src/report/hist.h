/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* log2 histograms: slot maths, percentiles, and bcc's runqlat layout. */
#ifndef CGS_HIST_H
#define CGS_HIST_H

#include <stdint.h>
#include <stdio.h>

/* Slot of a value: 0 for 0..1, floor(log2(v)) above (as the BPF side). */
unsigned hist_slot(uint64_t v, unsigned nslots);
/* Smallest and largest value a slot counts: slot 0 is 0..1, slot i 2^i..2^(i+1)-1. */
uint64_t hist_slot_low(unsigned i);
uint64_t hist_slot_high(unsigned i);
uint64_t hist_total(const uint64_t *slots, unsigned n);
/*
 * The p-th percentile (0 < p <= 100) in the histogram's unit, interpolated
 * linearly inside the slot where it falls. If max > 0, the exact maximum
 * is known separately, and the result is capped at it. Returns 0 for an
 * empty histogram.
 */
double hist_percentile(const uint64_t *slots, unsigned n, double p, double max);
/* bcc's print_log2_hist layout: header, rows, 40-character bars, trailing empty slots cut. */
void hist_print(FILE *f, const uint64_t *slots, unsigned n, const char *unit);

#endif
