/** Stands in for vite-plugin-pwa's virtual module in jsdom tests, where no service worker is registered. */
export function useRegisterSW() {
  return {
    needRefresh: [false, () => {}] as const,
    offlineReady: [false, () => {}] as const,
    updateServiceWorker: async (_reload?: boolean) => {},
  };
}
