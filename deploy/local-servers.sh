#!/usr/bin/env bash
# Starts the local PostgreSQL, NATS (with JetStream) and Redis when they are not
# answering, as installed from Debian's packages on the development machines.
set -u

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() {
  for _ in $(seq 1 60); do up "$1" && return 0; sleep 0.5; done
  echo "$2 did not come up on port $1" >&2
  return 1
}

if ! up 5432; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  wait_for 5432 PostgreSQL || exit 1
fi
if ! up 4222; then
  echo "starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log || true
  wait_for 4222 NATS || exit 1
fi
if ! up 6379; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  wait_for 6379 Redis || exit 1
fi
echo "PostgreSQL, NATS and Redis are up"
