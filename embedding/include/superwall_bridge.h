/* superwall-bridge in-process: the same JSON-RPC 2.0 protocol as the executable's stdio,
 * through three C functions. Messages are whole JSON-RPC messages (or batches) in UTF-8,
 * with no framing. See docs/embedding.md. */
#ifndef SUPERWALL_BRIDGE_H
#define SUPERWALL_BRIDGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct superwall_bridge superwall_bridge;

/* Called with each message the bridge sends: one whole JSON-RPC message, `length` bytes, with
 * a NUL after them (not counted). The bytes are valid only during the call. Called from a
 * thread the bridge owns, one message at a time, in order. It may call superwall_bridge_send
 * (which then never waits), but not superwall_bridge_close on its own bridge. A callback that
 * is slow holds the bridge up, as a client slow to read a pipe does. */
typedef void (*superwall_bridge_output)(void *context, const char *message, size_t length);

/* What superwall_bridge_send returns. */
#define SUPERWALL_BRIDGE_TAKEN 0
/* The bridge has ended (after `exit`, or once closed), or this is a child process forked after
 * the bridge was opened (the bridge's threads are in the parent); the message was not taken. */
#define SUPERWALL_BRIDGE_ENDED 1
/* The bridge or the message is NULL. */
#define SUPERWALL_BRIDGE_INVALID_ARGUMENT 2
/* The message is longer than maxMessageSize; it was not taken. */
#define SUPERWALL_BRIDGE_TOO_LARGE 3

/* Starts a bridge. options_json: the command line's serving flags as a JSON object
 * ({"logLevel": "debug", "trace": "/path", "maxMessageSize": 1048576, "maxQueuedOutput": ...,
 * "maxConfigSize": ..., "watch": true}), or NULL for the defaults. output: called with each
 * message the bridge sends (see above), with `context`. On failure: NULL, and a message of at
 * most error_capacity bytes, NUL included, in `error` (when not NULL).
 * Several bridges may be open at once; give each its own `dataDirectory` in `configure`. */
superwall_bridge *superwall_bridge_open(const char *options_json, superwall_bridge_output output,
                                        void *context, char *error, size_t error_capacity);

/* Gives the bridge one whole JSON-RPC message (or batch) of `length` bytes; the bytes are
 * copied. Returns SUPERWALL_BRIDGE_TAKEN, or another code above. Invalid JSON is taken and
 * answered with a JSON-RPC parse error, as over a pipe. Safe from any thread. Like a write to
 * a full pipe, it waits while 64 MiB (maxQueuedOutput) of input are waiting to be read,
 * except when called from the output callback. */
int superwall_bridge_send(superwall_bridge *bridge, const char *message, size_t length);

/* Ends the input (as end of input on stdin does), waits for the bridge to finish (requests in
 * flight get 5 seconds; then every queued message is delivered, for as long as the output
 * callback keeps returning: a slow callback gets them all), frees it, and returns what the process's
 * exit status would be: 0 after `shutdown` and `exit` (or end of input), 1 after an `exit`
 * without `shutdown`. Returns -1, and does nothing, when `bridge` is NULL, when called from
 * the bridge's own output callback, when the bridge is closed already (or another thread is
 * closing it), and in a child process forked after the bridge was opened. Returns 2 when
 * 10 seconds pass with the bridge unfinished and no call of the output callback returning,
 * which only a callback that does not return causes: the bridge is then left running, its
 * memory kept, and the callback is called no more.
 * A closed bridge's handle stays valid for the life of the process, from any thread: send
 * answers SUPERWALL_BRIDGE_ENDED and close -1. Each closed handle keeps 48 bytes for that. */
int superwall_bridge_close(superwall_bridge *bridge);

#ifdef __cplusplus
}
#endif

#endif
