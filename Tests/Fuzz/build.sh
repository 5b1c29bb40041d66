#!/usr/bin/env bash
# Builds the fuzz targets (Tests/Fuzz/Harness.swift) with libFuzzer and AddressSanitizer into
# OUTDIR/fuzz: one module of the harness and copies of Sources/Rules, Sources/JSONText and
# Sources/JSONRPC/Framing.swift, so that their internal API is reachable.
#   Tests/Fuzz/build.sh OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: build.sh OUTDIR}
sources="$out/sources"
rm -rf "$sources" && mkdir -p "$sources"
cp "$root"/Sources/Rules/*.swift "$root"/Sources/JSONText/*.swift "$here/Harness.swift" "$sources"/
# One module: Framing's import of JSONText goes, and the JSON parser's name, which the
# rules' parser has too, is made its own.
sed '/^import JSONText$/d' "$root/Sources/JSONRPC/Framing.swift" > "$sources/Framing.swift"
sed -i 's/\bParser\b/JSONTextParser/g' "$sources/JSONStream.swift" "$sources/JSONTape.swift"
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -module-name FuzzTargets \
    -use-ld=lld "$sources"/*.swift -o "$out/fuzz"
echo "built $out/fuzz"
