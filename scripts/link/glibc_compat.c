/* What the release link needs from glibc newer than 2.31, the oldest glibc the binary and the
 * library support. They are linked against Debian 11's glibc (scripts/release/debian11_root.sh), but the
 * static archives linked in (the Swift runtime, libstdc++) were built against a newer one and
 * name two symbols 2.31 lacks. Everything else they use resolves to 2.31's own versions. */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

/* libstdc++ (GCC 11 and later) skips atomic reference counts while glibc says the process has
 * one thread; 0 means "may have several", so the atomics are always kept. */
char __libc_single_threaded = 0;

/* glibc 2.36's arc4random_buf, which the Swift runtime's random numbers use: the kernel's
 * random bytes, as glibc's does. */
void arc4random_buf(void *buffer, size_t size) {
    unsigned char *next = buffer;
    while (size > 0) {
        ssize_t read = getrandom(next, size, 0);
        if (read < 0) {
            if (errno == EINTR) {
                continue;
            }
            abort();
        }
        next += read;
        size -= (size_t)read;
    }
}
