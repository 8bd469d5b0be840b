#!/usr/bin/env bash
# A 3-node NATS cluster with JetStream on one machine (loopback only), for failover tests:
# client ports 4231-4233, cluster ports 6231-6233, stores under ${DIR:-/tmp/nats-cluster}.
#   bash deploy/nats-cluster.sh start|stop
set -eu
DIR=${DIR:-/tmp/nats-cluster}
routes="nats://127.0.0.1:6231,nats://127.0.0.1:6232,nats://127.0.0.1:6233"
case "${1:-start}" in
  start)
    for i in 1 2 3; do
      mkdir -p "$DIR/n$i"
      nats-server -a 127.0.0.1 -p "423$i" -n "n$i" -js -sd "$DIR/n$i" \
        --cluster_name local --cluster "nats://127.0.0.1:623$i" --routes "$routes" \
        -l "$DIR/n$i.log" -P "$DIR/n$i.pid" &
    done
    echo "NATS_URL=nats://127.0.0.1:4231,nats://127.0.0.1:4232,nats://127.0.0.1:4233"
    ;;
  stop)
    for i in 1 2 3; do [ -f "$DIR/n$i.pid" ] && kill "$(cat "$DIR/n$i.pid")" 2>/dev/null || true; done
    ;;
esac
