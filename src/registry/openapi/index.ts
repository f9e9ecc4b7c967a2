/** The document reader, loaded with the first document that is not the catalog's own (src/registry/dataset-registry.ts). */
export { openDocument, plainSource } from './document-source.js';
export { importOperations, settleImport } from './import.js';
