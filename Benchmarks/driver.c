/*
 * `make bench`: measures superwall-bridge against a C+jansson echo server in the same run.
 *
 * Both servers are driven identically over pipes with newline-delimited JSON-RPC:
 *   B1 startup      spawn -> reply to `initialize`, median and p90 of 30 spawns (pinned to CPU 0)
 *   B2 latency      20,000 sequential `$/ping` round trips after 1,000 warm-up, p50/p90/p99/max,
 *                   with driver and server on one core (CPU 0), then unpinned; 3 repetitions
 *                   interleaved between the servers, the median reported and the spread as noise
 *   B3 throughput   100,000 pipelined requests (a writer thread and a reader), every id checked
 *                   to come back exactly once
 *   B4 payload      `debug/echo` of 1 KiB, 64 KiB, 1 MiB and 16 MiB, written while replies are read
 *   B5 memory       VmRSS and VmHWM after startup, after B3 and after B4
 *   B6 idle         CPU ticks and voluntary context switches (all threads) over 10 s of silence,
 *                   starting 1 s after B4 (0 = no polling)
 *   B7 shutdown     time from closing stdin to process exit
 *   B8 configure    `configure` to its `configured` reply, on the embedded demo config and on a
 *                   generated config file (1,000 campaigns, 2,000 paywalls), median of 10, each
 *                   on a fresh data directory (bridge only: the echo server has no configure)
 *   B9 presentation `getPresentationResult` and `register` of `bench_gate` (twenty audiences,
 *                   none matching: the skipped path) on the generated config, 20,000 sequential
 *                   round trips each after 1,000 warm-up, on one core (CPU 0); the peer echoes
 *                   the same requests, so its figure is the transport's own cost
 *   B10 hot reload  a copy of the generated config watched (`configSource {type: file, watch:
 *                   true}`) and rewritten in place 10 times, each with another build id: time
 *                   from the start of the write to `config/didRefresh`, debounce included,
 *                   median and max (bridge only)
 *   B11 events      `register` of `bench_gate` (three events each: the placement, `trigger_fire`,
 *                   `paywallPresentationRequest`) pipelined 64 deep for 60 s on the generated
 *                   config, every event committed to the on-disk queue before its answer and
 *                   flushed to `events.jsonl`: events per second, and VmRSS at 5 s (SQLite's
 *                   cache and malloc's arenas still filling), at 30 s and at 60 s (no growth:
 *                   the last two agree)
 *                   (bridge only)
 *   B12 reader stall the worst `$/ping` round trip (one every 2 ms) while `configure` reads a
 *                   config of 16 MB, the largest the default --max-config-size takes; worst of
 *                   five runs; and while the bridge reads one 16 MiB request (bridge only)
 *   B13 explain     `superwall-bridge explain --config GENERATED_CONFIG.json bench_gate`, from
 *                   spawn to exit, median and max of 20 runs, beside the C echo's B1 startup;
 *                   and `debug/explainPlacement` of bench_gate on a configured bridge, p50 and
 *                   max of 200 (bridge only)
 * Figures are printed with the ratio bridge / C echo.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPETITIONS 3

typedef struct {
    pid_t pid;
    int to_server;
    int from_server;
    char *buffer;
    size_t capacity, used, start;
} server_t;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void pin_to_cpu0(int pin) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (pin) {
        CPU_SET(0, &set);
    } else {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        for (long cpu = 0; cpu < cpus; cpu++) CPU_SET(cpu, &set);
    }
    sched_setaffinity(0, sizeof set, &set);
}

static void write_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, data, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            perror("write");
            exit(1);
        }
        data += written;
        length -= (size_t)written;
    }
}

static server_t spawn_server(const char *path) {
    int in[2], out[2];
    if (pipe(in) || pipe(out)) { perror("pipe"); exit(1); }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);
        close(in[0]); close(in[1]); close(out[0]); close(out[1]);
        execl(path, path, (char *)NULL);
        perror("execl");
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    server_t server = {pid, in[1], out[0], malloc(1 << 16), 1 << 16, 0, 0};
    return server;
}

/* The next reply line (NUL-terminated in place); its length in *length. */
static char *read_line(server_t *server, size_t *length) {
    for (;;) {
        char *newline = memchr(server->buffer + server->start, '\n', server->used - server->start);
        if (newline) {
            char *line = server->buffer + server->start;
            *newline = 0;
            *length = (size_t)(newline - line);
            server->start = (size_t)(newline - server->buffer) + 1;
            return line;
        }
        if (server->start > 0) {
            memmove(server->buffer, server->buffer + server->start, server->used - server->start);
            server->used -= server->start;
            server->start = 0;
        }
        if (server->capacity - server->used < (1 << 16)) {
            server->capacity *= 2;
            server->buffer = realloc(server->buffer, server->capacity);
        }
        ssize_t count = read(server->from_server, server->buffer + server->used, server->capacity - server->used);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) { fprintf(stderr, "server closed its output\n"); exit(1); }
        server->used += (size_t)count;
    }
}

static long reply_id(const char *line) {
    const char *id = strstr(line, "\"id\":");
    return id ? strtol(id + 5, NULL, 10) : -1;
}

static const char *PADDING = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789";

static size_t ping(char *out, long id) {
    return (size_t)sprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"$/ping\",\"params\":{\"client\":\"bench\",\"padding\":\"%s\"}}\n", id, PADDING);
}

