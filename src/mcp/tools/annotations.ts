/**
 * What every tool of this server is, for hosts that decide from annotations whether to ask
 * before a call: it only reads (readOnlyHint; the destructive hint means nothing then, per
 * the spec), from an API outside the host whose data moves with the market (openWorldHint),
 * and the same call again changes nothing (idempotentHint). Other market-data servers set
 * all three; a host that reads an unset hint may assume the cautious default.
 */
export const READ_ONLY_API_TOOL = { readOnlyHint: true, idempotentHint: true, openWorldHint: true } as const;
