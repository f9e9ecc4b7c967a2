/** Tiny DOM and SVG builders: the views draw with plain elements, no chart library. */
type Attributes = Record<string, string | number | undefined>;

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttributes(element: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) element.setAttribute(name, String(value));
}

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Attributes = {}, text?: string): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  setAttributes(element, attributes);
  if (text !== undefined) element.textContent = text;
  return element;
}

export function html<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  element.append(...children);
  return element;
}

/** A bar's tooltip: hosts show it on hover, screen readers read it. */
export function titled<T extends SVGElement>(element: T, text: string): T {
  element.append(svg('title', {}, text));
  return element;
}

export function linearScale(domain: [number, number], range: [number, number]): (value: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  return (value) => r0 + ((value - d0) / span) * (r1 - r0);
}