static void initialize(server_t *server) {
    const char *request = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1.0\",\"client\":{\"name\":\"bench\",\"version\":\"1\"}}}\n";
    write_all(server->to_server, request, strlen(request));
    size_t length;
    read_line(server, &length);
}

/* Closes stdin and returns the microseconds until the process exits. */
static double stop_server(server_t *server) {
    double start = now_us();
    close(server->to_server);
    int status;
    waitpid(server->pid, &status, 0);
    double elapsed = now_us() - start;
    close(server->from_server);
    free(server->buffer);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fprintf(stderr, "warning: server exit status %d\n", status);
    return elapsed;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *sorted, size_t count, double p) {
    size_t index = (size_t)(p * (double)(count - 1) + 0.5);
    return sorted[index];
}

/* ---- B1 ---- */
static void measure_startup(const char *path, double *median, double *p90) {
    double samples[30];
    pin_to_cpu0(1);
    for (int run = 0; run < 30; run++) {
        double start = now_us();
        server_t server = spawn_server(path);
        initialize(&server);
        samples[run] = now_us() - start;
        stop_server(&server);
    }
    pin_to_cpu0(0);
    qsort(samples, 30, sizeof(double), compare_doubles);
    *median = percentile(samples, 30, 0.5);
    *p90 = percentile(samples, 30, 0.9);
}

/* ---- B2 ---- */
typedef struct { double p50, p90, p99, max; } latency_t;

static latency_t measure_latency(server_t *server, int count) {
    char request[512];
    size_t length;
    for (int i = 0; i < 1000; i++) {
        write_all(server->to_server, request, ping(request, 1000000 + i));
        read_line(server, &length);
    }
    double *samples = malloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < count; i++) {
        size_t size = ping(request, i + 1);
        double start = now_us();
        write_all(server->to_server, request, size);
        char *line = read_line(server, &length);
        samples[i] = now_us() - start;
        if (reply_id(line) != i + 1) { fprintf(stderr, "wrong reply: %s\n", line); exit(1); }
    }
    qsort(samples, (size_t)count, sizeof(double), compare_doubles);
    latency_t result = {percentile(samples, (size_t)count, 0.5), percentile(samples, (size_t)count, 0.9),
                        percentile(samples, (size_t)count, 0.99), samples[count - 1]};
    free(samples);
    return result;
}

/* ---- B3 and B4: a writer thread ---- */
typedef struct { int fd; const char *data; size_t length; int count; long first_id; int kind; } writer_job_t;

static void *writer_thread(void *argument) {
    writer_job_t *job = argument;
    if (job->kind == 0) {
        size_t block = 256 * 200;
        char *batch = malloc(block);
        size_t used = 0;
        for (int i = 0; i < job->count; i++) {
            used += ping(batch + used, job->first_id + i);
            if (used > block - 512) { write_all(job->fd, batch, used); used = 0; }
        }
        if (used) write_all(job->fd, batch, used);
        free(batch);
    } else {
        for (int i = 0; i < job->count; i++) write_all(job->fd, job->data, job->length);
    }
    return NULL;
}

static double measure_throughput(server_t *server, int count) {
    unsigned char *seen = calloc((size_t)count, 1);
    writer_job_t job = {server->to_server, NULL, 0, count, 1, 0};
    pthread_t thread;
    double start = now_us();
    pthread_create(&thread, NULL, writer_thread, &job);
    size_t length;
    for (int received = 0; received < count; received++) {
        long id = reply_id(read_line(server, &length));
        if (id < 1 || id > count || seen[id - 1]) { fprintf(stderr, "bad or repeated reply id %ld\n", id); exit(1); }
        seen[id - 1] = 1;
    }
    double elapsed = now_us() - start;
    pthread_join(thread, NULL);
    free(seen);
    return count / (elapsed / 1e6);
}

static double measure_payload(server_t *server, size_t size, int repetitions) {
    char *request = malloc(size + 256);
    int prefix = sprintf(request, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"debug/echo\",\"params\":[\"");
    memset(request + prefix, 'x', size);
    size_t length = (size_t)prefix + size;
    length += (size_t)sprintf(request + length, "\"]}\n");
    writer_job_t job = {server->to_server, request, length, repetitions, 0, 1};
    pthread_t thread;
    double start = now_us();
    pthread_create(&thread, NULL, writer_thread, &job);
    for (int i = 0; i < repetitions; i++) {
        size_t reply_length;
        read_line(server, &reply_length);
        if (reply_length < size) { fprintf(stderr, "short echo: %zu < %zu\n", reply_length, size); exit(1); }
    }
    double elapsed = now_us() - start;
    pthread_join(thread, NULL);
    free(request);
    return elapsed / repetitions;
}

/* ---- B5 and B6: /proc ---- */
static long status_field_kib(pid_t pid, const char *field) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *file = fopen(path, "r");
    long value = -1;
    size_t field_length = strlen(field);
    while (file && fgets(line, sizeof line, file)) {
        if (strncmp(line, field, field_length) == 0 && line[field_length] == ':') value = strtol(line + field_length + 1, NULL, 10);
    }
    if (file) fclose(file);
    return value;
}

/* Voluntary context switches of each thread, by thread id (the process's own line counts only
 * its main thread). Returns the number of threads read. */
#define MAX_THREADS 256
typedef struct { long tid, switches; } thread_switches_t;

