#!/bin/bash
# Checks a `make dist` binary: it needs no shared library but the C and C++ runtimes (and the
# launcher, the bridge's library in ../lib), and it serves the protocol from an empty folder
# with an empty environment (no LD_LIBRARY_PATH).
set -euo pipefail
binary=$(realpath "$1")
echo "ldd $binary:"
ldd "$binary" | sed 's/^/  /'
unexpected=$(ldd "$binary" | awk '{print $1}' | grep -Ev '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|libutil\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libsuperwall_bridge\.so)$' || true)
if [ -n "$unexpected" ]; then
    echo "dist: the binary needs libraries beyond the C and C++ runtimes: $unexpected" >&2
    exit 1
fi
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
mkdir "$folder/bin"
cp "$binary" "$folder/bin/superwall-bridge"
library="$(dirname "$binary")/../lib/libsuperwall_bridge.so"
if [ -f "$library" ]; then mkdir "$folder/lib" && cp "$library" "$folder/lib/"; fi
cd "$folder"
answers=$(printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1.0","client":{"name":"dist-check","version":"1"}}}' \
    '{"jsonrpc":"2.0","id":2,"method":"configure","params":{"apiKey":"pk_dist","options":{"configSource":{"type":"embedded"},"dataDirectory":"data"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"register","params":{"placement":"workout_shared"}}' \
    '{"jsonrpc":"2.0","id":4,"method":"shutdown"}' \
    '{"jsonrpc":"2.0","method":"exit"}' | env -i bin/superwall-bridge)
for expected in '"id":1,"result":{"protocolVersion":"1.0"' '"configurationStatus":"configured"' '"outcome":"skipped"' '"id":4,"result":{}'; do
    if ! grep -qF "$expected" <<< "$answers"; then
        echo "dist: no $expected in the binary's answers:" >&2
        echo "$answers" >&2
        exit 1
    fi
done
echo "dist: $(basename "$binary") answered initialize, configure, register and shutdown from an empty folder with an empty environment"
