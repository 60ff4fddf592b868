import { registerClientTool } from 'heed/react';

/**
 * What the console can do for an agent: `page` tools read the text last selected in the console
 * (outside the message box), e.g. the demo `page-helper` agent's `get_selection`.
 */
let lastSelection = '';
const listeners = new Set<() => void>();

function isEditable(node: Node | null): boolean {
  const element = node instanceof Element ? node : node?.parentElement;
  return Boolean(element?.closest('input, textarea, [contenteditable="true"]'));
}

/** The text a `page` tool would send now (what its card shows before the person lets it run). */
export function pageSelection(): string {
  return lastSelection.slice(0, 10_000);
}

/** Calls `listener` when the text a `page` tool would send changes. */
export function subscribePageSelection(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function installConsoleClientTools(): () => void {
  const onSelection = () => {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed || isEditable(selection.anchorNode)) return;
    const text = selection.toString().trim();
    if (!text || text === lastSelection) return;
    lastSelection = text;
    for (const listener of [...listeners]) listener();
  };
  document.addEventListener('selectionchange', onSelection);
  const unregister = registerClientTool('page', () => ({ text: pageSelection() }));
  return () => {
    document.removeEventListener('selectionchange', onSelection);
    unregister();
  };
}
