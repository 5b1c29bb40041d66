/* Drives two bridges at once in one process through superwall_bridge.h: each configured on
 * the embedded demo with its own data directory and user, answering in order to its own
 * callback; then the misuses the header names, each answered with a code, never a crash: a
 * closed handle used again, two closes racing, and a forked child using its parent's bridge and
 * opening its own.
 * Usage: two_bridges LIBRARY-DIRECTORY-IS-LINKED DATA-DIRECTORY. Exits 0 when every check holds. */
#define _GNU_SOURCE
#include "superwall_bridge.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_MESSAGES = 4096 };

/* What one bridge has sent, in arrival order; its callback appends under the lock. */
typedef struct {
    const char *name;
    superwall_bridge *bridge;
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    char *messages[MAX_MESSAGES];
    int count;
    pthread_t callback_thread;
    int threads_seen; /* 1 when every callback came on one thread, 2 otherwise */
    int echo_from_callback; /* answer the next `echo` request from inside the callback */
    int send_from_callback_result;
} inbox_t;

static int failures = 0;

static void check(int condition, const char *format, ...) {
    if (condition) return;
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "FAILED: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "\n");
    va_end(arguments);
    failures++;
}

static void on_output(void *context, const char *message, size_t length) {
    inbox_t *inbox = context;
    check(message[length] == '\0', "%s: a message not followed by NUL", inbox->name);
    pthread_mutex_lock(&inbox->lock);
    if (inbox->count == 0) {
        inbox->callback_thread = pthread_self();
        inbox->threads_seen = 1;
    } else if (!pthread_equal(inbox->callback_thread, pthread_self())) {
        inbox->threads_seen = 2;
    }
    if (inbox->count < MAX_MESSAGES) inbox->messages[inbox->count++] = strndup(message, length);
    int reenter = inbox->echo_from_callback && strstr(message, "\"id\":\"reentry-1\"") != NULL;
    pthread_cond_broadcast(&inbox->arrived);
    pthread_mutex_unlock(&inbox->lock);
    if (reenter) {
        /* A callback that sends: it must not deadlock, and the answer comes to this callback. */
        const char *next = "{\"jsonrpc\":\"2.0\",\"id\":\"reentry-2\",\"method\":\"$/ping\"}";
        inbox->send_from_callback_result = superwall_bridge_send(inbox->bridge, next, strlen(next));
        inbox->send_from_callback_result |= superwall_bridge_close(inbox->bridge) == -1 ? 0 : 16;
    }
}

/* The first message containing `needle` at or after index `from`, waiting up to 30 s. */
static const char *wait_for(inbox_t *inbox, const char *needle, int *index) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&inbox->lock);
    int scanned = 0;
    const char *found = NULL;
    while (!found) {
        for (; scanned < inbox->count; scanned++) {
            if (strstr(inbox->messages[scanned], needle)) {
                found = inbox->messages[scanned];
                if (index) *index = scanned;
                break;
            }
        }
        if (found) break;
        if (pthread_cond_timedwait(&inbox->arrived, &inbox->lock, &deadline) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&inbox->lock);
    check(found != NULL, "%s: nothing containing %s within 30 s", inbox->name, needle);
    return found ? found : "";
}

static void send_text(inbox_t *inbox, const char *text) {
    int result = superwall_bridge_send(inbox->bridge, text, strlen(text));
    check(result == SUPERWALL_BRIDGE_TAKEN, "%s: send returned %d for %s", inbox->name, result, text);
}

static void request(inbox_t *inbox, const char *id, const char *method, const char *params) {
    char text[2048];
    snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"%s\",\"params\":%s}", id, method,
             params);
    send_text(inbox, text);
}

/* The answer to request `id`. */
static const char *answer(inbox_t *inbox, const char *id) {
    char needle[128];
    snprintf(needle, sizeof needle, "\"id\":\"%s\"", id);
    return wait_for(inbox, needle, NULL);
}

