/**
 * Catalog → OpenAPI 3.1.0, as the upstream publishes it at /v1/openapi.json. The
 * simulator serves this document; the MCP server reads the upstream's copy back with
 * `datasetsFromOpenApi` in src/registry/openapi/import.ts.
 */
import * as z from 'zod';
import { META_ENDPOINTS, scopeOf, toolsetOf } from './datasets.js';
import { ERROR_ENVELOPE_JSON_SCHEMA } from './envelope.js';
import { isRequiredParam } from './validate.js';
import type { DatasetDefinition } from './types.js';

export const OPENAPI_TITLE = 'Market Data Read API';
export const OPENAPI_VERSION = '0.4.0-operation-ids';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: Record<string, unknown>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: OpenApiParameter[];
  responses: Record<string, unknown>;
  'x-on-demand'?: boolean;
  'x-cache-class'?: string;
  'x-scope'?: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string };
  paths: Record<string, { get: OpenApiOperation }>;
  components: Record<string, unknown>;
}

export function paramJsonSchema(schema: z.ZodType): { schema: Record<string, unknown>; description?: string } {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json['$schema'];
  const { description, ...rest } = json;
  return typeof description === 'string' ? { schema: rest, description } : { schema: rest };
}

function toParameter(name: string, location: 'path' | 'query', schema: z.ZodType): OpenApiParameter {
  const { schema: json, description } = paramJsonSchema(schema);
  return {
    name,
    in: location,
    required: location === 'path' || isRequiredParam(schema),
    ...(description === undefined ? {} : { description }),
    schema: json,
  };
}

const ERROR_RESPONSE = {
  description: 'Error envelope',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
};

export function buildOpenApiDocument(datasets: readonly DatasetDefinition[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const dataset of datasets) {
    const parameters: OpenApiParameter[] = [];
    if (dataset.ticker) parameters.push(toParameter('ticker', 'path', dataset.ticker));
    for (const [name, schema] of Object.entries(dataset.query)) parameters.push(toParameter(name, 'query', schema));
    const ok = dataset.response
      ? { description: 'object payload', content: { 'application/json': { schema: paramJsonSchema(dataset.response).schema } } }
      : { description: 'object payload', content: { 'application/json': { schema: { type: 'object' } } } };
    paths[dataset.path] = {
      get: {
        operationId: dataset.operationId,
        summary: dataset.title,
        description: dataset.description,
        tags: [toolsetOf(dataset)],
        parameters,
        responses: {
          '200': ok,
          ...(dataset.onDemand ? { '202': { description: 'Not ready yet; retrying is not charged' } } : {}),
          '400': ERROR_RESPONSE,
          '401': ERROR_RESPONSE,
          '402': ERROR_RESPONSE,
          '403': ERROR_RESPONSE,
          '429': ERROR_RESPONSE,
        },
        'x-on-demand': dataset.onDemand,
        'x-cache-class': dataset.cacheClass,
        'x-scope': scopeOf(dataset),
      },
    };
  }
  for (const meta of META_ENDPOINTS) {
    paths[meta.path] = {
      get: {
        operationId: meta.operationId,
        summary: meta.title,
        description: meta.description,
        tags: ['meta'],
        parameters: [],
        responses: { '200': { description: 'object payload' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: OPENAPI_TITLE, version: OPENAPI_VERSION },
    paths,
    components: {
      schemas: { ErrorEnvelope: ERROR_ENVELOPE_JSON_SCHEMA },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
  };
}