static int read_thread_switches(pid_t pid, thread_switches_t *threads) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    int count = 0;
    struct dirent *entry;
    while (tasks && count < MAX_THREADS && (entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] == '.') continue;
        char status_path[320], line[256];
        snprintf(status_path, sizeof status_path, "%.63s/%.200s/status", path, entry->d_name);
        FILE *file = fopen(status_path, "r");
        while (file && fgets(line, sizeof line, file)) {
            if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0) {
                threads[count].tid = strtol(entry->d_name, NULL, 10);
                threads[count].switches = strtol(line + 24, NULL, 10);
                count++;
            }
        }
        if (file) fclose(file);
    }
    if (tasks) closedir(tasks);
    return count;
}

/* Switches made between two readings: deltas of threads alive at both, plus all of new ones.
 * (Threads that exit in between, such as idle dispatch workers being reaped, drop out.) */
static long switches_between(thread_switches_t *before, int before_count, thread_switches_t *after, int after_count) {
    long total = 0;
    for (int i = 0; i < after_count; i++) {
        long previous = 0;
        for (int j = 0; j < before_count; j++) {
            if (before[j].tid == after[i].tid) previous = before[j].switches;
        }
        total += after[i].switches - previous;
    }
    return total;
}

static long cpu_ticks(pid_t pid) {
    char path[64], text[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    size_t count = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[count] = 0;
    char *cursor = strrchr(text, ')');
    long utime = 0, stime = 0;
    /* fields after the command: state(3) ... utime(14) stime(15) */
    for (int field = 3; cursor && field <= 15; field++) {
        cursor = strchr(cursor + 1, ' ');
        if (field == 14) utime = strtol(cursor + 1, NULL, 10);
        if (field == 15) stime = strtol(cursor + 1, NULL, 10);
    }
    return utime + stime;
}

/* The next reply, past notifications (`register` sends `handler/onSkip` before its reply). */
static char *read_reply(server_t *server) {
    size_t length;
    for (;;) {
        char *line = read_line(server, &length);
        if (reply_id(line) != -1) return line;
    }
}

/* `configure` on `config_source_json` in `directory` (with `extra_options`, e.g.
 * `,"eventFlushIntervalMs":1000`, or ""); exits unless the bridge answers `configured`. */
static void configure_bridge(server_t *server, const char *config_source_json, const char *directory, const char *extra_options) {
    char request[4096];
    int length = snprintf(request, sizeof request,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"configure\",\"params\":{\"apiKey\":\"pk_bench\","
        "\"options\":{\"configSource\":%s,\"dataDirectory\":\"%s\"%s}}}\n", config_source_json, directory, extra_options);
    write_all(server->to_server, request, (size_t)length);
    char *reply = read_reply(server);
    if (!strstr(reply, "\"configured\"")) { fprintf(stderr, "configure failed: %s\n", reply); exit(1); }
}

/* A bridge initialized and configured with the config file at `config_path`, its data in
 * `directory`. */
static server_t spawn_configured(const char *path, const char *config_path, const char *directory, const char *extra_options) {
    server_t server = spawn_server(path);
    initialize(&server);
    char source[1024];
    snprintf(source, sizeof source, "{\"type\":\"file\",\"path\":\"%s\"}", config_path);
    configure_bridge(&server, source, directory, extra_options);
    return server;
}

static void remove_directory(const char *directory) {
    char command[512];
    snprintf(command, sizeof command, "rm -rf %s", directory);
    if (system(command) != 0) fprintf(stderr, "warning: could not remove %s\n", directory);
}

/* ---- B8 ---- */
static double measure_configure(const char *path, const char *config_source_json) {
    double samples[10];
    for (int run = 0; run < 10; run++) {
        char directory[] = "/tmp/superwall-bench-XXXXXX";
        if (!mkdtemp(directory)) { perror("mkdtemp"); exit(1); }
        server_t server = spawn_server(path);
        initialize(&server);
        double start = now_us();
        configure_bridge(&server, config_source_json, directory, "");
        samples[run] = now_us() - start;
        stop_server(&server);
        remove_directory(directory);
    }
    qsort(samples, 10, sizeof(double), compare_doubles);
    return percentile(samples, 10, 0.5);
}

/* ---- B12 ---- */
/* Pings every 2 ms, each waited for, until request 1 (already sent) is answered; returns the
 * worst ping round trip. `expect`, when given, must appear in request 1's answer. */
static double worst_ping_until_answered(server_t *server, const char *expect) {
    double worst = 0;
    int answered = 0;
    for (long id = 2; !answered; id++) {
        char line[256];
        size_t ping_length = ping(line, id);
        double start = now_us();
        write_all(server->to_server, line, ping_length);
        for (;;) {
            size_t reply_length;
            char *reply = read_line(server, &reply_length);
            long reply_to = reply_id(reply);
            if (reply_to == 1) {
                if (expect && !strstr(reply, expect)) { fprintf(stderr, "B12: unexpected answer %.200s\n", reply); exit(1); }
                answered = 1;
            } else if (reply_to == id) {
                double elapsed = now_us() - start;
                if (elapsed > worst) worst = elapsed;
                break;
            }
        }
        usleep(2000);
    }
    return worst;
}

/* The worst `$/ping` round trip while a `configure` of the largest config the default
 * --max-config-size allows runs; the worst of five runs. */
static double measure_reader_stall(const char *path, const char *large_config_path) {
    double worst = 0;
    for (int run = 0; run < 5; run++) {
        char directory[] = "/tmp/superwall-bench-XXXXXX";
        if (!mkdtemp(directory)) { perror("mkdtemp"); exit(1); }
        server_t server = spawn_server(path);
        initialize(&server);
        char request[4096];
        int length = snprintf(request, sizeof request,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"configure\",\"params\":{\"apiKey\":\"pk_bench\","
            "\"options\":{\"configSource\":{\"type\":\"file\",\"path\":\"%s\"},\"dataDirectory\":\"%s\"}}}\n", large_config_path, directory);
        write_all(server.to_server, request, (size_t)length);
        double stall = worst_ping_until_answered(&server, "\"configured\"");
        if (stall > worst) worst = stall;
        stop_server(&server);
        remove_directory(directory);
    }
    return worst;
}

/* The same while the bridge reads one 16 MiB request (a `$/ping` with a 16 MiB param, so the
 * answer is small and only the reading counts). */
static double measure_message_stall(const char *path) {
    double worst = 0;
    size_t size = 16u << 20;
    char *big = malloc(size + 128);
    int length = sprintf(big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$/ping\",\"params\":{\"p\":\"");
    memset(big + length, 'x', size);
    length += (int)size;
    length += sprintf(big + length, "\"}}\n");
    for (int run = 0; run < 5; run++) {
        server_t server = spawn_server(path);
        initialize(&server);
        write_all(server.to_server, big, (size_t)length);
        double stall = worst_ping_until_answered(&server, NULL);
        if (stall > worst) worst = stall;
        stop_server(&server);
    }
    free(big);
    return worst;
}

/* ---- B10 ---- */
static char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); exit(1); }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *data = malloc((size_t)size);
    if (fread(data, 1, (size_t)size, file) != (size_t)size) { perror("fread"); exit(1); }
    fclose(file);
    *length = (size_t)size;
    return data;
}

