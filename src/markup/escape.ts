// HTML escaping. `escapeHtml` is the plain five-character escape; `escapeOut` is what
// the renderer writes for every text and attribute value: it also writes `=` and the
// colon of `...script:` as character references, which browsers decode to the same
// characters, so that no rendered text can even look like an event-handler attribute
// or a javascript: URL to a filter that scans the HTML as a string.

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export function escapeOut(s: string): string {
  return escapeHtml(s).replace(/=/g, '&#61;').replace(/(script)(\s*):/gi, '$1$2&#58;');
}
