#!/usr/bin/env node
// Draws icon.png, the MCPB bundle's icon (manifest.json "icon"): dealer gamma by strike as
// bars above and below a zero line, green long gamma, red short, and the spot as a gold
// line, on a dark rounded square. 512x512 (what Claude Desktop asks for), an indexed PNG
// of five colours written with node's zlib, so no image library is needed. Run it again
// after changing the drawing and commit the PNG: the build does not draw it.
//   node scripts/draw-icon.mjs [out.png]
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 512;
// Index 0 stays transparent outside the rounded square.
const PALETTE = [
  [0, 0, 0],
  [15, 23, 42],
  [34, 197, 94],
  [239, 68, 68],
  [250, 204, 21],
];
const [CLEAR, GROUND, LONG, SHORT, SPOT] = [0, 1, 2, 3, 4];

const pixels = new Uint8Array(SIZE * SIZE).fill(CLEAR);
const fill = (x0, y0, x1, y1, colour) => {
  for (let y = Math.max(0, y0); y < Math.min(SIZE, y1); y++) pixels.fill(colour, y * SIZE + Math.max(0, x0), y * SIZE + Math.min(SIZE, x1));
};

// The rounded square.
const radius = 96;
for (let y = 0; y < SIZE; y++) {
  for (let x = 0; x < SIZE; x++) {
    const dx = Math.max(radius - x, 0, x - (SIZE - 1 - radius));
    const dy = Math.max(radius - y, 0, y - (SIZE - 1 - radius));
    if (dx * dx + dy * dy <= radius * radius) pixels[y * SIZE + x] = GROUND;
  }
}

// Net GEX by strike: negative below the flip (left), positive above, the largest (the king) near spot.
const zero = 300;
const gex = [-40, -70, -115, -150, -95, -45, 35, 90, 185, 120, 70, 40];
const barWidth = 24;
const gap = 8;
const left = Math.round((SIZE - gex.length * (barWidth + gap) + gap) / 2);
gex.forEach((value, i) => {
  const x = left + i * (barWidth + gap);
  if (value >= 0) fill(x, zero - value, x + barWidth, zero, LONG);
  else fill(x, zero, x + barWidth, zero - value, SHORT);
});
fill(left - 12, zero - 2, SIZE - left + 12, zero + 2, GROUND);
// Spot, between the flip and the king strike.
const spotX = left + 7 * (barWidth + gap) + barWidth + Math.round(gap / 2);
fill(spotX - 3, 76, spotX + 3, 436, SPOT);

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

function crc32(buffer) {
  let crc = ~0;
  for (const byte of buffer) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header[8] = 8; // bits per index
header[9] = 3; // indexed colour
const rows = Buffer.alloc(SIZE * (SIZE + 1));
for (let y = 0; y < SIZE; y++) rows.set(pixels.subarray(y * SIZE, (y + 1) * SIZE), y * (SIZE + 1) + 1);
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', header),
  chunk('PLTE', Buffer.from(PALETTE.flat())),
  chunk('tRNS', Buffer.from([0])),
  chunk('IDAT', deflateSync(rows, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = process.argv[2] ?? new URL('../icon.png', import.meta.url);
writeFileSync(out, png);
console.log(`icon: ${png.length} bytes, ${SIZE}x${SIZE}`);