static void write_file(const char *path, const char *data, size_t length) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); exit(1); }
    write_all(fd, data, length);
    close(fd);
}

static void measure_hot_reload(const char *path, const char *config_path, double *median, double *max) {
    enum { RUNS = 10 };
    char directory[] = "/tmp/superwall-bench-watch-XXXXXX";
    if (!mkdtemp(directory)) { perror("mkdtemp"); exit(1); }
    char watched[512], data[512];
    snprintf(watched, sizeof watched, "%s/config.json", directory);
    snprintf(data, sizeof data, "%s/data", directory);
    size_t length;
    char *config = read_file(config_path, &length);
    char *build = strstr(config, "\"build_id\":\"");
    if (!build) { fprintf(stderr, "no build_id in %s\n", config_path); exit(1); }
    build += strlen("\"build_id\":\"");
    write_file(watched, config, length);
    server_t server = spawn_server(path);
    initialize(&server);
    char source[1024];
    snprintf(source, sizeof source, "{\"type\":\"file\",\"path\":\"%s\",\"watch\":true}", watched);
    configure_bridge(&server, source, data, "");
    size_t reply_length;
    double samples[RUNS];
    for (int run = 0; run < RUNS; run++) {
        usleep(300 * 1000); /* past the previous change's debounce */
        build[0] = (char)('A' + run); /* another build id, same length */
        double start = now_us();
        write_file(watched, config, length);
        for (;;) {
            char *line = read_line(&server, &reply_length);
            if (strstr(line, "\"config/didRefresh\"")) {
                if (!strstr(line, "\"refreshed\":true")) { fprintf(stderr, "refresh failed: %s\n", line); exit(1); }
                break;
            }
        }
        samples[run] = now_us() - start;
    }
    stop_server(&server);
    free(config);
    remove_directory(directory);
    qsort(samples, RUNS, sizeof(double), compare_doubles);
    *median = percentile(samples, RUNS, 0.5);
    *max = samples[RUNS - 1];
}

/* ---- B11 ---- */
typedef struct {
    double events_per_second;
    long rss_early_kib, rss_settled_kib, rss_late_kib;
} event_flow_t;

static size_t presentation_request(char *out, long id, const char *method);

static event_flow_t measure_event_flow(const char *path, const char *config_path, int seconds) {
    enum { WINDOW = 64, EVENTS_PER_REGISTER = 3 };
    char directory[] = "/tmp/superwall-bench-events-XXXXXX";
    if (!mkdtemp(directory)) { perror("mkdtemp"); exit(1); }
    server_t server = spawn_configured(path, config_path, directory, ",\"eventFlushIntervalMs\":1000");
    char request[2048];
    long sent = 0, answered = 0;
    for (; sent < WINDOW; sent++) write_all(server.to_server, request, presentation_request(request, 100 + sent, "register"));
    double start = now_us(), early_at = start + 5e6, settled_at = start + seconds * 1e6 / 2, end = start + seconds * 1e6;
    event_flow_t flow = {0};
    for (;;) {
        read_reply(&server);
        answered++;
        double now = now_us();
        if (!flow.rss_early_kib && now >= early_at) flow.rss_early_kib = status_field_kib(server.pid, "VmRSS");
        if (!flow.rss_settled_kib && now >= settled_at) flow.rss_settled_kib = status_field_kib(server.pid, "VmRSS");
        if (now >= end) break;
        write_all(server.to_server, request, presentation_request(request, 100 + sent++, "register"));
    }
    double elapsed = (now_us() - start) / 1e6;
    flow.rss_late_kib = status_field_kib(server.pid, "VmRSS");
    flow.events_per_second = (double)answered * EVENTS_PER_REGISTER / elapsed;
    while (answered < sent) { read_reply(&server); answered++; }
    stop_server(&server);
    remove_directory(directory);
    return flow;
}

