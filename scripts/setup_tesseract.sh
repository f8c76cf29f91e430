#!/usr/bin/env bash
# Install Debian's Tesseract with English, German, Chinese and Japanese language data, when missing.
#
# `docs index` reads scanned PDF pages and the text of figures with it (schema_search/docs/visual/);
# the code never downloads a model or language data of its own. Runs as root on Debian (CI), like
# setup_postgres.sh and setup_chromium.sh.
set -euo pipefail

PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-chi-sim tesseract-ocr-jpn)
missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
echo "Installing ${missing[*]} with apt (OCR of scanned pages and figures)..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
