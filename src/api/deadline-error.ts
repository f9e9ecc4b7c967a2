/**
 * DEADLINE_EXCEEDED by what the request had cost when the call ran out of time. A call
 * whose deadline fell after the API's 200 status line, while its body was still arriving,
 * was most likely charged a unit (spec: a 200 costs one); repeating it as is would likely
 * run out of time again and cost another. One that expired before any request went out,
 * or after free answers only (202, 429, 5xx), cost nothing. Every word here is paid for by
 * the agent that reads it: the texts say the code's news, the charge and the one next step.
 */
import { ApiError, apiError } from './errors.js';

export function deadlineExceeded(charged: boolean | undefined): ApiError {
  if (charged === true) {
    return apiError('DEADLINE_EXCEEDED', {
      message: "Out of time after the API's 200 (body still arriving): most likely charged.",
      hint: 'Do not retry as is; ask for less data (limit, fields, range) or a longer MARKET_DATA_DEADLINE_MS.',
      recoverable: false,
      charged: true,
      local: true,
    });
  }
  return apiError('DEADLINE_EXCEEDED', {
    ...(charged === false ? { message: 'Out of time before the API answered; not charged.' } : {}),
    hint: 'If it recurs, ask for less data.',
    retryAfterSeconds: 1,
    ...(charged === false ? { charged: false } : {}),
    local: true,
  });
}

/**
 * The call's one deadline passed before one of its parts was sent (a call over several
 * names): that part is not sent, so it cost nothing. `sent`: the part was already out
 * when the deadline passed, and what it cost is not known.
 */
export function partDeadlinePassed(each: 'name' | 'ticker', sent = false): ApiError {
  return apiError('DEADLINE_EXCEEDED', {
    message: sent ? 'Deadline passed while this part was read.' : 'Deadline passed before this part was sent; not charged.',
    hint: `Call again for this ${each} alone, or with fewer ${each}s.`,
    retryAfterSeconds: 1,
    ...(sent ? {} : { charged: false }),
    local: true,
  });
}
