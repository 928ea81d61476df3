/**
 * The tabs of a section split into pages (Integrations, Settings): each tab is a page of its own,
 * with its own URL, so this is a navigation of links (the current one marked `aria-current="page"`),
 * not an ARIA tab list, and it works without JavaScript.
 */
export function Tabs({ label, tabs }: { label: string; tabs: readonly { href: string; label: string; current: boolean }[] }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((t) => (
        <a class="tab" href={t.href} aria-current={t.current ? 'page' : undefined}>
          {t.label}
        </a>
      ))}
    </nav>
  );
}
