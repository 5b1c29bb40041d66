/* B15: the bridge in-process (libsuperwall_bridge.so, through superwall_bridge.h) beside the
 * same build over pipes, in one run: `$/ping` round trips and skipped `register` round trips
 * (p50 of 5,000 after 500 to warm up, nine alternating repetitions of each, the median p50
 * reported), and the resident memory of a process holding one initialized bridge against the
 * executable's at start.
 *
 * The client side is the same C code for both transports, waiting for an answer in one of two
 * ways, each measured on both: it sleeps at once (in read(2) for a pipe, on a condition
 * variable the output callback signals in-process), or it first watches for the answer for up
 * to 200 us, yielding the core, as a client making a synchronous call would (a nonblocking
 * read(2) for a pipe, the queue the callback fills in-process), and then sleeps.
 * In-process is measured twice: through the output callback, and through
 * superwall_bridge_receive on the client's own thread, for hosts that cannot take a callback
 * (sleeping: a receive that may wait; watching: receives that do not wait, then one that may).
 * Usage: inprocess-bench --bridge BINARY --library LIBRARY [--rounds N] */
#define _GNU_SOURCE
#include "superwall_bridge.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef superwall_bridge *(*open_fn)(const char *, superwall_bridge_output, void *, char *, size_t);
typedef int (*send_fn)(superwall_bridge *, const char *, size_t);
typedef int (*close_fn)(superwall_bridge *);
typedef int (*receive_fn)(superwall_bridge *, int, const char **, size_t *);

static open_fn bridge_open;
static send_fn bridge_send;
static close_fn bridge_close;
static receive_fn bridge_receive;

