#ifndef C_FORK_GUARD_H
#define C_FORK_GUARD_H

#include <stdint.h>

/// How many `fork()`s stand between this process and the one the library was loaded in: 0 in
/// that process, 1 in its child, and so on. A bridge remembers the generation it was opened in;
/// in a child none of its threads exist, so a bridge of an earlier generation refuses its use.
uint64_t fork_guard_generation(void);

/// Registers a descriptor that holds a lock a forked child must not keep (an `flock`, which a
/// child shares with its parent): the child closes it at once, so the lock goes when the parent
/// lets go of it. Returns 0, or -1 when the registry could not grow (the descriptor is then
/// kept by a child, as without the guard).
int fork_guard_hold(int descriptor);

/// Unregisters `descriptor` and closes it, in one step no `fork()` can fall between.
void fork_guard_close(int descriptor);

#endif
