// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: enforce's journal (apply --restore reads any file it is given).
 * What parses must format back to text that parses to the same entries.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "limits/journal.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct journal j, k;
	char err[2 * PATH_MAX], *text, *again;
	size_t len;

	if (!(text = fuzz_text(data, size)))
		return 0;
	if (!journal_parse(text, size, "fuzz.journal", &j, err, sizeof(err))) {
		if ((again = journal_format(&j, &len))) {
			if (journal_parse(again, len, "fuzz.journal", &k, err, sizeof(err)) || k.n != j.n)
				abort();
			for (size_t i = 0; i < j.n; i++)
				if (strcmp(j.e[i].rel, k.e[i].rel) || strcmp(j.e[i].orig, k.e[i].orig) || j.e[i].id != k.e[i].id)
					abort();
			journal_free(&k);
			free(again);
		}
		journal_free(&j);
	}
	free(text);
	return 0;
}
