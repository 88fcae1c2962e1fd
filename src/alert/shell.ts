import { CANCELLED_PARAM, SHELL_DATA_ID, type ShellSource } from '../../common/emergency-shell';
import type { PageData } from './api';
import type { Phase } from './phase';

/** The countdown the HTML already showed (common/emergency-shell.ts), which the page takes over. */
export interface Shell {
  page: PageData;
  /** `server`: fresh from the server with this page; `cache`: the worker's copy of the last one. */
  source: ShellSource;
  /** When the countdown was first on screen (ms on `performance.now()`'s clock). */
  shownAt: number;
}

/** How the page was opened: with a countdown already shown, and/or through the shell's Cancel. */
export interface Opening {
  shell?: Shell;
  cancelled?: boolean;
}

/** The first paint (the shell's), or when the HTML had arrived where paint timing is missing. */
function shownAt(): number {
  const paint = performance.getEntriesByName?.('first-contentful-paint')[0];
  if (paint) return paint.startTime;
  const navigation = performance.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined;
  return navigation?.responseEnd ?? 0;
}

/** Reads the shell from the document, if the HTML came with one; a broken one is no shell. */
export function readShell(doc: Document = document): Shell | undefined {
  const block = doc.getElementById(SHELL_DATA_ID);
  if (!block?.textContent) return undefined;
  try {
    const page = JSON.parse(block.textContent) as PageData;
    if (typeof page?.countdown_seconds !== 'number') return undefined;
    const source: ShellSource = block.dataset.source === 'server' ? 'server' : 'cache';
    return { page, source, shownAt: shownAt() };
  } catch {
    return undefined;
  }
}

/**
 * How this page was opened, read before `linkManifest` (install.ts) drops the query from the
 * address: reopening the link after a cancel is a new press, as always.
 */
export function readOpening(): Opening {
  const cancelled = new URLSearchParams(window.location.search).has(CANCELLED_PARAM);
  const shell = readShell();
  return { ...(shell ? { shell } : {}), ...(cancelled ? { cancelled } : {}) };
}

/** The phase the page opens in: cancelled before the script ran, the shell's countdown going on, or loading. */
export function openingPhase({ shell, cancelled }: Opening, fromReminder: boolean): Phase {
  if (cancelled) return { name: 'cancelled' };
  if (!shell || fromReminder) return { name: 'loading' };
  const gone = Math.floor((performance.now() - shell.shownAt) / 1000);
  return { name: 'countdown', remaining: Math.max(1, shell.page.countdown_seconds - gone) };
}