/* One way to reach a bridge: send a message, take the next one it sends (malloc'd). */
typedef struct transport {
    void (*send)(struct transport *, const char *, size_t);
    char *(*receive)(struct transport *);
    /* pipes */
    pid_t pid;
    int to_bridge, from_bridge;
    char buffer[1 << 16];
    size_t used;
    /* in-process */
    superwall_bridge *bridge;
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    char *queue[1024];
    int head;
    atomic_int tail;
    /* how long to watch for an answer before sleeping, in microseconds */
    double watch_us;
} transport_t;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void pipe_send(transport_t *t, const char *text, size_t length) {
    char line[4096];
    memcpy(line, text, length);
    line[length] = '\n';
    size_t done = 0;
    while (done < length + 1) {
        ssize_t n = write(t->to_bridge, line + done, length + 1 - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { perror("write"); exit(1); }
        done += (size_t)n;
    }
}

/* Waits until `fd` is readable: watching first (a poll that does not wait, then the core is
 * yielded), then poll. Each look is a system call; in-process a look is a load from memory, so
 * that client looks between `pause`s instead (library_receive). Each way was the faster of the
 * two for its transport. */
static void pipe_wait(transport_t *t) {
    if (t->watch_us > 0) {
        double deadline = now_us() + t->watch_us;
        do {
            struct pollfd ready = {t->from_bridge, POLLIN, 0};
            if (poll(&ready, 1, 0) > 0) return;
            sched_yield();
        } while (now_us() < deadline);
    }
    struct pollfd ready = {t->from_bridge, POLLIN, 0};
    while (poll(&ready, 1, -1) < 0 && errno == EINTR) {}
}

static char *pipe_receive(transport_t *t) {
    for (;;) {
        char *newline = memchr(t->buffer, '\n', t->used);
        if (newline) {
            size_t length = (size_t)(newline - t->buffer);
            char *message = strndup(t->buffer, length);
            memmove(t->buffer, newline + 1, t->used - length - 1);
            t->used -= length + 1;
            return message;
        }
        pipe_wait(t);
        ssize_t n = read(t->from_bridge, t->buffer + t->used, sizeof t->buffer - t->used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { fprintf(stderr, "the bridge closed its output\n"); exit(1); }
        t->used += (size_t)n;
    }
}

static void spawn(transport_t *t, const char *path) {
    int in[2], out[2];
    if (pipe(in) || pipe(out)) { perror("pipe"); exit(1); }
    t->pid = fork();
    if (t->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    t->to_bridge = in[1];
    t->from_bridge = out[0];
    t->send = pipe_send;
    t->receive = pipe_receive;
}

static void on_output(void *context, const char *message, size_t length) {
    transport_t *t = context;
    char *copy = strndup(message, length);
    pthread_mutex_lock(&t->lock);
    int tail = atomic_load(&t->tail);
    t->queue[tail % 1024] = copy;
    atomic_store(&t->tail, tail + 1);
    pthread_cond_signal(&t->arrived);
    pthread_mutex_unlock(&t->lock);
}

static void library_send(transport_t *t, const char *text, size_t length) {
    if (bridge_send(t->bridge, text, length) != 0) { fprintf(stderr, "send refused\n"); exit(1); }
}

static char *library_receive(transport_t *t) {
    if (t->watch_us > 0 && t->head == atomic_load(&t->tail)) {
        double deadline = now_us() + t->watch_us;
        do {
            for (int i = 0; i < 32 && t->head == atomic_load(&t->tail); i++) __builtin_ia32_pause();
            if (t->head == atomic_load(&t->tail)) sched_yield();
        } while (t->head == atomic_load(&t->tail) && now_us() < deadline);
    }
    pthread_mutex_lock(&t->lock);
    while (t->head == atomic_load(&t->tail)) pthread_cond_wait(&t->arrived, &t->lock);
    char *message = t->queue[t->head++ % 1024];
    pthread_mutex_unlock(&t->lock);
    return message;
}

static void open_library(transport_t *t) {
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->arrived, NULL);
    char error[256];
    t->bridge = bridge_open(NULL, on_output, t, error, sizeof error);
    if (!t->bridge) { fprintf(stderr, "open: %s\n", error); exit(1); }
    t->send = library_send;
    t->receive = library_receive;
}

static char *mailbox_receive(transport_t *t) {
    const char *message = NULL;
    size_t length = 0;
    if (t->watch_us > 0) {
        double deadline = now_us() + t->watch_us;
        do {
            if (bridge_receive(t->bridge, 0, &message, &length) == SUPERWALL_BRIDGE_RECEIVED) return strndup(message, length);
            for (int i = 0; i < 32; i++) __builtin_ia32_pause();
            sched_yield();
        } while (now_us() < deadline);
    }
    int code = bridge_receive(t->bridge, 30000, &message, &length);
    if (code != SUPERWALL_BRIDGE_RECEIVED) { fprintf(stderr, "receive: %d\n", code); exit(1); }
    return strndup(message, length);
}

/* A bridge opened without an output function: the client receives on its own thread. */
static void open_mailbox(transport_t *t) {
    char error[256];
    t->bridge = bridge_open(NULL, NULL, NULL, error, sizeof error);
    if (!t->bridge) { fprintf(stderr, "open: %s\n", error); exit(1); }
    t->send = library_send;
    t->receive = mailbox_receive;
}

/* Sends a request and returns its answer, setting aside what comes before it. */
static char *call(transport_t *t, const char *id, const char *method, const char *params) {
    char text[2048];
    int length = snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"%s\",\"params\":%s}",
                          id, method, params);
    t->send(t, text, (size_t)length);
    char needle[80];
    snprintf(needle, sizeof needle, "\"id\":\"%s\"", id);
    for (;;) {
        char *message = t->receive(t);
        if (strstr(message, needle) && !strstr(message, "\"method\"")) return message;
        free(message);
    }
}

static void prepare(transport_t *t, const char *directory) {
    free(call(t, "init", "initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"b15\",\"version\":\"1\"}}"));
    char params[1024];
    snprintf(params, sizeof params,
             "{\"apiKey\":\"pk_b15\",\"options\":{\"configSource\":{\"type\":\"embedded\"},\"dataDirectory\":\"%s\"}}",
             directory);
    char *configured = call(t, "configure", "configure", params);
    if (!strstr(configured, "\"configured\"")) { fprintf(stderr, "configure: %s\n", configured); exit(1); }
    free(configured);
    free(call(t, "identify", "identify", "{\"userId\":\"runner_042\"}"));
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p50, in microseconds, of `rounds` round trips of one request. */
static double p50(transport_t *t, const char *method, const char *params, const char *expect, int rounds) {
    double *times = malloc(sizeof(double) * (size_t)rounds);
    for (int i = -rounds / 10; i < rounds; i++) {
        char id[32];
        snprintf(id, sizeof id, "r%d", i + rounds);
        double start = now_us();
        char *answer = call(t, id, method, params);
        double elapsed = now_us() - start;
        if (expect && !strstr(answer, expect)) { fprintf(stderr, "%s: %s\n", method, answer); exit(1); }
        free(answer);
        if (i >= 0) times[i] = elapsed;
    }
    qsort(times, (size_t)rounds, sizeof(double), compare);
    double result = times[rounds / 2];
    free(times);
    return result;
}

static const char *PING_PARAMS = "{\"client\":\"bench\"}";
static const char *REGISTER_PARAMS = "{\"placement\":\"workout_shared\",\"hasFeature\":true}";
static const char *SKIPPED = "noAudienceMatch";

static void end(transport_t *t) {
    free(call(t, "shutdown", "shutdown", "{}"));
    const char *exit_message = "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}";
    t->send(t, exit_message, strlen(exit_message));
    if (t->bridge) {
        bridge_close(t->bridge);
    } else {
        waitpid(t->pid, NULL, 0);
        close(t->to_bridge);
        close(t->from_bridge);
    }
}

static long rss_kib(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *file = fopen(path, "r");
    long kib = -1;
    while (file && fgets(line, sizeof line, file)) {
        if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
    }
    if (file) fclose(file);
    return kib;
}

enum { REPETITIONS = 9 };

static double median(const double *values) {
    double sorted[REPETITIONS];
    memcpy(sorted, values, sizeof sorted);
    qsort(sorted, REPETITIONS, sizeof(double), compare);
    return sorted[REPETITIONS / 2];
}

/* "a b c d e" */
static const char *list(const double *values, char *text, size_t size) {
    size_t used = 0;
    for (int i = 0; i < REPETITIONS; i++) used += (size_t)snprintf(text + used, size - used, i ? " %.1f" : "%.1f", values[i]);
    return text;
}

enum way { PIPES, CALLBACK, RECEIVE };

/* One repetition on one transport: a fresh bridge, prepared in its own data directory, then the
 * p50 of each request. */
static void measure(transport_t *t, enum way way, const char *binary, int style, const char *directory,
                    const char *label, int repetition, double *ping, double *registered, int rounds) {
    static const char *names[] = {"pipe", "library", "receive"};
    char data[600];
    memset(t, 0, sizeof *t);
    t->watch_us = style ? 200 : 0;
    if (way == PIPES) spawn(t, binary);
    else if (way == CALLBACK) open_library(t);
    else open_mailbox(t);
    snprintf(data, sizeof data, "%s/%s-%s-%d", directory, names[way], label, repetition);
    prepare(t, data);
    *ping = p50(t, "$/ping", PING_PARAMS, NULL, rounds);
    *registered = p50(t, "register", REGISTER_PARAMS, SKIPPED, rounds);
    end(t);
}

int main(int argc, char **argv) {
    const char *binary = NULL, *library = NULL;
    int rounds = 5000;
    int rss_child = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bridge") && i + 1 < argc) binary = argv[++i];
        else if (!strcmp(argv[i], "--library") && i + 1 < argc) library = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rss-child")) rss_child = 1;
    }
    if (!library || (!binary && !rss_child)) {
        fprintf(stderr, "usage: inprocess-bench --bridge BINARY --library LIBRARY [--rounds N]\n");
        return 2;
    }
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    bridge_open = (open_fn)dlsym(handle, "superwall_bridge_open");
    bridge_send = (send_fn)dlsym(handle, "superwall_bridge_send");
    bridge_close = (close_fn)dlsym(handle, "superwall_bridge_close");
    bridge_receive = (receive_fn)dlsym(handle, "superwall_bridge_receive");
    if (!bridge_open || !bridge_send || !bridge_close) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 1; }
    /* A library from before superwall_bridge_receive is measured without it. */

    transport_t *t = calloc(1, sizeof *t);
    if (rss_child) {
        /* A fresh process holding one initialized bridge: its whole RSS, in KiB. */
        open_library(t);
        free(call(t, "init", "initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"b15\",\"version\":\"1\"}}"));
        usleep(200000);
        printf("%ld\n", rss_kib(getpid()));
        end(t);
        return 0;
    }

    char directory[] = "/tmp/b15-XXXXXX";
    if (!mkdtemp(directory)) { perror("mkdtemp"); return 1; }
    /* [style][repetition]: style 0 sleeps at once, 1 watches first */
    double ping_pipe[2][REPETITIONS], ping_library[2][REPETITIONS], register_pipe[2][REPETITIONS],
        register_library[2][REPETITIONS], ping_receive[2][REPETITIONS] = {{0}}, register_receive[2][REPETITIONS] = {{0}};
    for (int repetition = 0; repetition < REPETITIONS; repetition++) {
        for (int style = 0; style < 2; style++) {
            const char *label = style ? "watch" : "sleep";
            measure(t, PIPES, binary, style, directory, label, repetition, &ping_pipe[style][repetition],
                    &register_pipe[style][repetition], rounds);
            measure(t, CALLBACK, binary, style, directory, label, repetition, &ping_library[style][repetition],
                    &register_library[style][repetition], rounds);
            if (bridge_receive) {
                measure(t, RECEIVE, binary, style, directory, label, repetition, &ping_receive[style][repetition],
                        &register_receive[style][repetition], rounds);
            }
        }
    }

    /* The executable's RSS once it has answered initialize. */
    memset(t, 0, sizeof *t);
    spawn(t, binary);
    free(call(t, "init", "initialize", "{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"b15\",\"version\":\"1\"}}"));
    usleep(200000);
    long binary_rss = rss_kib(t->pid);
    end(t);
    char command[4096];
    snprintf(command, sizeof command, "'%s' --rss-child --library '%s'", argv[0], library);
    FILE *child = popen(command, "r");
    long library_rss = -1;
    if (!child || fscanf(child, "%ld", &library_rss) != 1) { fprintf(stderr, "the RSS child failed\n"); return 1; }
    pclose(child);

    printf("| %-52s | %10s | %10s | %6s | %-8s |\n", "B15 (in-process / pipes, same build)", "in-process", "pipes",
           "ratio", "target");
    for (int style = 1; style >= 0; style--) {
        const char *waiting = style ? "client watches, then sleeps" : "client sleeps at once";
        double pipe_ping = median(ping_pipe[style]);
        double library_ping = median(ping_library[style]);
        double pipe_register = median(register_pipe[style]);
        double library_register = median(register_library[style]);
        char label[80];
        snprintf(label, sizeof label, "$/ping p50, %s", waiting);
        printf("| %-52s | %8.1f us | %8.1f us | %6.2f | %-8s |\n", label, library_ping, pipe_ping,
               library_ping / pipe_ping, style ? "<= 0.5" : "-");
        snprintf(label, sizeof label, "register skipped p50, %s", waiting);
        printf("| %-52s | %8.1f us | %8.1f us | %6.2f | %-8s |\n", label, library_register, pipe_register,
               library_register / pipe_register, style ? "<= 0.6" : "-");
        if (!bridge_receive) continue;
        double receive_ping = median(ping_receive[style]);
        double receive_register = median(register_receive[style]);
        snprintf(label, sizeof label, "$/ping p50, receive, %s", waiting);
        printf("| %-52s | %8.1f us | %8.1f us | %6.2f | %-8s |\n", label, receive_ping, pipe_ping,
               receive_ping / pipe_ping, style ? "<= 0.5" : "-");
        snprintf(label, sizeof label, "register skipped p50, receive, %s", waiting);
        printf("| %-52s | %8.1f us | %8.1f us | %6.2f | %-8s |\n", label, receive_register, pipe_register,
               receive_register / pipe_register, style ? "-" : "<= 0.7");
    }
    printf("| %-52s | %7.1f MiB | %7.1f MiB | %+6.1f | %-8s |\n", "RSS holding one bridge (MiB, difference)",
           library_rss / 1024.0, binary_rss / 1024.0, (library_rss - binary_rss) / 1024.0, "<= +2");
    for (int style = 1; style >= 0; style--) {
        char a[256], b[256], c[256], d[256];
        char e[256], f[256];
        printf("repetitions (%s), p50 us: ping pipes %s, in-process %s, receive %s; register pipes %s, in-process %s, "
               "receive %s\n",
               style ? "watching" : "sleeping", list(ping_pipe[style], a, sizeof a),
               list(ping_library[style], b, sizeof b), list(ping_receive[style], e, sizeof e),
               list(register_pipe[style], c, sizeof c), list(register_library[style], d, sizeof d),
               list(register_receive[style], f, sizeof f));
    }
    char remove[700];
    snprintf(remove, sizeof remove, "rm -rf '%s'", directory);
    return system(remove) == 0 ? 0 : 1;
}
