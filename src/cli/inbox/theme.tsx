import { Text, useStdout } from 'ink';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

/** Off when `NO_COLOR` is set or the output is not a terminal: then nothing but plain text is written. */
export const ColorContext = createContext(true);

export type Tone = 'plain' | 'dim' | 'accent' | 'good' | 'warn' | 'bad' | 'strong';

const COLORS: Partial<Record<Tone, string>> = { accent: 'cyan', good: 'green', warn: 'yellow', bad: 'red' };

/** Text in a tone; with colour off, the words alone. */
export function Say({
  tone = 'plain',
  children,
  wrap,
}: {
  tone?: Tone;
  children?: ReactNode;
  wrap?: 'wrap' | 'truncate-end';
}) {
  const color = useContext(ColorContext);
  if (!color) return <Text wrap={wrap}>{children}</Text>;
  return (
    <Text wrap={wrap} color={COLORS[tone]} dimColor={tone === 'dim'} bold={tone === 'strong' || tone === 'bad'}>
      {children}
    </Text>
  );
}

/** The terminal's size, following resizes (80×24 when the output does not say). */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // `read` is new on every render but reads only `stdout`.
  }, [stdout]);
  return size;
}

/** A one-line text field: what was typed, and a caret while it has the keys. */
export function Field({
  label,
  text,
  focused,
  placeholder,
}: {
  label?: string;
  text: string;
  focused: boolean;
  placeholder?: string;
}) {
  return (
    <Text>
      {label ? `${label} ` : ''}
      {text === '' && placeholder && !focused ? <Say tone="dim">{placeholder}</Say> : text}
      {focused ? '▏' : ''}
    </Text>
  );
}

/** The key help at the bottom of a view. */
export function Keys({ children }: { children: string }) {
  return <Say tone="dim">{children}</Say>;
}
