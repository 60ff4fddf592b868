import { Box, useApp } from 'ink';
import { useEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import { HeedClientError, readWholeInbox, type ActionView, type HeedClient } from '../../client/index.js';
import type { KindName } from '../../kinds/index.js';
import { batchOutcome, planBatch, type BatchDecision } from '../../react/state/batch.js';
import { sendAnswer } from './answer.js';
import { BatchView, type BatchStage } from './batch-view.js';
import { ApprovalView } from './approval-view.js';
import { ClientToolView } from './client-tool-view.js';
import { GenericView } from './generic-view.js';
import { DetailPane, listColumns, WIDE_COLUMNS } from './detail-pane.js';
import { HelpView } from './help-view.js';
import {
  answerProblem,
  markSettled,
  matchesFilter,
  mergeInbox,
  moveCursor,
  type InboxEntry,
  type Settled,
} from './inbox-state.js';
import { ListView } from './list-view.js';
import { ExtendPrompt } from './extend-prompt.js';
import { QuestionView } from './question-view.js';
import type { InboxSystem } from './system.js';
import { ColorContext, Say, useTerminalSize } from './theme.js';
import { UrlView } from './url-view.js';
import { terminalSafeClient } from './terminal-text.js';
import { KeysEnabled, useKeys } from './use-keys.js';
import type { RequestViewProps } from './view-props.js';

export interface InboxAppProps {
  /** Read through `terminalSafeClient`, whatever is passed. */
  client: HeedClient;
  /** The server's address, shown in the title. */
  server: string;
  /** No token was given: an empty inbox then says why. */
  anonymous: boolean;
  /** Who the inbox is of, when known (`ada (demo)`), shown in the title. */
  who?: string;
  system: InboxSystem;
  /** How often the list is read again (default 3 s). */
  intervalMs?: number;
  color?: boolean;
  /** The time, for ages and deadlines (tests pass a fixed one). */
  clock?: () => number;
}

/** The most actions read per refresh (pages of 200). */
export const MAX_READ = 1000;

/** Every pending action of the caller, all pages up to `MAX_READ`. */
export function readInbox(client: HeedClient): Promise<ActionView[]> {
  return readWholeInbox(client, MAX_READ);
}

/** The terminal inbox: the list, and one view per kind of request. */
export function InboxApp(props: InboxAppProps) {
  const { system } = props;
  // Everything shown comes through this client, so it is stripped of escape sequences on the way in.
  const client = useMemo(() => terminalSafeClient(props.client), [props.client]);
  const clock = props.clock ?? Date.now;
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [entries, setEntriesState] = useState<InboxEntry[]>([]);
  const entriesRef = useRef<InboxEntry[]>([]);
  const [status, setStatus] = useState<'loading' | 'ready'>('loading');
  const [error, setError] = useState<string>();
  const [cursor, setCursor] = useState(0);
  const [openId, setOpenId] = useState<string>();
  const [help, setHelp] = useState(false);
  const [extending, setExtending] = useState<ActionView>();
  const [notice, setNotice] = useState<{ text: string; bad: boolean }>();
  const [filter, setFilter] = useState('');
  const [filtering, setFiltering] = useState(false);
  // Rows marked with Space for A (approve) or D (deny) all at once, and the batch under way.
  const [marked, setMarked] = useState<ReadonlySet<string>>(new Set());
  const [batch, setBatch] = useState<BatchStage>();
  const [batchNotice, setBatchNotice] = useState<string>();
  const [now, setNow] = useState(clock);
  const [, setAgentsSeen] = useState(0);
  const agents = useRef(new Map<string, string>());
  const listed = useRef(false);
  // Rows with an answer on its way from here: a refresh that no longer sees them must not call it someone else's.
  const answering = useRef(new Set<string>());
  const reading = useRef(false);
  const again = useRef(false);
  const live = useRef(true);

  const setEntries = (next: InboxEntry[]) => {
    entriesRef.current = next;
    if (live.current) setEntriesState(next);
  };

  async function nameAgents(actions: ActionView[]) {
    const missing = () =>
      [...new Set(actions.map((action) => action.conversationId))].filter((id) => !agents.current.has(id));
    if (missing().length === 0) return;
    if (!listed.current) {
      listed.current = true;
      for (const conversation of await client.listConversations({ limit: 200 }).catch(() => []))
        agents.current.set(conversation.id, conversation.agent);
    }
    // Older conversations than the list holds: asked one by one, a few per refresh.
    for (const id of missing().slice(0, 20)) {
      // Only for the agent's name in the list: a conversation that cannot be read shows without one.
      const snapshot = await client.getConversation(id, { limit: 1 }).catch(() => undefined);
      agents.current.set(id, snapshot?.conversation.agent ?? '');
    }
    if (live.current) setAgentsSeen((count) => count + 1);
  }

  async function lookUp(action: ActionView) {
    const stored = (await client.actions(action.conversationId).catch(() => [] as ActionView[])).find(
      (candidate) => candidate.id === action.id,
    );
    if (stored && stored.status !== 'pending') setEntries(markSettled(entriesRef.current, stored, false));
  }

  async function refresh() {
    if (reading.current) {
      // A change reported while a read is under way: read once more after it.
      again.current = true;
      return;
    }
    reading.current = true;
    try {
      const fresh = await readInbox(client);
      const merged = mergeInbox(entriesRef.current, fresh, answering.current);
      setEntries(merged.entries);
      if (!live.current) return;
      setStatus('ready');
      setError(undefined);
      setNow(clock());
      await nameAgents(fresh);
      await Promise.all(merged.vanished.map(lookUp));
    } catch (thrown) {
      if (live.current) setError(`Could not read the inbox: ${answerProblem(thrown).message} Trying again.`);
    } finally {
      reading.current = false;
      if (again.current && live.current) {
        again.current = false;
        void refresh();
      }
    }
  }

  useEffect(() => {
    live.current = true;
    void refresh();
    const timer = setInterval(() => void refresh(), props.intervalMs ?? 3000);
    // The live inbox stream, where the server has it, says at once that something changed; the poll
    // stays as the fallback (an older server, a dropped stream) and keeps ages and deadlines fresh.
    const stop = new AbortController();
    void (async () => {
      let soon: ReturnType<typeof setTimeout> | undefined;
      while (!stop.signal.aborted) {
        try {
          for await (const message of client.inboxEvents({ signal: stop.signal })) {
            if (message.event !== 'inbox.added' && message.event !== 'inbox.removed') continue;
            clearTimeout(soon);
            soon = setTimeout(() => void refresh(), 50);
          }
        } catch (thrown) {
          // A server without the stream (404) is polled only.
          if ((thrown as { status?: number }).status === 404) return;
        }
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    })();
    return () => {
      live.current = false;
      stop.abort();
      clearInterval(timer);
    };
    // Once, on mount: the poll and the stream live as long as the app; refresh reads its state through refs.
  }, []);

  const open = openId ? entries.find((entry) => entry.action.id === openId) : undefined;
  // The inbox names the conversation a request waits in: a child agent's is shown as its first ancestor's.
  const agentOf = (action: ActionView) => action.conversation?.agent ?? agents.current.get(action.conversationId) ?? '';
  const shown = filter ? entries.filter((entry) => matchesFilter(entry, agentOf(entry.action), filter)) : entries;
  const selected = Math.min(cursor, Math.max(0, shown.length - 1));
  // Only rows still waiting stay marked: one answered elsewhere meanwhile drops out.
  const markedActions = entries
    .filter((entry) => !entry.settled && marked.has(entry.action.id))
    .map((entry) => entry.action);

  function startBatch(decision: BatchDecision) {
    if (markedActions.length === 0)
      return setBatchNotice('Mark requests with Space first, then A approves or D denies them.');
    setBatchNotice(undefined);
    setBatch({ stage: 'confirm', plan: planBatch(markedActions, decision) });
  }

  async function sendBatch(plan: BatchStage['plan']) {
    setBatch({ stage: 'sending', plan });
    for (const item of plan.send) answering.current.add(item.action.id);
    try {
      const results = await client.decide(
        plan.send.map((item) => ({ actionId: item.action.id, resolution: item.answer })),
      );
      const outcomes = plan.send.map((item) =>
        batchOutcome(
          item,
          results.find((result) => result.actionId === item.action.id),
          props.who,
        ),
      );
      let next = entriesRef.current;
      for (const [index, item] of plan.send.entries()) {
        const result = results.find((candidate) => candidate.actionId === item.action.id);
        if (result?.status === 200) {
          next = markSettled(next, { ...item.action, status: 'resolved', resolution: item.answer as never }, true);
        } else if (outcomes[index].state === 'answered') {
          const problem = answerProblem(toClientError(result));
          if (problem.type === 'taken')
            next = markSettled(next, { ...item.action, ...problem.settled } as ActionView, false);
          else if (problem.type === 'lapsed') next = markSettled(next, { ...item.action, status: 'expired' }, false);
        }
      }
      setEntries(next);
      setMarked(new Set());
      setBatch({ stage: 'done', plan, outcomes });
    } catch (thrown) {
      // The whole request failed (the server away, signed out): nothing was settled, the marks stay.
      setBatch({ stage: 'confirm', plan, error: answerProblem(thrown).message });
    } finally {
      for (const item of plan.send) answering.current.delete(item.action.id);
    }
  }

  useKeys(
    (input, key) => {
      if (filtering) {
        // Every printable key types into the filter; the arrows still move.
        if (key.escape) return (setFilter(''), setFiltering(false), setCursor(0));
        if (key.return) return setFiltering(false);
        if (key.upArrow) return setCursor((current) => moveCursor(current, -1, shown.length));
        if (key.downArrow) return setCursor((current) => moveCursor(current, 1, shown.length));
        if (key.backspace || key.delete)
          return (setFilter((current) => Array.from(current).slice(0, -1).join('')), setCursor(0));
        if (!key.ctrl && !key.meta && input && !key.tab) return (setFilter((current) => current + input), setCursor(0));
        return;
      }
      if (input === 'q') return exit();
      if (input === '?') return setHelp(true);
      if (input === '/') return setFiltering(true);
      if (key.escape && filter) return (setFilter(''), setCursor(0));
      if (key.upArrow || input === 'k') return setCursor((current) => moveCursor(current, -1, shown.length));
      if (key.downArrow || input === 'j') return setCursor((current) => moveCursor(current, 1, shown.length));
      if (key.home) return setCursor(0);
      if (key.end) return setCursor(Math.max(0, shown.length - 1));
      if (input === 'r') return void refresh();
      // E: give the selected request more time (whoever may answer it may).
      if (input === 'E' && shown[selected] && !shown[selected].settled) {
        setNotice(undefined);
        return setExtending(shown[selected].action);
      }
      if (input === ' ' && shown[selected] && !shown[selected].settled) {
        const id = shown[selected].action.id;
        setBatchNotice(undefined);
        setMarked((before) => {
          const next = new Set(before);
          if (next.has(id)) next.delete(id);
          else next.add(id);
          return next;
        });
        return setCursor((current) => moveCursor(current, 1, shown.length));
      }
      if (input === 'A') return startBatch('approve');
      if (input === 'D') return startBatch('deny');
      if (key.return && shown[selected]) {
        setNotice(undefined);
        setNow(clock());
        setOpenId(shown[selected].action.id);
      }
    },
    { isActive: !open && !help && !extending && !batch },
  );

  let view = null;
  if (open) {
    const viewProps: RequestViewProps = {
      action: open.action,
      agent: agentOf(open.action) || undefined,
      system,
      async send(resolution) {
        answering.current.add(open.action.id);
        try {
          return await sendAnswer(client, open.action, resolution);
        } finally {
          answering.current.delete(open.action.id);
        }
      },
      settled: open.settled && !open.settled.byMe ? open.settled : undefined,
      rows,
      columns,
      now,
      onAnswered(stored) {
        setEntries(markSettled(entriesRef.current, stored, true));
        setOpenId(undefined);
      },
      onSettled(settled: Settled) {
        setEntries(
          markSettled(
            entriesRef.current,
            { ...open.action, ...settled, status: settled.status === 'pending' ? 'resolved' : settled.status },
            false,
          ),
        );
      },
      onBack: () => setOpenId(undefined),
      onHelp: () => setHelp(true),
    };
    view = <RequestView key={open.action.id} {...viewProps} />;
  }

  // On a wide terminal the selected request is shown beside the list.
  const wide = columns >= WIDE_COLUMNS;
  const listWidth = wide ? listColumns(columns) : columns;
  const list = (
    <ListView
      entries={shown}
      cursor={selected}
      agents={agents.current}
      status={status}
      error={error}
      notice={batchNotice}
      marked={new Set(markedActions.map((action) => action.id))}
      anonymous={props.anonymous}
      server={props.server}
      who={props.who}
      waiting={entries.filter((entry) => !entry.settled).length}
      filter={
        filtering || filter
          ? { text: filter, typing: filtering, shown: shown.length, total: entries.length }
          : undefined
      }
      now={now}
      columns={wide ? listWidth - 1 : listWidth}
      rows={rows}
    />
  );
  return (
    <ColorContext.Provider value={props.color ?? true}>
      {help ? <HelpView columns={columns} onClose={() => setHelp(false)} /> : null}
      {/* Hidden, not unmounted, under the key help: an open request keeps what was typed into it. */}
      <KeysEnabled.Provider value={!help}>
        <Box display={help ? 'none' : 'flex'} flexDirection="column">
          {batch ? (
            <BatchView
              batch={batch}
              columns={columns}
              onSend={() => void sendBatch(batch.plan)}
              onClose={() => setBatch(undefined)}
            />
          ) : null}
          {batch
            ? null
            : (view ??
              (wide ? (
                <Box flexDirection="row">
                  <Box width={listWidth} flexDirection="column">
                    {list}
                  </Box>
                  <DetailPane
                    action={shown[selected]?.action}
                    agent={shown[selected] ? agentOf(shown[selected].action) || undefined : undefined}
                    width={columns - listWidth}
                    height={rows - 1}
                    now={now}
                  />
                </Box>
              ) : (
                list
              )))}
          {!batch && !view && extending ? (
            <ExtendPrompt
              client={client}
              action={extending}
              columns={columns}
              onDone={(outcome) => {
                setExtending(undefined);
                setNotice(outcome);
                if (outcome && !outcome.bad) void refresh();
              }}
            />
          ) : null}
          {!batch && !view && !extending && notice ? <Say tone={notice.bad ? 'bad' : 'good'}>{notice.text}</Say> : null}
        </Box>
      </KeysEnabled.Provider>
    </ColorContext.Provider>
  );
}

/** A batch result's body as the error the single answer would have thrown, to read it the same way. */
function toClientError(result: { status: number; body: unknown } | undefined): unknown {
  const body = result?.body as { error?: ConstructorParameters<typeof HeedClientError>[1] } | undefined;
  return new HeedClientError(result?.status ?? 0, body?.error ?? { code: 'http_error', message: '' });
}

/** The terminal view of each kind with one of its own, keyed by the kind's name; another kind gets the generic view. */
const requestViews: {
  readonly [K in KindName]?: (props: RequestViewProps<Extract<ActionView, { kind: K }>>) => ReactElement;
} = {
  approval: ApprovalView,
  question: QuestionView,
  url: UrlView,
  client_tool: ClientToolView,
};

/** The view of one request, by its kind. */
function RequestView(props: RequestViewProps) {
  // The entry for `action.kind` takes that kind's view, which `action` is; TypeScript cannot follow the two together.
  const View = requestViews[props.action.kind] as ((props: RequestViewProps) => ReactElement) | undefined;
  return View ? <View {...props} /> : <GenericView {...props} />;
}
