export async function runDemo(): Promise<void> { await Promise.resolve(); }
