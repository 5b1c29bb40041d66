#!/bin/sh
# Installs Debian packages the build or the tests need (as root): apt-get update, then
# apt-get install with the arguments given. While another package manager holds apt's locks
# (another make target installing, unattended upgrades), it waits and tries again, for up to
# ten minutes, saying so; apt-get alone fails at once.
set -u
deadline=$(($(date +%s) + 600))
while :; do
    output=$({ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; } 2>&1)
    status=$?
    [ -n "$output" ] && printf '%s\n' "$output" >&2
    [ "$status" -eq 0 ] && exit 0
    case $output in
    *"Could not get lock"* | *"Unable to lock"* | *"Unable to acquire the dpkg frontend lock"*) ;;
    *) exit "$status" ;;
    esac
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "install_packages.sh: apt's lock was still held after ten minutes" >&2
        exit "$status"
    fi
    echo "install_packages.sh: another package manager holds apt's lock; trying again in 5 s" >&2
    sleep 5
done
