#!/bin/sh
# A Debian 11 root (glibc 2.31, Python 3.9, Node 12), made by debootstrap and kept under .build: the
# release link's sysroot (its glibc, crt files and GCC 10 runtime, with absolute symlinks made
# relative so the linker stays inside the root) and the place the packages are tried as a user
# of Debian 11 would. Prints the root's path. Usage: debian11_root.sh
set -eu
checkout=$(cd "$(dirname "$0")/../.." && pwd)
root="$checkout/.build/debian11-root"
packages="python3 python3-venv python3-pip libc6-dev libgcc-10-dev nodejs"
if [ ! -x "$root/usr/bin/python3.9" ]; then
    command -v debootstrap >/dev/null || "$checkout/scripts/install_packages.sh" debootstrap
    # A check that was killed may have left the checkout bind-mounted inside: never delete through it.
    awk -v root="$root" '$2 == root || index($2, root "/") == 1 {print $2}' /proc/mounts | sort -r | while read -r mount; do
        umount "$mount"
    done
    rm -rf "$root"
    debootstrap --variant=minbase --include="$(echo $packages | tr ' ' ,)" bullseye "$root" http://deb.debian.org/debian >&2
fi
if [ ! -f "$root/usr/lib/x86_64-linux-gnu/libc_nonshared.a" ] || [ ! -d "$root/usr/lib/gcc/x86_64-linux-gnu/10" ] || [ ! -f "$root/usr/lib/python3.9/ensurepip/__init__.py" ] || [ ! -d "$root/usr/lib/python3/dist-packages/pip" ] || [ ! -x "$root/usr/bin/node" ]; then
    chroot "$root" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages >/dev/null" >&2
fi
for folder in "$root/lib64" "$root/usr/lib/x86_64-linux-gnu" "$root/usr/lib/gcc/x86_64-linux-gnu/10"; do
    find "$folder/" -maxdepth 1 -type l -lname '/*' | while read -r link; do
        ln -sfr "$root$(readlink "$link")" "$link"
    done
done
echo "$root"
