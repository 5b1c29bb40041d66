#!/bin/sh
# `make dist-check` on Debian 11 (glibc 2.31, Python 3.9), the oldest system the packages
# support, in a root made by debootstrap and kept under .build (scripts/release/debian11_root.sh):
# the binary's --version; a C host built against the library alone driving two bridges; the
# wheel installed offline into a virtualenv, its README quick start run over pipes and
# in-process with no path, and its superwall-bridge --version; the npm package refusing Node 12
# by name; then the Python client's suite
# on Python 3.9 against the packaged binary and library.
# Usage: debian11_check.sh DIST_DIR
set -eu
dist=$(readlink -f "$1")
checkout=$(cd "$(dirname "$0")/../.." && pwd)
root=$("$checkout/scripts/release/debian11_root.sh")
version=$(cat "$checkout/VERSION")
work=/tmp/dist-check
rm -rf "$root$work" && mkdir -p "$root$work" "$root$checkout"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mountpoint -q "$root$checkout" || mount --bind "$checkout" "$root$checkout"
trap 'umount "$root$checkout"; umount "$root/proc"' EXIT
inside() {
    chroot "$root" env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8 sh -c "cd $work && $1"
}

cp "$dist/superwall-bridge" "$root$work/"
inside "./superwall-bridge --version" | grep -F "superwall-bridge $version"
echo "debian 11: the binary answers --version"

cp "$dist/libsuperwall_bridge.so" "$dist/superwall_bridge.h" "$checkout/embedding/c/two_bridges.c" "$root$work/"
# Built on this machine against the root's glibc, with the toolchain's clang and lld.
clang --sysroot="$root" -fuse-ld=lld -O1 -Wall -Wextra -Werror -I"$root$work" -o "$root$work/two-bridges" \
    "$root$work/two_bridges.c" -L"$root$work" -lsuperwall_bridge -Wl,-rpath,'$ORIGIN' -lpthread
inside "./two-bridges $work/data"
echo "debian 11: a C host drove two bridges through the library"

cp "$dist"/superwall_bridge-*.whl "$root$work/"
python3 "$checkout/scripts/release/dist_install_check.py" --quick-start python > "$root$work/quickstart.py"
python3 "$checkout/scripts/release/dist_install_check.py" --quick-start python-in-process > "$root$work/quickstart_in_process.py"
inside "python3.9 -m venv venv && venv/bin/pip install -q --no-index superwall_bridge-*.whl"
inside "venv/bin/python quickstart.py" | grep -F "run the feature"
inside "venv/bin/python quickstart_in_process.py" | grep -F "run the feature"
inside "PATH=$work/venv/bin:/usr/bin:/bin superwall-bridge --version" | grep -F "superwall-bridge $version"
echo "debian 11: the wheel installed offline and ran its quick start over pipes and in-process"

# Node 12 must learn at load that the package needs Node 18, not from a syntax error inside it.
mkdir -p "$root$work/node-app/node_modules/superwall-bridge"
tar -xzf "$(ls "$dist"/superwall-bridge-*.tgz)" -C "$root$work/node-app/node_modules/superwall-bridge" --strip-components=1
for entry in superwall-bridge superwall-bridge/testing; do
    if inside "cd node-app && node -e \"require('$entry')\"" 2> "$root$work/node12.err"; then
        echo "debian 11: $entry loaded on Node 12" >&2
        exit 1
    fi
    grep -F "superwall-bridge needs Node 18 or later (this is 12." "$root$work/node12.err" || { cat "$root$work/node12.err" >&2; exit 1; }
done
echo "debian 11: Node 12 is told at load that the npm package needs Node 18"

if ! chroot "$root" python3.9 -c "import pytest, jsonschema" 2>/dev/null; then
    rm -rf "$root/tmp/wheels" && mkdir -p "$root/tmp/wheels"
    python3 -m pip download -q --python-version 3.9 --only-binary=:all: --platform manylinux2014_x86_64 \
        -d "$root/tmp/wheels" "pytest>=8" "jsonschema>=4.18" exceptiongroup tomli
    chroot "$root" python3.9 -m pip install -q --no-index --find-links /tmp/wheels pytest jsonschema
fi
# The pytest plugin's entry point is the installed package's; a checkout's own, without one,
# names the plugin instead.
plugins=""
ls -d "$checkout"/clients/python/*.egg-info >/dev/null 2>&1 || plugins=superwall_bridge.pytest_plugin
chroot "$root" sh -c "cd '$checkout' && HOME=/tmp PYTHONPATH='$checkout/clients/python' PYTEST_PLUGINS='$plugins' \
    SUPERWALL_BRIDGE=$work/superwall-bridge SUPERWALL_BRIDGE_LIBRARY=$work/libsuperwall_bridge.so \
    python3.9 -m pytest -q -p no:cacheprovider clients/python/tests"
