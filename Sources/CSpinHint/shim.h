#ifndef C_SPIN_HINT_H
#define C_SPIN_HINT_H

/// Tells the core the thread is waiting in a loop (x86's `pause`), so a thread watching memory
/// for another's write spends less power and leaves its sibling hyperthread the core.
static inline void spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
