/**
 * DEADLINE_EXCEEDED by what the request had cost when the call ran out of time. A call
 * whose deadline fell after the API's 200 status line, while its body was still arriving,
 * was most likely charged a unit (spec: a 200 costs one); repeating it as is would likely
 * run out of time again and cost another. One that expired before any request went out,
 * or after free answers only (202, 429, 5xx), cost nothing.
 */
import { ApiError, apiError } from './errors.js';

export function deadlineExceeded(charged: boolean | undefined): ApiError {
  if (charged === true) {
    return apiError('DEADLINE_EXCEEDED', {
      message:
        'The call ran out of time after the API had answered 200, while the body was still arriving: the request reached the API and its unit was most likely charged.',
      hint: 'Do not repeat it as is: it would likely run out of time again and cost another unit. Ask for less data (a smaller limit, fewer fields, a shorter range), or ask the operator for a longer MARKET_DATA_DEADLINE_MS.',
      recoverable: false,
      charged: true,
      local: true,
    });
  }
  return apiError('DEADLINE_EXCEEDED', {
    hint:
      charged === false
        ? 'Nothing was charged: no request had gone out, or only free answers (202, 429, 5xx) came back. Retry; if it keeps happening, ask for less data.'
        : 'Retry; if it keeps happening, ask for less data.',
    retryAfterSeconds: 1,
    ...(charged === false ? { charged: false } : {}),
    local: true,
  });
}

/** The call's one deadline passed before one of its parts was sent (a call over several names): that part is not sent. */
export function partDeadlinePassed(each: 'name' | 'ticker'): ApiError {
  return apiError('DEADLINE_EXCEEDED', {
    message: "The call's deadline passed before this part could be read; it was not sent.",
    hint: `Call again for this ${each} alone, or with fewer ${each}s.`,
    retryAfterSeconds: 1,
    local: true,
  });
}
