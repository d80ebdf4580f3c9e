#!/usr/bin/env bash
# Type-checks every file that only builds for iOS (LivelineKit's ActivityKit adapter and Keychain store, the
# flight-tracker app, widget and intents, the React Native native module) against
# Tests/AppleSDKSurface: modules named ActivityKit, WidgetKit, SwiftUI, AppIntents, React and Security that
# declare what these files call with Apple's (and React Native's) documented signatures,
# availability and Sendable conformances. Swift 6 language mode, warnings are errors.
#
# This machine has no iOS SDK and no iOS standard library, so the check runs for Linux, with two
# rewrites done on copies in a temporary directory (the sources are never changed):
#   - `os(iOS)` in `#if` conditions reads as true (each iOS file must say `os(iOS)`: checked first);
#   - availability, which the Linux compiler ignores for iOS, is applied for the deployment target:
#     `@available(iOS X, *)` newer than the target becomes unavailable, an iOS deprecation becomes a
#     deprecation (the surface models the iOS 26 SDK). Enum cases stay available (the compiler
#     counts them in a switch as Xcode does).
# Usage: scripts/check-ios-sources.sh   (exit 1 with the compiler's errors on the first failure)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFTC=${SWIFTC:-swiftc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-swift-version 6 -warnings-as-errors -parse-as-library)

# The deployment targets, as the Package manifest and the example's README state them.
KIT_TARGET=17.0      # Package.swift: .iOS(.v17)
APP_TARGET=17.2      # Examples/FlightTracker/README.md and clients/react-native/ios/README.md

fail() { echo "check-ios-sources: $*" >&2; exit 1; }

