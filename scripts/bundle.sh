#!/usr/bin/env bash
# Packs the MCPB bundle for Claude Desktop: the built server, manifest.json and the
# production dependencies only, through the official mcpb CLI. Prints the bundle's size.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build >/dev/null
npx mcpb validate manifest.json
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -R dist manifest.json package.json package-lock.json README.md "$stage/"
find "$stage/dist" -name '*.map' -delete
(cd "$stage" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --silent)
rm -f "$stage/package-lock.json"
out="${1:-market-data-mcp.mcpb}"
npx mcpb pack "$stage" "$out" >/dev/null
echo "bundle: $out $(du -k "$out" | cut -f1) KiB"
