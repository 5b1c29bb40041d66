/*
 * The native floor for `make bench`: a newline-delimited JSON-RPC echo server in C on jansson.
 * Blocking read(2) into a growable buffer, one write(2) per reply. Every request is answered
 * with {"jsonrpc":"2.0","id":<id>,"result":<params or {}>}; it exits 0 at end of input.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_all(const char *data, size_t length) {
    while (length > 0) {
        ssize_t written = write(1, data, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += written;
        length -= (size_t)written;
    }
    return 0;
}

static void answer(const char *line, size_t length) {
    json_error_t error;
    json_t *request = json_loadb(line, length, JSON_DECODE_ANY, &error);
    if (!request) return;
    json_t *id = json_object_get(request, "id");
    if (id) {
        json_t *params = json_object_get(request, "params");
        json_t *reply = json_object();
        json_object_set_new(reply, "jsonrpc", json_string("2.0"));
        json_object_set(reply, "id", id);
        json_object_set_new(reply, "result", params ? json_incref(params) : json_object());
        size_t size = json_dumpb(reply, NULL, 0, JSON_COMPACT);
        char *out = malloc(size + 1);
        json_dumpb(reply, out, size, JSON_COMPACT);
        out[size] = '\n';
        write_all(out, size + 1);
        free(out);
        json_decref(reply);
    }
    json_decref(request);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    size_t capacity = 1 << 16, used = 0, scanned = 0;
    char *buffer = malloc(capacity);
    for (;;) {
        if (capacity - used < (1 << 16)) {
            capacity *= 2;
            buffer = realloc(buffer, capacity);
        }
        ssize_t count = read(0, buffer + used, capacity - used);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) break;
        used += (size_t)count;
        size_t start = 0;
        char *newline;
        while ((newline = memchr(buffer + scanned, '\n', used - scanned)) != NULL) {
            size_t end = (size_t)(newline - buffer);
            if (end > start) answer(buffer + start, end - start);
            start = end + 1;
            scanned = start;
        }
        memmove(buffer, buffer + start, used - start);
        used -= start;
        scanned = used;
    }
    if (used > 0) answer(buffer, used);
    free(buffer);
    return 0;
}
