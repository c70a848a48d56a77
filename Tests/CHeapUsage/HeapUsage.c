#include "CHeapUsage.h"

#if defined(__linux__)
#include <malloc.h>
#include <stdio.h>
#include <string.h>
size_t cassette_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

int cassette_resident_set(size_t *peak, size_t *current) {
    // proc(5): VmHWM (peak) and VmRSS (current), in kB, in /proc/self/status.
    FILE *status = fopen("/proc/self/status", "r");
    if (status == NULL) return -1;
    char line[256];
    size_t kilobytes;
    int found = 0;
    while (fgets(line, sizeof line, status) != NULL) {
        if (sscanf(line, "VmHWM: %zu kB", &kilobytes) == 1) { *peak = kilobytes * 1024; found |= 1; }
        if (sscanf(line, "VmRSS: %zu kB", &kilobytes) == 1) { *current = kilobytes * 1024; found |= 2; }
    }
    fclose(status);
    return found == 3 ? 0 : -1;
}
#elif defined(__APPLE__)
#include <mach/mach.h>
#include <malloc/malloc.h>
size_t cassette_heap_bytes_in_use(void) {
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return statistics.size_in_use;
}

int cassette_resident_set(size_t *peak, size_t *current) {
    // task_info(MACH_TASK_BASIC_INFO): resident_size_max (peak) and resident_size, in bytes.
    struct mach_task_basic_info info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS) return -1;
    *peak = (size_t)info.resident_size_max;
    *current = (size_t)info.resident_size;
    return 0;
}
#else
size_t cassette_heap_bytes_in_use(void) { return 0; }
int cassette_resident_set(size_t *peak, size_t *current) { return -1; }
#endif
