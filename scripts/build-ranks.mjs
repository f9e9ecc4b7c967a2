#!/usr/bin/env node
// Writes dist/o200k.ranks: the o200k_base vocabulary as brotli-compressed bytes (one
// length byte, then the token's bytes, in rank order), from gpt-tokenizer's copy of
// OpenAI's o200k_base.tiktoken. src/mcp/answers/o200k.ts counts tokens from it in about 4 MiB;
// gpt-tokenizer's own encoder holds ~56 MiB once loaded (see the commit that added this).
import { Buffer } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';

const require = createRequire(import.meta.url);
const source = join(dirname(require.resolve('gpt-tokenizer/package.json')), 'data', 'o200k_base.tiktoken');
const lines = readFileSync(source, 'utf8').split('\n').filter(Boolean);
const tokens = [];
for (const line of lines) {
  const [b64, rank] = line.split(' ');
  if (Number(rank) !== tokens.length) throw new Error(`o200k ranks are not contiguous at ${rank}`);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length === 0 || bytes.length > 255) throw new Error(`token ${rank} is ${bytes.length} bytes`);
  tokens.push(bytes);
}
const packed = Buffer.concat(tokens.flatMap((bytes) => [Buffer.from([bytes.length]), bytes]));
const compressed = brotliCompressSync(packed, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } });
writeFileSync(fileURLToPath(new URL('../dist/o200k.ranks', import.meta.url)), compressed);
