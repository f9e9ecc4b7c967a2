#!/usr/bin/env bash
# Packs the MCPB bundle for Claude Desktop through the official mcpb CLI: exactly the files
# the npm package ships (package.json "files": the esbuild bundle, its views, manifest and
# icon) plus the production dependencies, of which there are none, since everything is
# inside the bundle. Prints what the bundle holds (mcpb's own listing), its size and its
# sha256: the fileSha256 server.json gives for the released file (README, "Releasing").
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
out="$(realpath -m "${1:-market-data-mcp.mcpb}")"
mcpb="$PWD/node_modules/.bin/mcpb"
# Packed from inside the folder, so that mcpb lists the files by their paths in the bundle.
(cd "$stage/package" && "$mcpb" pack . "$out")
echo "bundle: $out $(du -k "$out" | cut -f1) KiB, sha256 $(sha256sum "$out" | cut -d' ' -f1)"
