import type { Children } from './render.js';

/**
 * A period's headline figures as cards (the dashboard's overview, the portal's home): each a
 * label, its value as people read it (format.ts, money.ts) and a hint under it (the change
 * against the period before, or what the figure counts).
 */
export function Figures({ children }: { children: Children }) {
  return (
    <dl class="figures" data-testid="figures">
      {children}
    </dl>
  );
}

export function Figure({ label, value, hint }: { label: string; value: string; hint?: string | null }) {
  return (
    <div class="figure">
      <dt>{label}</dt>
      <dd>
        <span class="value">{value}</span>
        {hint ? <span class="delta">{hint}</span> : null}
      </dd>
    </div>
  );
}
