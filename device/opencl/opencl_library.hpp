// SPDX-License-Identifier: BSD-2-Clause
// The OpenCL ICD loader (libOpenCL.so.1), opened on first use instead of linked: a j2kfront
// built with the OpenCL backend starts, and runs its other backends, on a machine without
// OpenCL, where the backend then reports itself unavailable, naming the missing library.
// Every OpenCL call of the backend goes through cl().
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

// The OpenCL 1.2 entry points the backend, its tests and its benchmark call.
#define J2K_OPENCL_FUNCTIONS(X)                                                                     \
  X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext) \
  X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clCreateProgramWithSource) X(clBuildProgram)   \
  X(clGetProgramBuildInfo) X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel)                 \
  X(clSetKernelArg) X(clCreateBuffer) X(clReleaseMemObject) X(clEnqueueWriteBuffer)                 \
  X(clEnqueueReadBuffer) X(clEnqueueReadBufferRect) X(clEnqueueCopyBuffer) X(clEnqueueCopyBufferRect)                         \
  X(clEnqueueNDRangeKernel) X(clFinish) X(clWaitForEvents) X(clReleaseEvent)                        \
  X(clGetEventProfilingInfo) X(clGetCommandQueueInfo) X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject)

namespace j2k::ocl {

struct Library {
#define J2K_OPENCL_POINTER(name) decltype(&::name) name = nullptr;
  J2K_OPENCL_FUNCTIONS(J2K_OPENCL_POINTER)
#undef J2K_OPENCL_POINTER
};

// The loader's functions, opened once per process; nullptr when the loader cannot be opened
// or lacks a function, with *why (when given) saying which.
const Library* library(std::string* why = nullptr);

// The same, or Error(BackendUnavailable) naming the reason.
const Library& cl();

}  // namespace j2k::ocl
