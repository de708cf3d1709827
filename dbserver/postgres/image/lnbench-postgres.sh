#!/bin/sh
# Makes the cluster as the local backend does (dbserver/postgres
# InitdbArgs: superuser lnbench, password logins, UTF-8, C locale) with the
# run's password (LNBENCH_PGPASS), lets the compose network's nodes log in
# with it, creates one database per name in LNBENCH_PGDATABASES while the
# server listens on its socket only, then runs the server with "$@".
set -eu
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
data=/var/lib/postgresql/lnbench
pw=$(mktemp)
printf '%s\n' "${LNBENCH_PGPASS:?the run sets the password}" > "$pw"
"$bin/initdb" -D "$data" -U lnbench --pwfile="$pw" --auth=scram-sha-256 -E UTF8 --locale=C >/dev/null
rm -f "$pw"
echo "host all all all scram-sha-256" >> "$data/pg_hba.conf"
"$bin/pg_ctl" -D "$data" -o "-h '' -k /tmp" -w -s start
for db in ${LNBENCH_PGDATABASES:-}; do
  PGPASSWORD=$LNBENCH_PGPASS "$bin/createdb" -h /tmp -U lnbench "$db"
done
"$bin/pg_ctl" -D "$data" -m fast -w -s stop
exec "$bin/postgres" "$@"
