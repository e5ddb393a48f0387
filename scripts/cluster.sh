# shellcheck shell=bash
# cluster.sh: throwaway PostgreSQL 15 cluster for tests and the demo.
#
# Source it, then call cluster_start; it stops and removes the cluster on exit.
#
#   source scripts/cluster.sh
#   cluster_start            # exports PGHOST PGPORT PGUSER PGDATABASE IE_SCRATCH IE_CLUSTER_DIR
#   psql -c 'select 1'
#
# PostgreSQL refuses to run as root, so when run as root the cluster belongs
# to the `postgres` OS user; the client programs (psql, pg_regress, pg_prove,
# node) run as the caller and connect as database user postgres over the unix
# socket in the cluster's directory (and 127.0.0.1:$PGPORT).
#
# Knobs (environment):
#   IE_PORT=55432        first port to try; the next free one is taken
#   IE_PG_CONF='...'     extra postgresql.conf lines (e.g. shared_preload_libraries)
#   IE_KEEP_CLUSTER=1    leave the cluster running on exit (prints how to stop it)

IE_PGBIN=${IE_PGBIN:-/usr/lib/postgresql/15/bin}
IE_CLUSTER_PREFIX=${IE_CLUSTER_PREFIX:-/tmp/iceberg_export_test.}

# as_pg runs a command as the cluster's OS user, inside the cluster directory
# (so the server never needs access to the caller's working directory).
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd "${IE_CLUSTER_DIR:-/}" && runuser -u postgres -- "$@")
  else
    (cd "${IE_CLUSTER_DIR:-/}" && "$@")
  fi
}

# cluster_reap_stale stops and removes clusters of earlier runs whose owning
# script is gone (killed without running its exit trap).
cluster_reap_stale() {
  local d owner
  for d in "${IE_CLUSTER_PREFIX}"*; do
    [ -f "$d/owner.pid" ] || continue
    owner=$(cat "$d/owner.pid" 2>/dev/null || true)
    if [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null; then
      continue
    fi
    if [ -f "$d/data/postmaster.pid" ]; then
      IE_CLUSTER_DIR=$d as_pg "$IE_PGBIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$d"
  done
}

# port_in_use tells whether something accepts TCP connections on 127.0.0.1:$1.
port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# cluster_start creates, configures and starts the cluster and exports the
# connection settings.
cluster_start() {
  local port tries
  [ -x "$IE_PGBIN/initdb" ] || { echo "cluster: $IE_PGBIN/initdb not found (run scripts/install-deps.sh)" >&2; return 1; }
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    echo "cluster: OS user postgres is missing (install postgresql-15)" >&2; return 1
  fi
  cluster_reap_stale

  IE_CLUSTER_DIR=$(mktemp -d "${IE_CLUSTER_PREFIX}XXXXXX")
  export IE_CLUSTER_DIR
  echo $$ > "$IE_CLUSTER_DIR/owner.pid"
  mkdir -p "$IE_CLUSTER_DIR/scratch"
  chmod 755 "$IE_CLUSTER_DIR"
  chmod 777 "$IE_CLUSTER_DIR/scratch"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$IE_CLUSTER_DIR" "$IE_CLUSTER_DIR/scratch"
  fi
  trap cluster_stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  as_pg "$IE_PGBIN/initdb" -D "$IE_CLUSTER_DIR/data" -U postgres -A trust \
    -E UTF8 --locale=C.UTF-8 --no-sync >"$IE_CLUSTER_DIR/initdb.log" 2>&1 \
    || { cat "$IE_CLUSTER_DIR/initdb.log" >&2; return 1; }

  echo "include = 'iceberg_export_test.conf'" | as_pg tee -a "$IE_CLUSTER_DIR/data/postgresql.conf" >/dev/null

  port=${IE_PORT:-55432}
  for tries in $(seq 1 20); do
    while port_in_use "$port"; do port=$((port + 1)); done
    as_pg tee "$IE_CLUSTER_DIR/data/iceberg_export_test.conf" >/dev/null <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$IE_CLUSTER_DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 50
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
# pg_cron (test/interop/cron.test.mjs) keeps its jobs in the database the
# tests use and runs them over libpq (localhost, trust); an IE_PG_CONF that
# sets shared_preload_libraries must list pg_cron and iceberg_export too
shared_preload_libraries = 'pg_cron,iceberg_export'
cron.database_name = 'postgres'
# the iceberg_export launcher (test/interop/launcher.test.mjs)
iceberg_export.database = 'postgres'
${IE_PG_CONF:-}
EOF
    if as_pg "$IE_PGBIN/pg_ctl" -D "$IE_CLUSTER_DIR/data" -l "$IE_CLUSTER_DIR/postgres.log" \
         -w -t 60 start >/dev/null; then
      break
    fi
    if ! grep -q 'could not bind\|Address already in use\|could not create lock file' "$IE_CLUSTER_DIR/postgres.log" 2>/dev/null \
       || [ "$tries" -eq 20 ]; then
      echo "cluster: server failed to start; log follows" >&2
      cat "$IE_CLUSTER_DIR/postgres.log" >&2
      return 1
    fi
    port=$((port + 1))
  done

  export PGHOST=$IE_CLUSTER_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
  export IE_SCRATCH=$IE_CLUSTER_DIR/scratch
  export PATH=$IE_PGBIN:$PATH
  echo "cluster: PostgreSQL $("$IE_PGBIN/postgres" --version | awk '{print $3}') at $PGHOST port $PGPORT (scratch $IE_SCRATCH)"
}

# cluster_stop stops the cluster and removes its directory (the EXIT trap).
cluster_stop() {
  local rc=$?
  [ -n "${IE_CLUSTER_DIR:-}" ] && [ -d "$IE_CLUSTER_DIR" ] || return $rc
  if [ "${IE_KEEP_CLUSTER:-0}" = 1 ]; then
    rm -f "$IE_CLUSTER_DIR/owner.pid"
    echo "cluster: left running: PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=postgres"
    echo "cluster: stop it with: runuser -u postgres -- $IE_PGBIN/pg_ctl -D $IE_CLUSTER_DIR/data stop && rm -rf $IE_CLUSTER_DIR"
    return $rc
  fi
  if [ -f "$IE_CLUSTER_DIR/data/postmaster.pid" ]; then
    as_pg "$IE_PGBIN/pg_ctl" -D "$IE_CLUSTER_DIR/data" -m fast -w -t 30 stop >/dev/null 2>&1 \
      || as_pg "$IE_PGBIN/pg_ctl" -D "$IE_CLUSTER_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$IE_CLUSTER_DIR"
  IE_CLUSTER_DIR=
  return $rc
}
