/* Debian's static jansson is built as position-independent executable code, not as shared
 * library code: json_loadf compares its argument with `stdin` through a PC-relative reference,
 * which a shared library cannot resolve to the C library's variable. The bridge never calls
 * json_loadf, and a bridge inside a host must never read the host's standard input, so the
 * library defines its own, hidden and always NULL, for that reference to bind to. */
__attribute__((visibility("hidden"))) void *stdin = 0;
