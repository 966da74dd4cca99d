// SPDX-License-Identifier: BSD-2-Clause
// Test helper: J2K_TEST_UNDER_ASAN is 1 in AddressSanitizer builds (CMAKE_BUILD_TYPE=Sanitize),
// whose processes take memory the program does not use: tests that measure memory skip that.
#pragma once
#if defined(__SANITIZE_ADDRESS__)
#define J2K_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define J2K_TEST_UNDER_ASAN 1
#endif
#endif
#ifndef J2K_TEST_UNDER_ASAN
#define J2K_TEST_UNDER_ASAN 0
#endif
