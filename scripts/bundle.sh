#!/usr/bin/env bash
# Packs the MCPB bundle for Claude Desktop through the official mcpb CLI: exactly the files
# the npm package ships (package.json "files": the esbuild bundle, its views and manifest)
# plus the production dependencies, of which there are none, since everything is inside
# the bundle. Prints the bundle's size.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build >/dev/null
npx mcpb validate manifest.json
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
npm pack --ignore-scripts --silent --pack-destination "$stage" >/dev/null
tar -xzf "$stage"/market-data-mcp-*.tgz -C "$stage"
rm "$stage"/market-data-mcp-*.tgz
cp package-lock.json "$stage/package/"
(cd "$stage/package" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --silent)
rm -f "$stage/package/package-lock.json"
out="${1:-market-data-mcp.mcpb}"
npx mcpb pack "$stage/package" "$out" >/dev/null
echo "bundle: $out $(du -k "$out" | cut -f1) KiB"
