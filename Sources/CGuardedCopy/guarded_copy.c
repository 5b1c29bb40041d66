#define _GNU_SOURCE
#include "CGuardedCopy.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

/// The copy in progress on this thread, if any: where its fault returns to.
/* volatile: its stores around the copy must happen where they stand (memcpy does not read it). */
static __thread sigjmp_buf *volatile active_copy;
static struct sigaction previous_action;
static pthread_once_t installed = PTHREAD_ONCE_INIT;

static void on_bus_error(int number, siginfo_t *info, void *context) {
    sigjmp_buf *copy = active_copy;
    if (copy != NULL) {
        active_copy = NULL;
        siglongjmp(*copy, 1);
    }
    if (previous_action.sa_flags & SA_SIGINFO) {
        if (previous_action.sa_sigaction != NULL) { previous_action.sa_sigaction(number, info, context); return; }
    } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
        previous_action.sa_handler(number);
        return;
    }
    /* Not ours and nobody else's: die of it as the process would have. */
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    /* SA_NODEFER: the jump leaves the handler without returning, so the signal must not stay
       blocked afterwards (sigsetjmp below does not save the mask, which costs a system call). */
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_action);
}

int guarded_copy(void *destination, const void *source, size_t length) {
    pthread_once(&installed, install);
    sigjmp_buf copy;
    if (sigsetjmp(copy, 0) != 0) return -1;
    active_copy = &copy;
    __asm__ volatile("" ::: "memory");
    memcpy(destination, source, length);
    __asm__ volatile("" ::: "memory");
    active_copy = NULL;
    return 0;
}
