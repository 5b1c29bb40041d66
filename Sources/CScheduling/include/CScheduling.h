#ifndef C_SCHEDULING_H
#define C_SCHEDULING_H

#include <stdint.h>
#include <sys/types.h>

/// The calling thread's kernel id.
pid_t scheduling_current_thread(void);

/// Puts `thread` at normal priority (SCHED_OTHER, nice 0) and asks the scheduler to run it at
/// most `slice_ns` at a time when other threads wait (EEVDF's custom slice, Linux 6.12 and
/// later; earlier kernels take the policy and ignore the slice; where sched_setattr is refused,
/// the policy is set alone). Returns 0, or an errno.
int scheduling_set_normal_with_slice(pid_t thread, uint64_t slice_ns);

/// How many CPUs the calling thread may run on (its affinity mask); 1 when it cannot be read.
int scheduling_allowed_cpu_count(void);

/// Tells the core the thread is waiting in a loop (x86's `pause`), so a thread watching memory
/// for another's write spends less power and leaves its sibling hyperthread the core.
static inline void scheduling_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