# Every iOS-only file must guard ActivityKit with os(iOS): canImport alone is true on a Mac too.
ios_files=(Sources/LivelineKit/ActivityKitAdapter.swift Examples/FlightTracker/App/*.swift Examples/FlightTracker/Widget/*.swift)
[ -d clients/react-native/ios ] && ios_files+=(clients/react-native/ios/*.swift)
for f in "${ios_files[@]}"; do
    first=$(grep -m1 '^#if' "$f" || true)
    case "$first" in *"os(iOS)"*) ;; *) fail "$f: its first #if must include os(iOS), found: ${first:-none}";; esac
done

# A type that implements a deprecated requirement is not diagnosed by the compiler: named here.
# openAppWhenRun: deprecated in the iOS 26 SDK (appintents/appintent/openappwhenrun: use supportedModes).
if grep -n 'openAppWhenRun' "${ios_files[@]}"; then fail "openAppWhenRun is deprecated in the iOS 26 SDK (use supportedModes, iOS 26)"; fi

# rewrite FILE TARGET OUT: the rules above.
rewrite() {
    TARGET="$2" SURFACE="${resilient:-}" perl -pe '
        BEGIN { ($t1, $t2) = split /\./, $ENV{TARGET}; $t2 //= 0; }
        sub newer { my ($v) = @_; my ($a, $b) = split /\./, $v; $b //= 0; return $a > $t1 || ($a == $t1 && $b > $t2); }
        s/(#if|#elseif)(.*)/my ($k,$c)=($1,$2); $c =~ s{\bos\(iOS\)}{true}g; "$k$c"/e;
        s/\@objc(\([^)]*\))?\s*//g if $ENV{STRIP_OBJC};
        next unless $ENV{SURFACE};
        next if /\bcase\b/;
        s/\@available\(iOS ([0-9.]+), \*\)/newer($1) ? "\@available(*, unavailable, message: \"introduced in iOS $1\")" : "\@available(iOS $1, *)"/ge;
        s/\@available\(iOS, introduced: ([0-9.]+), deprecated: ([0-9.]+)(, message: "[^"]*")?\)/newer($1) ? "\@available(*, unavailable, message: \"introduced in iOS $1\")" : "\@available(*, deprecated$3)"/ge;
    ' "$1" > "$3"
}

# module NAME TARGET OUTDIR FILES...: rewrites the files and emits the module into OUTDIR. The SDK
# surface's modules are built resilient, like Apple's (a switch over their enums needs
# `@unknown default`), without -warnings-as-errors (Linux's Foundation is not resilient, which the
# compiler warns about); the project's modules with the flags above.
surface_module() { resilient=1 module "$@"; }
module() {
    local name=$1 target=$2 out=$3; shift 3
    local extra=("${flags[@]}")
    [ -n "${resilient:-}" ] && extra=(-swift-version 6 -parse-as-library -enable-library-evolution -suppress-warnings)
    mkdir -p "$out/src/$name"
    local srcs=()
    for f in "$@"; do rewrite "$f" "$target" "$out/src/$name/$(basename "$f")"; srcs+=("$out/src/$name/$(basename "$f")"); done
    "$SWIFTC" "${extra[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" -I "$out" "${srcs[@]}" \
        || fail "module $name (iOS $target) does not type-check"
}

# typecheck LABEL TARGET OUTDIR FILES...: rewrites the files and type-checks them as one module.
typecheck() {
    local label=$1 target=$2 out=$3; shift 3
    mkdir -p "$out/src/$label"
    local srcs=()
    for f in "$@"; do rewrite "$f" "$target" "$out/src/$label/$(basename "$f")"; srcs+=("$out/src/$label/$(basename "$f")"); done
    "$SWIFTC" "${flags[@]}" -module-name "$label" -typecheck -I "$out" "${srcs[@]}" \
        || fail "$label (iOS $target) does not type-check"
    echo "check-ios-sources: $label type-checks for iOS $target"
}
surface=Tests/AppleSDKSurface
out=$work/ios$APP_TARGET
for m in ActivityKit SwiftUI WidgetKit AppIntents React Security; do surface_module $m "$APP_TARGET" "$out" $surface/$m/*.swift; done
module LivelineCore "$APP_TARGET" "$out" Sources/LivelineCore/*.swift

# LivelineKit's deployment target is $KIT_TARGET, and the adapter needs 17.2: every declaration of
# its own must say so (on Linux the compiler ignores iOS availability); the module is checked at 17.2.
awk '/^(public |private |fileprivate |internal )?(struct|final class|class|enum|func|extension|actor) / && prev !~ /^@available\(iOS 17\.2, \*\)/ { print FILENAME ":" FNR ": needs @available(iOS 17.2, *): " $0; bad=1 } { prev=$0 } END { exit bad }' \
    Sources/LivelineKit/ActivityKitAdapter.swift || fail "the adapter's declarations must each be @available(iOS 17.2, *) (LivelineKit deploys to iOS $KIT_TARGET)"
module LivelineKit "$APP_TARGET" "$out" Sources/LivelineKit/*.swift
echo "check-ios-sources: LivelineKit type-checks for iOS $APP_TARGET"

module FlightTrackerShared "$APP_TARGET" "$out" Examples/FlightTracker/Shared/*.swift
typecheck FlightTrackerApp "$APP_TARGET" "$out" Examples/FlightTracker/App/*.swift Examples/FlightTracker/Widget/FlightIntents.swift
typecheck FlightTrackerWidget "$APP_TARGET" "$out" Examples/FlightTracker/Widget/*.swift
# The native module, with the app's attributes type (the guide's, unchanged). Linux's Swift has no
# Objective-C runtime: its `@objc` attributes are removed here; the selectors they name are
# checked against the Objective-C bridge file instead.
if [ -d clients/react-native/ios ]; then
    STRIP_OBJC=1 typecheck LivelineReactNative "$APP_TARGET" "$out" clients/react-native/ios/*.swift Examples/FlightTracker/Shared/FlightActivityAttributes.swift
    for selector in $(grep -o '@objc([a-zA-Z:]*)' clients/react-native/ios/*.swift | sed 's/.*@objc(//; s/)$//' | grep ':'); do
        # startFlightActivity:resolver:rejecter: -> RCT_EXTERN_METHOD(startFlightActivity:(...)x resolver:(...)y rejecter:(...)z)
        pattern=$(echo "$selector" | sed 's/:$//; s/:/:[^:]*[[:space:]]/g')
        tr '\n' ' ' < clients/react-native/ios/LiveActivityModule.m | grep -Eq "RCT_EXTERN_METHOD\([[:space:]]*${pattern}:" \
            || fail "clients/react-native/ios/LiveActivityModule.m has no RCT_EXTERN_METHOD for $selector"
    done
    echo "check-ios-sources: LiveActivityModule.m exports every @objc method of the Swift module"
fi

# The manifest a Mac sees (Package.swift declares only the portable modules outside Linux): it must
# stand on its own, with the platforms it states.
SWIFT=${SWIFT:-swift}
described=$(LIVELINE_PORTABLE_ONLY=1 "$SWIFT" package describe --type json) || fail "the portable manifest (LIVELINE_PORTABLE_ONLY=1) does not load"
echo "$described" | python3 -c '
import json, sys
d = json.load(sys.stdin)
targets = sorted(t["name"] for t in d["targets"])
want = ["FlightTrackerApp", "FlightTrackerShared", "FlightTrackerWidget", "LivelineCore", "LivelineCoreTests", "LivelineKit"]
if targets != want: sys.exit("portable manifest declares %s, expected %s" % (targets, want))
if sorted(p["name"] for p in d["products"]) != ["LivelineCore", "LivelineKit"]: sys.exit("portable manifest products: %s" % [p["name"] for p in d["products"]])
' || fail "the portable manifest declares the wrong modules"
echo "check-ios-sources: the manifest outside Linux declares LivelineCore, LivelineKit and the example's app half only"
