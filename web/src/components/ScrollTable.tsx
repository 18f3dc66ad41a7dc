import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on its own when it is wider than the screen (390 px phones), so the
 * page itself never does; focusable, so the scrolling works from the keyboard too.
 */
export function ScrollTable({ label, children }: { label: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
