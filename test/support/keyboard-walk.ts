// Walk a page (or an open dialog) with the Tab key only and report what the keyboard could not
// reach, what it reached without a visible focus indicator, and where focus escaped a dialog.
import type { Page } from 'playwright-core';

/** What one Tab walk found; every list empty means the keyboard works. */
export interface KeyboardWalk {
  /** Enabled, visible controls that Tab never reached (id or short HTML). */
  unreached: string[];
  /** Controls that took focus without a :focus-visible outline. */
  invisibleFocus: string[];
  /** Inside a dialog: elements outside it that took focus. */
  escaped: string[];
  /** How many Tab presses the walk took. */
  presses: number;
}

const CONTROLS =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Tab through `page` from its start (or through the open modal `<dialog>` when `within` is
 * 'dialog') until focus comes back round to the first stop, checking each stop. Radio buttons of one native group
 * count as reached when one of them was (the arrow keys move within a group).
 */
export async function keyboardWalk(page: Page, within: 'page' | 'dialog' = 'page', maxPresses = 160): Promise<KeyboardWalk> {
  const total = await page.evaluate(
    ({ selector, within }) => {
      const scope: ParentNode = within === 'dialog' ? (document.querySelector('dialog[open]') ?? document) : document;
      const controls = [...scope.querySelectorAll<HTMLElement>(selector)].filter(
        (el) => el.getClientRects().length > 0 && !el.closest('[inert]') && getComputedStyle(el).visibility !== 'hidden',
      );
      document.querySelectorAll('[data-kbd]').forEach((el) => el.removeAttribute('data-kbd'));
      controls.forEach((el, i) => el.setAttribute('data-kbd', String(i)));
      if (within === 'page') (document.activeElement as HTMLElement | null)?.blur();
      return controls.length;
    },
    { selector: CONTROLS, within },
  );
  const reached = new Set<string>();
  const invisibleFocus = new Set<string>();
  const escaped = new Set<string>();
  let first: string | null = null;
  let presses = 0;
  for (; presses < maxPresses; presses++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate((within) => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const label = el.id ? `#${el.id}` : el.outerHTML.slice(0, 80);
      const style = getComputedStyle(el);
      const visible = el.matches(':focus-visible') && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
      const outside = within === 'dialog' && !el.closest('dialog[open]');
      const radio = el instanceof HTMLInputElement && el.type === 'radio' && el.name ? `radio:${el.name}` : null;
      return { index: el.getAttribute('data-kbd'), label, visible, outside, radio };
    }, within);
    if (stop === null) continue; // past the last control, focus rests on the document once
    const key = stop.index ?? stop.label;
    if (key === first) break;
    first ??= key;
    if (stop.index !== null) reached.add(stop.index);
    if (stop.radio) reached.add(stop.radio);
    if (!stop.visible) invisibleFocus.add(stop.label);
    if (stop.outside) escaped.add(stop.label);
  }
  const unreached = await page.evaluate(
    (reachedKeys) => {
      const seen = new Set(reachedKeys);
      return [...document.querySelectorAll<HTMLElement>('[data-kbd]')]
        .filter((el) => {
          if (seen.has(el.getAttribute('data-kbd') ?? '')) return false;
          return !(el instanceof HTMLInputElement && el.type === 'radio' && seen.has(`radio:${el.name}`));
        })
        .map((el) => (el.id ? `#${el.id}` : el.outerHTML.slice(0, 80)));
    },
    [...reached],
  );
  if (total === 0) return { unreached: [], invisibleFocus: [], escaped: [], presses };
  return { unreached, invisibleFocus: [...invisibleFocus], escaped: [...escaped], presses };
}