static void print_event_flow(event_flow_t flow) {
    printf("| %-44s | %12s | %12.0f | %-6s | %8s |\n", "B11 events through register, per second", "-", flow.events_per_second, "ev/s", ">= 20000");
    printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B11 RSS at 5 s (warming up)", "-", flow.rss_early_kib / 1024.0, "MiB", "-");
    printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B11 RSS at 30 s", "-", flow.rss_settled_kib / 1024.0, "MiB", "-");
    printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B11 RSS at 60 s", "-", flow.rss_late_kib / 1024.0, "MiB", "no growth");
}

/* ---- B9 ---- */
static size_t presentation_request(char *out, long id, const char *method) {
    return (size_t)sprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":{\"placement\":\"bench_gate\","
                                "\"params\":{\"level\":5,\"source\":\"bench\"}}}\n", id, method);
}


/* Round trips of one method; when `expect` is set, every reply must contain it. */
static latency_t measure_method(server_t *server, const char *method, int count, const char *expect) {
    char request[512];
    for (int i = 0; i < 1000; i++) {
        write_all(server->to_server, request, presentation_request(request, 2000000 + i, method));
        read_reply(server);
    }
    double *samples = malloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < count; i++) {
        size_t size = presentation_request(request, i + 1, method);
        double start = now_us();
        write_all(server->to_server, request, size);
        char *line = read_reply(server);
        samples[i] = now_us() - start;
        if (reply_id(line) != i + 1 || (expect && !strstr(line, expect))) { fprintf(stderr, "wrong reply: %s\n", line); exit(1); }
    }
    qsort(samples, (size_t)count, sizeof(double), compare_doubles);
    latency_t result = {percentile(samples, (size_t)count, 0.5), percentile(samples, (size_t)count, 0.9),
                        percentile(samples, (size_t)count, 0.99), samples[count - 1]};
    free(samples);
    return result;
}

typedef struct { latency_t result, reg; } presentation_t;

static presentation_t measure_presentation(const char *path, const char *config_path, int configure_first) {
    presentation_t figures;
    pin_to_cpu0(1);
    char directory[] = "/tmp/superwall-bench-XXXXXX";
    if (!mkdtemp(directory)) { perror("mkdtemp"); exit(1); }
    server_t server;
    if (configure_first) {
        server = spawn_configured(path, config_path, directory, "");
    } else {
        server = spawn_server(path);
        initialize(&server);
    }
    figures.result = measure_method(&server, "getPresentationResult", 20000, configure_first ? "\"noAudienceMatch\"" : NULL);
    figures.reg = measure_method(&server, "register", 20000, configure_first ? "\"skipped\"" : NULL);
    stop_server(&server);
    pin_to_cpu0(0);
    remove_directory(directory);
    return figures;
}

/* ---- B13 ---- */
static void row(const char *label, double peer, double bridge, const char *unit, int decimals);

/* `superwall-bridge explain` of bench_gate, spawn to exit: median and max of 20 runs. */
static void measure_explain_command(const char *path, const char *config_path, double *median, double *max) {
    double samples[20];
    for (int run = 0; run < 20; run++) {
        double start = now_us();
        pid_t child = fork();
        if (child == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execl(path, path, "explain", "--config", config_path, "bench_gate", (char *)NULL);
            _exit(127);
        }
        int status = 0;
        waitpid(child, &status, 0);
        samples[run] = now_us() - start;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "B13: explain exited with %d\n", status); exit(1); }
    }
    qsort(samples, 20, sizeof(double), compare_doubles);
    *median = percentile(samples, 20, 0.5);
    *max = samples[19];
}

/* `debug/explainPlacement` of bench_gate on a bridge configured with the generated config. */
static latency_t measure_explain_request(const char *path, const char *config_path) {
    char directory[] = "/tmp/superwall-bench-XXXXXX";
    if (!mkdtemp(directory)) { perror("mkdtemp"); exit(1); }
    server_t server = spawn_configured(path, config_path, directory, "");
    double samples[200];
    char request[256];
    for (int i = 0; i < 200; i++) {
        int length = snprintf(request, sizeof request,
            "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"debug/explainPlacement\",\"params\":{\"placement\":\"bench_gate\"}}\n", 10 + i);
        double start = now_us();
        write_all(server.to_server, request, (size_t)length);
        char *reply = read_reply(&server);
        samples[i] = now_us() - start;
        if (!strstr(reply, "\"noAudienceMatch\"")) { fprintf(stderr, "B13: unexpected answer %.200s\n", reply); exit(1); }
    }
    stop_server(&server);
    remove_directory(directory);
    qsort(samples, 200, sizeof(double), compare_doubles);
    latency_t result = {percentile(samples, 200, 0.5), percentile(samples, 200, 0.9), percentile(samples, 200, 0.99), samples[199]};
    return result;
}

static void print_explain(double peer_startup, double command_median, double command_max, latency_t request) {
    row("B13 explain command, median of 20", peer_startup / 1000, command_median / 1000, "ms", 2);
    printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B13 explain command, max of 20", "-", command_max / 1000, "ms", "< 50");
    printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B13 debug/explainPlacement p50", "-", request.p50 / 1000, "ms", "< 50");
    printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B13 debug/explainPlacement max of 200", "-", request.max / 1000, "ms", "< 50");
}

/* ---- the run ---- */
typedef struct {
    const char *name;
    double startup_median, startup_p90;
    latency_t pinned[REPETITIONS], unpinned[REPETITIONS];
    double throughput_pinned, throughput_unpinned;
    double payload_us[4];
    long rss_startup, rss_after_throughput, rss_after_payload, hwm;
    long idle_ticks, idle_switches;
    double exit_us;
} results_t;

