#!/bin/sh
# The Python client on Python 3.9, the oldest it supports: its suite (the in-process tests
# aside) in a Debian 11 root made by debootstrap and kept under .build, against BRIDGE.
# The bridge runs there on this machine's glibc, loaded by its own dynamic loader, until it
# runs on Debian 11's. Usage: python39_check.sh BRIDGE
set -eu
bridge=$(readlink -f "$1")
checkout=$(cd "$(dirname "$0")/.." && pwd)
root="$checkout/.build/debian11-root"
if [ ! -x "$root/usr/bin/python3.9" ]; then
    command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
    rm -rf "$root"
    debootstrap --variant=minbase --include=python3 bullseye "$root" http://deb.debian.org/debian >/dev/null
fi
if ! chroot "$root" python3.9 -c "import pytest, jsonschema" 2>/dev/null; then
    rm -rf "$root/tmp/wheels" && mkdir -p "$root/tmp/wheels"
    python3 -m pip download -q --python-version 3.9 --only-binary=:all: --platform manylinux2014_x86_64 \
        -d "$root/tmp/wheels" "pytest>=8" "jsonschema>=4.18" exceptiongroup tomli
    chroot "$root" python3.9 -m ensurepip >/dev/null 2>&1 || true
    chroot "$root" sh -c 'python3.9 -m pip --version >/dev/null 2>&1 || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null)'
    chroot "$root" python3.9 -m pip install -q --no-index --find-links /tmp/wheels pytest jsonschema
fi
mkdir -p "$root/host-glibc" "$root/host-bin" "$root$checkout"
for library in libc.so.6 libm.so.6 libgcc_s.so.1; do cp -L "/lib/x86_64-linux-gnu/$library" "$root/host-glibc/"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/host-glibc/"
cp "$bridge" "$root/host-bin/superwall-bridge.real"
printf '#!/bin/sh\nexec /host-glibc/ld-linux-x86-64.so.2 --library-path /host-glibc /host-bin/superwall-bridge.real "$@"\n' \
    > "$root/host-bin/superwall-bridge"
chmod +x "$root/host-bin/superwall-bridge"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mountpoint -q "$root$checkout" || mount --bind "$checkout" "$root$checkout"
trap 'umount "$root$checkout"; umount "$root/proc"' EXIT
# The pytest plugin's entry point is the installed package's; a checkout's own, without one,
# names the plugin instead.
plugins=""
ls -d "$checkout"/clients/python/*.egg-info >/dev/null 2>&1 || plugins=superwall_bridge.pytest_plugin
chroot "$root" sh -c "cd '$checkout' && HOME=/tmp PYTHONPATH='$checkout/clients/python' PYTEST_PLUGINS='$plugins' \
    SUPERWALL_BRIDGE=/host-bin/superwall-bridge python3.9 -m pytest -q -p no:cacheprovider clients/python/tests \
    --deselect clients/python/tests/test_in_process.py -k 'not in_process and not library'"
