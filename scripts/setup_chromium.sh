#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests (tests/web), when it is missing.
#
# Playwright drives this browser (executable_path=/usr/bin/chromium); it never
# downloads one of its own. Runs as root on Debian (CI), like setup_postgres.sh.
set -euo pipefail

if [[ -x /usr/bin/chromium ]]; then
    exit 0
fi
echo "Installing Chromium with apt (for the browser tests)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
