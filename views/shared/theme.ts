/**
 * Host theming: the host's light or dark theme and, when it sends them, its CSS
 * variables (the standard MCP Apps names). style.css reads the same names with fallbacks
 * of its own for each theme, so a host that sends only `theme` still gets legible colours.
 */
import type { HostContext } from './host-link.js';

export function applyHostTheme(context: HostContext): void {
  const root = document.documentElement;
  const theme = context.theme ?? (window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
  root.dataset['theme'] = theme;
  root.style.colorScheme = theme;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (typeof value === 'string' && name.startsWith('--')) root.style.setProperty(name, value);
  }
}
