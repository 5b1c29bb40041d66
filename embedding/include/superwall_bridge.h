/* superwall-bridge in-process: the same JSON-RPC 2.0 protocol as the executable's stdio,
 * through four C functions (and a fifth, for a launcher). Messages are whole JSON-RPC
 * messages (or batches) in UTF-8, with no framing. See docs/embedding.md. */
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

/* What superwall_bridge_send and superwall_bridge_receive return. */
#define SUPERWALL_BRIDGE_TAKEN 0
/* The bridge has ended (after `exit`, or once closed), or this is a child process forked after
 * the bridge was opened (the bridge's threads are in the parent); the message was not taken. */
#define SUPERWALL_BRIDGE_ENDED 1
/* The bridge or the message is NULL. */
#define SUPERWALL_BRIDGE_INVALID_ARGUMENT 2
/* The message is longer than maxMessageSize; it was not taken. */
#define SUPERWALL_BRIDGE_TOO_LARGE 3
/* superwall_bridge_receive: a message arrived. */
#define SUPERWALL_BRIDGE_RECEIVED 0
/* superwall_bridge_receive: nothing arrived within the timeout. */
#define SUPERWALL_BRIDGE_TIMED_OUT 4
/* superwall_bridge_receive: another thread is receiving from this bridge. */
#define SUPERWALL_BRIDGE_BUSY 5

/* Starts a bridge. options_json: the command line's serving flags as a JSON object
 * ({"logLevel": "debug", "trace": "/path", "maxMessageSize": 1048576, "maxQueuedOutput": ...,
 * "maxConfigSize": ..., "watch": true}), or NULL for the defaults. output: called with each
 * message the bridge sends (see above), with `context`; or NULL, for a host that cannot be
 * called on another thread: it then takes each message with superwall_bridge_receive.
 * On failure: NULL, and a message of at most error_capacity bytes, NUL included, in `error`
 * (when not NULL).
 * Several bridges may be open at once; give each its own `dataDirectory` in `configure`. */
superwall_bridge *superwall_bridge_open(const char *options_json, superwall_bridge_output output,
                                        void *context, char *error, size_t error_capacity);

/* Gives the bridge one whole JSON-RPC message (or batch) of `length` bytes; the bytes are
 * copied. Returns SUPERWALL_BRIDGE_TAKEN, or another code above. Invalid JSON is taken and
 * answered with a JSON-RPC parse error, as over a pipe. Safe from any thread. Like a write to
 * a full pipe, it waits while 64 MiB (maxQueuedOutput) of input are waiting to be read,
 * except when called from the output callback. */
int superwall_bridge_send(superwall_bridge *bridge, const char *message, size_t length);

/* Takes the next message a bridge opened without an output function sends, on the caller's
 * own thread: waits up to timeout_ms milliseconds (0: not at all) and returns
 * SUPERWALL_BRIDGE_RECEIVED with *message pointing at the whole message, *length bytes with a
 * NUL after them (not counted), valid until the same thread's next receive on this bridge,
 * or its close (a message one thread received stays valid while another thread receives);
 * SUPERWALL_BRIDGE_TIMED_OUT when nothing came in time; SUPERWALL_BRIDGE_ENDED once the bridge
 * has finished (after `exit`, or end of input) and everything it sent was received, or once
 * closed; SUPERWALL_BRIDGE_BUSY while another thread is receiving from it;
 * SUPERWALL_BRIDGE_INVALID_ARGUMENT for a NULL argument, a negative timeout, or a bridge opened
 * with an output function. On anything but a message, *message is NULL and *length 0.
 * It sleeps until a message comes, the bridge ends or the timeout passes. Like a pipe, the bridge holds up to maxQueuedOutput bytes unreceived, then waits
 * for the host to receive. Messages not received before close are dropped. */
int superwall_bridge_receive(superwall_bridge *bridge, int timeout_ms, const char **message, size_t *length);

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

/* Runs the superwall-bridge command line (argv[0] first, as main gets it) inside the library:
 * what the packages' small launcher executable does, so the bridge's code ships once. Serving
 * (no subcommand, or `serve`) ends the process when the input does; another subcommand returns
 * 0 when done, or ends the process with its exit status on an error. It reads the process's
 * stdin, writes its stdout and installs signal handlers: a launcher's main, never a host's. */
int superwall_bridge_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
