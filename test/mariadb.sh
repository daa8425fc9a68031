#!/usr/bin/env bash
# Starts a throwaway MariaDB for the tests: a temp data directory, a private
# socket and a free loopback port, root without a password, nothing else on
# the machine touched. Source it, then call start_mariadb; it exports
# DISB_TEST_MYSQL_DSN and MARIADB_PID; stop_mariadb removes it all.

start_mariadb() {
  local bin
  bin=$(command -v mariadbd || echo /usr/sbin/mariadbd)
  [ -x "$bin" ] || { echo "mariadbd not found" >&2; return 1; }
  MARIADB_DIR=$(mktemp -d /tmp/disb-mariadb.XXXXXX)
  export MARIADB_DIR
  # Temporary files in a directory of their own, not the shared /tmp (a busy
  # run once lost a bootstrap's #sql-temptable file there).
  mkdir "$MARIADB_DIR/tmp"
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 33306)
  mariadb-install-db --no-defaults --datadir="$MARIADB_DIR/data" --auth-root-authentication-method=normal \
    --skip-test-db --user="$(id -un)" --tmpdir="$MARIADB_DIR/tmp" >"$MARIADB_DIR/install.log" 2>&1 || { cat "$MARIADB_DIR/install.log" >&2; return 1; }
  "$bin" --no-defaults --datadir="$MARIADB_DIR/data" --socket="$MARIADB_DIR/mysqld.sock" \
    --pid-file="$MARIADB_DIR/mysqld.pid" --port="$port" --bind-address=127.0.0.1 --user="$(id -un)" \
    --innodb-buffer-pool-size=256M --innodb-log-file-size=64M --max-connections=500 \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --log-error="$MARIADB_DIR/error.log" --tmpdir="$MARIADB_DIR/tmp" >/dev/null 2>&1 &
  MARIADB_PID=$!
  export MARIADB_PID MARIADB_PORT=$port MARIADB_SOCKET="$MARIADB_DIR/mysqld.sock"
  for _ in $(seq 1 100); do
    if mariadb --no-defaults -uroot --socket="$MARIADB_SOCKET" -e 'SELECT 1' >/dev/null 2>&1; then
      export DISB_TEST_MYSQL_DSN="root@tcp(127.0.0.1:$port)/"
      echo "throwaway MariaDB on 127.0.0.1:$port (data in $MARIADB_DIR)"
      return 0
    fi
    sleep 0.2
  done
  echo "MariaDB did not start:" >&2
  tail -n 30 "$MARIADB_DIR/error.log" >&2
  return 1
}

stop_mariadb() {
  if [ -n "${MARIADB_PID:-}" ]; then
    kill "$MARIADB_PID" 2>/dev/null || true
    wait "$MARIADB_PID" 2>/dev/null || true
  fi
  [ -n "${MARIADB_DIR:-}" ] && rm -rf "$MARIADB_DIR"
  return 0
}
