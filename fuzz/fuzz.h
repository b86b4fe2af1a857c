/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point and a NUL-terminated copy of
 * the input, since every parser under test takes a C string.
 *
 * Each target defines LLVMFuzzerTestOneInput and frees everything it allocates, so that a leak
 * is a finding. replay.c calls the same entry point on files, for builds without libFuzzer.
 */
#ifndef KBX_FUZZ_H
#define KBX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A copy of data with a NUL after it; an embedded NUL ends the string early, as it would for a
 * caller that read a file into a C string. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	return xstrndup((const char *)data, size);
}

#endif
