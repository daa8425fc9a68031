#!/usr/bin/env bash
# Starts a throwaway S3-compatible server for the tests: versitygw with its
# posix backend in a temp directory, on a free loopback port, with a fresh
# access key, and one bucket. Source it, then call start_s3; it exports
# DISB_TEST_S3_ENDPOINT, DISB_TEST_S3_BUCKET, DISB_TEST_S3_ACCESS_KEY,
# DISB_TEST_S3_SECRET_KEY and S3_PID; stop_s3 removes it all.
#
# The binary is built once with `go install` into DISB_TEST_TOOLS_DIR (default
# ~/.cache/disbursementd-tools); install_versitygw does only that (a cold
# module and build cache takes about 3 minutes on 2 cores). VERSITYGW may
# name a binary to use instead.

VERSITYGW_VERSION=v1.8.0
DISB_TEST_TOOLS_DIR="${DISB_TEST_TOOLS_DIR:-${HOME:-/tmp}/.cache/disbursementd-tools}"

# install_versitygw builds versitygw at VERSITYGW_VERSION unless the cached
# binary is that version already (go version -m reads it from the binary).
install_versitygw() {
  local bin="$DISB_TEST_TOOLS_DIR/versitygw"
  if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -q "mod[[:space:]]*github.com/versity/versitygw[[:space:]]*$VERSITYGW_VERSION"; then
    return 0
  fi
  mkdir -p "$DISB_TEST_TOOLS_DIR"
  echo "installing versitygw $VERSITYGW_VERSION into $DISB_TEST_TOOLS_DIR"
  local start=$SECONDS
  GOBIN="$DISB_TEST_TOOLS_DIR" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION" || return 1
  echo "versitygw installed in $((SECONDS - start)) s"
}

start_s3() {
  local bin="${VERSITYGW:-}"
  if [ -z "$bin" ]; then
    install_versitygw || { echo "could not install versitygw" >&2; return 1; }
    bin="$DISB_TEST_TOOLS_DIR/versitygw"
  fi
  S3_DIR=$(mktemp -d /tmp/disb-s3.XXXXXX)
  export S3_DIR
  mkdir "$S3_DIR/data"
  local port access secret bucket=disb-test
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 37070)
  access=$(od -An -N10 -tx1 /dev/urandom | tr -d ' \n')
  secret=$(od -An -N20 -tx1 /dev/urandom | tr -d ' \n')
  # Credentials through the environment, not argv (ps shows argv).
  ROOT_ACCESS_KEY_ID="$access" ROOT_SECRET_ACCESS_KEY="$secret" \
    "$bin" --port "127.0.0.1:$port" --region us-east-1 --quiet posix "$S3_DIR/data" \
    >"$S3_DIR/versitygw.log" 2>&1 &
  S3_PID=$!
  export S3_PID
  local endpoint="http://127.0.0.1:$port" code
  local empty_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
  for _ in $(seq 1 100); do
    # Creating the bucket is also the readiness probe.
    code=$(curl -s -o "$S3_DIR/create.out" -w '%{http_code}' -X PUT \
      -H "x-amz-content-sha256: $empty_sha256" \
      --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" "$endpoint/$bucket" 2>/dev/null || true)
    if [ "$code" = 200 ]; then
      export DISB_TEST_S3_ENDPOINT="$endpoint" DISB_TEST_S3_BUCKET="$bucket" \
        DISB_TEST_S3_ACCESS_KEY="$access" DISB_TEST_S3_SECRET_KEY="$secret"
      echo "throwaway versitygw on $endpoint, bucket $bucket (data in $S3_DIR)"
      return 0
    fi
    if ! kill -0 "$S3_PID" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  echo "versitygw did not start (last answer: ${code:-none}):" >&2
  cat "$S3_DIR/create.out" >&2 2>/dev/null || true
  tail -n 30 "$S3_DIR/versitygw.log" >&2
  stop_s3
  return 1
}

stop_s3() {
  if [ -n "${S3_PID:-}" ]; then
    kill "$S3_PID" 2>/dev/null || true
    wait "$S3_PID" 2>/dev/null || true
  fi
  [ -n "${S3_DIR:-}" ] && rm -rf "$S3_DIR"
  return 0
}
