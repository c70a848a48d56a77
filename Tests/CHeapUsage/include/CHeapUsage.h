#ifndef CASSETTE_HEAP_USAGE_H
#define CASSETTE_HEAP_USAGE_H

#include <stddef.h>

/// Bytes the allocator has handed out and not taken back (test support only: the memory tests
/// measure leaks with it). Linux: mallinfo2's uordblks + hblkhd; Apple: the default zone's
/// size_in_use; elsewhere 0.
size_t cassette_heap_bytes_in_use(void);

/// The process's peak and current resident set, in bytes; 0, or -1 where the platform gives
/// none. Linux: VmHWM and VmRSS from /proc/self/status; Apple: task_info's resident_size_max and
/// resident_size.
int cassette_resident_set(size_t *peak, size_t *current);

#endif
