import { registerClientTool } from 'heed/react';

/**
 * What the console can do for an agent: `page` tools read the text last selected in the console
 * (outside the message box), e.g. the demo `page-helper` agent's `get_selection`.
 */
let lastSelection = '';

function isEditable(node: Node | null): boolean {
  const element = node instanceof Element ? node : node?.parentElement;
  return Boolean(element?.closest('input, textarea, [contenteditable="true"]'));
}

export function installConsoleClientTools(): () => void {
  const onSelection = () => {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed || isEditable(selection.anchorNode)) return;
    const text = selection.toString().trim();
    if (text) lastSelection = text;
  };
  document.addEventListener('selectionchange', onSelection);
  const unregister = registerClientTool('page', () => ({ text: lastSelection.slice(0, 10_000) }));
  return () => {
    document.removeEventListener('selectionchange', onSelection);
    unregister();
  };
}
