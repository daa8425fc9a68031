#!/usr/bin/env bash
# Starts a throwaway 3-node MariaDB Galera cluster on loopback for the
# tests: each node with its own data directory, defaults file, socket and
# ports (client, gcomm, IST, SST), chosen below the ephemeral range so a
# client's outgoing port never takes one. Nothing else on the machine is
# touched. Source it, then:
#   start_galera        exports DISB_TEST_GALERA_DSNS (3 DSNs, comma-
#                       separated, root without a password, no database)
#                       and GALERA_DIR;
#   galera_kill N       SIGKILLs node N (1..3);
#   galera_restart N    recovers node N's position (--wsrep-recover) and
#                       starts it with --wsrep-start-position, so it rejoins
#                       by incremental state transfer (IST), and waits until
#                       it is Synced;
#   stop_galera         stops every node (one at a time: faster than all at
#                       once) and removes it all.
# Needs galera-4, rsync and socat (.ci/run installs them).
#
# Start-up: node 1 is bootstrapped alone, given the test database and user,
# stopped cleanly and its data directory copied to nodes 2 and 3; then node
# 1 starts again as the new cluster and 2 and 3 join one after the other
# (by IST from the same state: no full transfer).

GALERA_PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}

# galera_ports picks a base port P below the ephemeral range with P..P+39
# free; node N uses P+10N (client), +1 (gcomm), +2 (IST), +3 (SST).
galera_ports() {
  python3 - <<'EOF'
import random, socket
lo = int(open('/proc/sys/net/ipv4/ip_local_port_range').read().split()[0])
for _ in range(200):
    base = random.randrange(10000, lo - 60, 10)
    try:
        socks = []
        for p in range(base, base + 40):
            s = socket.socket(); s.bind(('127.0.0.1', p)); socks.append(s)
        for s in socks: s.close()
        print(base); break
    except OSError:
        for s in socks: s.close()
EOF
}

# galera_user is the account the nodes run as: as root, nobody (rsync's
# state-transfer daemon drops to nobody, so the data directories are
# nobody's); otherwise the caller.
galera_user() {
  if [ "$(id -u)" = 0 ]; then echo nobody; else id -un; fi
}

galera_cnf() {
  local n=$1 base=$GALERA_BASE g="" i
  for i in 1 2 3; do g="${g:+$g,}127.0.0.1:$((base + 10 * i + 1))"; done
  cat <<EOF
[mysqld]
datadir=$GALERA_DIR/n$n/data
socket=$GALERA_DIR/n$n/sock
pid-file=$GALERA_DIR/n$n/pid
log-error=$GALERA_DIR/n$n/error.log
tmpdir=$GALERA_DIR/n$n/tmp
port=$((base + 10 * n))
bind-address=127.0.0.1
user=$(galera_user)
innodb_buffer_pool_size=64M
innodb_log_file_size=48M
max_connections=500
character-set-server=utf8mb4
collation-server=utf8mb4_unicode_ci
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=$GALERA_PROVIDER
wsrep_cluster_name=disb_test
wsrep_cluster_address=gcomm://$g
wsrep_node_name=n$n
wsrep_node_address=127.0.0.1
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$((base + 10 * n + 3))
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$((base + 10 * n + 1));ist.recv_addr=127.0.0.1:$((base + 10 * n + 2));gcache.size=32M;base_port=$((base + 10 * n + 1));evs.keepalive_period=PT0.5S;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S"
[sst]
# No syslog: the transfer scripts log to the error log.
[mysqld_safe]
EOF
}

galera_client() {
  local n=$1; shift
  mariadb --no-defaults -uroot --socket="$GALERA_DIR/n$n/sock" "$@"
}

# galera_wait_synced N [tries]: until node N answers and is Synced.
galera_wait_synced() {
  local n=$1 tries=${2:-300} state
  for _ in $(seq 1 "$tries"); do
    state=$(galera_client "$n" -N -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2) || true
    [ "$state" = Synced ] && return 0
    if ! kill -0 "$(cat "$GALERA_DIR/n$n/mariadbd.pid" 2>/dev/null)" 2>/dev/null; then
      echo "galera node $n exited:" >&2; tail -n 30 "$GALERA_DIR/n$n/error.log" >&2; return 1
    fi
    sleep 0.1
  done
  echo "galera node $n is not Synced (state '${state:-none}'):" >&2
  tail -n 30 "$GALERA_DIR/n$n/error.log" >&2
  return 1
}

# galera_start_node N [mariadbd args...]: starts node N in its own session
# (a caller's exit does not end it) and records its pid.
galera_start_node() {
  local n=$1; shift
  setsid "$GALERA_BIN" --defaults-file="$GALERA_DIR/n$n.cnf" "$@" >>"$GALERA_DIR/n$n/stdout.log" 2>&1 </dev/null &
  echo $! >"$GALERA_DIR/n$n/mariadbd.pid"
  disown $! 2>/dev/null || true
}