static void open_bridge(inbox_t *inbox, const char *name, const char *options) {
    memset(inbox, 0, sizeof *inbox);
    inbox->name = name;
    pthread_mutex_init(&inbox->lock, NULL);
    pthread_cond_init(&inbox->arrived, NULL);
    char error[256] = "";
    inbox->bridge = superwall_bridge_open(options, on_output, inbox, error, sizeof error);
    check(inbox->bridge != NULL, "%s: open failed: %s", name, error);
    if (!inbox->bridge) exit(1);
}

static void configure(inbox_t *inbox, const char *data_directory, const char *user) {
    request(inbox, "init", "initialize",
            "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"two-bridges\",\"version\":\"1.0\"}}");
    char params[1024];
    snprintf(params, sizeof params,
             "{\"apiKey\":\"pk_two_bridges\",\"options\":{\"configSource\":{\"type\":\"embedded\"},"
             "\"dataDirectory\":\"%s/%s\"}}",
             data_directory, inbox->name);
    request(inbox, "configure", "configure", params);
    snprintf(params, sizeof params, "{\"userId\":\"%s\"}", user);
    request(inbox, "identify", "identify", params);
}

/* A bridge configured with `params` on a data directory another bridge held before it: it
   must open at once. */
static void open_configured(inbox_t *inbox, const char *name, const char *params) {
    open_bridge(inbox, name, NULL);
    request(inbox, "init", "initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"x\",\"version\":\"1\"}}");
    request(inbox, "configure", "configure", params);
    check(strstr(answer(inbox, "configure"), "\"configured\"") != NULL, "%s: the data directory did not open: %s",
          name, answer(inbox, "configure"));
}

static void *close_bridge(void *inbox) {
    return (void *)(intptr_t)superwall_bridge_close(((inbox_t *)inbox)->bridge);
}

