/** Lets code outside React (the API client) change route through the router. */
type Navigate = (to: string, options?: { replace?: boolean }) => void;

let navigator: Navigate | null = null;

/** Registers the router's navigate function (NavigationBridge does it). */
export function setNavigator(navigate: Navigate | null) {
  navigator = navigate;
}

/** Goes to `to` through the router, or by a full page load when no router is mounted. */
export function goTo(to: string, options?: { replace?: boolean }) {
  if (navigator) navigator(to, options);
  else window.location.assign(to);
}
