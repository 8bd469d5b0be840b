#!/usr/bin/env bash
# A 3-node NATS cluster with JetStream on one machine (loopback only), for failover tests and
# trying NATS_REPLICAS=3 locally. Never touches a server on 4222.
#   bash deploy/nats-cluster.sh start   # prints the NATS_URL (and NATS_REPLICAS) to use
#   bash deploy/nats-cluster.sh stop
# Node i (1..3) is named n<i>, takes clients on CLIENT_BASE+i (default 4231-4233) and its
# peers on CLUSTER_BASE+i (default 6231-6233), and keeps its store, log and pid file under
# DIR (default: a directory of its own under the temp dir, the same for start and stop).
set -eu
CLIENT_BASE=${CLIENT_BASE:-4230}
CLUSTER_BASE=${CLUSTER_BASE:-6230}
DIR=${DIR:-${TMPDIR:-/tmp}/nats-cluster-$CLIENT_BASE}
NATS_SERVER=${NATS_SERVER:-$(command -v nats-server || echo /usr/sbin/nats-server)}
routes="nats://127.0.0.1:$((CLUSTER_BASE + 1)),nats://127.0.0.1:$((CLUSTER_BASE + 2)),nats://127.0.0.1:$((CLUSTER_BASE + 3))"
url="nats://127.0.0.1:$((CLIENT_BASE + 1)),nats://127.0.0.1:$((CLIENT_BASE + 2)),nats://127.0.0.1:$((CLIENT_BASE + 3))"

case "${1:-start}" in
  start)
    for i in 1 2 3; do
      mkdir -p "$DIR/n$i"
      "$NATS_SERVER" -a 127.0.0.1 -p "$((CLIENT_BASE + i))" -n "n$i" -js -sd "$DIR/n$i" \
        --cluster_name local --cluster "nats://127.0.0.1:$((CLUSTER_BASE + i))" --routes "$routes" \
        -l "$DIR/n$i.log" -P "$DIR/n$i.pid" &
    done
    # ready when every node answers its monitoring-free client port (JetStream elects a
    # meta leader a few seconds later; the services wait for it at start)
    for i in 1 2 3; do
      for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$((CLIENT_BASE + i))") 2>/dev/null && break
        sleep 0.1
      done
    done
    echo "NATS_URL=$url"
    echo "NATS_REPLICAS=3"
    ;;
  stop)
    for i in 1 2 3; do
      if [ -f "$DIR/n$i.pid" ]; then kill "$(cat "$DIR/n$i.pid")" 2>/dev/null || true; fi
    done
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
