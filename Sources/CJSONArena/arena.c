#include "CJSONArena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Room for a request of a few kilobytes; a larger text's allocations overflow to malloc. */
#define ARENA_CAPACITY 4096

struct json_arena {
    size_t used;
    _Alignas(16) unsigned char data[ARENA_CAPACITY];
};

/* The arena this thread's jansson calls allocate from and free into, set only around them. */
static _Thread_local json_arena *current;
/* A released arena kept for the thread's next parse, freed when the thread ends. */
static pthread_key_t spare;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static atomic_size_t freed_by_ending_threads;

static int owns(const json_arena *arena, const void *pointer) {
    const unsigned char *byte = pointer;
    return arena && byte >= arena->data && byte < arena->data + ARENA_CAPACITY;
}

static void *arena_malloc(size_t size) {
    json_arena *arena = current;
    size_t rounded = (size + 15) & ~(size_t)15;
    if (arena && rounded <= ARENA_CAPACITY - arena->used) {
        void *pointer = arena->data + arena->used;
        arena->used += rounded;
        return pointer;
    }
    return malloc(size);
}

/* Arena memory goes back with its arena, all at once. */
static void arena_free(void *pointer) {
    if (!owns(current, pointer)) free(pointer);
}

static void free_spare_of_ending_thread(void *arena) {
    free(arena);
    atomic_fetch_add_explicit(&freed_by_ending_threads, 1, memory_order_relaxed);
}

static void install(void) {
    pthread_key_create(&spare, free_spare_of_ending_thread);
    json_set_alloc_funcs(arena_malloc, arena_free);
}

static json_arena *take_arena(void) {
    json_arena *arena = pthread_getspecific(spare);
    if (arena) {
        pthread_setspecific(spare, NULL);
    } else {
        arena = malloc(sizeof *arena);
        if (!arena) return NULL;
    }
    arena->used = 0;
    return arena;
}

static void give_back(json_arena *arena) {
    if (!arena) return;
    if (pthread_getspecific(spare) || pthread_setspecific(spare, arena) != 0) free(arena);
}

size_t json_arena_freed_by_ending_threads(void) {
    return atomic_load_explicit(&freed_by_ending_threads, memory_order_relaxed);
}

json_t *json_arena_loadb(const char *buffer, size_t length, size_t flags, json_error_t *error, json_arena **arena) {
    pthread_once(&installed, install);
    json_arena *fresh = take_arena();
    json_arena *outer = current;
    current = fresh;
    json_t *root = json_loadb(buffer, length, flags, error);
    current = outer;
    if (!root) {
        give_back(fresh);
        fresh = NULL;
    }
    *arena = fresh;
    return root;
}

void json_arena_release(json_t *root, json_arena *arena) {
    json_arena *outer = current;
    current = arena;
    json_decref(root);
    current = outer;
    give_back(arena);
}
