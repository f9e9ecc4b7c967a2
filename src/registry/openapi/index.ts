/** The document reader, loaded with the first document that is not the catalog's own (src/registry/dataset-registry.ts). */
export { dereferenceDocument } from './dereference.js';
export { datasetsFromOpenApi } from './import.js';
