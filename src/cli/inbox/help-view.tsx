import { Box, Text } from 'ink';
import { fit } from './format.js';
import { Keys, Say } from './theme.js';
import { useKeys } from './use-keys.js';

/** Every key of the inbox, by screen. Fits 80×24. */
const SECTIONS: Array<{ title: string; keys: Array<[string, string]> }> = [
  {
    title: 'The list',
    keys: [
      ['↑↓ j k  Home End', 'move; first, last'],
      ['Enter', 'open the request'],
      ['/', 'filter: type, Enter keeps it, Esc clears it'],
      ['E', 'extend the deadline: 1–4 picks how long from now'],
      ['Space', 'mark the request (again: unmark)'],
      ['A  D', 'approve / deny the marked (y confirms)'],
      ['r', 'read the list now'],
      ['q  Ctrl-C', 'quit'],
    ],
  },
  {
    title: 'In a request (Esc back to the list)',
    keys: [
      ['approval', 'a allow · d deny (a comment, then Enter) · r remember'],
      ['', 'e edit the arguments (your $VISUAL/$EDITOR, else here)'],
      ['question', '1–9 or a hotkey pick · Space toggles · Enter next or send'],
      ['', '← previous · s skip · x dismiss'],
      ['', 'in a text field every key types: Esc leaves the field'],
      ['URL', 'o open · a accept · d decline'],
    ],
  },
];

/** The keys, over whatever was on screen; any key goes back to it. */
export function HelpView({ columns, onClose }: { columns: number; onClose(): void }) {
  useKeys(() => onClose());
  const keyWidth = 18;
  return (
    <Box flexDirection="column">
      <Say tone="strong">{fit('Heed inbox — keys', columns)}</Say>
      {SECTIONS.map((section) => (
        <Box key={section.title} flexDirection="column" marginTop={1}>
          <Say tone="accent">{fit(section.title, columns)}</Say>
          {section.keys.map(([key, what], index) => (
            <Text key={index}>{fit(`  ${key.padEnd(keyWidth)}${what}`, columns)}</Text>
          ))}
        </Box>
      ))}
      <Box marginTop={1}>
        <Keys>? shows this in the list and in a request (not while typing) · any key goes back</Keys>
      </Box>
    </Box>
  );
}
