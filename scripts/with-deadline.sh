#!/usr/bin/env bash
# Runs a command with a deadline. When the command is still running after SECONDS, every thread of
# each process it started that is still alive is printed with its stack (gdb, Debian's `gdb`, when
# it is installed), the processes are killed, and the script exits 124: a hung test run ends with
# the place it hung instead of waiting for CI's limit. Otherwise it exits with the command's status.
# Usage: scripts/with-deadline.sh SECONDS COMMAND [ARGS...]
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SECONDS COMMAND [ARGS...]" >&2; exit 64; }
case "$1" in ''|*[!0-9]*) echo "error: SECONDS must be a whole number, got '$1'" >&2; exit 64 ;; esac
limit=$1
shift

# The command leads a session of its own, so that everything it started (also what it put in process
# groups of their own, as swift test does with its test runner) can be found and stopped.
setsid "$@" &
child=$!
trap 'pkill -TERM -s "$child" 2>/dev/null' INT TERM
# A watcher that wakes once at the deadline; the command's exit ends it.
(
  sleep "$limit" >/dev/null 2>&1 &
  sleeper=$!
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  wait "$sleeper"
  echo "with-deadline: '$*' still running after $limit s; stacks of what is still running:" >&2
  for pid in $(pgrep -s "$child" 2>/dev/null); do
    echo "---- process $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)" >&2
    if command -v gdb >/dev/null 2>&1; then
      timeout 60 gdb -p "$pid" -batch -nx -ex "set pagination off" -ex "thread apply all bt 30" 2>/dev/null \
        | grep -E '^(Thread|#)' >&2
    else
      echo "(gdb not installed: no stacks; apt-get install gdb)" >&2
    fi
  done
  pkill -KILL -s "$child" 2>/dev/null
) &
watcher=$!
wait "$child"
status=$?
kill -TERM "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
# Killed by the watcher: report the deadline, not the signal.
if [ "$status" -eq 137 ]; then exit 124; fi
exit "$status"
