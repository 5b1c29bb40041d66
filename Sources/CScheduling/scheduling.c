#define _GNU_SOURCE
#include "CScheduling.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* glibc wraps neither call; the layout is the kernel's first version of the structure. */
struct scheduling_attributes {
    uint32_t size;
    uint32_t policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime;
    uint64_t deadline;
    uint64_t period;
};

pid_t scheduling_current_thread(void) {
    return (pid_t)syscall(SYS_gettid);
}

int scheduling_set_normal_with_slice(pid_t thread, uint64_t slice_ns) {
    struct scheduling_attributes attributes;
    memset(&attributes, 0, sizeof attributes);
    attributes.size = sizeof attributes;
    attributes.policy = SCHED_OTHER;
    attributes.runtime = slice_ns;
    if (syscall(SYS_sched_setattr, thread, &attributes, 0) == 0) return 0;
    /* A kernel or sandbox without sched_setattr: the policy alone. */
    struct sched_param parameters = {.sched_priority = 0};
    return sched_setscheduler(thread, SCHED_OTHER, &parameters) == 0 ? 0 : errno;
}

int scheduling_allowed_cpu_count(void) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 1;
    int count = CPU_COUNT(&allowed);
    return count > 0 ? count : 1;
}
