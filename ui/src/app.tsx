import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createClient, HeedClientError, type AgentInfo, type ConversationView } from 'heed/client';
import { HeedProvider, rememberStartedConversation } from 'heed/react';
import { ConsoleContext } from './console.js';
import { Sidebar, TopBar } from './layout.js';
import { AnswerLinkPage } from './pages/answer-link.js';
import { ConversationPage } from './pages/conversation.js';
import { DevicePage } from './pages/device.js';
import { HomePage } from './pages/home.js';
import { InboxPage } from './pages/inbox.js';
import { QueuePage } from './pages/queue.js';
import { SignInPage } from './pages/sign-in.js';
import { TokensPage } from './pages/tokens.js';
import { navigate, usePath } from './router.js';
import {
  anonymousConversationIds,
  endSso,
  forgetAnonymousConversation,
  isSignedIn,
  loadSession,
  readSso,
  rememberAnonymousConversation,
  saveSession,
  type Session,
  type SsoState,
} from './session.js';

export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  // undefined while the server is asked; null when it signs nobody in with an identity provider.
  const [sso, setSso] = useState<SsoState | null>();
  const path = usePath();

  useEffect(() => {
    void readSso().then((state) => {
      setSso(state);
      // A session cookie stands for the person unless a token was chosen here.
      if (state?.signedIn && state.csrf)
        setSession((current) => (current?.token ? current : { csrf: state.csrf, userId: state.userId }));
    });
  }, []);

  const signIn = useCallback((next: Session) => {
    saveSession(next);
    setSession(next);
    const wanted = new URLSearchParams(window.location.search).get('next') ?? '/';
    navigate(wanted.startsWith('/') && !wanted.startsWith('//') ? wanted : '/', { replace: true });
  }, []);
  const signOut = useCallback(() => {
    const csrf = session?.csrf;
    saveSession(null);
    setSession(null);
    if (!csrf) return navigate('/sign-in');
    setSso((state) => (state ? { provider: state.provider, signedIn: false } : state));
    void endSso(csrf).then((endSessionUrl) =>
      endSessionUrl ? window.location.assign(endSessionUrl) : navigate('/sign-in'),
    );
  }, [session?.csrf]);

  // An answer link's page needs no sign-in: its token is the permission.
  const linkToken = /^\/a\/([^/]+)$/.exec(path)?.[1];
  useEffect(() => {
    if (!linkToken && !session && sso !== undefined && path !== '/sign-in') {
      // Signing in brings the person back where they were going.
      const next = path === '/' ? '' : `?next=${encodeURIComponent(`${path}${window.location.search}`)}`;
      navigate(`/sign-in${next}`, { replace: true });
    }
  }, [session, sso, path, linkToken]);

  if (linkToken) return <AnswerLinkPage token={decodeURIComponent(linkToken)} />;
  if (!session && sso === undefined) return null;
  if (!session || path === '/sign-in')
    return <SignInPage onSignIn={signIn} current={session} provider={sso?.provider} />;
  return (
    <SignedIn
      session={session}
      onSession={(next) => (saveSession(next), setSession(next))}
      signOut={signOut}
      path={path}
    />
  );
}

