/*
 * Heed's service worker (docs/notifications.md, Push): shows each pushed request as a notification with
 * its one-click choices, answers a choice through the request's answer link without opening a window
 * (`POST /api/links/<token>`), and shows how that went. A tap elsewhere on the notification opens the request.
 * Plain JavaScript served as it is: a service worker's script must stay at the site's root for its scope.
 */

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let payload;
  try {
    payload = event.data ? event.data.json() : undefined;
  } catch {
    payload = undefined;
  }
  if (!payload || typeof payload.title !== 'string') return;
  event.waitUntil(self.showPushed(payload));
});

/** Shows a push: a request with its buttons, or (same tag) how it ended, replacing the request's notification. */
self.showPushed = (payload) => {
  const answers = {};
  for (const choice of payload.actions || []) answers[choice.action] = { title: choice.title, answer: choice.answer };
  return self.registration.showNotification(payload.title, {
    body: payload.body,
    tag: payload.tag,
    icon: '/icons/icon-192.png',
    badge: '/icons/badge-96.png',
    // A reminder alerts again; an outcome replaces quietly.
    renotify: Boolean(payload.reminder),
    silent: Boolean(payload.settled),
    requireInteraction: !payload.settled,
    actions: (payload.actions || []).map((choice) => ({ action: choice.action, title: choice.title })),
    data: { url: payload.url, link: payload.link, answers },
  });
};

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(self.answerFromNotification(event.notification, event.action));
});

/**
 * What pressing part of a notification does: a choice posts its answer through the answer link and shows
 * the outcome under the same tag; anything else opens the request in the console. Resolves with what it
 * did (the browser tests call it directly: headless Chromium shows no system notification to press).
 */
self.answerFromNotification = async (notification, action) => {
  const data = notification.data || {};
  const choice = action ? (data.answers || {})[action] : undefined;
  if (!choice || !data.link) {
    await openRequest(data.url);
    return { opened: data.url };
  }
  const token = new URL(data.link).pathname.split('/a/')[1];
  let status = 0;
  let body = {};
  try {
    const response = await fetch(`/api/links/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resolution: choice.answer }),
      credentials: 'omit',
    });
    status = response.status;
    body = await response.json().catch(() => ({}));
  } catch {
    status = 0;
  }
  const outcome =
    status === 200
      ? `${choice.title}: sent.`
      : status === 409
        ? 'Someone answered it first.'
        : status === 410
          ? 'It lapsed: nobody answered in time.'
          : `Not sent${body.error && body.error.message ? `: ${body.error.message}` : ' (no connection)'}. Tap to open it.`;
  await self.registration.showNotification(notification.title, {
    body: outcome,
    tag: notification.tag,
    icon: '/icons/icon-192.png',
    badge: '/icons/badge-96.png',
    silent: true,
    data: { url: data.url },
  });
  return { status, outcome };
};

/** Focuses a console window already open on the request, else opens one. */
async function openRequest(url) {
  if (!url) return;
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => client.url === url);
  if (open) return open.focus();
  return self.clients.openWindow(url);
}
