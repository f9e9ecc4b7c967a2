/**
 * The paragraph an agent reads first in a tool error: what happened and what to do next,
 * by the next action the error table gives the code. Prose for the agent, so it lives
 * beside the tool results rather than in the table.
 */
import type { NextAction } from '../../catalog/index.js';

/** The fields of an error the guidance speaks of. */
export interface GuidedError {
  code: string;
  message: string;
  hint: string | undefined;
  action: string;
  retryAfterSeconds: number | undefined;
  /** HTTP status, or null when the error was decided on this side of the wire. */
  status: number | null;
  /** True when decided here without a request. */
  local: boolean;
}

/** Text ended as a sentence: an upstream's message or hint may stop without a full stop, and ours follows it. */
function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?]["')\]]*$/.test(trimmed) || trimmed === '' ? trimmed : `${trimmed}.`;
}

/** One short paragraph telling the agent what to do, by next action. */
export function guidanceFor(error: GuidedError, next: NextAction): string {
  const head = `${error.code}: ${sentence(error.message)}${error.hint ? ` ${sentence(error.hint)}` : ''}`;
  const wait = error.retryAfterSeconds;
  switch (next) {
    case 'fix_input':
      // Refusals here and upstream 4xx cost nothing; a check made after a 200 cannot say so.
      return `${head} Fix the arguments (${error.action}) and call again${error.status === null && !error.local ? '.' : '; nothing was charged.'}`;
    case 'check_configuration':
      return `${head} Retrying will not help; call api_status to check the key and its scope, or tell the user.`;
    case 'wait_for_quota_reset':
      return `${head} Do not retry before the reset${wait ? ` (in about ${wait} s)` : ''}; api_status shows the budget.`;
    case 'degrade':
      return `${head} Continue without this dataset and try it again much later.`;
    case 'retry_after_wait':
      return `${head} Wait ${wait ?? 1} s, then call again with the same arguments.`;
    case 'retry_later':
      return `${head} Call again later with the same arguments.`;
    case 'do_not_retry':
      // The API's own hint often says so already ("Do not retry; check the symbol."): once is enough.
      return /\bdo not retry\b/i.test(head) ? head : `${head} Do not retry this request as is.`;
  }
}
