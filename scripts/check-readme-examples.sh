#!/usr/bin/env bash
# Compiles the Swift examples of the documents as a user's package would: each document's ```swift
# blocks, in order, become the main.swift of one executable target of Tests/PackageConsumer (a
# package that depends on Liveline by path and names products only), next to a Prelude.swift that
# declares what the examples take as given. The package's PublicAPI target names every type a
# product's public API takes from another module. Nothing runs; any warning fails the build.
# docs/app-side.md is left out: its example is iOS app code (UIKit, app-group containers). A block
# whose fence names a file (```swift Package.swift) is a manifest excerpt, not compiled here.
# Usage: scripts/check-readme-examples.sh   (make test runs it)
set -euo pipefail
[ $# -eq 0 ] || { echo "usage: $0 (no arguments)" >&2; exit 64; }
root=$(cd "$(dirname "$0")/.." && pwd)
consumer=$root/Tests/PackageConsumer
SWIFT=${SWIFT:-swift}

# document -> target
examples=(
  "README.md ReadmeExamples"
  "docs/ui.md UIDocExamples"
  "docs/previews.md PreviewsDocExamples"
)

for pair in "${examples[@]}"; do
  read -r doc target <<<"$pair"
  [ -f "$root/$doc" ] || { echo "error: $doc not found" >&2; exit 1; }
  [ -f "$consumer/Sources/$target/Prelude.swift" ] || { echo "error: Tests/PackageConsumer/Sources/$target/Prelude.swift not found" >&2; exit 1; }
  out=$consumer/Sources/$target/main.swift
  tmp=$(mktemp)
  {
    echo "// Written by scripts/check-readme-examples.sh from $doc's swift blocks: edit $doc, not this file."
    awk -v doc="$doc" '
      /^```swift[[:space:]]*$/ { inside = 1; blocks++; print ""; print "// " doc ", line " NR + 1; next }
      /^```/ && inside { inside = 0; next }
      inside { print }
      END {
        if (inside) { print "error: " doc ": a swift block is not closed" > "/dev/stderr"; exit 1 }
        if (blocks == 0) { print "error: " doc " has no swift block" > "/dev/stderr"; exit 1 }
      }' "$root/$doc"
  } >"$tmp" || { rm -f "$tmp"; exit 1; }
  # Rewritten only when the examples changed, so that an unchanged document builds nothing.
  if cmp -s "$tmp" "$out"; then rm -f "$tmp"; else mv "$tmp" "$out"; fi
done

# SwiftPM does not notice a file added to or removed from the path dependency (Liveline itself) in
# an existing scratch directory, and then fails with a missing conformance: start it afresh when the
# list of Liveline's source files changed since its last build.
scratch=$root/.build/package-consumer
sources=$(cd "$root" && find Sources Examples -name '*.swift' | LC_ALL=C sort | cksum)
if [ -d "$scratch" ] && [ "$(cat "$scratch/.liveline-sources" 2>/dev/null)" != "$sources" ]; then rm -rf "$scratch"; fi
mkdir -p "$scratch"
echo "$sources" >"$scratch/.liveline-sources"
"$SWIFT" build --package-path "$consumer" --scratch-path "$scratch" -Xswiftc -warnings-as-errors
echo "check-readme-examples: ${#examples[@]} document(s) and the public API compile as a user's package"
