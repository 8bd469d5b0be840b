#!/usr/bin/env bash
# Makes sure the local PostgreSQL takes at least N connections (default 300), restarting it
# once when its setting is lower. The test suite runs two files at once, several of them
# with every service as its own process and pool, which Debian's default of 100 cannot hold.
set -u
want="${1:-300}"
psql_() { psql -h 127.0.0.1 -U postgres -d postgres -Atc "$1"; }
have=$(psql_ "SHOW max_connections") || { echo "PostgreSQL is not answering" >&2; exit 1; }
if [ "$have" -ge "$want" ]; then exit 0; fi
echo "raising PostgreSQL max_connections from $have to $want (restart)"
psql_ "ALTER SYSTEM SET max_connections = $want" >/dev/null || exit 1
cluster=$(ls /etc/postgresql | head -n1)
pg_ctlcluster --skip-systemctl-redirect "$cluster" main restart || exit 1
for _ in $(seq 1 60); do
  now=$(psql_ "SHOW max_connections" 2>/dev/null) && [ "$now" -ge "$want" ] && exit 0
  sleep 0.5
done
echo "PostgreSQL did not come back with max_connections >= $want" >&2
exit 1
