/** A document as the registry received it: its text (what is hashed and compared), and its references resolved (what is read). */
export interface ReceivedDocument {
  readonly raw: unknown;
  readonly text: string;
  readonly resolved: unknown;
}
