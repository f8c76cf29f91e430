#!/usr/bin/env bash
# Start a local PostgreSQL for the `postgres`-marked tests and print the URL they use.
#
# Idempotent: installs the server only when it is missing, starts the cluster only
# when it is down, creates the role and database only when they are absent. Runs as
# root on Debian (CI); the server itself refuses root, so everything talks to it as
# the `postgres` OS user.
set -euo pipefail

ROLE=schema_search
PASSWORD=schema_search
# A role that can only read, for the execution tests: the tables' owner grants it SELECT
# on each scratch schema; only a superuser can cap its temporary files.
READER=schema_search_reader
DATABASE=schema_search_test
PORT=  # the cluster's, read from pg_lsclusters

install_server() {
    if command -v pg_ctlcluster >/dev/null && command -v psql >/dev/null; then
        return
    fi
    echo "Installing PostgreSQL with apt..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
}

# The hostile-SQL suite (eval/reliability/hostile_sql.py) plants dblink functions; Debian
# ships dblink in postgresql-contrib, which the postgresql package only recommends.
install_contrib() {
    local version=$1
    if [[ -f "/usr/share/postgresql/${version}/extension/dblink.control" ]]; then
        return
    fi
    echo "Installing postgresql-contrib (dblink) with apt..." >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "postgresql-contrib-${version}" >/dev/null 2>&1 || apt-get install -y -qq postgresql-contrib >/dev/null
}

# The first cluster pg_lsclusters lists, as "VERSION NAME PORT"; Debian creates one
# ("15 main 5432" on Debian 12) when the package is installed.
cluster() {
    local found
    found=$(pg_lsclusters --no-header | awk 'NR == 1 { print $1, $2, $3 }')
    if [[ -z "$found" ]]; then
        echo "No PostgreSQL cluster found (pg_lsclusters is empty); create one with pg_createcluster." >&2
        exit 1
    fi
    echo "$found"
}

start_cluster() {
    local version=$1 name=$2
    if ! pg_lsclusters --no-header | awk -v v="$version" -v n="$name" '$1 == v && $2 == n { print $4 }' | grep -q online; then
        echo "Starting PostgreSQL cluster $version/$name..." >&2
        pg_ctlcluster "$version" "$name" start
    fi
}

wait_until_ready() {
    local _
    for _ in $(seq 1 60); do
        if pg_isready -q -h 127.0.0.1 -p "$PORT"; then
            return
        fi
        sleep 0.5
    done
    echo "PostgreSQL did not accept connections on 127.0.0.1:$PORT within 30 s; see /var/log/postgresql/." >&2
    exit 1
}

as_postgres() {
    # -X: ignore any ~/.psqlrc; ON_ERROR_STOP: fail the script on a failed statement.
    # cd /: the postgres user may not be allowed into the caller's directory.
    (cd / && su postgres -c "psql -X -q -v ON_ERROR_STOP=1 -p $PORT $*")
}

create_role_and_database() {
    # The password is (re)set every run so a role left over from older runs still
    # matches the URL; password_encryption defaults to scram-sha-256, which is what
    # Debian's pg_hba.conf asks of TCP connections from 127.0.0.1. CREATEDB lets tests
    # load DDL that names its own schemas into a scratch database of their own.
    as_postgres "-d postgres" <<SQL
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN
        CREATE ROLE ${ROLE} LOGIN;
    END IF;
END
\$\$;
ALTER ROLE ${ROLE} WITH LOGIN CREATEDB PASSWORD '${PASSWORD}';
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${READER}') THEN
        CREATE ROLE ${READER} LOGIN;
    END IF;
END
\$\$;
ALTER ROLE ${READER} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '${READER}';
ALTER ROLE ${READER} SET temp_file_limit = '1GB';
-- The guard parses each statement with debug_print_rewritten: this keeps the trees out of the server log.
DO \$\$
BEGIN
    IF current_setting('server_version_num')::int >= 150000 THEN
        EXECUTE 'GRANT SET ON PARAMETER log_min_messages TO ${READER}';
    END IF;
END
\$\$;
SQL
    # CREATE DATABASE cannot run inside a DO block, so check first.
    if [[ -z "$(as_postgres "-d postgres -tAc \"SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'\"")" ]]; then
        as_postgres "-d postgres -c 'CREATE DATABASE ${DATABASE} OWNER ${ROLE}'"
    fi
}

check_password_login() {
    if ! PGPASSWORD=$PASSWORD psql -X -q -h 127.0.0.1 -p "$PORT" -U "$ROLE" -d "$DATABASE" -tAc 'SELECT 1' >/dev/null; then
        echo "Password login as $ROLE over 127.0.0.1 failed; check pg_hba.conf for a 'host ... 127.0.0.1/32 scram-sha-256' line." >&2
        exit 1
    fi
}

main() {
    install_server
    local found version name
    found=$(cluster)
    read -r version name PORT <<<"$found"
    install_contrib "$version"
    start_cluster "$version" "$name"
    wait_until_ready
    create_role_and_database
    check_password_login
    echo "postgresql://${ROLE}:${PASSWORD}@127.0.0.1:${PORT}/${DATABASE}"
}

main "$@"
