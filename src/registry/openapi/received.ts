import type { DocumentSource } from './document-source.js';

/** A document as the registry received it: its text (what is hashed and compared), and the reader of its operations. */
export interface ReceivedDocument {
  readonly raw: unknown;
  readonly text: string;
  /** Undefined for a document that is never imported (the catalog's own, one that is not an object). */
  readonly source: DocumentSource | undefined;
}

/** A received document the importer reads. */
export type OpenedDocument = ReceivedDocument & { readonly source: DocumentSource };
