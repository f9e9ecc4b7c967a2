/**
 * Preloaded (node --expose-gc --import) into a server under test: collects garbage every
 * 50 ms, so an abort signal that is only weakly held (the SDK's cloned Request on Node 20)
 * is collected before the caller hangs up, as it is in a long-running server.
 */
const collect = (globalThis as { gc?: () => void }).gc;
if (collect) setInterval(collect, 50).unref();
