#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL server: a cluster made with initdb in a temporary
# directory, listening only on a Unix socket there (no TCP port), stopped and deleted when the
# command ends, also when it fails or is interrupted. The command sees LIVELINE_TEST_POSTGRES_URL,
# a URL to the server's `postgres` database (user `liveline`, trusted local connections).
# As root, the server runs as the `postgres` user (initdb refuses root): POSTGRES_RUN_AS overrides it.
# Usage: scripts/with-postgres.sh COMMAND [ARGS...]      e.g. scripts/with-postgres.sh swift test --skip-build
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 64; }

# Debian keeps the server's binaries off PATH, one directory per major version; take the newest.
bindir=${POSTGRES_BINDIR:-}
if [ -z "$bindir" ]; then
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V); do [ -x "$d/pg_ctl" ] && bindir=$d; done
fi
if [ -z "$bindir" ] && command -v pg_ctl >/dev/null 2>&1; then bindir=$(dirname "$(command -v pg_ctl)"); fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "error: PostgreSQL's server programs (initdb, pg_ctl) were not found" >&2
  echo "hint: apt-get install postgresql (scripts/install-deps.sh test does), or set POSTGRES_BINDIR" >&2
  exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/liveline-pg.XXXXXX")
as=()
if [ "$(id -u)" -eq 0 ]; then
  user=${POSTGRES_RUN_AS:-postgres}
  if ! id -u "$user" >/dev/null 2>&1; then
    echo "error: as root, PostgreSQL needs a non-root user to run as; '$user' does not exist (set POSTGRES_RUN_AS)" >&2
    rm -rf "$dir"
    exit 1
  fi
  chown "$user" "$dir"
  as=(runuser -u "$user" --)
fi
port=5432  # with no TCP listener it only names the socket file, so it cannot collide

cleanup() {
  status=$?
  if [ -f "$dir/data/postmaster.pid" ]; then
    "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! "${as[@]}" "$bindir/initdb" -D "$dir/data" -A trust -U liveline -E UTF8 --no-sync >"$dir/initdb.log" 2>&1; then
  cat "$dir/initdb.log" >&2
  exit 1
fi
# -w waits until the server accepts connections. Durability is not wanted from a throw-away cluster.
if ! "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-k $dir -p $port -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null; then
  cat "$dir/server.log" >&2
  exit 1
fi
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on $dir/.s.PGSQL.$port" >&2
export LIVELINE_TEST_POSTGRES_URL="postgresql://liveline@/postgres?host=$dir&port=$port"
"$@"
