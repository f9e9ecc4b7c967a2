export * from './datasets.js';
export * from './error-codes.js';
export * from './params.js';
export * from './types.js';
export * from './validate.js';
export * from './openapi.js';
export * from './dealer-gex.js';
export * from './filter-params.js';
