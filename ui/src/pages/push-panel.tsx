import { useEffect, useState } from 'react';
import { toChatError } from 'heed/react';
import { useConsole } from '../console.js';
import { needsHomeScreen, pushSupported, serviceWorker } from '../service-worker.js';

type State =
  | { step: 'checking' }
  | { step: 'off' }
  | { step: 'on'; endpoint: string }
  | { step: 'blocked' }
  /** Safari on an iPhone or iPad, in a tab: push needs the console on the Home Screen first. */
  | { step: 'install' }
  /** The server has no push, or this browser cannot get it: nothing to show. */
  | { step: 'hidden' };

/** A base64url VAPID key as the bytes `pushManager.subscribe` takes. */
function keyBytes(key: string): Uint8Array<ArrayBuffer> {
  const text = atob(
    key
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(key.length / 4) * 4, '='),
  );
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

/**
 * "Notify this device" (docs/notifications.md, Push): subscribes this browser to the requests that wait on
 * the signed-in person, or stops it. Shown only where the browser supports push and the server sends it.
 */
export function PushPanel() {
  const { client } = useConsole();
  const [state, setState] = useState<State>({ step: 'checking' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (!pushSupported()) return setState({ step: needsHomeScreen() ? 'install' : 'hidden' });
    let live = true;
    void (async () => {
      try {
        await client.pushKey();
        const registration = await serviceWorker();
        const current = await registration?.pushManager.getSubscription();
        const listed = current ? await client.pushSubscriptions() : [];
        if (!live) return;
        if (Notification.permission === 'denied') return setState({ step: 'blocked' });
        setState(
          current && listed.some((entry) => entry.endpoint === current.endpoint)
            ? { step: 'on', endpoint: current.endpoint }
            : { step: 'off' },
        );
      } catch {
        // No push on this server (404), or no service worker here: the panel stays out of the way.
        if (live) setState({ step: 'hidden' });
      }
    })();
    return () => {
      live = false;
    };
  }, [client]);

  async function turnOn() {
    setBusy(true);
    setError(undefined);
    try {
      if ((await Notification.requestPermission()) !== 'granted') return setState({ step: 'blocked' });
      const registration = await serviceWorker();
      if (!registration) throw new Error('This browser did not start the console’s service worker.');
      const { publicKey } = await client.pushKey();
      const subscription =
        (await registration.pushManager.getSubscription()) ??
        (await registration.pushManager.subscribe({
          userVisibleOnly: true,
          applicationServerKey: keyBytes(publicKey),
        }));
      const json = subscription.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
      await client.addPushSubscription({ endpoint: json.endpoint, keys: json.keys });
      setState({ step: 'on', endpoint: json.endpoint });
    } catch (thrown) {
      setError(toChatError(thrown).message);
    } finally {
      setBusy(false);
    }
  }

  async function turnOff(endpoint: string) {
    setBusy(true);
    setError(undefined);
    try {
      await client.removePushSubscription(endpoint);
      const subscription = await (await serviceWorker())?.pushManager.getSubscription();
      await subscription?.unsubscribe();
      setState({ step: 'off' });
    } catch (thrown) {
      setError(toChatError(thrown).message);
    } finally {
      setBusy(false);
    }
  }

  if (state.step === 'hidden' || state.step === 'checking') return null;
  return (
    <section className="delegation push-panel" aria-labelledby="push-title">
      <h2 id="push-title">Notifications on this device</h2>
      {state.step === 'on' ? (
        <div className="push-panel-row">
          <p>Requests that wait on you show on this device as notifications, with Allow and Deny.</p>
          <button type="button" className="heed-button" disabled={busy} onClick={() => void turnOff(state.endpoint)}>
            Stop notifying this device
          </button>
        </div>
      ) : state.step === 'install' ? (
        <p className="muted">
          To get requests as notifications on this iPhone or iPad, add Heed to the Home Screen (Share, then Add to Home
          Screen) and open it from there.
        </p>
      ) : state.step === 'blocked' ? (
        <p className="muted">
          Notifications are blocked for this site. Allow them in the browser’s site settings, then reload.
        </p>
      ) : (
        <div className="push-panel-row">
          <p>Get each request that waits on you as a notification, and allow or deny it from there.</p>
          <button type="button" className="heed-button heed-primary" disabled={busy} onClick={() => void turnOn()}>
            Notify this device
          </button>
        </div>
      )}
      {error && (
        <p className="banner" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
