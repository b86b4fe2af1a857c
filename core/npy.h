/*
 * npy.h - write NumPy .npy files (format version 1.0) for `kbx export`.
 *
 * bf16 has no NumPy dtype: it is widened to float32 exactly, and npy_descr says so.
 */
#ifndef KBX_NPY_H
#define KBX_NPY_H

#include <stddef.h>

#include "dtype.h"
#include "status.h"

/* The NumPy type string written for dt ("<f4", "|b1", ...). */
const char *npy_descr(enum dtype dt);

/* Write n elements of dt at data with the given shape (ndim 0 = a scalar array). */
enum kbx_status npy_write(const char *path, enum dtype dt, const void *data, const long long *shape, int ndim);

#endif
