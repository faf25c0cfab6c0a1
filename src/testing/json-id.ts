/**
 * Finding and rewriting the top-level `"id"` of a JSON-RPC body without re-serializing it,
 * so the rest of the body (spacing, key order, integers above 2^53, even a truncated tail)
 * stays byte-for-byte what was recorded. Pure, no Node APIs (shared with the msw handlers).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Index just past the closing quote of the string starting at `start`, or -1 if unterminated. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `start`, or -1 if it does not end in `text`. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === undefined) return -1;
  if (first === '"') return stringEnd(text, start);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c === '"') {
        const end = stringEnd(text, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = start;
  while (i < text.length && !',}] \n\r\t'.includes(text[i] ?? '')) i++;
  // A scalar running into the end of a (truncated) body is not known to be complete.
  return i < text.length ? i : -1;
}

/** Where the value of the top-level `"id"` key of a JSON object text sits, if it is complete. */
export function findTopLevelId(text: string): { readonly start: number; readonly end: number } | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (depth === 1) {
        const colon = skipSpace(text, end);
        if (text[colon] === ':' && text.slice(i, end) === '"id"') {
          const start = skipSpace(text, colon + 1);
          const stop = valueEnd(text, start);
          return stop < 0 ? undefined : { start, end: stop };
        }
      }
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return undefined;
    }
  }
  return undefined;
}

/**
 * Replaces the top-level id value of `body` with `idJson` when `shouldReplace(currentIdText)`
 * says so. Bodies that are not a JSON object, or have no complete top-level id, pass unchanged.
 */
export function replaceTopLevelId(body: string, idJson: string, shouldReplace: (currentIdText: string) => boolean): string {
  const span = findTopLevelId(body);
  if (span === undefined || !shouldReplace(body.slice(span.start, span.end))) return body;
  return body.slice(0, span.start) + idJson + body.slice(span.end);
}