# galera_stop_node N: a clean shutdown (SIGTERM), waited for.
galera_stop_node() {
  local n=$1 pid
  pid=$(cat "$GALERA_DIR/n$n/mariadbd.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# galera_join N: starts node N and waits until it has joined, Synced. A
# join can time out on a busy machine (the group's install message is not
# committed within evs.inactive_timeout: "failed to reach primary view");
# the node is then stopped and started again, three tries in all.
galera_join() {
  local n=$1 try
  for try in 1 2 3; do
    galera_start_node "$n"
    galera_wait_synced "$n" && return 0
    [ "$try" = 3 ] && break
    echo "galera node $n did not join (try $try of 3); starting it again" >&2
    galera_stop_node "$n"
  done
  return 1
}

start_galera() {
  GALERA_BIN=$(command -v mariadbd || echo /usr/sbin/mariadbd)
  [ -x "$GALERA_BIN" ] || { echo "mariadbd not found" >&2; return 1; }
  [ -f "$GALERA_PROVIDER" ] || { echo "galera-4 not installed ($GALERA_PROVIDER)" >&2; return 1; }
  command -v rsync >/dev/null || { echo "rsync not installed" >&2; return 1; }
  GALERA_DIR=$(mktemp -d /tmp/disb-galera.XXXXXX)
  chmod 755 "$GALERA_DIR"
  GALERA_BASE=$(galera_ports)
  [ -n "$GALERA_BASE" ] || { echo "no free ports for the cluster" >&2; return 1; }
  export GALERA_DIR GALERA_BASE GALERA_BIN GALERA_PROVIDER
  local n user
  user=$(galera_user)
  for n in 1 2 3; do
    mkdir -p "$GALERA_DIR/n$n/tmp"
    [ "$user" = "$(id -un)" ] || chown "$user" "$GALERA_DIR/n$n/tmp"
    galera_cnf "$n" >"$GALERA_DIR/n$n.cnf"
  done
  mariadb-install-db --no-defaults --datadir="$GALERA_DIR/n1/data" --auth-root-authentication-method=normal \
    --skip-test-db --user="$user" --tmpdir="$GALERA_DIR/n1/tmp" >"$GALERA_DIR/install.log" 2>&1 || { cat "$GALERA_DIR/install.log" >&2; return 1; }
  [ "$user" = "$(id -un)" ] || chown -R "$user" "$GALERA_DIR"/n1 "$GALERA_DIR"/n2 "$GALERA_DIR"/n3
  galera_start_node 1 --wsrep-new-cluster
  galera_wait_synced 1 || return 1
  galera_client 1 -e "CREATE DATABASE disb CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    CREATE USER 'disb'@'127.0.0.1' IDENTIFIED BY 'disb'; GRANT ALL ON disb.* TO 'disb'@'127.0.0.1';" || return 1
  galera_stop_node 1
  for n in 2 3; do cp -a "$GALERA_DIR/n1/data" "$GALERA_DIR/n$n/data"; done
  galera_start_node 1 --wsrep-new-cluster
  galera_wait_synced 1 || return 1
  for n in 2 3; do
    galera_join "$n" || return 1
  done
  local size
  size=$(galera_client 1 -N -e "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)
  [ "$size" = 3 ] || { echo "galera cluster size $size, want 3" >&2; return 1; }
  DISB_TEST_GALERA_DSNS=""
  for n in 1 2 3; do
    DISB_TEST_GALERA_DSNS="${DISB_TEST_GALERA_DSNS:+$DISB_TEST_GALERA_DSNS,}root@tcp(127.0.0.1:$((GALERA_BASE + 10 * n)))/"
  done
  export DISB_TEST_GALERA_DSNS
  echo "throwaway Galera cluster: $DISB_TEST_GALERA_DSNS (data in $GALERA_DIR)"
}

# galera_kill N: SIGKILL, as a crash would.
galera_kill() {
  local n=$1 pid
  pid=$(cat "$GALERA_DIR/n$n/mariadbd.pid")
  kill -9 "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
}

# galera_restart N: after a kill, finds the last committed position with
# --wsrep-recover and starts from it, so the node catches up by IST.
galera_restart() {
  local n=$1 pos
  "$GALERA_BIN" --defaults-file="$GALERA_DIR/n$n.cnf" --wsrep-recover --log-error="$GALERA_DIR/n$n/recover.log" >/dev/null 2>&1
  pos=$(sed -n 's/.*WSREP: Recovered position: *\([0-9a-f-]*:-\{0,1\}[0-9]*\).*/\1/p' "$GALERA_DIR/n$n/recover.log" | tail -n 1)
  rm -f "$GALERA_DIR/n$n/recover.log"
  if [ -n "$pos" ]; then
    galera_start_node "$n" --wsrep-start-position="$pos"
  else
    galera_start_node "$n"
  fi
  galera_wait_synced "$n" 600
}

stop_galera() {
  [ -n "${GALERA_DIR:-}" ] && [ -d "$GALERA_DIR" ] || return 0
  local n
  for n in 3 2 1; do galera_stop_node "$n"; done
  rm -rf "$GALERA_DIR"
  return 0
}

# Run as a script: galera.sh kill N | restart N, on the cluster in
# $GALERA_DIR (the load tool's soak kills and restarts nodes this way).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # No -e: the waits read a node that does not answer yet, and fail.
  set -uo pipefail
  : "${GALERA_DIR:?GALERA_DIR names the cluster}"
  GALERA_BIN=${GALERA_BIN:-$(command -v mariadbd || echo /usr/sbin/mariadbd)}
  GALERA_BASE=${GALERA_BASE:-}
  case "${1:-}" in
    kill) galera_kill "$2" ;;
    restart) galera_restart "$2" ;;
    *) echo "usage: GALERA_DIR=... $0 kill|restart N" >&2; exit 2 ;;
  esac
fi
