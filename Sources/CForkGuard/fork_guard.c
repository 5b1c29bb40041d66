#include "CForkGuard.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_once_t installed = PTHREAD_ONCE_INIT;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int *held = NULL;
static size_t held_count = 0;
static size_t held_capacity = 0;
static uint64_t generation = 0;

/* The registry is locked across fork(), so the child finds it whole. */
static void before_fork(void) { pthread_mutex_lock(&registry_lock); }

static void in_parent(void) { pthread_mutex_unlock(&registry_lock); }

/* Only the forking thread lives on in the child: nothing here may wait for another. */
static void in_child(void) {
    for (size_t index = 0; index < held_count; index++) close(held[index]);
    held_count = 0;
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&registry_lock);
}

static void install(void) { pthread_atfork(before_fork, in_parent, in_child); }

uint64_t fork_guard_generation(void) {
    pthread_once(&installed, install);
    return __atomic_load_n(&generation, __ATOMIC_RELAXED);
}

int fork_guard_hold(int descriptor) {
    pthread_once(&installed, install);
    pthread_mutex_lock(&registry_lock);
    int result = 0;
    if (held_count == held_capacity) {
        size_t capacity = held_capacity ? held_capacity * 2 : 16;
        int *grown = realloc(held, capacity * sizeof *held);
        if (grown) {
            held = grown;
            held_capacity = capacity;
        }
    }
    if (held_count < held_capacity) {
        held[held_count++] = descriptor;
    } else {
        result = -1;
    }
    pthread_mutex_unlock(&registry_lock);
    return result;
}

void fork_guard_close(int descriptor) {
    pthread_mutex_lock(&registry_lock);
    for (size_t index = 0; index < held_count; index++) {
        if (held[index] == descriptor) {
            held[index] = held[--held_count];
            break;
        }
    }
    close(descriptor);
    pthread_mutex_unlock(&registry_lock);
}
