#!/bin/bash
# Checks a `make dist` library: it needs no shared library but the C runtime, it exports the
# five functions of superwall_bridge.h and nothing else, and a C host built against it alone
# (the header and the library copied to an empty folder, an empty environment) drives two
# bridges at once.
set -euo pipefail
library=$(realpath "$1")
header=$(realpath "$2")
host=$(realpath "$3")
echo "ldd $library:"
ldd "$library" | sed 's/^/  /'
unexpected=$(ldd "$library" | awk '{print $1}' | grep -Ev '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|libutil\.so\.1|libgcc_s\.so\.1)$' || true)
if [ -n "$unexpected" ]; then
    echo "dist: the library needs libraries beyond the C runtime: $unexpected" >&2
    exit 1
fi
exports=$(nm -D --defined-only "$library" | awk '{print $3}' | sort | tr '\n' ' ')
if [ "$exports" != "superwall_bridge_close superwall_bridge_main superwall_bridge_open superwall_bridge_receive superwall_bridge_send " ]; then
    echo "dist: the library exports more or less than its five functions: $exports" >&2
    exit 1
fi
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
cp "$library" "$header" "$host" "$folder/"
cd "$folder"
${CC:-cc} -O1 -Wall -Wextra -Werror -I. -o two-bridges "$(basename "$host")" -L. -lsuperwall_bridge -Wl,-rpath,'$ORIGIN' -lpthread
env -i ./two-bridges "$folder/data"
echo "dist: $(basename "$library") exports only superwall_bridge_open, _send, _receive, _close and _main, and drove two bridges from an empty folder"