function SignedIn({
  session,
  onSession,
  signOut,
  path,
}: {
  session: Session;
  onSession: (session: Session) => void;
  signOut: () => void;
  path: string;
}) {
  const client = useMemo(
    () =>
      createClient({
        baseUrl: window.location.origin,
        ...(session.token ? { token: session.token } : session.csrf ? { csrf: session.csrf } : {}),
      }),
    [session.token, session.csrf],
  );
  const [agents, setAgents] = useState<AgentInfo[]>();
  const [conversations, setConversations] = useState<ConversationView[]>();
  const [loadError, setLoadError] = useState<string>();
  const [operator, setOperator] = useState(false);
  const [standsFor, setStandsFor] = useState<string[]>([]);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);

  // Reads overlap (the 10 s timer, a pause, an inbox change): only the latest read's answer is shown, so
  // an older list that arrives last cannot bring back a "Waiting" mark the newer one had cleared.
  const latestRead = useRef(0);
  const refreshConversations = useCallback(async () => {
    const read = ++latestRead.current;
    try {
      if (isSignedIn(session)) {
        const listed = await client.listConversations({ limit: 100 });
        if (read !== latestRead.current) return;
        setConversations(listed);
        const owner = listed.find((conversation) => conversation.ownerId)?.ownerId;
        if (owner && owner !== session.userId) onSession({ ...session, userId: owner });
      } else {
        const found = await Promise.all(
          anonymousConversationIds().map(async (id) => {
            try {
              return (await client.getConversation(id)).conversation;
            } catch (thrown) {
              if (HeedClientError.isInstance(thrown) && thrown.status === 404) forgetAnonymousConversation(id);
              return null;
            }
          }),
        );
        if (read !== latestRead.current) return;
        setConversations(
          found
            .filter((item): item is ConversationView => item !== null)
            .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)),
        );
      }
      setLoadError(undefined);
    } catch (thrown) {
      if (HeedClientError.isInstance(thrown) && thrown.status === 401) return signOut();
      if (read === latestRead.current) setLoadError(thrown instanceof Error ? thrown.message : String(thrown));
    }
  }, [client, session, onSession, signOut]);

  // Who the token stands for, so cards can tell which requests are this person's to answer (four eyes).
  useEffect(() => {
    if (!isSignedIn(session)) return;
    client.me().then(
      ({ userId, operator }) => {
        setOperator(operator === true);
        if (userId && userId !== session.userId) onSession({ ...session, userId });
      },
      () => undefined,
    );
    // Whom this person answers for, so cards offer them the votes they may give in someone's place.
    client.delegation().then(
      ({ holding }) => setStandsFor(holding.map((held) => held.from)),
      () => undefined,
    );
  }, [client]);
  useEffect(() => {
    client
      .agents()
      .then(setAgents, (thrown: unknown) => setLoadError(thrown instanceof Error ? thrown.message : String(thrown)));
  }, [client]);
  useEffect(() => {
    void refreshConversations();
    const timer = setInterval(() => void refreshConversations(), 10_000);
    return () => clearInterval(timer);
  }, [refreshConversations, path]);
  // Going somewhere closes the drawer.
  useEffect(() => setMenuOpen(false), [path]);
  const closeMenu = useCallback((returnFocus: boolean) => {
    setMenuOpen(false);
    if (returnFocus) menuButton.current?.focus();
  }, []);

  const startConversation = useCallback(
    async (agent: string) => {
      const created = await client.createConversation({ agent });
      rememberStartedConversation(created.id);
      if (!isSignedIn(session)) rememberAnonymousConversation(created.id);
      else if (created.ownerId && created.ownerId !== session.userId)
        onSession({ ...session, userId: created.ownerId });
      await refreshConversations();
      navigate(`/c/${encodeURIComponent(created.id)}`);
    },
    [client, session, onSession, refreshConversations],
  );

  const value = useMemo(
    () => ({
      session,
      client,
      agents,
      conversations,
      operator,
      standsFor,
      setStandsFor,
      refreshConversations,
      startConversation,
      signOut,
    }),
    [session, client, agents, conversations, operator, standsFor, refreshConversations, startConversation, signOut],
  );
  const conversationId = /^\/c\/([^/]+)$/.exec(path)?.[1];

  return (
    <ConsoleContext.Provider value={value}>
      <HeedProvider client={client} me={session.userId ?? null}>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <div className="layout">
          <TopBar
            path={path}
            menuOpen={menuOpen}
            menuButtonRef={menuButton}
            onMenu={() => setMenuOpen((open) => !open)}
          />
          <div className="body">
            <Sidebar
              activeId={conversationId ? decodeURIComponent(conversationId) : undefined}
              open={menuOpen}
              onClose={closeMenu}
            />
            <main id="main" className="content" tabIndex={-1}>
              {loadError && (
                <p className="banner" role="alert">
                  {loadError}
                </p>
              )}
              {conversationId ? (
                <ConversationPage key={conversationId} conversationId={decodeURIComponent(conversationId)} />
              ) : path === '/inbox' ? (
                <InboxPage />
              ) : path === '/queue' ? (
                <QueuePage />
              ) : path === '/tokens' && isSignedIn(session) ? (
                <TokensPage />
              ) : path === '/auth/device' ? (
                <DevicePage />
              ) : (
                <HomePage />
              )}
            </main>
          </div>
        </div>
      </HeedProvider>
    </ConsoleContext.Provider>
  );
}
