#ifndef C_JSON_ARENA_H
#define C_JSON_ARENA_H

#include <jansson.h>

/* jansson's allocations for one parsed text come from a block of their own: a request of a
 * few hundred bytes makes some thirty values, keys and lexer buffers, and malloc and free of
 * each cost more than the parse itself. Allocations that do not fit go to malloc. */
typedef struct json_arena json_arena;

/* json_loadb with the tree's allocations in a new arena, returned through `arena` (NULL
 * when the parse fails). Release the tree with json_arena_release, never json_decref. */
json_t *json_arena_loadb(const char *buffer, size_t length, size_t flags, json_error_t *error, json_arena **arena);

/* Drops `root` and the arena it was parsed into; from any thread. */
void json_arena_release(json_t *root, json_arena *arena);

/* How many blocks were freed as the thread that kept them ended: a thread that parsed or
 * released a tree keeps one block for its next parse, until it ends. */
size_t json_arena_freed_by_ending_threads(void);

#endif