int main(int argc, char **argv) {
    const char *data_directory = argc > 1 ? argv[1] : "/tmp/two-bridges";

    /* Options that are not usable: NULL and a message, no crash. */
    char error[256] = "";
    check(superwall_bridge_open("{\"logLevel\":\"loud\"}", on_output, NULL, error, sizeof error) == NULL,
          "a bad logLevel opened a bridge");
    check(strstr(error, "logLevel") != NULL, "the error does not name logLevel: %s", error);
    check(superwall_bridge_open("{\"framing\":\"ndjson\"}", on_output, NULL, error, 16) == NULL &&
              strlen(error) == 15,
          "an unknown option's error was not cut to the capacity: %s", error);
    /* Without an output function, the host receives on its own thread. */
    superwall_bridge *receiving = superwall_bridge_open(NULL, NULL, NULL, error, sizeof error);
    check(receiving != NULL, "a bridge without an output did not open: %s", error);
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"$/ping\"}";
    check(superwall_bridge_send(receiving, ping, strlen(ping)) == SUPERWALL_BRIDGE_TAKEN, "receiving: ping not taken");
    const char *received = NULL;
    size_t received_length = 0;
    check(superwall_bridge_receive(receiving, 30000, &received, &received_length) == SUPERWALL_BRIDGE_RECEIVED &&
              strstr(received, "\"id\":7") != NULL && received[received_length] == '\0',
          "receiving: no answer to the ping");
    check(superwall_bridge_receive(receiving, 0, &received, &received_length) == SUPERWALL_BRIDGE_TIMED_OUT &&
              received == NULL && received_length == 0,
          "receiving: a receive with nothing queued did not time out at once");
    check(superwall_bridge_close(receiving) == 0, "receiving: close did not return 0");
    check(superwall_bridge_receive(receiving, 0, &received, &received_length) == SUPERWALL_BRIDGE_ENDED,
          "receiving: a closed bridge's receive did not answer ENDED");

    inbox_t first, second;
    open_bridge(&first, "first", NULL);
    open_bridge(&second, "second", "{\"logLevel\":\"error\",\"maxMessageSize\":4096}");

    /* Both at once: requests interleaved between the two. */
    configure(&first, data_directory, "alice");
    configure(&second, data_directory, "bob");
    check(strstr(answer(&first, "configure"), "\"configured\"") != NULL, "first: not configured: %s",
          answer(&first, "configure"));
    check(strstr(answer(&second, "configure"), "\"configured\"") != NULL, "second: not configured: %s",
          answer(&second, "configure"));
    /* Requests run concurrently: the user is read once identify has answered. */
    answer(&first, "identify");
    answer(&second, "identify");
    request(&first, "user", "getUserId", "{}");
    request(&second, "user", "getUserId", "{}");
    check(strstr(answer(&first, "user"), "alice") != NULL, "first: user is not alice: %s", answer(&first, "user"));
    check(strstr(answer(&second, "user"), "bob") != NULL, "second: user is not bob: %s", answer(&second, "user"));

    /* A third bridge on the first one's data directory is refused, saying so. */
    inbox_t third;
    open_bridge(&third, "first", NULL);
    third.name = "third";
    request(&third, "init", "initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"x\",\"version\":\"1\"}}");
    char params[1024];
    snprintf(params, sizeof params,
             "{\"apiKey\":\"pk_two_bridges\",\"options\":{\"configSource\":{\"type\":\"embedded\"},"
             "\"dataDirectory\":\"%s/first\"}}",
             data_directory);
    request(&third, "configure", "configure", params);
    const char *shared = answer(&third, "configure");
    check(strstr(shared, "dataDirectoryInUse") && strstr(shared, "another bridge in this process"),
          "third: a shared data directory was not refused: %s", shared);
    check(superwall_bridge_close(third.bridge) == 0, "third: close after end of input is not 0");

    /* Answers in the order of the requests, on one callback thread per bridge. */
    for (int i = 0; i < 200; i++) {
        char id[32];
        snprintf(id, sizeof id, "ping-%d", i);
        request(i % 2 ? &second : &first, id, "$/ping", "{}");
    }
    int last_first = -1, last_second = -1, ordered = 1;
    for (int i = 0; i < 200; i++) {
        char needle[48];
        snprintf(needle, sizeof needle, "\"id\":\"ping-%d\"", i);
        int index = -1;
        wait_for(i % 2 ? &second : &first, needle, &index);
        int *last = i % 2 ? &last_second : &last_first;
        if (index <= *last) ordered = 0;
        *last = index;
    }
    check(ordered, "pings were answered out of order");
    check(first.threads_seen == 1 && second.threads_seen == 1, "a bridge called back on more than one thread");

    /* Misuse: NULL arguments, a message over maxMessageSize, invalid JSON. */
    check(superwall_bridge_send(NULL, "{}", 2) == SUPERWALL_BRIDGE_INVALID_ARGUMENT, "NULL bridge");
    check(superwall_bridge_send(first.bridge, NULL, 2) == SUPERWALL_BRIDGE_INVALID_ARGUMENT, "NULL message");
    char *large = malloc(8192);
    memset(large, ' ', 8192);
    check(superwall_bridge_send(second.bridge, large, 8192) == SUPERWALL_BRIDGE_TOO_LARGE,
          "a message over maxMessageSize was taken");
    check(superwall_bridge_send(first.bridge, large, 8192) == SUPERWALL_BRIDGE_TAKEN,
          "the first bridge (64 MiB limit) refused 8 KiB");
    free(large);
    send_text(&first, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":");
    check(strstr(wait_for(&first, "-32700", NULL), "\"id\":null") != NULL, "invalid JSON: no parse error");

    /* A callback that sends (and tries to close its own bridge) does not deadlock. */
    first.echo_from_callback = 1;
    request(&first, "reentry-1", "$/ping", "{}");
    answer(&first, "reentry-2");
    check(first.send_from_callback_result == SUPERWALL_BRIDGE_TAKEN,
          "send or close from the callback: %d (16: close of its own bridge was not refused)",
          first.send_from_callback_result);

    /* The first bridge ends by shutdown and exit: later sends are refused; close says 0. */
    request(&first, "shutdown", "shutdown", "{}");
    check(strstr(answer(&first, "shutdown"), "\"result\"") != NULL, "shutdown failed: %s", answer(&first, "shutdown"));
    send_text(&first, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    int refused = 0;
    for (int i = 0; i < 3000 && !refused; i++) {
        refused = superwall_bridge_send(first.bridge, "{}", 2) == SUPERWALL_BRIDGE_ENDED;
        if (!refused) nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    check(refused, "a send after exit was not refused");
    int status = superwall_bridge_close(first.bridge);
    check(status == 0, "first: close after shutdown and exit is %d, not 0", status);

    /* A bridge opened after it on its data directory (a host's restart) opens it at once and
       finds its user. */
    inbox_t restarted;
    open_configured(&restarted, "restarted", params);
    request(&restarted, "user", "getUserId", "{}");
    check(strstr(answer(&restarted, "user"), "alice") != NULL, "restarted: user is not alice: %s",
          answer(&restarted, "user"));

    /* A child forked now shares nothing of the bridge: its sends and close are refused at once,
       and it holds no lock on the data directory, so the parent reopens it while the child lives.
       It opens and configures a bridge of its own, as a pre-fork server's worker does, although
       none of the threads its parent's bridges started exist in it. */
    int to_child[2];
    check(pipe(to_child) == 0, "pipe failed");
    pid_t child = fork();
    if (child == 0) {
        close(to_child[1]);
        int code = 0;
        if (superwall_bridge_send(restarted.bridge, "{}", 2) != SUPERWALL_BRIDGE_ENDED) code |= 1;
        if (superwall_bridge_close(restarted.bridge) != -1) code |= 2;
        alarm(60);
        inbox_t own;
        open_bridge(&own, "the forked child's own", NULL);
        char own_params[1024];
        snprintf(own_params, sizeof own_params,
                 "{\"apiKey\":\"pk_two_bridges\",\"options\":{\"configSource\":{\"type\":\"embedded\"},"
                 "\"dataDirectory\":\"%s/forked-child\"}}",
                 data_directory);
        request(&own, "init", "initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"x\",\"version\":\"1\"}}");
        request(&own, "configure", "configure", own_params);
        if (!strstr(answer(&own, "configure"), "\"configured\"")) code |= 4;
        request(&own, "ping", "$/ping", "{}");
        answer(&own, "ping");
        send_text(&own, "{\"jsonrpc\":\"2.0\",\"id\":\"down\",\"method\":\"shutdown\"}");
        answer(&own, "down");
        send_text(&own, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
        if (superwall_bridge_close(own.bridge) != 0) code |= 8;
        char byte;
        while (read(to_child[0], &byte, 1) < 0 && errno == EINTR) {
        }
        _exit(code);
    }
    close(to_child[0]);
    check(superwall_bridge_close(restarted.bridge) == 0, "restarted: close after end of input is not 0");
    inbox_t reopened;
    open_configured(&reopened, "reopened while a forked child lives", params);
    close(to_child[1]);
    int child_status = 0;
    waitpid(child, &child_status, 0);
    check(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
          "the forked child: send not refused (1), close not -1 (2), its own bridge not configured (4) or not "
          "closed with 0 (8): status %d",
          child_status);

    /* A closed handle answers its codes for ever; of two closes at once, one closes. */
    for (int i = 0; i < 3; i++) {
        check(superwall_bridge_send(restarted.bridge, "{}", 2) == SUPERWALL_BRIDGE_ENDED, "send after close is not 1");
        check(superwall_bridge_close(restarted.bridge) == -1, "close after close is not -1");
    }
    pthread_t closers[2];
    int closed[2] = {0, 0};
    for (int i = 0; i < 2; i++) pthread_create(&closers[i], NULL, close_bridge, &reopened);
    for (int i = 0; i < 2; i++) {
        void *result;
        pthread_join(closers[i], &result);
        closed[i] = (int)(intptr_t)result;
    }
    check((closed[0] == 0 && closed[1] == -1) || (closed[0] == -1 && closed[1] == 0),
          "two closes at once answered %d and %d, not 0 and -1", closed[0], closed[1]);

    /* The second still serves; an exit without shutdown closes with 1. */
    request(&second, "after", "$/ping", "{}");
    answer(&second, "after");
    send_text(&second, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    check(superwall_bridge_close(second.bridge) == 1, "second: close after exit without shutdown is not 1");
    check(superwall_bridge_close(NULL) == -1, "close(NULL) is not -1");

    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("two bridges in one process: every check held (%d and %d messages)\n", first.count, second.count);
    return 0;
}