static const size_t PAYLOAD_SIZES[4] = {1024, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
static const int PAYLOAD_REPS[4] = {500, 100, 10, 3};

static void run_pinned_session(const char *path, results_t *r, int repetition) {
    pin_to_cpu0(1);
    server_t server = spawn_server(path);
    initialize(&server);
    if (repetition == 0) r->rss_startup = status_field_kib(server.pid, "VmRSS");
    r->pinned[repetition] = measure_latency(&server, 20000);
    if (repetition == 0) {
        r->throughput_pinned = measure_throughput(&server, 100000);
        r->rss_after_throughput = status_field_kib(server.pid, "VmRSS");
    }
    pin_to_cpu0(0);
    if (repetition == 0) {
        for (int i = 0; i < 4; i++) r->payload_us[i] = measure_payload(&server, PAYLOAD_SIZES[i], PAYLOAD_REPS[i]);
        r->rss_after_payload = status_field_kib(server.pid, "VmRSS");
        r->hwm = status_field_kib(server.pid, "VmHWM");
        sleep(1); /* let the tail of B4 (freeing 16 MiB buffers) finish before the idle window */
        thread_switches_t before[MAX_THREADS], after[MAX_THREADS];
        long ticks = cpu_ticks(server.pid);
        int before_count = read_thread_switches(server.pid, before);
        sleep(10);
        r->idle_ticks = cpu_ticks(server.pid) - ticks;
        int after_count = read_thread_switches(server.pid, after);
        r->idle_switches = switches_between(before, before_count, after, after_count);
    }
    double exit_us = stop_server(&server);
    if (repetition == 0) r->exit_us = exit_us;
}

static void run_unpinned_session(const char *path, results_t *r, int repetition) {
    pin_to_cpu0(0);
    server_t server = spawn_server(path);
    initialize(&server);
    r->unpinned[repetition] = measure_latency(&server, 20000);
    if (repetition == 0) r->throughput_unpinned = measure_throughput(&server, 100000);
    stop_server(&server);
}

static int compare_latency_p50(const void *a, const void *b) {
    double x = ((const latency_t *)a)->p50, y = ((const latency_t *)b)->p50;
    return (x > y) - (x < y);
}

/* The median repetition (by p50), and the spread of p50 across repetitions in percent. */
static latency_t median_latency(latency_t *runs, double *spread_percent) {
    latency_t sorted[REPETITIONS];
    memcpy(sorted, runs, sizeof sorted);
    qsort(sorted, REPETITIONS, sizeof(latency_t), compare_latency_p50);
    *spread_percent = 100.0 * (sorted[REPETITIONS - 1].p50 - sorted[0].p50) / sorted[REPETITIONS / 2].p50;
    return sorted[REPETITIONS / 2];
}

static void row(const char *label, double peer, double bridge, const char *unit, int decimals) {
    char ratio[32];
    if (peer > 0) snprintf(ratio, sizeof ratio, "%.2fx", bridge / peer); else snprintf(ratio, sizeof ratio, "-");
    printf("| %-44s | %12.*f | %12.*f | %-6s | %8s |\n", label, decimals, peer, decimals, bridge, unit, ratio);
}

int main(int argc, char **argv) {
    const char *peer_path = NULL, *bridge_path = NULL, *config_path = NULL, *large_config_path = NULL, *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--only") == 0) only = argv[i + 1];
        if (strcmp(argv[i], "--peer") == 0) peer_path = argv[i + 1];
        if (strcmp(argv[i], "--bridge") == 0) bridge_path = argv[i + 1];
        if (strcmp(argv[i], "--config") == 0) config_path = argv[i + 1];
        if (strcmp(argv[i], "--large-config") == 0) large_config_path = argv[i + 1];
    }
    if (!peer_path || !bridge_path || !config_path) {
        fprintf(stderr, "usage: %s --peer ECHO_SERVER --bridge SUPERWALL_BRIDGE --config GENERATED_CONFIG.json [--large-config CONFIG.json] [--only startup|configure|presentation|reload|events|stall|explain]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (only && strcmp(only, "events") == 0) {
        print_event_flow(measure_event_flow(bridge_path, config_path, 60));
        return 0;
    }
    if (only && strcmp(only, "stall") == 0) {
        if (!large_config_path) { fprintf(stderr, "--only stall needs --large-config\n"); return 2; }
        double stall = measure_reader_stall(bridge_path, large_config_path);
        printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B12 worst ping during a 16 MB configure", "-", stall / 1000, "ms", "< 50");
        printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B12 worst ping while 16 MiB request is read", "-", measure_message_stall(bridge_path) / 1000, "ms", "< 50");
        return 0;
    }
    if (only && strcmp(only, "reload") == 0) {
        double reload_median, reload_max;
        measure_hot_reload(bridge_path, config_path, &reload_median, &reload_max);
        printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B10 file write to config/didRefresh, median", "-", reload_median / 1000, "ms", "<= 100");
        printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B10 file write to config/didRefresh, max", "-", reload_max / 1000, "ms", "-");
        return 0;
    }
    if (only && strcmp(only, "configure") == 0) {
        /* B8 alone. */
        char source[1024];
        snprintf(source, sizeof source, "{\"type\":\"file\",\"path\":\"%s\"}", config_path);
        double embedded = measure_configure(bridge_path, "{\"type\":\"embedded\"}");
        double file = measure_configure(bridge_path, source);
        printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B8 configure, embedded demo, median of 10", "-", embedded / 1000, "ms", "<= 20");
        printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B8 configure, 1,000 campaigns from a file", "-", file / 1000, "ms", "<= 80");
        return 0;
    }
    if (only && strcmp(only, "startup") == 0) {
        /* B1 alone, peer and bridge interleaved as in the full run. */
        double peer_median, peer_p90, bridge_median, bridge_p90;
        measure_startup(peer_path, &peer_median, &peer_p90);
        measure_startup(bridge_path, &bridge_median, &bridge_p90);
        printf("| %-44s | %12s | %12s | %-6s | %8s |\n", "figure", "C echo", "bridge", "unit", "ratio");
        row("B1 startup to first reply, median (CPU 0)", peer_median / 1000, bridge_median / 1000, "ms", 2);
        row("B1 startup to first reply, p90 (CPU 0)", peer_p90 / 1000, bridge_p90 / 1000, "ms", 2);
        return 0;
    }
    if (only && strcmp(only, "explain") == 0) {
        double peer_median, peer_p90, command_median, command_max;
        measure_startup(peer_path, &peer_median, &peer_p90);
        measure_explain_command(bridge_path, config_path, &command_median, &command_max);
        latency_t request = measure_explain_request(bridge_path, config_path);
        printf("| %-44s | %12s | %12s | %-6s | %8s |\n", "figure", "C echo", "bridge", "unit", "ratio");
        print_explain(peer_median, command_median, command_max, request);
        return 0;
    }
    if (only && strcmp(only, "presentation") == 0) {
        /* B9 alone, for working on it: `driver --only presentation ...`. */
        presentation_t peer_presentation = measure_presentation(peer_path, config_path, 0);
        presentation_t bridge_presentation = measure_presentation(bridge_path, config_path, 1);
        printf("| %-44s | %12s | %12s | %-6s | %8s |\n", "figure", "C echo", "bridge", "unit", "ratio");
        row("B9 getPresentationResult p50, same core", peer_presentation.result.p50, bridge_presentation.result.p50, "us", 1);
        row("B9 getPresentationResult p99, same core", peer_presentation.result.p99, bridge_presentation.result.p99, "us", 1);
        row("B9 register (skipped) p50, same core", peer_presentation.reg.p50, bridge_presentation.reg.p50, "us", 1);
        row("B9 register (skipped) p99, same core", peer_presentation.reg.p99, bridge_presentation.reg.p99, "us", 1);
        row("B9 register (skipped) max of 20,000", peer_presentation.reg.max, bridge_presentation.reg.max, "us", 1);
        return 0;
    }
    results_t peer = {.name = "c-echo"}, bridge = {.name = "bridge"};
    fprintf(stderr, "B1 startup...\n");
    measure_startup(peer_path, &peer.startup_median, &peer.startup_p90);
    measure_startup(bridge_path, &bridge.startup_median, &bridge.startup_p90);
    for (int repetition = 0; repetition < REPETITIONS; repetition++) {
        fprintf(stderr, "B2-B7 repetition %d of %d...\n", repetition + 1, REPETITIONS);
        run_pinned_session(peer_path, &peer, repetition);
        run_pinned_session(bridge_path, &bridge, repetition);
        run_unpinned_session(peer_path, &peer, repetition);
        run_unpinned_session(bridge_path, &bridge, repetition);
    }
    fprintf(stderr, "B8 configure...\n");
    double configure_embedded = measure_configure(bridge_path, "{\"type\":\"embedded\"}");
    char file_source[1024];
    snprintf(file_source, sizeof file_source, "{\"type\":\"file\",\"path\":\"%s\"}", config_path);
    double configure_file = measure_configure(bridge_path, file_source);
    fprintf(stderr, "B9 presentation...\n");
    presentation_t peer_presentation = measure_presentation(peer_path, config_path, 0);
    presentation_t bridge_presentation = measure_presentation(bridge_path, config_path, 1);
    fprintf(stderr, "B10 hot reload...\n");
    double reload_median, reload_max;
    measure_hot_reload(bridge_path, config_path, &reload_median, &reload_max);
    double stall = 0, message_stall = 0;
    if (large_config_path) {
        fprintf(stderr, "B12 reader stall...\n");
        stall = measure_reader_stall(bridge_path, large_config_path);
        message_stall = measure_message_stall(bridge_path);
    }
    fprintf(stderr, "B13 explain...\n");
    double explain_median, explain_max;
    measure_explain_command(bridge_path, config_path, &explain_median, &explain_max);
    latency_t explain_request = measure_explain_request(bridge_path, config_path);
    fprintf(stderr, "B11 events (60 s)...\n");
    event_flow_t event_flow = measure_event_flow(bridge_path, config_path, 60);
    double peer_spread, bridge_spread, peer_spread_u, bridge_spread_u;
    latency_t peer_pinned = median_latency(peer.pinned, &peer_spread), bridge_pinned = median_latency(bridge.pinned, &bridge_spread);
    latency_t peer_unpinned = median_latency(peer.unpinned, &peer_spread_u), bridge_unpinned = median_latency(bridge.unpinned, &bridge_spread_u);

    char host[256] = "?";
    gethostname(host, sizeof host);
    printf("\nsuperwall-bridge benchmark: %ld CPUs, host %s\n", sysconf(_SC_NPROCESSORS_ONLN), host);
    printf("peer: %s\nbridge: %s\n\n", peer_path, bridge_path);
    printf("| %-44s | %12s | %12s | %-6s | %8s |\n", "figure", "C echo", "bridge", "unit", "ratio");
    printf("|----------------------------------------------|--------------|--------------|--------|----------|\n");
    row("B1 startup to first reply, median (CPU 0)", peer.startup_median / 1000, bridge.startup_median / 1000, "ms", 2);
    row("B1 startup to first reply, p90 (CPU 0)", peer.startup_p90 / 1000, bridge.startup_p90 / 1000, "ms", 2);
    row("B2 round trip p50, same core", peer_pinned.p50, bridge_pinned.p50, "us", 1);
    row("B2 round trip p90, same core", peer_pinned.p90, bridge_pinned.p90, "us", 1);
    row("B2 round trip p99, same core", peer_pinned.p99, bridge_pinned.p99, "us", 1);
    row("B2 round trip max, same core", peer_pinned.max, bridge_pinned.max, "us", 1);
    row("B2 round trip p50, unpinned", peer_unpinned.p50, bridge_unpinned.p50, "us", 1);
    row("B2 round trip p90, unpinned", peer_unpinned.p90, bridge_unpinned.p90, "us", 1);
    row("B2 round trip p99, unpinned", peer_unpinned.p99, bridge_unpinned.p99, "us", 1);
    row("B3 pipelined, same core", peer.throughput_pinned / 1000, bridge.throughput_pinned / 1000, "k req/s", 1);
    row("B3 pipelined, unpinned", peer.throughput_unpinned / 1000, bridge.throughput_unpinned / 1000, "k req/s", 1);
    const char *labels[4] = {"B4 echo 1 KiB round trip", "B4 echo 64 KiB round trip", "B4 echo 1 MiB round trip", "B4 echo 16 MiB round trip"};
    for (int i = 0; i < 4; i++) row(labels[i], peer.payload_us[i] / 1000, bridge.payload_us[i] / 1000, "ms", 3);
    row("B4 echo 16 MiB throughput", 2.0 * 16 / (peer.payload_us[3] / 1e6), 2.0 * 16 / (bridge.payload_us[3] / 1e6), "MiB/s", 1);
    row("B5 RSS after startup", peer.rss_startup / 1024.0, bridge.rss_startup / 1024.0, "MiB", 1);
    row("B5 RSS after B3", peer.rss_after_throughput / 1024.0, bridge.rss_after_throughput / 1024.0, "MiB", 1);
    row("B5 RSS after B4", peer.rss_after_payload / 1024.0, bridge.rss_after_payload / 1024.0, "MiB", 1);
    row("B5 peak RSS (VmHWM)", peer.hwm / 1024.0, bridge.hwm / 1024.0, "MiB", 1);
    row("B6 idle CPU over 10 s", (double)peer.idle_ticks, (double)bridge.idle_ticks, "ticks", 0);
    row("B6 voluntary context switches in 10 s idle", (double)peer.idle_switches, (double)bridge.idle_switches, "count", 0);
    row("B7 stdin EOF to exit", peer.exit_us / 1000, bridge.exit_us / 1000, "ms", 2);
    printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B8 configure, embedded demo, median of 10", "-", configure_embedded / 1000, "ms", "<= 20");
    printf("| %-44s | %12s | %12.2f | %-6s | %8s |\n", "B8 configure, 1,000 campaigns from a file", "-", configure_file / 1000, "ms", "<= 80");
    row("B9 getPresentationResult p50, same core", peer_presentation.result.p50, bridge_presentation.result.p50, "us", 1);
    row("B9 getPresentationResult p90, same core", peer_presentation.result.p90, bridge_presentation.result.p90, "us", 1);
    row("B9 getPresentationResult p99, same core", peer_presentation.result.p99, bridge_presentation.result.p99, "us", 1);
    row("B9 register (skipped) p50, same core", peer_presentation.reg.p50, bridge_presentation.reg.p50, "us", 1);
    row("B9 register (skipped) p90, same core", peer_presentation.reg.p90, bridge_presentation.reg.p90, "us", 1);
    row("B9 register (skipped) p99, same core", peer_presentation.reg.p99, bridge_presentation.reg.p99, "us", 1);
    row("B9 register (skipped) max of 20,000", peer_presentation.reg.max, bridge_presentation.reg.max, "us", 1);
    printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B10 file write to config/didRefresh, median", "-", reload_median / 1000, "ms", "<= 100");
    printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B10 file write to config/didRefresh, max", "-", reload_max / 1000, "ms", "-");
    print_event_flow(event_flow);
    if (large_config_path) {
        printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B12 worst ping during a 16 MB configure", "-", stall / 1000, "ms", "< 50");
        printf("| %-44s | %12s | %12.1f | %-6s | %8s |\n", "B12 worst ping while 16 MiB request is read", "-", message_stall / 1000, "ms", "< 50");
    }
    print_explain(peer.startup_median, explain_median, explain_max, explain_request);
    printf("\nNoise: p50 spread across %d repetitions, same core: C echo %.1f%%, bridge %.1f%%; unpinned: C echo %.1f%%, bridge %.1f%%.\n",
           REPETITIONS, peer_spread, bridge_spread, peer_spread_u, bridge_spread_u);
    printf("Latency rows are the median repetition by p50. B3 checks every id came back exactly once.\n");
    printf("B8, B10 and B11 have no peer (the echo server has no configure); their last column is the target.\n");
    printf("B13's peer column is the C echo's B1 startup, for scale: an explain is a process start, a config read and one placement.\n");
    return 0;
}
