/**
 * Query strings are parsed flat: `expand[]=a&expand[]=b`, `expand=a&expand=b` and `expand=a`
 * all give `expand`; a key written with `[]` is always an array. Nested objects are not
 * supported, so `a[b]=c` stays a literal key and fails validation as unknown.
 *
 * The result has no prototype: on a plain object `__proto__=x` would vanish (and
 * `__proto__[]=x` replace the prototype) instead of being an unknown parameter, and
 * `toString=x` would find the inherited method as an earlier value.
 */
export function parseQueryString(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [rawKey, value] of new URLSearchParams(raw)) {
    const isArray = rawKey.endsWith('[]');
    const key = isArray ? rawKey.slice(0, -2) : rawKey;
    const prev = out[key];
    if (prev === undefined) out[key] = isArray ? [value] : value;
    else out[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
