/* SPDX-License-Identifier: MIT */
/*
 * A main() for a libFuzzer target outside the fuzzing build: every file
 * of the directories given is passed to LLVMFuzzerTestOneInput once, one
 * TAP assertion each (a crash or abort fails the test). So a target's
 * seed corpus runs in the normal suites, under the sanitizers of the
 * build, without clang's libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int i, k, n;

	for (i = 1; i < argc; i++) {
		struct dirent **ents;

		n = scandir(argv[i], &ents, NULL, by_name);
		ok(n > 2, "%s: a seed corpus", argv[i]);
		for (k = 0; k < n; k++) {
			char path[4096];
			FILE *f;
			uint8_t *buf = NULL;
			long len;

			if (ents[k]->d_name[0] == '.') {
				free(ents[k]);
				continue;
			}
			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
			f = fopen(path, "rb");
			if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
			    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
			    fread(buf, 1, (size_t)len, f) == (size_t)len) {
				LLVMFuzzerTestOneInput(buf, (size_t)len);
				ok(1, "%s", ents[k]->d_name);
			} else {
				ok(0, "%s: unreadable", ents[k]->d_name);
			}
			if (f)
				fclose(f);
			free(buf);
			free(ents[k]);
		}
		if (n >= 0)
			free(ents);
	}
	return tap_done();
}
