// SPDX-License-Identifier: BSD-2-Clause
/* Loaded with LD_PRELOAD: dlopen fails for the GPU runtimes (the CUDA driver libcuda, the
 * OpenCL ICD loader libOpenCL, NVIDIA's libraries), as on a machine that has none of them.
 * tests/no_gpu_runtimes.sh runs the installed j2kfront under it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

static int hidden(const char* file) {
  return file != NULL && (strstr(file, "libcuda") != NULL || strstr(file, "libOpenCL") != NULL ||
                          strstr(file, "libnvidia") != NULL);
}

void* dlopen(const char* file, int mode) {
  void* (*real)(const char*, int) = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
  if (hidden(file)) return NULL;
  return real(file, mode);
}
