#ifndef CASSETTE_HEAP_USAGE_H
#define CASSETTE_HEAP_USAGE_H

#include <stddef.h>

/// Bytes the allocator has handed out and not taken back (test support only: the memory tests
/// measure leaks with it). Linux: mallinfo2's uordblks + hblkhd; Apple: the default zone's
/// size_in_use; elsewhere 0.
size_t cassette_heap_bytes_in_use(void);

#endif
