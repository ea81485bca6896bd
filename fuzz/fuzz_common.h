/* What the fuzz harnesses share: the loaders take paths, so each input is written to one file
 * in a private temporary folder (made on first use, removed at exit) and loaded from there. */
#ifndef ISO_FUZZ_COMMON_H
#define ISO_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Write `data` to <temp folder>/input<suffix> and return that path (owned by this file; the
 * same path for every call with the same suffix). Aborts when the file cannot be written: a
 * harness that silently tests nothing would look like a clean run. */
const char *fuzz_write_input(const uint8_t *data, size_t size, const char *suffix);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
