/* The console's service worker (ui/public/sw.js): what makes it an installable app and shows pushed requests. */

/** Whether this browser can get pushed requests: a secure page with service workers, Push and notifications. */
export function pushSupported(): boolean {
  return window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** An iPhone or iPad browser tab: push comes only once the console is added to the Home Screen (iOS 16.4+). */
export function needsHomeScreen(): boolean {
  const ios = /iPhone|iPad|iPod/.test(navigator.userAgent);
  const standalone = window.matchMedia('(display-mode: standalone)').matches;
  return ios && !standalone;
}

let registered: Promise<ServiceWorkerRegistration | undefined> | undefined;

/** Registers the worker once and resolves when it is active (undefined where there are no service workers). */
export function serviceWorker(): Promise<ServiceWorkerRegistration | undefined> {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return Promise.resolve(undefined);
  registered ??= navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => navigator.serviceWorker.ready);
  registered.catch(() => (registered = undefined));
  return registered;
}
