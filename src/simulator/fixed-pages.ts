/**
 * A dialect whose lists take no page size: the whole list (as many rows as the dataset's
 * largest `limit`), served a fixed number of rows at a time behind an opaque cursor, as
 * many vendor APIs page. The cursor names the dataset and the offset of the next row.
 */
import { paramJsonSchema, type DatasetDefinition, type QueryValues } from '../catalog/index.js';
import { DatasetRefusal, type Generated } from './generators/index.js';

interface Position {
  o: string;
  n: number;
}

function encode(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decode(cursor: string, operationId: string): number | undefined {
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position>;
    return position.o === operationId && Number.isSafeInteger(position.n) && (position.n ?? -1) >= 0 ? position.n : undefined;
  } catch {
    return undefined;
  }
}

export function fixedSizePage(
  dataset: DatasetDefinition,
  query: QueryValues,
  pageSize: number,
  generate: (query: QueryValues) => Generated,
): Generated {
  const { cursor, ...rest } = query;
  const offset = typeof cursor === 'string' ? decode(cursor, dataset.operationId) : 0;
  if (offset === undefined)
    throw new DatasetRefusal(
      'VALIDATION_ERROR',
      'The cursor is invalid or belongs to another query.',
      'Use the next cursor of the previous page, or drop cursor.',
    );
  const schema = dataset.query['limit'];
  const max = schema ? paramJsonSchema(schema).schema['maximum'] : undefined;
  const whole = generate({ ...rest, limit: typeof max === 'number' ? max : 1000 });
  if (!Array.isArray(whole.data)) return whole;
  const rows = whole.data;
  const end = offset + pageSize;
  return { ...whole, data: rows.slice(offset, end), nextCursor: end < rows.length ? encode({ o: dataset.operationId, n: end }) : null };
}
