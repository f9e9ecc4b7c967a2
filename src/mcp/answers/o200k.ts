/**
 * The o200k_base token count, exact, in about 4 MiB: the vocabulary is read from
 * dist/o200k.ranks (written at build time by scripts/build-ranks.mjs) into one byte array
 * and an open-addressing hash table, instead of the ~56 MiB of strings and maps that
 * gpt-tokenizer's encoder keeps. Text is split by o200k's own pattern and each piece is
 * merged by rank, as tiktoken does; test/mcp/answers/o200k.test.ts checks the counts against
 * gpt-tokenizer's. The work is sliced so that no count holds the event loop for long.
 */
import { readFile } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';

const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
/** o200k_base's pre-tokenizer: tokens never cross the pieces it cuts. */
const PIECES = new RegExp(
  [
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}`,
    String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}`,
    String.raw`\p{N}{1,3}`,
    String.raw` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
    String.raw`\s*[\r\n]+`,
    String.raw`\s+(?!\S)`,
    String.raw`\s+`,
  ].join('|'),
  'gu',
);

/**
 * A piece longer than this many bytes is counted as its byte length (every token covers
 * at least one byte): merging is quadratic in a piece's length, and a long run of
 * punctuation (`[{},{},…]`) is one piece.
 */
export const MAX_MERGED_PIECE_BYTES = 64;
/** Work units (bytes read, pairs looked up) between two turns of the event loop: about 2-5 ms. */
const WORK_PER_SLICE = 200_000;
const PIECE_CACHE_ENTRIES = 8192;

/**
 * Tokens inserted into the hash table, or located in the packed bytes, between two turns of
 * the event loop: cold, 10,000 inserts after an unsliced pass over all 200,000 tokens held
 * the loop 14 ms at load 6.
 */
const INSERTS_PER_SLICE = 4_000;

/**
 * The vocabulary as packed on disk (a length byte, then the token's bytes, in rank order),
 * kept as is, with the offset of each token and an open-addressing table from a token's
 * bytes to its rank.
 */
class Vocabulary {
  private readonly mask: number;

  private constructor(
    private readonly packed: Uint8Array,
    private readonly starts: Uint32Array,
    private readonly table: Int32Array,
  ) {
    this.mask = table.length - 1;
  }

  static async load(packed: Uint8Array): Promise<Vocabulary> {
    const starts = await tokenStarts(packed);
    let size = 1;
    while (size < starts.length * 2) size *= 2;
    const vocabulary = new Vocabulary(packed, starts, new Int32Array(size));
    for (let from = 0; from < starts.length; from += INSERTS_PER_SLICE) {
      vocabulary.insertRanks(from, Math.min(starts.length, from + INSERTS_PER_SLICE));
      await nextTurn();
    }
    return vocabulary;
  }

  /** A plain loop apart from the async one above, so that it is optimized. */
  private insertRanks(from: number, to: number): void {
    for (let rank = from; rank < to; rank += 1) this.insert(rank);
  }

  private insert(rank: number): void {
    const from = this.starts[rank] ?? 0;
    const to = from + (this.packed[from - 1] ?? 0);
    let slot = hash(this.packed, from, to) & this.mask;
    while ((this.table[slot] ?? 0) !== 0) slot = (slot + 1) & this.mask;
    this.table[slot] = rank + 1;
  }

  /** The rank of `piece[from, to)`, or -1 when it is not a token. */
  rank(piece: Uint8Array, from: number, to: number): number {
    let slot = hash(piece, from, to) & this.mask;
    for (;;) {
      const entry = this.table[slot] ?? 0;
      if (entry === 0) return -1;
      if (this.equals(entry - 1, piece, from, to)) return entry - 1;
      slot = (slot + 1) & this.mask;
    }
  }

  private equals(rank: number, piece: Uint8Array, from: number, to: number): boolean {
    const start = this.starts[rank] ?? 0;
    if ((this.packed[start - 1] ?? 0) !== to - from) return false;
    for (let i = 0; i < to - from; i += 1) if (this.packed[start + i] !== piece[from + i]) return false;
    return true;
  }
}

/** Where each token's bytes start in the packed vocabulary (after its length byte), a slice at a time. */
async function tokenStarts(packed: Uint8Array): Promise<Uint32Array> {
  let count = 0;
  for (let at = 0; at < packed.length; at += 1 + (packed[at] ?? 0)) count += 1;
  const starts = new Uint32Array(count);
  let at = 0;
  for (let from = 0; from < count; from += 5 * INSERTS_PER_SLICE) {
    await nextTurn();
    at = locateTokens(packed, starts, from, Math.min(count, from + 5 * INSERTS_PER_SLICE), at);
  }
  return starts;
}

/** A plain loop apart from the async one above, so that it is optimized: where ranks [from, to) start; returns where `to` starts. */
function locateTokens(packed: Uint8Array, starts: Uint32Array, from: number, to: number, at: number): number {
  let next = at;
  for (let rank = from; rank < to; rank += 1) {
    starts[rank] = next + 1;
    next += 1 + (packed[next] ?? 0);
  }
  return next;
}

/** FNV-1a over a byte range. */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i += 1) {
    h ^= bytes[i] ?? 0;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Tokens of one piece by byte-pair merging in rank order, lowest rank and leftmost first, as tiktoken does. */
function mergeCount(vocabulary: Vocabulary, piece: Uint8Array, length: number): { tokens: number; work: number } {
  if (length <= 1 || vocabulary.rank(piece, 0, length) >= 0) return { tokens: Math.min(1, length), work: length };
  if (length > MAX_MERGED_PIECE_BYTES) return { tokens: length, work: length };
  const starts: number[] = [];
  for (let i = 0; i <= length; i += 1) starts.push(i);
  const pairRank = (i: number): number => {
    const end = starts[i + 2];
    if (end === undefined) return Infinity;
    const rank = vocabulary.rank(piece, starts[i] ?? 0, end);
    return rank < 0 ? Infinity : rank;
  };
  const ranks = starts.map((_, i) => pairRank(i));
  let work = length;
  for (;;) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < ranks.length - 1; i += 1) {
      const rank = ranks[i] ?? Infinity;
      if (rank < lowest) {
        lowest = rank;
        at = i;
      }
    }
    work += ranks.length;
    if (at < 0) break;
    starts.splice(at + 1, 1);
    ranks.splice(at, 1);
    ranks[at] = pairRank(at);
    if (at > 0) ranks[at - 1] = pairRank(at - 1);
  }
  return { tokens: starts.length - 1, work };
}

/** Counts o200k tokens; loads the vocabulary on first use. */
export class O200kCounter {
  private readonly cache = new Map<string, number>();
  private readonly encoder = new TextEncoder();
  private scratch = new Uint8Array(256);

  constructor(private readonly vocabulary: Vocabulary) {}

  /** Exact, except that a piece over MAX_MERGED_PIECE_BYTES counts as its bytes: never below o200k. */
  async count(text: string): Promise<number> {
    let tokens = 0;
    let work = 0;
    for (const [piece] of text.matchAll(PIECES)) {
      const known = this.cache.get(piece);
      if (known !== undefined) {
        tokens += known;
        work += piece.length;
      } else {
        if (this.scratch.length < piece.length * 3) this.scratch = new Uint8Array(piece.length * 3);
        const { written } = this.encoder.encodeInto(piece, this.scratch);
        const merged = mergeCount(this.vocabulary, this.scratch, written);
        tokens += merged.tokens;
        work += merged.work;
        if (this.cache.size >= PIECE_CACHE_ENTRIES) this.cache.clear();
        if (piece.length <= MAX_MERGED_PIECE_BYTES) this.cache.set(piece, merged.tokens);
      }
      if (work >= WORK_PER_SLICE) {
        work = 0;
        await nextTurn();
      }
    }
    return tokens;
  }
}

/** Where the ranks file sits beside the code: dist/ for the bundle, dist/mcp/answers/ for tsc output, dist-test/src/mcp/answers/ for tests. */
const RANKS_FILES = ['./o200k.ranks', '../../o200k.ranks', '../../../../dist/o200k.ranks'];

async function readRanks(): Promise<Uint8Array> {
  let lastError: unknown;
  for (const file of RANKS_FILES) {
    try {
      return await readFile(new URL(file, import.meta.url));
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

let loading: Promise<O200kCounter> | undefined;

/** The counter, loaded once on first need (~20 ms of work in slices, ~4 MiB kept). */
export function o200kCounter(): Promise<O200kCounter> {
  loading ??= readRanks()
    .then((compressed) => promisify(brotliDecompress)(compressed))
    .then((packed) => Vocabulary.load(packed))
    .then((vocabulary) => new O200kCounter(vocabulary));
  // A failed load (a missing file) is retried by the next call rather than remembered.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
