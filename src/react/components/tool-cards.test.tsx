import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { urlView } from '../../../test/fixtures/url-action.js';
import type { ActionView, ClientToolActionView } from '../../views.js';
import { ActionCard } from './action-card.js';
import { createToolCardRegistry, dismissalOf, ToolCardsContext, type ToolCardProps } from './tool-cards.js';

const pickFile = {
  ...urlView,
  kind: 'client_tool',
  toolName: 'pick_file',
  clientKind: 'pick-file',
  args: { files: ['a.txt'] },
} as unknown as ClientToolActionView;

const Named = () => <p>by name</p>;
const ByKind = () => <p>by kind</p>;

describe('the card registry', () => {
  it('finds a card by tool name first, then by client kind (client tools only); a removed card is gone', () => {
    const registry = createToolCardRegistry();
    const removeKind = registry.register('pick-file', ByKind);
    expect(registry.find(pickFile)).toBe(ByKind);
    const removeName = registry.register('pick_file', Named);
    expect(registry.find(pickFile)).toBe(Named);
    // A kind name never matches an action of another kind that happens to share a tool name's spelling.
    expect(
      registry.find({ ...urlView, toolName: 'connect', clientKind: 'pick-file' } as ActionView & {
        clientKind: string;
      }),
    ).toBeUndefined();
    const version = registry.version();
    removeName();
    expect(registry.version()).toBeGreaterThan(version);
    expect(registry.find(pickFile)).toBe(ByKind);
    removeKind();
    expect(registry.find(pickFile)).toBeUndefined();
  });

  it("a card's dismiss is its kind's decline; a kind with none has no dismissal", () => {
    expect(dismissalOf({ ...urlView, kind: 'question' } as unknown as ActionView)).toEqual({
      type: 'question',
      dismiss: true,
    });
    expect(dismissalOf({ ...urlView, kind: 'approval' } as unknown as ActionView, ' Too much. ')).toEqual({
      type: 'approval',
      decision: 'deny',
      comment: 'Too much.',
    });
    expect(dismissalOf(pickFile)).toEqual({ type: 'client_tool', error: 'Dismissed by the user.' });
    expect(dismissalOf(urlView)).toEqual({ type: 'url', decision: 'decline' });
    expect(dismissalOf({ ...urlView, kind: 'rating' } as unknown as ActionView)).toBeUndefined();
  });

  it('ActionCard renders the registered card with the built-in one in hand, and the built-in card when none is registered', () => {
    const registry = createToolCardRegistry();
    let given: ToolCardProps | undefined;
    registry.register('connect', (props) => {
      given = props;
      return <div className="mine">{props.builtIn}</div>;
    });
    const onSubmit = async () => ({ ok: true as const });
    const html = renderToString(
      <ToolCardsContext.Provider value={registry}>
        <ActionCard action={urlView} onSubmit={onSubmit} />
      </ToolCardsContext.Provider>,
    );
    expect(html).toMatch(/^<div class="mine"><section/);
    expect(given).toMatchObject({ action: urlView, answer: onSubmit, busy: false, autoFocus: false });
    // Without a registration (the default registry is empty), the built-in card.
    expect(renderToString(<ActionCard action={urlView} onSubmit={onSubmit} />)).toMatch(/^<section/);
  });
});
