/** The browser's install offer (Chromium's `beforeinstallprompt`), kept from the moment the page loads. */
interface InstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

let offer: InstallPromptEvent | undefined;
const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};

/**
 * Links the per-token manifest, so installing from here puts this very link on the home screen.
 * Safari's "Add to Home Screen" takes the address in the bar, not the manifest: the address is
 * made the manifest's `start_url` exactly (no query, no fragment), so both open the same page.
 */
export function linkManifest(mode: 'public' | 'test', token: string): void {
  const page = `/${mode}/${encodeURIComponent(token)}/`;
  const { pathname, search, hash } = window.location;
  if (pathname + search + hash !== page) window.history.replaceState(window.history.state, '', page);
  const link = document.createElement('link');
  link.rel = 'manifest';
  link.href = `${page}manifest.webmanifest`;
  document.head.append(link);
}

/** Starts listening for the install offer; call before the first render so it is never missed. */
export function watchInstallOffer(): void {
  window.addEventListener('beforeinstallprompt', (event) => {
    event.preventDefault();
    offer = event as InstallPromptEvent;
    notify();
  });
  window.addEventListener('appinstalled', () => {
    offer = undefined;
    notify();
  });
}

export const canInstall = () => offer !== undefined;
/** Whether the page already runs as an installed app. */
export const isInstalled = () =>
  window.matchMedia?.('(display-mode: standalone)').matches ||
  (navigator as Navigator & { standalone?: boolean }).standalone === true;

/** Shows the browser's install dialog. */
export async function install(): Promise<void> {
  const current = offer;
  if (!current) return;
  await current.prompt();
  await current.userChoice;
  offer = undefined;
  notify();
}

/** Hears the offer come and go. */
export function onInstallChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
